// A hostile provider meets the relay's bounds (issue #34): the provider's reader gets them
// (src/relay/routing/models.ts providerLimits), so what it holds back stops at MAX_EVENT_BYTES — OpenAI Chat
// tool-call arguments waiting for a call that never ends (no finish_reason), one event with no line
// end — as a StreamLimitError event stored by the stream's Durable Object, not held to the body's
// end. The figures (bytes read from the provider, memory) are printed by scripts/relay-bounds.mjs.
import { env } from "cloudflare:test";
import { expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN, textOf } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };

/** POST /v1/stream for "gpt-fast" (worker/models.ts) with the scripted provider's `script` (providers.ts). */
async function answer(script: string): Promise<{ status: number; last: string }> {
  const body = JSON.stringify({
    model: "gpt-fast",
    messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${newTag()} script:${script}` }] }],
  });
  const headers = { "content-type": "application/json", "x-relay-key": RELAY_KEY };
  const res = await worker.fetch(new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers, body }), keyed);
  const text = await textOf(res);
  return { status: res.status, last: text.split("\n\n").filter((b) => b.includes("data: {")).at(-1) ?? "" };
}

test("tool-call arguments held for a call that never ends: a StreamLimitError at MAX_EVENT_BYTES (16 MiB), not the body's 24 MiB held", async () => {
  const { status, last } = await answer("held");
  expect(status).toBe(200);
  expect(last).toMatch(/"error":\{"type":"StreamLimitError","message":"what the reader holds back to write later exceeds maxEventBytes=16777216/);
});

test("one provider event with no line end: a StreamLimitError at MAX_EVENT_BYTES (16 MiB)", async () => {
  const { status, last } = await answer("unterminated");
  expect(status).toBe(200);
  expect(last).toMatch(/"error":\{"type":"StreamLimitError","message":"event 0 exceeds maxEventBytes=16777216/);
});
