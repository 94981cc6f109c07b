// An answer of the models table (src/relay/stream/answer.ts) read its two ways: its events taken directly
// (what the stream's object and the stateless pipe do in the isolate that made it) and its SSE body
// read by fromResponse (what they did before, and what any other reader of the Response gets). On
// random provider streams — whole, cut after any event, in any chunking, Anthropic and OpenAI Chat —
// the client gets the same bytes either way (created_at aside: each answer is a new request).
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { expect, test, vi } from "vitest";
import { fromResponse, SseEncoderStream, type UniEvent } from "../../../../src/index.ts";
import { anthropic, openaiChat } from "../../../../src/providers/index.ts";
import { checkedEvents, reportedUsageOf, takeEvents } from "../../../../src/relay/stream/answer.ts";
import { servedAnswer } from "../../../../src/relay/routing/fallback.ts";
import { limits } from "../../../../src/relay/admission/limits.ts";
import { type MmspBody, type RelayModel } from "../../../../src/relay/routing/models.ts";
import { watchdogOf } from "../../../../src/relay/routing/watchdog.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

const KEY = "sk-unit-answer-KEY-0123456789";
vi.spyOn(console, "error").mockImplementation(() => {}); // (the relay logs each provider failure; the cuts here are on purpose)
const sample = (name: string) => parseCapture(readFileSync(new URL(`../../../../samples/providers/${name}.sse`, import.meta.url), "utf8"));
const CAPTURES = { anthropic: sample("anthropic"), "openai-chat": sample("openai-chat") };
const events = (name: keyof typeof CAPTURES): number => new TextDecoder().decode(CAPTURES[name].body).split("\n\n").filter((r) => r.trim()).length;

/** A row of one target: `name`'s fake provider streaming its sample with `stream`'s options. */
function rowOf(name: keyof typeof CAPTURES, stream: Record<string, unknown>): RelayModel {
  const fake = fakeProvider(name, { streams: { m: { capture: CAPTURES[name], ...stream } }, key: KEY });
  const provider = name === "anthropic"
    ? anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake })
    : openaiChat({ apiKey: KEY, baseURL: "https://api.openai.test/v1", fetch: fake });
  return { provider, model: "m" };
}

const body: MmspBody = { model: "m", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config: {} };
const serve = (row: RelayModel): Promise<Response> =>
  servedAnswer(row, body, new AbortController().signal, { bounds: limits({}), watchdog: watchdogOf({}) });

/** `readable` as the client gets it (SSE), its times left out. */
async function clientText(readable: ReadableStream<UniEvent>): Promise<string> {
  const text = await new Response(readable.pipeThrough(new SseEncoderStream())).text();
  return text.replace(/"created_at":\d+/g, '"created_at":0');
}

test("taken or read: the same client bytes on random provider streams (whole, cut after any event, any chunking)", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom<keyof typeof CAPTURES>("anthropic", "openai-chat"),
      fc.option(fc.nat(40), { nil: undefined }),
      fc.integer({ min: 1, max: 1000 }),
      async (name, cut, seed) => {
        const stream = { chunking: "random", seed, ...(cut === undefined ? {} : { cutAfterEvents: Math.min(cut, events(name)) }) };
        const taken = await serve(rowOf(name, stream));
        const read = await serve(rowOf(name, stream));
        // (cut before the first event: the provider's failure is the answer, a refusal with no events)
        expect(read.status).toBe(taken.status);
        if (taken.status !== 200) return;
        const direct = await clientText(checkedEvents(taken, { client: name }));
        const viaBody = await clientText(fromResponse(read, { client: name }).readable);
        expect(direct).toBe(viaBody);
        if (cut !== undefined && cut < events(name)) expect(direct).toContain('{"error":');
      },
    ),
    { numRuns: 40 },
  );
});

test("the events are taken once, and only while the body was not read; a body read after a take fails plainly", async () => {
  const first = await serve(rowOf("anthropic", {}));
  const taken = takeEvents(first);
  expect(taken?.checked).toBe(true); // (one target, no continuation: the provider reader's own events)
  expect(takeEvents(first)).toBeNull();
  await expect(first.text()).rejects.toThrow(/taken/);
  await taken!.events.cancel();

  const second = await serve(rowOf("anthropic", {}));
  const reader = second.body!.getReader();
  await reader.read(); // the SSE body is being made: the events are its
  expect(takeEvents(second)).toBeNull();
  await reader.cancel();
  // any other Response: nothing to take, nothing reported
  const plain = new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
  expect(takeEvents(plain)).toBeNull();
  expect(reportedUsageOf(plain)).toBeUndefined();
  expect(reportedUsageOf(second)?.()).toMatchObject({ prompt_tokens: 18 }); // (the sample's message_start)
});

test("a row that may continue passes its events through the grammar check (a continuation joins two targets' events)", async () => {
  const a = rowOf("anthropic", { cutAfterEvents: 5 });
  const b = rowOf("anthropic", {});
  b.provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fakeProvider("anthropic", { streams: { m: { capture: CAPTURES.anthropic } }, key: KEY }) });
  const answer = await servedAnswer([{ ...a, continueOnFailure: true }, b], body, new AbortController().signal, { bounds: limits({}), watchdog: watchdogOf({}) });
  const taken = takeEvents(answer);
  expect(taken?.checked).toBe(false);
  await taken!.events.cancel();
});
