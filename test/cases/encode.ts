// The encoders (SseEncoderStream, NdjsonEncoderStream): exact bytes, errors as error events,
// keep-alive, and the round trip fragments → assemble → encode → read back (a property test).
import fc from "fast-check";
import { holds } from "../property.ts";
import { referenceParse } from "../json-reference.ts";
import {
  ConnectionError, EmptyResponseError, MessageAssemblerStream, MmspError, NdjsonEncoderStream, SseEncoderStream, StreamLimitError,
  StreamProtocolError, ToolCallArgumentParseError, UniEventStream, UnsupportedOperationError, UnsupportedParameterError, UpstreamError,
  fromResponse, fromWireError, toWireError, toWireEvent,
} from "../../dist/index.js";
import { assert, assertEqual, assertError, byteStream, collect, collectSettled, settle, splitAt, utf8, valuesStream, type Case } from "../harness.ts";
import { deltaItem, deltaOf, stopOf, unstamp } from "../fixtures.ts";

type Json = Record<string, unknown>;
type Encoder = SseEncoderStream | NdjsonEncoderStream;

const USAGE = { cached_tokens: 0, prompt_tokens: 10, thoughts_tokens: null, response_tokens: 5 };
const bytes = (...b: number[]) => new Uint8Array(b);
const dec = new TextDecoder();

const out = deltaItem;
const stopEvent = (usage: Json = USAGE, finish = "stop", createdAt?: number): Json => stopOf(usage, finish, createdAt);
const ev = deltaOf;

function concat(chunks: Uint8Array[]): Uint8Array {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.length;
  }
  return all;
}

async function encode(events: Json[], encoder: Encoder = new SseEncoderStream()): Promise<Uint8Array> {
  return concat(await collect(valuesStream(events as any[]).pipeThrough(encoder)));
}

/** Reads bytes back with UniEventStream (validate mode). */
async function readBack(body: Uint8Array | Uint8Array[], format: "sse" | "ndjson" = "sse") {
  const stream = new UniEventStream({ format });
  return settle(byteStream(Array.isArray(body) ? body : [body]).pipeThrough(stream), stream.message);
}

/** Assembles input events (assemble mode); returns what came out and the error, if any. */
async function assemble(input: Json[]) {
  const stream = new MessageAssemblerStream({ mode: "assemble" });
  const { values, error } = await collectSettled(valuesStream(input as any[]).pipeThrough(stream));
  let message: any;
  try {
    message = await stream.message;
  } catch {
    message = undefined;
  }
  return { events: values as any[], error: error as any, message };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the readable in the background, noting when each chunk arrived. */
function reading(readable: ReadableStream<Uint8Array>) {
  const chunks: { text: string; at: number }[] = [];
  const done = (async () => {
    const reader = readable.getReader();
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
      chunks.push({ text: dec.decode(r.value), at: Date.now() });
    }
  })();
  return { chunks, done, text: () => chunks.map((c) => c.text).join("") };
}

/**
 * Watches the timers armed with a delay in (0, max] while `fn` runs: which are still pending at
 * the end, and whether each was unreferenced where timers can be (Node, Bun).
 */
async function watchTimers(max: number, fn: (live: Set<unknown>) => Promise<void>): Promise<void> {
  const g = globalThis as any;
  const realSet = g.setTimeout;
  const realClear = g.clearTimeout;
  const live = new Set<unknown>();
  const armed: any[] = [];
  g.setTimeout = (cb: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const h = realSet((...a: unknown[]) => {
      live.delete(h);
      cb(...a);
    }, ms, ...args);
    if (ms !== undefined && ms > 0 && ms <= max) {
      live.add(h);
      armed.push(h);
    }
    return h;
  };
  g.clearTimeout = (h: unknown) => {
    live.delete(h);
    realClear(h);
  };
  try {
    await fn(live);
    for (const h of armed) if (typeof h?.hasRef === "function") assert(!h.hasRef(), "a keep-alive timer never keeps the process alive");
  } finally {
    g.setTimeout = realSet;
    g.clearTimeout = realClear;
  }
}

// ---- the property test's generator -----------------------------------------------------------

type GenKind = "text" | "thinking" | "tool_call" | "audio" | "image" | "inline_thinking" | "embedding";

interface GenItem {
  kind: GenKind;
  content: unknown; // string | { name, id, args } | Uint8Array | number[]
  cuts: number[];
  hasId: boolean;
  fidelity: Json | null;
  fidPlace: "first" | "later" | "alone" | "aloneOther";
  repeat: boolean;
  junk: boolean;
  idOnLater: boolean[];
}

// (fast-check's "binary" unit costs seconds to set up: a hand-picked mix instead, with multi-byte
// UTF-8, surrogate pairs that random cuts may split, a lone surrogate, controls and JSON escapes)
const charArb = fc.oneof(
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
  fc.constantFrom("é", "€", "😀", "☃", "\u2028", "\0", "\n", "\"", "\\", "\ud83d", "\r"),
);
const kindArb = fc.constantFrom<GenKind>("text", "thinking", "tool_call", "audio", "image", "inline_thinking", "embedding");
const contentArb = (kind: GenKind): fc.Arbitrary<unknown> => {
  switch (kind) {
    case "text":
    case "thinking":
      return fc.string({ minLength: 1, maxLength: 12, unit: charArb });
    case "tool_call":
      return fc.record({
        name: fc.string({ minLength: 1, maxLength: 6 }),
        id: fc.string({ minLength: 1, maxLength: 6 }),
        args: fc.oneof(fc.constant(""), fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((o) => JSON.stringify(o))),
      });
    case "audio":
    case "image":
    case "inline_thinking":
      return fc.uint8Array({ minLength: 1, maxLength: 9 });
    case "embedding":
      return fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x)), { maxLength: 4 });
  }
};
const itemArb: fc.Arbitrary<GenItem> = kindArb.chain((kind) =>
  fc.record({
    kind: fc.constant(kind),
    content: contentArb(kind),
    cuts: fc.array(fc.nat({ max: 40 }), { maxLength: 3 }),
    hasId: fc.boolean(),
    fidelity: kind === "embedding" ? fc.constant(null) : fc.option(fc.record({ sig: fc.string({ maxLength: 5 }), n: fc.integer() }), { nil: null }),
    fidPlace: fc.constantFrom<GenItem["fidPlace"]>("first", "later", "alone", "aloneOther"),
    repeat: fc.boolean(),
    junk: fc.boolean(),
    idOnLater: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  }),
);
const finishArb = fc.constantFrom("stop", "length", "tool_call", "unknown");
const usagePieceArb = fc.option(
  fc.record(
    { cached_tokens: fc.option(fc.nat(99), { nil: null }), prompt_tokens: fc.option(fc.nat(99), { nil: null }), thoughts_tokens: fc.option(fc.nat(99), { nil: null }), response_tokens: fc.option(fc.nat(99), { nil: null }) },
    { requiredKeys: [] },
  ),
  { nil: null },
);
const streamArb = fc.record({
  items: fc.array(itemArb, { maxLength: 7 }),
  breaks: fc.array(fc.nat({ max: 3 }), { minLength: 64, maxLength: 64 }),
  times: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
  stops: fc.array(fc.record({ usage: usagePieceArb, finish: fc.option(finishArb, { nil: null }), time: fc.boolean() }), { minLength: 1, maxLength: 3 }),
  midStop: fc.option(fc.nat(63), { nil: null }),
  byteCuts: fc.array(fc.nat({ max: 4000 }), { maxLength: 6 }),
});

const baseKind = (k: GenKind): string => (k === "audio" || k === "image" ? "inline_data" : k);
const mergeable = (k: GenKind) => k === "text" || k === "thinking" || k === "audio";

/** Splits a string or bytes at the cut points (in range, sorted, kept distinct). */
function pieces<T extends string | Uint8Array>(v: T, cuts: number[]): T[] {
  const at = [...new Set(cuts.filter((c) => c > 0 && c < v.length))].sort((a, b) => a - b);
  const out: T[] = [];
  let last = 0;
  for (const c of [...at, v.length]) {
    out.push(v.slice(last, c) as T);
    last = c;
  }
  return out;
}

/** Builds the input events and the message the assembler must make of them. */
type Gen = typeof streamArb extends fc.Arbitrary<infer T> ? T : never;

function build(g: Gen): { input: Json[]; expected: Json } {
  const items = g.items.slice();
  if (items.every((i) => i.kind === "thinking" || i.kind === "inline_thinking"))
    items.push({ kind: "text", content: "end", cuts: [], hasId: false, fidelity: null, fidPlace: "first", repeat: false, junk: false, idOnLater: [] });
  // ids: where an item could continue the one before, both carry one; fidelity placements that need one get one
  const ids = items.map((it, i) => it.hasId || (it.fidelity !== null && (it.fidPlace === "aloneOther" || it.kind === "image" || it.kind === "inline_thinking")));
  for (let i = 1; i < items.length; i++) {
    if (mergeable(items[i]!.kind) && baseKind(items[i]!.kind) === baseKind(items[i - 1]!.kind)) ids[i] = ids[i - 1] = true;
  }
  const frags: Json[] = [];
  const dones: Json[] = [];
  items.forEach((it, i) => {
    const id = ids[i] ? `it${i}` : undefined;
    const kind = baseKind(it.kind);
    const mime = it.kind === "audio" ? "audio/wav" : it.kind === "image" ? "image/png" : "image/jpeg";
    const withFid = (f: Json, fidelity: Json | null, carryId: boolean): Json => {
      const fl = { ...(carryId && id ? { item_id: id } : {}), ...(fidelity ?? {}) };
      return Object.keys(fl).length ? { ...f, fidelity: fl } : f;
    };
    let own: Json[] = [];
    let empty: Json = {};
    let done: Json = {};
    switch (it.kind) {
      case "text":
      case "thinking": {
        const s = it.content as string;
        own = pieces(s, it.cuts).map((p) => ({ type: `${kind}.delta`, [kind]: p }));
        empty = { type: `${kind}.delta`, [kind]: "" };
        done = { type: `${kind}.done`, [kind]: s };
        break;
      }
      case "tool_call": {
        const c = it.content as { name: string; id: string; args: string };
        own = pieces(c.args, it.cuts).map((p, j) => ({ type: "tool_call.delta", name: j ? "" : c.name, tool_call_id: j ? "" : c.id, arguments: p }));
        empty = { type: "tool_call.delta", name: "", tool_call_id: "", arguments: "" };
        done = { type: "tool_call.done", name: c.name, tool_call_id: c.id, arguments: c.args === "" ? {} : referenceParse(c.args) };
        break;
      }
      case "audio":
      case "image":
      case "inline_thinking": {
        const b = it.content as Uint8Array;
        own = (it.kind === "audio" ? pieces(b, it.cuts) : [b]).map((p) => ({ type: `${kind}.delta`, data: p, mime_type: mime }));
        empty = { type: `${kind}.delta`, data: new Uint8Array(0), mime_type: mime };
        done = { type: `${kind}.done`, data: b, mime_type: mime };
        break;
      }
      case "embedding":
        own = [{ type: "embedding.delta", embedding: it.content }];
        empty = own[0]!;
        done = { type: "embedding.done", embedding: it.content };
        break;
    }
    const f = it.fidelity;
    // where the fidelity goes; fragments that only bring fidelity may only follow the first one
    let list = own.map((frag, j) => withFid(frag, f && ((it.fidPlace === "first" && j === 0) || (it.fidPlace === "later" && j === Math.min(1, own.length - 1))) ? f : null, j === 0 || it.idOnLater[j % 8]!));
    const alonePlace = it.kind === "image" || it.kind === "inline_thinking" ? "aloneOther" : it.fidPlace;
    if (f && (it.fidPlace === "alone" || it.fidPlace === "aloneOther")) {
      const other = kind === "text" ? { type: "thinking.delta", thinking: "" } : { type: "text.delta", text: "" };
      const frag = alonePlace === "aloneOther" ? withFid(other, f, true) : withFid(empty, f, true);
      list.splice(1, 0, frag);
    }
    if (f && it.repeat && it.kind !== "embedding") list.push(withFid(empty, f, true)); // an identical repeat: dropped
    if (it.junk && mergeable(it.kind)) list.splice(1, 0, withFid(empty, null, false)); // empty: dropped
    if (it.junk && it.kind === "tool_call") list.splice(1, 0, empty);
    frags.push(...list);
    dones.push(f ? { ...done, fidelity: f } : done);
  });

  // events: fragments grouped by the breaks (0 = the next fragment joins this event), timestamps rising
  const input: Json[] = [];
  let time = 1000;
  const stamp = (k: number) => (g.times[k % 64] ? (time += 7) : undefined);
  let cur: Json[] = [];
  frags.forEach((frag, k) => {
    cur.push(frag);
    const b = g.breaks[k % 64]!;
    if (b > 0 || k === frags.length - 1) {
      input.push(ev(cur, stamp(k)));
      cur = [];
      if (b === 3) input.push({ ...ev([{}], stamp(k + 1)), content_items: [] }); // an event that carries nothing
    }
  });
  const stops = g.stops.slice();
  if (stops.every((s) => s.usage === null)) stops[stops.length - 1] = { ...stops[stops.length - 1]!, usage: { prompt_tokens: 1 } };
  if (stops.every((s) => s.finish === null)) stops[stops.length - 1] = { ...stops[stops.length - 1]!, finish: "stop" };
  const stopEvents = stops.map((s, k) => ({ ...stopEvent(s.usage as Json, s.finish as string), usage_metadata: s.usage, created_at: undefined as number | undefined, _time: s.time, _k: k }));
  // the first stop piece may come before the end
  const at = g.midStop !== null && stopEvents.length > 1 ? Math.min(g.midStop, input.length) : input.length;
  const ordered = [...input.slice(0, at), stopEvents[0]!, ...input.slice(at), ...stopEvents.slice(1)];
  let usage: Json | null = null;
  let finish: string | null = null;
  let stopAt: number | undefined;
  const final: Json[] = ordered.map((e: any) => {
    if (!("_k" in e)) return e;
    const { _time, _k, ...piece } = e;
    if (_time) piece.created_at = time += 7;
    else delete piece.created_at;
    if (piece.usage_metadata) {
      usage ??= { cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: null };
      for (const [k, v] of Object.entries(piece.usage_metadata)) if (v !== null) usage[k] = v;
    }
    if (piece.finish_reason !== null) finish = piece.finish_reason;
    if (piece.created_at !== undefined) stopAt = piece.created_at;
    return piece;
  });
  const expected: Json = { role: "assistant", content_items: dones, usage_metadata: usage, finish_reason: finish };
  if (stopAt !== undefined) expected.created_at = stopAt;
  return { input: final, expected };
}

const doneItems = (events: any[]): Json[] =>
  events.filter((e) => e.event_type === "delta" && e.content_items[0].type.endsWith(".done")).map((e) => e.content_items[0]);

// ---- the cases ---------------------------------------------------------------------------------

const SAMPLE: Json[] = [
  out({ type: "text.delta", text: "Grüße 😀" }, 1),
  out({ type: "text.done", text: "Grüße 😀" }, 2),
  out({ type: "inline_data.delta", data: bytes(0, 1, 2, 255), mime_type: "image/png", fidelity: { signature: "c2ln" } }, 3),
  out({ type: "inline_data.done", data: bytes(0, 1, 2, 255), mime_type: "image/png", fidelity: { signature: "c2ln" } }, 4),
  stopEvent(USAGE, "stop", 5),
];
const SAMPLE_JSON = [
  '{"role":"assistant","event_type":"delta","content_items":[{"type":"text.delta","text":"Grüße 😀"}],"usage_metadata":null,"finish_reason":null,"created_at":1}',
  '{"role":"assistant","event_type":"delta","content_items":[{"type":"text.done","text":"Grüße 😀"}],"usage_metadata":null,"finish_reason":null,"created_at":2}',
  '{"role":"assistant","event_type":"delta","content_items":[{"type":"inline_data.delta","data":"AAEC/w==","mime_type":"image/png","fidelity":{"signature":"c2ln"}}],"usage_metadata":null,"finish_reason":null,"created_at":3}',
  '{"role":"assistant","event_type":"delta","content_items":[{"type":"inline_data.done","data":"AAEC/w==","mime_type":"image/png","fidelity":{"signature":"c2ln"}}],"usage_metadata":null,"finish_reason":null,"created_at":4}',
  '{"role":"assistant","event_type":"stop","content_items":[],"usage_metadata":{"cached_tokens":0,"prompt_tokens":10,"thoughts_tokens":null,"response_tokens":5},"finish_reason":"stop","created_at":5}',
];

export const cases: Case[] = [
  ["SSE: exact bytes, one `data: <json>\\n\\n` per event, byte fields as padded base64, then `data: [DONE]`", async () => {
    const body = await encode(SAMPLE);
    assertEqual(body, utf8(SAMPLE_JSON.map((j) => `data: ${j}\n\n`).join("") + "data: [DONE]\n\n"));
  }],
  ["NDJSON: exact bytes, one JSON per line, no [DONE]", async () => {
    const body = await encode(SAMPLE, new NdjsonEncoderStream());
    assertEqual(body, utf8(SAMPLE_JSON.map((j) => `${j}\n`).join("")));
  }],
  ["every byte field is base64 (inline_thinking, empty data); nothing else is touched; the input is not changed", async () => {
    const e = out({ type: "inline_thinking.delta", data: bytes(104, 105), mime_type: "image/jpeg", fidelity: { data: "AA==" } });
    const e2 = out({ type: "inline_data.delta", data: bytes(), mime_type: "audio/wav" });
    const text = dec.decode(await encode([e, e2], new NdjsonEncoderStream()));
    assertEqual(text.split("\n").map((l) => (l ? JSON.parse(l).content_items[0].data : "")), ["aGk=", "", ""]);
    assert((e.content_items as any)[0].data instanceof Uint8Array, "the input event still holds bytes");
    const wire = toWireEvent(e as any) as any;
    assertEqual(wire.content_items[0], { type: "inline_thinking.delta", data: "aGk=", mime_type: "image/jpeg", fidelity: { data: "AA==" } });
    assert(toWireEvent(SAMPLE[0] as any) === SAMPLE[0], "an event without bytes is not copied");
  }],
  ["writer.abort(err) → one error event, then [DONE]; the readable closes normally", async () => {
    for (const [Enc, frame, end] of [[SseEncoderStream, (j: string) => `data: ${j}\n\n`, "data: [DONE]\n\n"], [NdjsonEncoderStream, (j: string) => `${j}\n`, ""]] as const) {
      const enc = new Enc();
      const r = reading(enc.readable);
      const writer = enc.writable.getWriter();
      await writer.write(SAMPLE[0] as any);
      const err = new StreamProtocolError({ client: "my-adapter", detail: "a client yields deltas, not text.done", rule: "KIND", eventIndex: 3, preview: "{}" });
      await writer.abort(err);
      await r.done;
      const wireError = { type: "StreamProtocolError", message: "my-adapter broke the streaming protocol: a client yields deltas, not text.done", client: "my-adapter", rule: "KIND", event_index: 3, preview: "{}" };
      assertEqual(r.text(), frame(SAMPLE_JSON[0]!) + frame(JSON.stringify({ error: wireError })) + end);
    }
  }],
  ["any error is written: plain errors by class name (message falling back to it), SDK status kept", async () => {
    const cases: [unknown, Json][] = [
      [new TypeError("bad"), { type: "TypeError", message: "bad" }],
      [Object.assign(new Error(""), { name: "RateLimitError", status: 429 }), { type: "Error", message: "Error", status: 429 }],
      [Object.assign(new (class RateLimitError extends Error {})(""), { status: 429 }), { type: "RateLimitError", message: "RateLimitError", status: 429 }],
      ["just a string", { type: "Error", message: "just a string" }],
      [new MmspError("Streaming response ended without usage_metadata", { eventIndex: 4 }), { type: "MmspError", message: "Streaming response ended without usage_metadata", event_index: 4 }],
    ];
    for (const [err, wire] of cases) {
      const enc = new NdjsonEncoderStream();
      const r = reading(enc.readable);
      await enc.writable.abort(err);
      await r.done;
      assertEqual(JSON.parse(r.text()), { error: wire });
    }
  }],
  ["an erroring source in a pipe becomes the error event: the reader gets the same error type with its fields", async () => {
    const input = [ev([{ type: "text.delta", text: "Checking." }]), ev([{ type: "tool_call.delta", name: "f", tool_call_id: "t1", arguments: "{x:" }]), ev([{ type: "text.delta", text: "after" }])];
    const stream = new MessageAssemblerStream({ mode: "assemble", client: "anthropic-adapter" });
    const sse = concat(await collect(valuesStream(input as any[]).pipeThrough(stream).pipeThrough(new SseEncoderStream())));
    const text = dec.decode(sse);
    assert(text.endsWith("data: [DONE]\n\n"), text);
    const r = await readBack(sse);
    assertEqual(r.events.map((e) => e.content_items[0].type), ["text.delta", "text.done", "tool_call.delta"]);
    assertError(r.error, UpstreamError, { errorType: "ToolCallArgumentParseError", status: null });
    assertError(r.error.cause, ToolCallArgumentParseError, {
      client: "anthropic-adapter", toolName: "f", toolCallId: "t1", rawArgumentsLength: 3, rawArgumentsPreview: "{x:",
      rule: "DONE-CONTENT", eventIndex: 2,
    });
    assertEqual(r.error.cause.message, r.error.message);
    assert(r.error.message.startsWith('Invalid streamed tool call arguments from anthropic-adapter for tool "f" (tool_call_id="t1", length=3, preview="{x:"): '));
    assert(r.messageError === r.error, "message rejects with the same error");
  }],
  ["a StreamProtocolError crosses the wire with its whole message (SPEC §6) and is rebuilt whole", async () => {
    const input = [ev([{ type: "text.delta", text: "a" }, { type: "text.done", text: "a" }])];
    for (const [Enc, format] of [[SseEncoderStream, "sse"], [NdjsonEncoderStream, "ndjson"]] as const) {
      const stream = new MessageAssemblerStream({ mode: "assemble", client: "gemini-adapter" });
      const wire = concat(await collect(valuesStream(input as any[]).pipeThrough(stream).pipeThrough(new Enc())));
      const r = await readBack(wire, format);
      assertEqual(r.events.length, 1);
      assertError(r.error, UpstreamError, { errorType: "StreamProtocolError", message: "gemini-adapter broke the streaming protocol: a client yields deltas, not text.done" });
      assertEqual(r.error.error.client, "gemini-adapter");
      assertError(r.error.cause, StreamProtocolError, {
        client: "gemini-adapter", detail: "a client yields deltas, not text.done", rule: "KIND", eventIndex: 0,
        message: "gemini-adapter broke the streaming protocol: a client yields deltas, not text.done",
      });
    }
  }],
  ["EmptyResponseError and the plain end-of-stream MmspError cross the wire too", async () => {
    const thinkingOnly = [ev([{ type: "thinking.delta", thinking: "hm" }]), { ...stopEvent(USAGE, "length") }];
    let stream = new MessageAssemblerStream({ mode: "assemble" });
    let r = await readBack(concat(await collect(valuesStream(thinkingOnly as any[]).pipeThrough(stream).pipeThrough(new SseEncoderStream()))));
    assertEqual(r.events.length, 2);
    assertError(r.error.cause, EmptyResponseError, { client: "upstream", finishReason: "length", usageMetadata: USAGE, message: 'upstream returned no content other than thinking (finish_reason="length").' });
    stream = new MessageAssemblerStream({ mode: "assemble" });
    r = await readBack(concat(await collect(valuesStream([ev([{ type: "text.delta", text: "a" }])] as any[]).pipeThrough(stream).pipeThrough(new SseEncoderStream()))));
    assertError(r.error, UpstreamError, { errorType: "MmspError", message: "Streaming response ended without usage_metadata" });
    assertEqual(r.error.cause, undefined);
  }],
  ["every typed error crosses the wire as its snake_case fields, in order, and is rebuilt with them (SPEC §6)", () => {
    const where = { rule: "LIMIT", eventIndex: 4, byteOffset: 120, preview: "{…}" };
    const errors: [MmspError, Record<string, unknown>][] = [
      [new StreamProtocolError({ client: "c", detail: "bad", ...where, rule: "KIND" }), { client: "c", rule: "KIND", event_index: 4, byte_offset: 120, preview: "{…}" }],
      [new ToolCallArgumentParseError({ client: "c", toolName: "f", toolCallId: "t", rawArgumentsLength: 2, rawArgumentsPreview: "{x", ...where, rule: "DONE-CONTENT" }),
        { client: "c", tool_name: "f", tool_call_id: "t", raw_arguments_length: 2, raw_arguments_preview: "{x", rule: "DONE-CONTENT", event_index: 4, byte_offset: 120, preview: "{…}" }],
      [new EmptyResponseError({ client: "c", finishReason: "stop", usageMetadata: null }), { client: "c", finish_reason: "stop", usage_metadata: null }],
      [new UnsupportedParameterError({ client: "c", parameter: "seed" }), { client: "c", parameter: "seed" }],
      [new UnsupportedOperationError({ client: "c", operation: "embed" }), { client: "c", operation: "embed" }],
      [new StreamLimitError({ limit: "maxItems", value: 3, ...where }), { limit: "maxItems", value: 3, rule: "LIMIT", event_index: 4, byte_offset: 120, preview: "{…}" }],
      [new MmspError("plain", where), { rule: "LIMIT", event_index: 4, byte_offset: 120, preview: "{…}" }],
    ];
    for (const [error, fields] of errors) {
      const wire = toWireError(error);
      const type = error.name;
      assertEqual(JSON.stringify(wire), JSON.stringify({ type, message: error.message, ...fields }), type);
      const back = fromWireError({ error: wire }, null, "fallback");
      assertError(back, UpstreamError, { errorType: type, message: error.message, client: "fallback" });
      if (type === "MmspError") assertEqual(back.cause, undefined);
      else {
        const cause = back.cause as MmspError;
        assertEqual(cause.constructor, error.constructor, type);
        for (const key of Object.keys(error) as (keyof MmspError)[]) assertEqual(cause[key], error[key], `${type}.${String(key)}`);
        assertEqual(cause.message, error.message);
      }
    }
    // sent, not rebuilt: a ConnectionError names its host and code; a missing client falls back
    assertEqual(toWireError(new ConnectionError({ host: "h:1", code: "ECONNREFUSED", message: "m" })), { type: "ConnectionError", message: "m", host: "h:1", code: "ECONNREFUSED" });
    assertEqual(fromWireError({ type: "ConnectionError", message: "m", host: "h:1" }).cause, undefined);
    const noClient = fromWireError({ type: "UnsupportedParameterError", message: "m", parameter: 7 }, 400, "me").cause as UnsupportedParameterError;
    assertEqual([noClient.client, noClient.parameter, noClient.message], ["me", "7", "m"]);
  }],
  ["a Response built from SseEncoderStream (and NdjsonEncoderStream) output reads back through fromResponse unchanged", async () => {
    for (const [Enc, type] of [[SseEncoderStream, "text/event-stream; charset=utf-8"], [NdjsonEncoderStream, "application/x-ndjson"]] as const) {
      const response = new Response(valuesStream(SAMPLE as any[]).pipeThrough(new Enc()), { headers: { "content-type": type } });
      const { readable, message } = fromResponse(response);
      assertEqual(await collect(readable), SAMPLE);
      assertEqual(await message, {
        role: "assistant", content_items: [SAMPLE[1]!.content_items as any, SAMPLE[3]!.content_items as any].flat(),
        usage_metadata: USAGE, finish_reason: "stop", created_at: 5,
      });
    }
  }],
  ["an event that cannot be written as JSON ends the output with its error (and [DONE]) and cancels the source", async () => {
    let cancelled: unknown;
    const source = new ReadableStream({
      start(c) {
        c.enqueue(SAMPLE[0]);
        c.enqueue({ ...SAMPLE[1], created_at: 10n });
        c.enqueue(SAMPLE[2]);
      },
      cancel(reason) {
        cancelled = reason ?? "cancelled";
      },
    });
    const text = dec.decode(concat(await collect(source.pipeThrough(new SseEncoderStream()))));
    const records = text.split("\n\n").filter(Boolean);
    assertEqual(records.length, 3);
    assertEqual(records[0], `data: ${SAMPLE_JSON[0]}`);
    assertEqual(JSON.parse(records[1]!.slice(6)).error.type, "TypeError");
    assertEqual(records[2], "data: [DONE]");
    await sleep(0);
    assert(cancelled !== undefined, "the source was cancelled");
  }],
  ["keep-alive: `: keep-alive\\n\\n` after keepAliveMs of silence, never sooner; the timer is cleared at the end", async () => {
    await watchTimers(37, async (live) => {
      const enc = new SseEncoderStream({ keepAliveMs: 37 });
      const r = reading(enc.readable);
      const t0 = Date.now();
      assertEqual(live.size, 1, "one timer armed");
      // wait for the comments themselves, not a fixed time: a loaded machine delays timers
      const keepAlives = () => r.chunks.filter((c) => c.text === ": keep-alive\n\n").length;
      const until = async (n: number) => {
        for (let i = 0; i < 125 && keepAlives() < n; i++) await sleep(40); // (40 ms: not a watched timer)
      };
      await until(2);
      const writer = enc.writable.getWriter();
      await writer.write(SAMPLE[0] as any);
      await writer.write(SAMPLE[1] as any);
      await until(3);
      await writer.write(SAMPLE[4] as any);
      await writer.close();
      await r.done;
      assertEqual(live.size, 0, "no timer left once the stream closed");
      const texts = r.chunks.map((c) => c.text);
      assert(texts.filter((t) => t === ": keep-alive\n\n").length >= 2, texts.join("|"));
      assertEqual(texts.filter((t) => t !== ": keep-alive\n\n"), [0, 1, 4].map((i) => `data: ${SAMPLE_JSON[i]}\n\n`).concat("data: [DONE]\n\n"));
      let last = t0;
      for (const c of r.chunks) {
        if (c.text === ": keep-alive\n\n") assert(c.at - last >= 30, `a keep-alive ${c.at - last} ms after the last output`);
        last = c.at;
      }
      // the comments are skipped by readers
      const back = await readBack(utf8(r.text()));
      if (back.error) throw back.error;
      assertEqual(back.events, [SAMPLE[0], SAMPLE[1], SAMPLE[4]]);
    });
  }],
  ["keep-alive timer: cleared on cancel and on abort; off by default", async () => {
    await watchTimers(37, async (live) => {
      const a = new SseEncoderStream({ keepAliveMs: 37 });
      await a.readable.cancel();
      const b = new SseEncoderStream({ keepAliveMs: 37 });
      const rb = reading(b.readable);
      await b.writable.abort(new Error("gone"));
      await rb.done;
      assertEqual(rb.text(), `data: {"error":{"type":"Error","message":"gone"}}\n\ndata: [DONE]\n\n`);
      assertEqual(live.size, 0, "no timer left");
      const c = new SseEncoderStream();
      const nd = new NdjsonEncoderStream();
      assertEqual(live.size, 0, "no timer without keepAliveMs");
      await c.writable.close();
      await nd.writable.close();
    });
  }],
  ["property: random fragment streams assemble as expected, and read back unchanged from SSE and NDJSON", async () => {
    await holds(
      fc.asyncProperty(streamArb, async (g) => {
        const { input, expected } = build(g);
        const t0 = Date.now();
        const a = await assemble(input);
        if (a.error) throw a.error;
        unstamp(a.events, a.message, t0);
        assertEqual(doneItems(a.events), expected.content_items, "the done items");
        assertEqual(a.message, expected, "the assembled message");
        for (const [enc, format] of [[new SseEncoderStream(), "sse"], [new NdjsonEncoderStream(), "ndjson"]] as const) {
          const body = await encode(a.events, enc);
          const r = await readBack(splitAt(body, g.byteCuts), format);
          if (r.error) throw r.error;
          assertEqual(r.events, a.events, `${format}: the events read back`);
          assertEqual(r.message, a.message, `${format}: the message read back`);
        }
        // the same input as SSE bytes, assembled by UniEventStream
        const stream = new UniEventStream({ mode: "assemble" });
        const fromBytes = await collectSettled(byteStream([await encode(input)]).pipeThrough(stream));
        if (fromBytes.error) throw fromBytes.error;
        const fromBytesMessage = await stream.message;
        unstamp(fromBytes.values, fromBytesMessage, t0);
        assertEqual(fromBytes.values, a.events, "assembled from bytes");
        assertEqual(fromBytesMessage, a.message);
      }),
      { numRuns: 40 },
    );
  }],
];
