// Arbitraries shared by the property cases: random valid public streams, their wire text in SSE and
// NDJSON, and random chunkings.
import fc from "fast-check";
import { referenceParse } from "./json-reference.ts";
import { AUDIO, delta, embedding, embeddingDone, EMBEDDINGS, inline, inlineDone, MINIMAX_TOOL, SEED_EXAMPLE, stop, text, textDone, thinking, thinkingDone, tool, toolDone, type Json } from "./fixtures.ts";

export const unit = fc.constantFrom("a", "Z", " ", "é", "€", "😀", "中", "\n", "\r", '"', "\\", "\u2028", "\u0000");
export const piece = fc.string({ unit, maxLength: 6 });

export const b64 = (bytes: number[]): string => btoa(String.fromCharCode(...bytes));

/** One valid group (`K.delta+ K.done`) of a random kind. */
export const group: fc.Arbitrary<Json[]> = fc.oneof(
  fc.tuple(fc.constantFrom("text", "thinking"), fc.array(piece, { minLength: 1, maxLength: 4 }), fc.option(fc.constant({ signature: "s€" }), { nil: undefined }))
    .map(([kind, parts, fid]) => {
      const d = kind === "text" ? text : thinking;
      const done = kind === "text" ? textDone : thinkingDone;
      const events = parts.map((p, i) => delta(d(p, i === parts.length - 1 ? fid : undefined)));
      return [...events, delta(done(parts.join(""), fid))];
    }),
  // later fragments carry the header empty, or repeat it (SPEC §3: MMSP's server forwards a repeat)
  fc.tuple(fc.dictionary(fc.string({ unit, maxLength: 4 }), fc.oneof(piece, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 }), fc.integer({ min: 1, max: 4 }), fc.constantFrom("empty", "both", "id"))
    .map(([args, n, later]) => {
      const raw = JSON.stringify(args);
      const size = Math.ceil(raw.length / n);
      const parts = Array.from({ length: n }, (_, i) => raw.slice(i * size, (i + 1) * size));
      const header = (i: number): [string, string] => (i === 0 || later === "both" ? ["fn", "call_1"] : later === "id" ? ["", "call_1"] : ["", ""]);
      return [...parts.map((p, i) => delta(tool(...header(i), p))), delta(toolDone("fn", "call_1", referenceParse(raw) as Json))];
    }),
  fc.array(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 7 }), { minLength: 1, maxLength: 3 })
    .map((chunks) => [...chunks.map((c) => delta(inline(b64(c), "audio/wav"))), delta(inlineDone(b64(chunks.flat()), "audio/wav"))]),
  fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 4 })
    .map((v) => [delta(embedding(v.map((x) => (Object.is(x, -0) ? 0 : x)))), delta(embeddingDone(v.map((x) => (Object.is(x, -0) ? 0 : x))))]),
);

export const streamEvents = fc.array(group, { minLength: 1, maxLength: 4 }).map((groups) => {
  const events = groups.flat();
  if (events.every((e) => ((e.content_items as Json[])[0]!.type as string).startsWith("thinking"))) events.push(delta(text("x")), delta(textDone("x")));
  return [...events, stop()];
});

export const lineEnd = fc.constantFrom("\n", "\r\n", "\r");

export function sseText(events: Json[], eol: string, keepAlive: boolean): string {
  const parts = events.map((e) => `data: ${JSON.stringify(e)}${eol}${eol}`);
  return (keepAlive ? `: keep-alive${eol}${eol}` : "") + parts.join(keepAlive ? `:${eol}` : "") + `data: [DONE]${eol}${eol}`;
}

export function ndjsonText(events: Json[], eol: string): string {
  return events.map((e) => JSON.stringify(e) + eol).join("");
}


export const cuts = (max: number) => fc.array(fc.integer({ min: 1, max: Math.max(1, max - 1) }), { maxLength: 12 });

// ---- single events, valid and mutated (schema and fast-path checks) ----------------------------

const bytesOf = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
/** A wire event as the reader hands it on (inline `data` decoded to bytes). */
export const decoded = (e: Json): Json => ({
  ...e,
  content_items: (e.content_items as Json[]).map((i) => ((i.type as string).startsWith("inline_") ? { ...i, data: bytesOf(i.data as string) } : i)),
});
/** The fixtures' events as the reader hands them on (inline `data` decoded to bytes). */
export const VALID_EVENTS: Json[] = [...SEED_EXAMPLE, ...AUDIO, ...EMBEDDINGS, ...MINIMAX_TOOL].map(decoded);

const anyValue = fc.oneof(
  fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.constant(2 ** 53), fc.constant(-1), fc.constant(1.5),
  fc.string({ maxLength: 5 }), fc.constant("stop"), fc.constant("assistant"), fc.constant("user"), fc.constant([]), fc.constant([1, "x"]),
  fc.constant([{ type: "text.delta", text: "a" }]), fc.constant([{ type: "text.delta", text: "a" }, { type: "text.delta", text: "b" }]),
  fc.constant({}), fc.constant({ a: 1 }), fc.constant(new Uint8Array(2)), fc.constant(new Date(0)), fc.constant(Object.create(null)),
  fc.constant({ cached_tokens: 1, prompt_tokens: 2, thoughts_tokens: null, response_tokens: 3 }),
  fc.constant({ cached_tokens: 1, prompt_tokens: 2, thoughts_tokens: null }),
  fc.constant({ cached_tokens: 1, prompt_tokens: 2, thoughts_tokens: null, response_tokens: 3, extra: 0 }),
);
const keys = fc.constantFrom("role", "event_type", "content_items", "usage_metadata", "finish_reason", "created_at", "extra");
const itemKeys = fc.constantFrom("type", "text", "thinking", "name", "tool_call_id", "arguments", "data", "mime_type", "embedding", "fidelity");

/** A valid event with a few members (of the event, of its first item) replaced by arbitrary values. */
export const mutatedEvent: fc.Arbitrary<Json> = fc.tuple(
  fc.constantFrom(...VALID_EVENTS),
  fc.array(fc.tuple(keys, anyValue), { maxLength: 2 }),
  fc.array(fc.tuple(itemKeys, anyValue), { maxLength: 2 }),
).map(([e, top, inner]) => {
  const ev: Json = { ...e };
  for (const [k, v] of top) ev[k] = v;
  // the items are shared between runs (the fixtures', or a constant put in their place): mutate copies
  if (Array.isArray(ev.content_items)) ev.content_items = ev.content_items.map((i) => (i && typeof i === "object" && !Array.isArray(i) ? { ...i } : i));
  const items = ev.content_items;
  if (Array.isArray(items) && items[0] && typeof items[0] === "object") for (const [k, v] of inner) (items[0] as Json)[k] = v;
  return ev;
});


// ---- random provider streams (issue #39: the provider core's short way against the general one) ----

/** A piece of a provider's text, maybe empty (an empty fragment is dropped: both ways must agree). */
const providerPiece = fc.oneof(piece, fc.constant(""));
/** Pieces of a tool call's arguments: sometimes they join into an object, sometimes not (an error both ways). */
const argPiece = fc.constantFrom('{"a":', "1", "}", "", " ", '"x"', ",");
const sse = (v: Json | string): string => `data: ${typeof v === "string" ? v : JSON.stringify(v)}\n\n`;

/**
 * An Anthropic Messages stream of random steps over four block indexes: a block begins (text, thinking
 * maybe with a signature, redacted thinking, a tool call), a delta of any type to a block that began
 * (another block's in between, a type that is not the block's), a block stops; then the stop reason.
 */
export const anthropicStream: fc.Arbitrary<string> = fc.array(
  fc.record({
    step: fc.constantFrom("start", "delta", "delta", "delta", "stop"),
    index: fc.integer({ min: 0, max: 3 }),
    kind: fc.constantFrom("text", "thinking", "signature", "json", "redacted"),
    text: providerPiece,
    args: argPiece,
  }),
  { maxLength: 24 },
).map((steps) => {
  let out = sse({ type: "message_start", message: { model: "claude-x", usage: { input_tokens: 3, output_tokens: 1 } } });
  const begun = new Set<number>();
  const start = (index: number, kind: string, text: string): string => {
    begun.add(index);
    const block = kind === "text"
      ? { type: "text", text }
      : kind === "thinking" || kind === "signature"
      ? { type: "thinking", thinking: text, ...(kind === "signature" ? { signature: "sig" } : {}) }
      : kind === "redacted"
      ? { type: "redacted_thinking", data: "opaque" }
      : { type: "tool_use", id: `toolu_${index}`, name: `fn${index}`, input: {} };
    return sse({ type: "content_block_start", index, content_block: block });
  };
  for (const { step, index, kind, text, args } of steps) {
    if (step === "stop") {
      if (begun.has(index)) out += sse({ type: "content_block_stop", index });
      continue;
    }
    if (!begun.has(index) || step === "start") {
      if (!begun.has(index)) out += start(index, kind, text);
      continue;
    }
    const delta = kind === "text"
      ? { type: "text_delta", text }
      : kind === "thinking" || kind === "redacted"
      ? { type: "thinking_delta", thinking: text }
      : kind === "signature"
      ? { type: "signature_delta", signature: text === "" ? "s" : text }
      : { type: "input_json_delta", partial_json: args };
    out += sse({ type: "content_block_delta", index, delta });
  }
  out += sse({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } });
  return out + sse({ type: "message_stop" });
});

/**
 * An OpenAI Chat stream of random chunks: content, `reasoning_content` (its field named in fidelity on
 * every fragment), both at once, tool calls of three indexes (a header on some later fragments too);
 * then the finish reason, usage and `[DONE]`.
 */
export const openaiChatStream: fc.Arbitrary<string> = fc.array(
  fc.record({
    what: fc.constantFrom("content", "content", "reasoning", "both", "call", "call"),
    index: fc.integer({ min: 0, max: 2 }),
    header: fc.boolean(),
    text: providerPiece,
    args: argPiece,
  }),
  { maxLength: 24 },
).map((steps) => {
  const chunk = (delta: Json, finish: string | null = null): string =>
    sse({ id: "c", object: "chat.completion.chunk", model: "gpt-x", choices: [{ index: 0, delta, finish_reason: finish }] });
  let out = chunk({ role: "assistant", content: "" });
  for (const { what, index, header, text, args } of steps) {
    if (what === "content") out += chunk({ content: text });
    else if (what === "reasoning") out += chunk({ reasoning_content: text });
    else if (what === "both") out += chunk({ reasoning_content: text, content: text });
    else {
      const fn = header ? { name: `fn${index}`, arguments: args } : { arguments: args };
      out += chunk({ tool_calls: [{ index, ...(header ? { id: `call_${index}`, type: "function" } : {}), function: fn }] });
    }
  }
  out += chunk({}, "stop");
  out += sse({ id: "c", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 3, completion_tokens: 5 } });
  return out + sse("[DONE]");
});

/** A Gemini stream of random parts: text and thought text (a thought signature on some), then the finish and usage. */
export const geminiStream: fc.Arbitrary<string> = fc.array(
  fc.record({ thought: fc.boolean(), signed: fc.boolean(), text: providerPiece }),
  { maxLength: 16 },
).map((parts) => {
  let out = "";
  for (const { thought, signed, text } of parts) {
    const part = { text, ...(thought ? { thought: true } : {}), ...(signed ? { thoughtSignature: "c2ln" } : {}) };
    out += sse({ candidates: [{ content: { role: "model", parts: [part] } }], modelVersion: "gemini-x" });
  }
  return out + sse({
    candidates: [{ content: { role: "model", parts: [{ text: "." }] }, finishReason: "STOP" }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 5 },
  });
});
