// SPEC §7 "same answer however it is read": the fused reader (UniEventStream) and the stages chained
// (MmspSseDecoderStream / MmspNdjsonDecoderStream → UniEventDecoderStream → MessageAssemblerStream)
// give the same events, the same message and the same error (class, rule, eventIndex, byteOffset,
// message) for random valid and mutated streams, in both modes, SSE and NDJSON, under random chunkings.
import fc from "fast-check";
import {
  MessageAssemblerStream, MmspNdjsonDecoderStream, MmspSseDecoderStream, UniEventBatchStream, UniEventDecoderStream, UniEventStream,
} from "../../dist/index.js";
import { assertEqual, byteStream, pump, settle, splitAt, utf8, type Case } from "../harness.ts";
import { cuts, lineEnd, ndjsonText, sseText, streamEvents, unit } from "../arbitraries.ts";
import { withId, type Json } from "../fixtures.ts";

type Format = "sse" | "ndjson";
type Mode = "validate" | "assemble";

interface Outcome {
  events: unknown[];
  message: unknown;
  error: Record<string, unknown> | undefined;
  sameError: boolean;
}

const errorFields = (e: any): Record<string, unknown> | undefined =>
  e === undefined ? undefined : { class: e?.name, rule: e?.rule, eventIndex: e?.eventIndex, byteOffset: e?.byteOffset, message: e?.message };

async function outcome(readable: ReadableStream<unknown>, message: Promise<unknown>): Promise<Outcome> {
  const r = await settle(readable, message);
  return { events: r.events, message: r.message, error: errorFields(r.error), sameError: r.error === r.messageError };
}

export function fused(chunks: Uint8Array[], format: Format, mode: Mode): Promise<Outcome> {
  const s = new UniEventStream({ format, mode });
  return outcome(byteStream(chunks).pipeThrough(s), s.message);
}

export function staged(chunks: Uint8Array[], format: Format, mode: Mode): Promise<Outcome> {
  const framer = format === "sse" ? new MmspSseDecoderStream() : new MmspNdjsonDecoderStream();
  const decoder = new UniEventDecoderStream({ mode });
  const grammar = new MessageAssemblerStream({ mode });
  // pumped by hand (see `pump`: workerd reports a failing pipe's inner promises as unhandled)
  pump(byteStream(chunks), framer.writable);
  pump(framer.readable as ReadableStream<unknown>, decoder.writable);
  pump(decoder.readable, grammar.writable);
  return outcome(grammar.readable, grammar.message);
}

// ---- assemble mode's input: bare fragments, several per event, item ids, stop pieces ------------

const id = fc.option(fc.constantFrom("i1", "i2"), { nil: undefined });
const fid = fc.option(fc.constantFrom({ sig: "s" }, { sig: "t" }), { nil: undefined });
const withFid = withId;
const text = fc.string({ unit, maxLength: 4 });
const fragment: fc.Arbitrary<Json> = fc.oneof(
  fc.tuple(fc.constantFrom("text", "thinking"), text, id, fid).map(([k, t, i, f]) => withFid({ type: `${k}.delta`, [k]: t }, i, f)),
  fc.tuple(fc.constantFrom("", "fn"), fc.constantFrom("", '{"a":', "1}", "{}", "[1]"), id).map(([name, args, i]) =>
    withFid({ type: "tool_call.delta", name, tool_call_id: name ? "c1" : "", arguments: args }, i, undefined)),
  fc.tuple(fc.constantFrom("audio/wav", "image/png"), fc.constantFrom("", "AAE=", "/w=="), id).map(([m, d, i]) =>
    withFid({ type: "inline_data.delta", data: d, mime_type: m }, i, undefined)),
  fc.constant({ type: "embedding.delta", embedding: [0.5] }),
);
const piece = fc.option(fc.integer({ min: 0, max: 9 }), { nil: null });
const inputEvent: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.array(fragment, { maxLength: 3 }), fc.integer({ min: 1, max: 99 })).map(([items, t]) => ({
    role: "assistant", event_type: "delta", content_items: items, usage_metadata: null, finish_reason: null, created_at: t,
  })) },
  { weight: 1, arbitrary: fc.tuple(piece, piece, fc.constantFrom(null, "stop", "tool_call"), fc.integer({ min: 100, max: 199 })).map(([p, r, f, t]) => ({
    role: "assistant", event_type: "stop", content_items: [], usage_metadata: p === null && r === null ? null : { prompt_tokens: p, response_tokens: r },
    finish_reason: f, created_at: t,
  })) },
);
const inputEvents = fc.array(inputEvent, { minLength: 1, maxLength: 6 });

// ---- mutations: what a broken producer, proxy or connection does to the bytes --------------------

const junk = fc.constantFrom(
  "}", "{", "\n", "\n\n", "\r", "data: x\n\n", "data: [DONE]\n\n", "data: [DO", ": c\n", "id: 7\n", "event: e\n",
  '{"error":{"type":"RateLimitError","message":"slow"}}\n', 'data: {"error":{"type":"X"}}\n\n', "\u00ff", "é", "[1]\n", "data:\n\n",
);
const mutation = fc.oneof(
  fc.record({ op: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), n: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), text: junk }),
  fc.record({ op: fc.constant("bytes" as const), at: fc.nat(), byte: fc.constantFrom(0xff, 0xc3, 0x80, 0x1f, 0x8b) }),
);
type Mutation = { op: "cut"; at: number } | { op: "delete"; at: number; n: number } | { op: "insert"; at: number; text: string } | { op: "bytes"; at: number; byte: number };

function mutate(bytes: Uint8Array, ms: Mutation[]): Uint8Array {
  let b = bytes;
  for (const m of ms) {
    const at = b.length === 0 ? 0 : m.at % (b.length + 1);
    if (m.op === "cut") b = b.subarray(0, at);
    else if (m.op === "delete") b = new Uint8Array([...b.subarray(0, at), ...b.subarray(at + m.n)]);
    else if (m.op === "insert") b = new Uint8Array([...b.subarray(0, at), ...utf8(m.text), ...b.subarray(at)]);
    else b = new Uint8Array([...b.subarray(0, at), m.byte, ...b.subarray(at)]);
  }
  return b;
}

const body = (events: Json[], format: Format, eol: string): Uint8Array =>
  utf8(format === "sse" ? sseText(events, eol, eol !== "\r") : ndjsonText(events, eol === "\r" ? "\n" : eol));

/** Assemble mode stamps `created_at` with the time where the input has none: the same stamp for both paths. */
function sameStamps(o: Outcome, t0: number): void {
  for (const e of [...(o.events as Json[]), o.message as Json | undefined]) if (e && (e.created_at as number) >= t0) e.created_at = "now";
}

async function samePaths(bytes: Uint8Array, format: Format, mode: Mode, cutsA: number[], cutsB: number[]): Promise<void> {
  const t0 = Date.now();
  const a = await fused(splitAt(bytes, cutsA), format, mode);
  const b = await staged(splitAt(bytes, cutsB), format, mode);
  sameStamps(a, t0);
  sameStamps(b, t0);
  const label = `${format}/${mode} ${JSON.stringify(new TextDecoder().decode(bytes).slice(0, 400))}`;
  assertEqual(a.sameError, true, `fused: message rejects with the readable's error (${label})`);
  assertEqual(b.sameError, true, `staged: message rejects with the readable's error (${label})`);
  assertEqual(b.error, a.error, `the same error (${label})`);
  assertEqual(b.events, a.events, `the same events (${label})`);
  assertEqual(b.message, a.message, `the same message (${label})`);
}

const formats = fc.constantFrom<Format>("sse", "ndjson");
const mutations = fc.array(mutation, { maxLength: 2 });

/** The batched reader: its arrays (one per chunk at most, never empty) flattened. */
async function batched(chunks: Uint8Array[], format: Format, mode: Mode): Promise<Outcome> {
  const s = new UniEventBatchStream({ format, mode });
  const o = await outcome(byteStream(chunks).pipeThrough(s), s.message);
  const arrays = o.events as unknown[][];
  assertEqual(arrays.every((a) => Array.isArray(a) && a.length > 0), true, "every batch is a non-empty array");
  // one per input chunk at most, and one more for what the end of the input completes (a last message
  // without its blank line)
  assertEqual(arrays.length <= chunks.length + 1, true, "at most one batch per input chunk, plus the end's");
  return { ...o, events: arrays.flat() };
}

export const cases: Case[] = [
  ["the batched reader (UniEventBatchStream) gives the fused reader's events, message and error, in arrays", async () => {
    await fc.assert(
      fc.asyncProperty(streamEvents, formats, lineEnd, mutations, cuts(3000), async (events, format, eol, ms, at) => {
        const bytes = mutate(body(events, format, eol), ms);
        const t0 = Date.now();
        const a = await fused(splitAt(bytes, at), format, "validate");
        const b = await batched(splitAt(bytes, at), format, "validate");
        sameStamps(a, t0);
        sameStamps(b, t0);
        assertEqual(b.sameError, true, "message rejects with the readable's error");
        assertEqual(b.error, a.error, "the same error");
        assertEqual(b.events, a.events, "the same events");
        assertEqual(b.message, a.message, "the same message");
      }),
      { numRuns: 100 },
    );
  }],
  ["validate mode: fused and chained stages agree on random valid and mutated streams, any chunking", async () => {
    await fc.assert(
      fc.asyncProperty(streamEvents, formats, lineEnd, mutations, cuts(3000), cuts(3000), async (events, format, eol, ms, ca, cb) => {
        await samePaths(mutate(body(events, format, eol), ms), format, "validate", ca, cb);
      }),
      { numRuns: 150 },
    );
  }],
  ["assemble mode: fused and chained stages agree on random fragment streams, mutated or not, any chunking", async () => {
    await fc.assert(
      fc.asyncProperty(inputEvents, formats, lineEnd, mutations, cuts(2000), cuts(2000), async (events, format, eol, ms, ca, cb) => {
        await samePaths(mutate(body(events, format, eol), ms), format, "assemble", ca, cb);
      }),
      { numRuns: 150 },
    );
  }],
  ["the paths agree on the mistakes people make: empty, HTML, the other format, gzip bytes", async () => {
    const ndjsonBody = ndjsonText([{ role: "assistant", event_type: "stop", content_items: [], usage_metadata: null, finish_reason: null }], "\n");
    const bodies: [Uint8Array, Format][] = [
      [utf8(""), "sse"], [utf8(""), "ndjson"], [utf8("<!DOCTYPE html><title>Bad gateway</title>"), "sse"],
      [utf8("<html>\n"), "ndjson"], [utf8(ndjsonBody), "sse"], [utf8("data: {}\n\n"), "ndjson"],
      [new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), "sse"], [utf8('{"id":"x","object":"chat.completion.chunk"}\n'), "ndjson"],
    ];
    for (const [bytes, format] of bodies) for (const mode of ["validate", "assemble"] as const) await samePaths(bytes, format, mode, [], [1, 2, 3]);
  }],
];
