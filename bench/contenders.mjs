// The readers the benchmark compares. Each `run(chunks, format, hooks)` replays `chunks` (views of
// one corpus) as a ReadableStream, reads everything, and returns what it saw so the runner can
// check that every contender really read the whole stream:
//   { events }  UniEvents seen (the stop event included, `[DONE]` not), or
//   { groups }  done items of the finished message (UniEventStream drain: events are not visible).
// `hooks.onPull` runs before each chunk is handed out, `hooks.onEvent` on each event (memory sampling).
//
// The library is imported from the BUILT dist/index.js (or MMSP_DIST, a path or URL).
import { pathToFileURL } from "node:url";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { parseJsonEventStream } from "@ai-sdk/provider-utils";
import { Stream as OpenAIStream } from "openai/streaming";
import { z } from "zod";
import { replay } from "./corpora.mjs";

const spec = process.env.MMSP_DIST;
export const DIST_URL = spec ? (/^[a-z]+:/i.test(spec) ? spec : pathToFileURL(spec).href) : new URL("../dist/index.js", import.meta.url).href;
const lib = await import(DIST_URL);
export const { UniEventStream, UniEventSchema, decodeBase64 } = lib;

const sseData = (line) => (line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));

/**
 * The floor: TextDecoderStream, split on "\n" in a consumer-side loop, JSON.parse of each NDJSON
 * line / SSE `data:` payload. No validation, no assembly. Linear: only the new chunk is searched
 * for "\n", pieces of a long line are joined once.
 */
async function floor(chunks, format, hooks = {}) {
  const reader = replay(chunks, hooks.onPull).pipeThrough(new TextDecoderStream()).getReader();
  const sse = format === "sse";
  const onEvent = hooks.onEvent;
  let events = 0;
  let pending = [];
  const line = (text) => {
    if (sse) {
      if (!text.startsWith("data:")) return;
      const data = sseData(text);
      if (data === "[DONE]") return;
      const e = JSON.parse(data);
      events++;
      onEvent?.(e);
    } else if (text.length) {
      const e = JSON.parse(text);
      events++;
      onEvent?.(e);
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let start = 0;
    let i;
    while ((i = value.indexOf("\n", start)) !== -1) {
      let text = value.slice(start, i);
      if (pending.length) {
        pending.push(text);
        text = pending.join("");
        pending = [];
      }
      line(text);
      start = i + 1;
    }
    if (start < value.length) pending.push(value.slice(start));
  }
  if (pending.length) line(pending.join(""));
  return { events };
}

/** eventsource-parser's EventSourceParserStream + JSON.parse. */
async function eventsourceParser(chunks, _format, hooks = {}) {
  const reader = replay(chunks, hooks.onPull).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  const onEvent = hooks.onEvent;
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.data === "[DONE]") continue;
    const e = JSON.parse(value.data);
    events++;
    onEvent?.(e);
  }
  return { events };
}

// ---- eventsource-parser + zod + a naive assembler ---------------------------------------------

const BYTE_KINDS = new Set(["inline_data", "inline_thinking"]);
const MEMBER = { text: "text", thinking: "thinking", tool_call: "arguments", inline_data: "data", inline_thinking: "data", embedding: "embedding" };

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!deepEqual(a[k], b[k])) return false;
  return true;
}
const emptyFidelity = (f) => f == null || Object.keys(f).length === 0;

/** What a consumer would write by hand: concatenate the fragments of a group, compare with its .done. */
class NaiveAssembler {
  open = null;
  items = [];
  stop = null;
  push(event) {
    if (event.event_type === "stop") {
      if (this.open) throw new Error("stop while a group is open");
      this.stop = event;
      return;
    }
    const item = event.content_items[0];
    const dot = item.type.lastIndexOf(".");
    const kind = item.type.slice(0, dot);
    const value = item[MEMBER[kind]];
    if (item.type.endsWith(".delta")) {
      if (!this.open) this.open = { kind, first: item, parts: [], fidelity: null };
      else if (this.open.kind !== kind) throw new Error(`interleaved ${kind} in an open ${this.open.kind} group`);
      this.open.parts.push(value);
      if (!emptyFidelity(item.fidelity)) this.open.fidelity = item.fidelity;
      return;
    }
    const g = this.open;
    if (!g || g.kind !== kind) throw new Error(`${item.type} without its deltas`);
    this.open = null;
    let same;
    if (kind === "tool_call") {
      const text = g.parts.join("");
      same = deepEqual(text === "" ? {} : JSON.parse(text), value);
    } else if (BYTE_KINDS.has(kind)) {
      const total = g.parts.reduce((n, p) => n + p.length, 0);
      const joined = new Uint8Array(total);
      let o = 0;
      for (const p of g.parts) {
        joined.set(p, o);
        o += p.length;
      }
      same = joined.length === value.length;
      for (let i = 0; same && i < joined.length; i++) same = joined[i] === value[i];
    } else if (kind === "embedding") {
      same = g.parts.length === 1 && deepEqual(g.parts[0], value);
    } else {
      same = g.parts.join("") === value;
    }
    if (!same) throw new Error(`${item.type} differs from its fragments`);
    if (!deepEqual(emptyFidelity(g.fidelity) ? null : g.fidelity, emptyFidelity(item.fidelity) ? null : item.fidelity)) throw new Error("fidelity differs");
    this.items.push(item);
  }
}

/** eventsource-parser + JSON.parse + base64 decoding of inline data + UniEventSchema.safeParse + NaiveAssembler. */
async function eventsourceParserZod(chunks, _format, hooks = {}) {
  const reader = replay(chunks, hooks.onPull).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  const onEvent = hooks.onEvent;
  const assembler = new NaiveAssembler();
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.data === "[DONE]") continue;
    const raw = JSON.parse(value.data);
    for (const item of raw.content_items ?? []) {
      if (typeof item.data === "string" && (item.type?.startsWith("inline_data.") || item.type?.startsWith("inline_thinking."))) {
        const bytes = decodeBase64(item.data);
        if (!bytes) throw new Error("bad base64");
        item.data = bytes;
      }
    }
    const result = UniEventSchema.safeParse(raw);
    if (!result.success) throw new Error(`schema: ${JSON.stringify(result.error.issues).slice(0, 300)}`);
    assembler.push(result.data);
    events++;
    onEvent?.(result.data);
  }
  if (!assembler.stop) throw new Error("no stop event");
  return { events };
}

// ---- Vercel AI SDK ------------------------------------------------------------------------------

// The wire schema (bytes stay base64 strings: the AI SDK neither decodes nor assembles), written
// with zod's classic API as AI SDK users do.
const fidelity = z.record(z.string(), z.unknown()).nullish();
const tokens = z.int().nonnegative().nullable();
const WireEventSchema = z.object({
  role: z.enum(["assistant", "user"]),
  event_type: z.enum(["delta", "stop"]),
  content_items: z.array(
    z.discriminatedUnion("type", [
      z.object({ type: z.literal("text.delta"), text: z.string(), fidelity }),
      z.object({ type: z.literal("thinking.delta"), thinking: z.string(), fidelity }),
      z.object({ type: z.literal("tool_call.delta"), name: z.string(), tool_call_id: z.string(), arguments: z.string(), fidelity }),
      z.object({ type: z.literal("inline_data.delta"), data: z.string(), mime_type: z.string(), fidelity }),
      z.object({ type: z.literal("inline_thinking.delta"), data: z.string(), mime_type: z.string(), fidelity }),
      z.object({ type: z.literal("embedding.delta"), embedding: z.array(z.number()) }),
      z.object({ type: z.literal("text.done"), text: z.string(), fidelity }),
      z.object({ type: z.literal("thinking.done"), thinking: z.string(), fidelity }),
      z.object({ type: z.literal("tool_call.done"), name: z.string(), tool_call_id: z.string(), arguments: z.record(z.string(), z.unknown()), fidelity }),
      z.object({ type: z.literal("inline_data.done"), data: z.string(), mime_type: z.string(), fidelity }),
      z.object({ type: z.literal("inline_thinking.done"), data: z.string(), mime_type: z.string(), fidelity }),
      z.object({ type: z.literal("embedding.done"), embedding: z.array(z.number()) }),
    ]),
  ),
  usage_metadata: z.strictObject({ cached_tokens: tokens, prompt_tokens: tokens, thoughts_tokens: tokens, response_tokens: tokens }).nullable(),
  finish_reason: z.enum(["stop", "length", "tool_call", "unknown"]).nullable(),
  created_at: z.int().optional(),
});

/** @ai-sdk/provider-utils parseJsonEventStream (TextDecoderStream + EventSourceParserStream + secure JSON parse + zod). */
async function aiSdk(chunks, _format, hooks = {}) {
  const reader = parseJsonEventStream({ stream: replay(chunks, hooks.onPull), schema: WireEventSchema }).getReader();
  const onEvent = hooks.onEvent;
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!value.success) throw value.error;
    events++;
    onEvent?.(value.value);
  }
  return { events };
}

/** openai's Stream.fromSSEResponse over a Response built on the chunk stream (SSE framing + JSON.parse). */
async function openai(chunks, _format, hooks = {}) {
  const response = new Response(replay(chunks, hooks.onPull), { headers: { "content-type": "text/event-stream" } });
  const stream = OpenAIStream.fromSSEResponse(response, new AbortController());
  const onEvent = hooks.onEvent;
  let events = 0;
  for await (const e of stream) {
    events++;
    onEvent?.(e);
  }
  return { events };
}

// ---- mmsp-streams ---------------------------------------------------------------------------------

/** UniEventStream, every event read from `readable`, then `message`. */
async function uniRead(chunks, format, hooks = {}) {
  const stream = new UniEventStream({ format });
  const reader = replay(chunks, hooks.onPull).pipeThrough(stream).getReader();
  const onEvent = hooks.onEvent;
  let events = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    events++;
    onEvent?.(value);
  }
  const message = await stream.message;
  if (!message) throw new Error("no message");
  return { events };
}

/** UniEventStream, only `message` awaited: the package drains `readable` itself. */
async function uniDrain(chunks, format, hooks = {}) {
  const stream = new UniEventStream({ format });
  replay(chunks, hooks.onPull).pipeThrough(stream);
  const message = await stream.message;
  return { groups: message.content_items.length };
}

/**
 * id → contender. `sseOnly` ones skip NDJSON corpora. `what` says what the contender does beyond
 * framing + JSON.parse (for the table's legend).
 */
export const CONTENDERS = [
  { id: "floor", label: "floor", run: floor, what: "TextDecoderStream + split on \\n + JSON.parse; no checks" },
  { id: "esp", label: "eventsource-parser", run: eventsourceParser, sseOnly: true, what: "EventSourceParserStream + JSON.parse; no checks" },
  { id: "esp-zod", label: "esp+zod+assembler", run: eventsourceParserZod, sseOnly: true, what: "+ base64 decode, UniEventSchema.safeParse, naive .done check" },
  { id: "ai-sdk", label: "AI SDK", run: aiSdk, sseOnly: true, what: "parseJsonEventStream + zod wire schema (bytes stay base64, no .done check)" },
  { id: "openai", label: "openai", run: openai, sseOnly: true, what: "Stream.fromSSEResponse + JSON.parse; no checks" },
  { id: "ues-read", label: "UniEventStream (a) read", run: uniRead, what: "full checks (§2 schema, §3 grammar, §4 .done), every event read" },
  { id: "ues-drain", label: "UniEventStream (b) drain", run: uniDrain, what: "same checks, only `message` awaited" },
];
export const contender = (id) => {
  const c = CONTENDERS.find((x) => x.id === id);
  if (!c) throw new Error(`unknown contender ${id}`);
  return c;
};
