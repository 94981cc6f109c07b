// Issue #44, SPEC §9: an item whose `.done` would pass `maxEventBytes` (a call's arguments streamed
// live, text, thinking, audio) is a StreamLimitError the moment its fragments pass it, on every
// provider and both of the assembler's ways, the events before it delivered and the rest of the body
// not read — not a `.done` no reader takes, built at the end (the MMSP reader refuses such an event).
import { StreamLimitError } from "../../dist/index.js";
import { ProviderEventStream } from "../../dist/providers/index.js";
import { shortWay } from "../../dist/providers/assembler.js";
import { assert, assertEqual, assertError, type Case, settle, utf8 } from "../harness.ts";

type Json = Record<string, any>;

const data = (v: Json | string): string => `data: ${typeof v === "string" ? v : JSON.stringify(v)}\n\n`;
const named = (e: Json): string => `event: ${e.type}\n${data(e)}`;
const chatChunk = (delta: Json, finish: string | null = null): Json => ({ choices: [{ index: 0, delta, finish_reason: finish }] });
const respResponse = (status: string, usage: unknown): Json => ({ id: "resp_1", object: "response", status, model: "gpt-x", output: [], usage });

// ---- a group past maxEventBytes ------------------------------------------------------------------------

const MAX = 4096;
const PIECE = "x".repeat(512); // 9 pieces pass MAX; each record well within it
const PIECES = 40; // a .done five times MAX, had it been built

/** A body made lazily, one record per chunk, with the count of bytes the reader pulled from it. */
function lazyBody(records: string[]): { body: ReadableStream<Uint8Array>; pulled: () => number; total: number } {
  let i = 0;
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i === records.length) return c.close();
      const bytes = utf8(records[i++]!);
      pulled += bytes.length;
      c.enqueue(bytes);
    },
  }, { highWaterMark: 0 });
  return { body, pulled: () => pulled, total: records.reduce((n, r) => n + utf8(r).length, 0) };
}

const pieces = (make: (piece: string, i: number) => string): string[] => Array.from({ length: PIECES }, (_, i) => make(PIECE, i));
const base64Piece = btoa(PIECE.slice(0, 384)); // 384 bytes: 512 characters of base64

/** Per provider and kind: the records before the fragments, the fragments, the records after; and the member that grows. */
const GROWING: [string, string, string, string[], string[], string[]][] = [
  ["openai-chat", "text", "text", [data(chatChunk({ role: "assistant", content: "" }))], pieces((p) => data(chatChunk({ content: p }))), [
    data(chatChunk({}, "stop")),
    data("[DONE]"),
  ]],
  ["openai-chat", "a tool call streamed live (the issue's 8 MiB call)", "arguments", [], pieces((p, i) =>
    data(chatChunk({ tool_calls: [{ index: 0, ...(i === 0 ? { id: "call_1", type: "function" } : {}), function: { ...(i === 0 ? { name: "f" } : {}), arguments: p } }] }))
  ), [data(chatChunk({}, "tool_calls")), data("[DONE]")]],
  ["openai-chat", "reasoning", "thinking", [], pieces((p) => data(chatChunk({ reasoning_content: p }))), [data(chatChunk({ content: "Hi" }, "stop"))]],
  ["openai-responses", "text", "text", [
    named({ type: "response.output_item.added", output_index: 0, item: { id: "msg_1", type: "message", role: "assistant", content: [] } }),
  ], pieces((p) => named({ type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: p })), [
    named({ type: "response.completed", response: respResponse("completed", { input_tokens: 1, output_tokens: 1 }) }),
  ]],
  ["openai-responses", "function call arguments", "arguments", [
    named({ type: "response.output_item.added", output_index: 0, item: { id: "fc_1", type: "function_call", call_id: "call_1", name: "f", arguments: "" } }),
  ], pieces((p) => named({ type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: p })), []],
  ["openai-responses", "reasoning summary", "thinking", [], pieces((p) =>
    named({ type: "response.reasoning_summary_text.delta", item_id: "rs_1", output_index: 0, summary_index: 0, delta: p })
  ), []],
  ["anthropic", "text", "text", [
    named({ type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 1 } } }),
    named({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
  ], pieces((p) => named({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: p } })), []],
  ["anthropic", "thinking", "thinking", [
    named({ type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 1 } } }),
    named({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
  ], pieces((p) => named({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: p } })), []],
  ["anthropic", "a tool call's input_json_delta", "arguments", [
    named({ type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 1 } } }),
    named({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "f", input: {} } }),
  ], pieces((p) => named({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: p } })), []],
  ["gemini", "text", "text", [], pieces((p) => data({ candidates: [{ content: { role: "model", parts: [{ text: p }] }, index: 0 }] })), []],
  ["gemini", "thought", "thinking", [], pieces((p) => data({ candidates: [{ content: { role: "model", parts: [{ text: p, thought: true }] }, index: 0 }] })), []],
  ["gemini", "one audio stream's chunks (bytes: their base64)", "data", [], pieces(() =>
    data({ candidates: [{ content: { role: "model", parts: [{ inlineData: { mimeType: "audio/pcm", data: base64Piece } }] }, index: 0 }] })
  ), []],
];

async function pastTheLimit(provider: string, member: string, before: string[], fragments: string[], after: string[], way: string): Promise<void> {
  const { body, pulled, total } = lazyBody([...before, ...fragments, ...after]);
  const stream = new ProviderEventStream(provider as "openai-chat", { maxEventBytes: MAX });
  const r = await settle(body.pipeThrough(stream), stream.message);
  // the 9th fragment passes MAX (9 × 512 characters; 9 × 384 bytes, 9 × 512 of base64)
  assertError(r.error, StreamLimitError, { limit: "maxEventBytes", value: MAX, rule: "LIMIT", eventIndex: before.length + 8 });
  const message = (r.error as Json).message;
  assert(/the \.done of the \w+ item its fragments make exceeds maxEventBytes=4096/.test(message), `${way}: ${message}`);
  const items = (r.events as Json[]).map((e) => e.content_items[0]);
  assert(items.every((i) => i.type.endsWith(".delta")), `${way}: no .done went out: ${items.map((i) => i.type)}`);
  const grown = items.reduce((n, i) => n + (typeof i[member] === "string" ? i[member].length : i[member]?.length ?? 0), 0);
  assertEqual(grown, 8 * (member === "data" ? 384 : 512), `${way}: the 8 fragments before the one that passed it were delivered, not it`);
  assert(pulled() < total / 2, `${way}: read ${pulled()} of ${total} bytes: stopped where it passed`);
}

const groupCases: Case[] = GROWING.map(([provider, what, member, before, fragments, after]): Case => [
  `group past maxEventBytes: ${provider}: ${what} → StreamLimitError as its fragments pass it, the events before delivered, the rest not read`,
  async () => {
    // both of the assembler's ways: the short one (a fragment continuing the open item) and the general one
    for (const short of [true, false]) {
      shortWay.on = short;
      try {
        await pastTheLimit(provider, member, before, fragments, after, short ? "short way" : "general way");
      } finally {
        shortWay.on = true;
      }
    }
  },
]);

export const cases: Case[] = groupCases;
