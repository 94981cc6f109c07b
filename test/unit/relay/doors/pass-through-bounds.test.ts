// Same API in, same provider out (issue #47), under the relay's bounds: a passed-through answer's bytes
// are held only until the relay's reader has read them as events, so an event larger than
// MAX_EVENT_BYTES ends the client's answer with an error once the reader passes the bound — the
// bytes held never more than the bound and one chunk — and the provider's body is read no further. In
// Node, the Messages door in front of an Anthropic target that sends one endless text delta.
import { expect, test } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";

const ORIGIN = "https://relay.test";
const KEY = "sk-ant-pass-through-bounds-KEY";
const RELAY_KEY = "sk-relay-pass-through-bounds-app";
const LIMIT = 64 * 1024;
const CHUNK = 1024;
const utf8 = new TextEncoder();

/** An Anthropic API whose answer opens a text block, says "Hello", then sends one delta that never ends, a chunk per pull (`pulled` counts them). */
function endless() {
  const seen = { pulled: 0, cancelled: false };
  const head = 'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant",' +
    '"model":"claude-target","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n' +
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}\n\n' +
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"';
  const fetch = (): Promise<Response> =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(seen.pulled++ === 0 ? utf8.encode(head) : utf8.encode("x".repeat(CHUNK)));
          },
          cancel() {
            seen.cancelled = true;
          },
        }, { highWaterMark: 0 }),
        { headers: { "content-type": "text/event-stream", "request-id": "req_bounds" } },
      ),
    );
  return { seen, fetch };
}

test("a passed-through event larger than MAX_EVENT_BYTES: the client's answer errors after at most the bound and a chunk, the provider's body read no further", async () => {
  const provider = endless();
  const relay = createRelay({
    models: {
      "claude-sonnet-4-5": {
        provider: anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: provider.fetch }),
        model: "claude-target",
      },
    },
  });
  const answer = await relay.fetch(
    new Request(`${ORIGIN}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": RELAY_KEY },
      body: JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Hi" }] }),
    }),
    { MAX_EVENT_BYTES: String(LIMIT), RELAY_KEYS: JSON.stringify({ app: RELAY_KEY }) },
  );
  expect(answer.status).toBe(200);
  const reader = answer.body!.getReader();
  let received = 0;
  let first = "";
  const ended = await (async () => {
    for (;;) {
      const r = await reader.read();
      if (r.done) return "closed";
      if (received === 0) first = new TextDecoder().decode(r.value);
      received += r.value.byteLength;
    }
  })().catch((e: unknown) => e);
  expect(first, "passed through: the provider's own bytes").toContain('"model":"claude-target"');
  expect(ended, "the answer ends with the reader's error, not a clean end").toBeInstanceOf(Error);
  expect(String((ended as Error).message)).toMatch(/MAX_EVENT_BYTES|event/i);
  expect(received).toBeLessThanOrEqual(LIMIT + 2 * CHUNK + 1024);
  expect(provider.seen.pulled * CHUNK).toBeLessThanOrEqual(LIMIT + 4 * CHUNK); // (read no further than the bound)
  await new Promise((r) => setTimeout(r, 10));
  expect(provider.seen.cancelled, "the provider's body cancelled").toBe(true);
});
