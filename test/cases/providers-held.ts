// What a provider's reader holds back counts against the stream's limits as it arrives (issue #34,
// SPEC §9): OpenAI Chat tool calls waiting for their turn, a Gemini call's streamed partialArgs, an
// event with no line end, the body itself (`maxResponseBytes`): each a StreamLimitError the moment it
// passes its bound, read no further than about the limit. And OpenAI Chat tool calls stream live
// (issue #35): the first call's fragments are delivered before the finish chunk arrives.
import { StreamLimitError } from "../../dist/index.js";
import { ProviderEventStream } from "../../dist/providers/index.js";
import { assert, assertEqual, assertError, type Case, settle, utf8 } from "../harness.ts";

type Json = Record<string, any>;
const MiB = 1024 * 1024;
const PIECE = "x".repeat(64 * 1024);

/** A body made lazily, one record per chunk, with the count of bytes the reader pulled from it. */
function lazyBody(records: () => Generator<string>): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const it = records();
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = it.next();
      if (next.done) return c.close();
      const bytes = utf8(next.value);
      pulled += bytes.length;
      c.enqueue(bytes);
    },
  }, { highWaterMark: 0 });
  return { body, pulled: () => pulled };
}

const data = (v: Json | string): string => `data: ${typeof v === "string" ? v : JSON.stringify(v)}\n\n`;
const chat = (delta: Json, finish: string | null = null): Json => ({ choices: [{ index: 0, delta, finish_reason: finish }] });
const call = (index: number, fields: Json): Json => chat({ tool_calls: [{ index, ...fields }] });
const USAGE = { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } };
const gemini = (part: Json, more: Json = {}): Json => ({ candidates: [{ content: { role: "model", parts: [part] }, ...more }] });

async function read(provider: string, options: Json, records: () => Generator<string>) {
  const { body, pulled } = lazyBody(records);
  const stream = new ProviderEventStream(provider as "openai-chat", options);
  const r = await settle(body.pipeThrough(stream), stream.message);
  return { ...r, pulled: pulled() };
}

/** Reads one value, or fails after `ms` (what has not arrived by then was held). */
async function within<T>(reader: ReadableStreamDefaultReader<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing delivered within ${ms} ms`)), ms)));
  try {
    const r = await Promise.race([reader.read(), late]);
    assert(!r.done, `${what}: the stream ended`);
    return r.value as T;
  } finally {
    clearTimeout(timer);
  }
}

export const cases: Case[] = [
  ["openai-chat: a call waiting for its turn holds at most maxEventBytes; past it a StreamLimitError at once, the rest not read", async () => {
    // call 0 streams live, its arguments open; call 1 interleaves 8 MiB that must wait for it
    const r = await read("openai-chat", { maxEventBytes: MiB }, function* () {
      yield data(call(0, { id: "call_0", type: "function", function: { name: "a", arguments: '{"q": "' } }));
      yield data(call(1, { id: "call_1", type: "function", function: { name: "b", arguments: '{"big": "' } }));
      for (let i = 0; i < 128; i++) yield data(call(1, { function: { arguments: PIECE } }));
      yield data(call(1, { function: { arguments: '"}' } }));
      yield data(call(0, { function: { arguments: '"}' } }));
      yield data(chat({}, "tool_calls")) + data(USAGE) + data("[DONE]");
    });
    assertError(r.error, StreamLimitError, { limit: "maxEventBytes", value: MiB, rule: "LIMIT", eventIndex: 17 });
    assert(r.pulled < 2 * MiB, `read ${r.pulled} bytes of 8 MiB: stopped at the limit`);
    // call 0 went out live; nothing of call 1 did
    assertEqual(r.events.map((e: Json) => e.content_items[0]?.tool_call_id ?? ""), ["call_0"]);
  }],
  ["openai-chat: a run's reasoning_details entries (held until the run ends) past maxEventBytes → a StreamLimitError at once", async () => {
    // an encrypted entry whose data streams in pieces: merged and held for the thinking item's fidelity
    const entry = (d: string): Json => ({ type: "reasoning.encrypted", index: 0, format: "anthropic-claude-v1", data: d });
    const r = await read("openai-chat", { maxEventBytes: MiB }, function* () {
      yield data(chat({ reasoning_details: [entry("")] }));
      for (let i = 0; i < 128; i++) yield data(chat({ reasoning_details: [entry(PIECE)] }));
      yield data(chat({ content: "Hi" }, "stop")) + data(USAGE) + data("[DONE]");
    });
    assertError(r.error, StreamLimitError, { limit: "maxEventBytes", value: MiB, rule: "LIMIT" });
    assert(r.pulled < 2 * MiB, `read ${r.pulled} bytes of 8 MiB: stopped at the limit`);
  }],
  ["openai-chat: held calls past maxItems → a StreamLimitError when the one past it is held, none released in a burst", async () => {
    // indexes 1…2000 and never 0: every call waits for its turn
    const r = await read("openai-chat", { maxItems: 1000 }, function* () {
      for (let i = 1; i <= 2000; i++) yield data(call(i, { id: `call_${i}`, type: "function", function: { name: "f", arguments: "{}" } }));
      yield data(chat({}, "tool_calls")) + data(USAGE) + data("[DONE]");
    });
    assertError(r.error, StreamLimitError, { limit: "maxItems", value: 1000, eventIndex: 1000 });
    assertEqual(r.events.length, 0, "no held call was written");
  }],
  ["gemini: a streamed call's partialArgs hold at most maxEventBytes; past it a StreamLimitError at once", async () => {
    const r = await read("gemini", { maxEventBytes: MiB }, function* () {
      yield data(gemini({ functionCall: { name: "write", partialArgs: [{ jsonPath: "$.body", stringValue: "" }], willContinue: true } }));
      for (let i = 0; i < 128; i++) yield data(gemini({ functionCall: { partialArgs: [{ jsonPath: "$.body", stringValue: PIECE }], willContinue: true } }));
      yield data(gemini({ functionCall: {} }, { finishReason: "STOP" }));
    });
    assertError(r.error, StreamLimitError, { limit: "maxEventBytes", value: MiB, rule: "LIMIT" });
    assert(r.pulled < 2 * MiB, `read ${r.pulled} bytes of 8 MiB: stopped at the limit`);
  }],
  ["providers: an event with no line end holds at most maxEventBytes (every provider)", async () => {
    for (const provider of ["openai-chat", "anthropic", "openai-responses", "gemini"]) {
      const r = await read(provider, { maxEventBytes: MiB }, function* () {
        yield 'data: {"x": "';
        for (let i = 0; i < 128; i++) yield PIECE;
      });
      assertError(r.error, StreamLimitError, { limit: "maxEventBytes", value: MiB, eventIndex: 0 });
      assert(r.pulled < 2 * MiB, `${provider}: read ${r.pulled} bytes of 8 MiB`);
    }
  }],
  ["providers: maxResponseBytes bounds the bytes read from the body, whatever they make (keep-alives too)", async () => {
    const r = await read("openai-chat", { maxResponseBytes: MiB }, function* () {
      const ping = `: ${PIECE}\n\n`;
      for (let i = 0; i < 128; i++) yield ping;
    });
    assertError(r.error, StreamLimitError, { limit: "maxResponseBytes", value: MiB, byteOffset: MiB });
    assert(r.pulled < MiB + 2 * PIECE.length, `read ${r.pulled} bytes of 8 MiB`);
  }],
  ["openai-chat: tool calls stream live — the first call's fragments, then a sequential call's, delivered before the finish chunk arrives (SPEC §9)", async () => {
    let source!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (source = c) });
    const stream = new ProviderEventStream("openai-chat");
    stream.message.catch(() => {});
    const reader = body.pipeThrough(stream).getReader();
    const push = (v: Json | string): void => source.enqueue(utf8(data(v)));
    const item = async (what: string): Promise<Json> => (await within<Json>(reader, 2000, what)).content_items[0];

    push(chat({ role: "assistant", content: null }));
    push(call(0, { id: "call_a", type: "function", function: { name: "weather", arguments: "" } }));
    assertEqual(await item("call 0's header"), { type: "tool_call.delta", name: "weather", tool_call_id: "call_a", arguments: "" });
    push(call(0, { function: { arguments: '{"city": ' } }));
    assertEqual((await item("call 0's first piece")).arguments, '{"city": ');
    push(call(0, { function: { arguments: '"Paris"}' } }));
    assertEqual((await item("call 0's last piece")).arguments, '"Paris"}');
    // a sequential call: call 0 closed its JSON, so call 1 ends it and streams live in its turn
    push(call(1, { id: "call_b", type: "function", function: { name: "time", arguments: '{"tz": "CET"}' } }));
    assertEqual(await item("call 0's .done"), { type: "tool_call.done", name: "weather", tool_call_id: "call_a", arguments: { city: "Paris" } });
    assertEqual(await item("call 1's header"), { type: "tool_call.delta", name: "time", tool_call_id: "call_b", arguments: '{"tz": "CET"}' });
    // only now the finish
    push(chat({}, "tool_calls"));
    push(USAGE);
    push("[DONE]");
    source.close();
    assertEqual((await item("call 1's .done")).type, "tool_call.done");
    const stop = await within<Json>(reader, 2000, "the stop");
    assertEqual([stop.event_type, stop.finish_reason], ["stop", "tool_call"]);
    assert((await reader.read()).done, "the stream ends");
    assertEqual((await stream.message).content_items.map((i: Json) => i.tool_call_id), ["call_a", "call_b"]);
  }],
];
