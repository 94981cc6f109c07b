// What a provider reported of its usage before its end (SPEC §10: a stream that ends early is
// settled with what the provider reported so far): `reportedUsage` of ProviderEventStream and of a
// factory's `stream()`, read while the answer streams, after a cut, after a Stop, and after the end.
import { ProviderEventStream, anthropic, gemini } from "../../dist/providers/index.js";
import { assert, assertEqual, type Case, utf8 } from "../harness.ts";
import { fakeFetch } from "./providers.ts";

type Json = Record<string, unknown>;

const antEvent = (e: Json): string => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
const ANT_START = antEvent({
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", model: "claude-x", content: [], usage: { input_tokens: 12, cache_read_input_tokens: 3, cache_creation_input_tokens: 2, output_tokens: 1 } },
}) + antEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) +
  antEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } });
const ANT_END = antEvent({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } }) +
  antEvent({ type: "content_block_stop", index: 0 }) +
  antEvent({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }) +
  antEvent({ type: "message_stop" });

const gemChunk = (text: string, usage: Json, finish?: string): string =>
  `data: ${JSON.stringify({
    candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
    usageMetadata: usage,
    modelVersion: "gemini-x",
  })}\r\n\r\n`;

/** A body that gives `chunks` and then fails (a cut) or waits (until cancelled). */
function body(chunks: string[], then: "cut" | "wait" | "end"): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < chunks.length) return c.enqueue(utf8(chunks[i++]!));
      if (then === "cut") c.error(new TypeError("network error: the connection was reset"));
      else if (then === "end") c.close();
      return then === "wait" ? new Promise<void>(() => {}) : undefined;
    },
  }, { highWaterMark: 0 });
}

/** Reads `stream`'s readable to its end or error; the error (or undefined). */
async function drain(readable: ReadableStream<unknown>): Promise<unknown> {
  const reader = readable.getReader();
  try {
    while (!(await reader.read()).done);
    return undefined;
  } catch (e) {
    return e;
  }
}

export const cases: Case[] = [
  ["reportedUsage: Anthropic's input at message_start while the answer streams and after a cut; the whole usage after message_delta", async () => {
    const stream = new ProviderEventStream("anthropic");
    stream.message.catch(() => {});
    assertEqual(stream.reportedUsage, null, "before any byte");
    const readable = body([ANT_START], "cut").pipeThrough(stream);
    const reader = readable.getReader();
    await reader.read(); // the first text fragment: message_start was read before it
    // cached 3; prompt = input 12 + cache creation 2; message_start's output (1) is a placeholder, not counted
    const input = { cached_tokens: 3, prompt_tokens: 14, thoughts_tokens: null, response_tokens: null };
    assertEqual(stream.reportedUsage, input, "after message_start");
    const error = await reader.read().then(() => reader.read()).then(() => undefined, (e: unknown) => e);
    assert(error !== undefined, "the cut is the stream's error");
    assertEqual(stream.reportedUsage, input, "after the cut: what the provider said stays");
    // a copy: changing it changes nothing
    (stream.reportedUsage as Json).prompt_tokens = 0;
    assertEqual(stream.reportedUsage, input, "a copy each time");

    const whole = new ProviderEventStream("anthropic");
    assertEqual(await drain(body([ANT_START, ANT_END], "end").pipeThrough(whole)), undefined);
    const message = await whole.message;
    assertEqual(whole.reportedUsage, message.usage_metadata, "after the end: the message's usage");
    assertEqual(whole.reportedUsage, { cached_tokens: 3, prompt_tokens: 14, thoughts_tokens: null, response_tokens: 9 });
  }],
  ["reportedUsage: Gemini's counts of its last chunk before a cut (the turn's so far: the last chunk's, a member it leaves out not kept)", async () => {
    const stream = new ProviderEventStream("gemini");
    stream.message.catch(() => {});
    const chunks = [
      gemChunk("Hel", { promptTokenCount: 7, candidatesTokenCount: 1, thoughtsTokenCount: 20, totalTokenCount: 28 }),
      gemChunk("lo", { promptTokenCount: 7, candidatesTokenCount: 2, totalTokenCount: 9 }),
    ];
    const error = await drain(body(chunks, "cut").pipeThrough(stream));
    assert(error !== undefined, "the cut is the stream's error");
    assertEqual(stream.reportedUsage, { cached_tokens: null, prompt_tokens: 7, thoughts_tokens: null, response_tokens: 2 });
    const whole = new ProviderEventStream("gemini");
    const last = gemChunk("", { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 }, "STOP");
    assertEqual(await drain(body([...chunks, last], "end").pipeThrough(whole)), undefined);
    assertEqual(whole.reportedUsage, (await whole.message).usage_metadata, "after the end: the message's usage");
  }],
  ["reportedUsage of a factory's stream(): Anthropic's input after a Stop (what the stopped answer cost as far as the provider said)", async () => {
    const { fetch } = fakeFetch(() => new Response(body([ANT_START], "wait"), { headers: { "content-type": "text/event-stream" } }));
    const events = anthropic({ apiKey: "sk-ant-test-0123456789", fetch }).stream({
      model: "claude-x",
      messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
    });
    events.message.catch(() => {});
    assertEqual(events.reportedUsage, null, "before the answer");
    const reader = events.readable.getReader();
    await reader.read();
    await events.stop();
    await reader.read().catch(() => {});
    assertEqual(events.reportedUsage, { cached_tokens: 3, prompt_tokens: 14, thoughts_tokens: null, response_tokens: null });
    // and Gemini's held counts through its factory
    const g = fakeFetch(() => new Response(body([gemChunk("Hi", { promptTokenCount: 4, candidatesTokenCount: 1 })], "wait"), { headers: { "content-type": "text/event-stream" } }));
    const ge = gemini({ apiKey: "gem-test-0123456789", fetch: g.fetch }).stream({
      model: "gemini-x",
      messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
    });
    ge.message.catch(() => {});
    const gr = ge.readable.getReader();
    await gr.read();
    await ge.stop();
    assertEqual(ge.reportedUsage, { cached_tokens: null, prompt_tokens: 4, thoughts_tokens: null, response_tokens: 1 });
  }],
];
