// Builders and sample streams for the shared cases. Wire events are plain JSON objects (bytes as
// base64 text), exactly what a server writes.
import { assert, utf8 } from "./harness.ts";

export type Json = Record<string, unknown>;

export const USAGE = { cached_tokens: 0, prompt_tokens: 10, thoughts_tokens: null, response_tokens: 5 };

export function delta(item: Json, createdAt = 1694502400000): Json {
  return { role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null, created_at: createdAt };
}

export function stop(finish = "stop", usage: Json = USAGE, createdAt = 1694502400100): Json {
  return { role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: finish, created_at: createdAt };
}

// ---- events with any number of items and an optional created_at (assemble mode's input, and what it emits) ----

/** A delta event with these items (several: assemble mode's input), `created_at` only when given. */
export const deltaOf = (items: Json[], createdAt?: number): Json => ({
  role: "assistant", event_type: "delta", content_items: items, usage_metadata: null, finish_reason: null,
  ...(createdAt !== undefined ? { created_at: createdAt } : {}),
});
/** A delta event with one item, `created_at` only when given (what assemble mode emits). */
export const deltaItem = (item: Json, createdAt?: number): Json => deltaOf([item], createdAt);
/** A stop event (or assemble mode's stop piece: usage and finish reason may be partial or null). */
export const stopOf = (usage: Json | null = USAGE, finish: string | null = "stop", createdAt?: number, items: Json[] = []): Json => ({
  role: "assistant", event_type: "stop", content_items: items, usage_metadata: usage, finish_reason: finish,
  ...(createdAt !== undefined ? { created_at: createdAt } : {}),
});
/** The item with `fidelity.item_id = id` (and more fidelity), as a producer names its items. */
export const withId = (item: Json, id: string | undefined, fidelity?: Json): Json =>
  id || fidelity ? { ...item, fidelity: { ...(id ? { item_id: id } : {}), ...(fidelity ?? {}) } } : item;

// ---- items (bytes as base64 text, as on the wire; a Uint8Array passes through) ---------------------------

export const text = (t: string, fidelity?: Json): Json => ({ type: "text.delta", text: t, ...(fidelity ? { fidelity } : {}) });
export const textDone = (t: string, fidelity?: Json): Json => ({ type: "text.done", text: t, ...(fidelity ? { fidelity } : {}) });
export const thinking = (t: string, fidelity?: Json): Json => ({ type: "thinking.delta", thinking: t, ...(fidelity ? { fidelity } : {}) });
export const thinkingDone = (t: string, fidelity?: Json): Json => ({ type: "thinking.done", thinking: t, ...(fidelity ? { fidelity } : {}) });
export const tool = (name: string, id: string, args: string, fidelity?: Json): Json => ({ type: "tool_call.delta", name, tool_call_id: id, arguments: args, ...(fidelity ? { fidelity } : {}) });
export const toolDone = (name: string, id: string, args: Json, fidelity?: Json): Json => ({ type: "tool_call.done", name, tool_call_id: id, arguments: args, ...(fidelity ? { fidelity } : {}) });
export const inline = (b64: string | Uint8Array, mime: string, kind = "inline_data", fidelity?: Json): Json => ({ type: `${kind}.delta`, data: b64, mime_type: mime, ...(fidelity ? { fidelity } : {}) });
export const inlineDone = (b64: string | Uint8Array, mime: string, kind = "inline_data", fidelity?: Json): Json => ({ type: `${kind}.done`, data: b64, mime_type: mime, ...(fidelity ? { fidelity } : {}) });
export const embedding = (v: number[]): Json => ({ type: "embedding.delta", embedding: v });
export const embeddingDone = (v: number[]): Json => ({ type: "embedding.done", embedding: v });

/** `data: <json>\n\n` per event, then `data: [DONE]\n\n`. */
export function sse(events: Json[], done = true): string {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");
}

export function ndjson(events: Json[]): string {
  return events.map((e) => JSON.stringify(e) + "\n").join("");
}

export const sseBytes = (events: Json[], done = true): Uint8Array => utf8(sse(events, done));
export const ndjsonBytes = (events: Json[]): Uint8Array => utf8(ndjson(events));

/** The seeds' example: thinking with a signature-only fragment, then a tool call. */
export const SEED_EXAMPLE: Json[] = [
  delta(thinking("Let me")),
  delta(thinking(" check")),
  delta(thinking("", { signature: "sig-1" })),
  delta(thinkingDone("Let me check", { signature: "sig-1" })),
  delta(tool("get_weather", "toolu_1", "")),
  delta(tool("", "", '{"location": ')),
  delta(tool("", "", '"Paris"}')),
  delta(toolDone("get_weather", "toolu_1", { location: "Paris" })),
  stop("tool_call"),
];

/** MiniMax streams a call as one fragment with the name, the id and the whole arguments. */
export const MINIMAX_TOOL: Json[] = [
  delta(text("Checking.")),
  delta(textDone("Checking.")),
  delta(tool("lookup", "call_9", '{"q": "naïve ☃", "n": [1, 2.5, -3e2]}')),
  delta(toolDone("lookup", "call_9", { q: "naïve ☃", n: [1, 2.5, -300] })),
  stop("tool_call"),
];

export const EMBEDDINGS: Json[] = [
  delta(embedding([0.1, -0.2, 0.3])),
  delta(embeddingDone([0.1, -0.2, 0.3])),
  delta(embedding([1, 0, -1e-7])),
  delta(embeddingDone([1, 0, -1e-7])),
  stop("stop", { cached_tokens: null, prompt_tokens: 8, thoughts_tokens: null, response_tokens: null }),
];

// "RIFF" + bytes, split in three chunks of one audio item.
export const AUDIO: Json[] = [
  delta(text("Here it is:")),
  delta(textDone("Here it is:")),
  delta(inline("UklGRg==", "audio/wav")), // R I F F
  delta(inline("AAEC", "audio/wav")), // 0 1 2
  delta(inline("/w==", "audio/wav")), // 255
  delta(inlineDone("UklGRgABAv8=", "audio/wav")),
  stop(),
];

export const AUDIO_BYTES = new Uint8Array([82, 73, 70, 70, 0, 1, 2, 255]);

export const TWO_IMAGES: Json[] = [
  delta(inline("iVBORw==", "image/png")),
  delta(inline("", "image/png", "inline_data", { image_signature: "s1" })),
  delta(inlineDone("iVBORw==", "image/png", "inline_data", { image_signature: "s1" })),
  delta(inline("/9j/4A==", "image/jpeg")),
  delta(inlineDone("/9j/4A==", "image/jpeg")),
  stop(),
];

export const ERROR_EVENT = { error: { type: "ToolCallArgumentParseError", message: "Invalid streamed tool call arguments from anthropic for tool \"f\" (tool_call_id=\"t1\", length=3, preview=\"{x:\"): Expecting property name", client: "anthropic", tool_name: "f", tool_call_id: "t1", raw_arguments_length: 3, raw_arguments_preview: "{x:" } };

/** A stream that fails after it started: one error event, then [DONE], and no stop event. */
export function withError(): string {
  return sse([delta(text("Hel")), delta(text("lo"))], false) + `data: ${JSON.stringify(ERROR_EVENT)}\n\ndata: [DONE]\n\n`;
}

/**
 * SPEC §5: every output event carries `created_at` — the input event's, else the time it is
 * emitted. Checks that, then drops the stamped ones (at or after `t0`; the inputs' own are small
 * numbers) so that expectations can name only the input's.
 */
export function unstamp(events: any[], message: any, t0: number): void {
  for (const e of events) {
    assert(Number.isInteger(e.created_at), `every emitted event carries created_at: ${JSON.stringify(e)}`);
    if (e.created_at >= t0) delete e.created_at;
  }
  if (message && message.created_at >= t0) delete message.created_at;
}

