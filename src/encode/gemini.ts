/**
 * Checked UniEvents → Gemini's `streamGenerateContent?alt=sse` stream (one `GenerateContentResponse`
 * per SSE message): the reverse of the `gemini` reader (SPEC §9). Each fragment is one chunk with one
 * part in `candidates[0].content.parts`: text, `thought: true` text, and the `thoughtSignature` on the
 * part of the fragment whose item carries `fidelity.signature` (encrypted reasoning likewise: Gemini
 * has no other place for a provider-bound value). A function call is one part with its `args` whole
 * (Gemini sends calls whole: written at the call's `.done`), as are an image, an audio item and a
 * thought image (`inlineData`, `thought: true` for the last). The stop event is a chunk with the
 * candidate's `finishReason` and the `usageMetadata`; an error on the writable side the
 * `{"error": {code, message, status}}` chunk Gemini writes in a stream.
 */
import { encodeBase64 } from "../decode/base64.js";
import { CoreStream } from "../internal/core-stream.js";
import type { StreamCore } from "../internal/core.js";
import { checkOptions, FUNCTION, type OptionSpec } from "../internal/options.js";
import { isRecord } from "../internal/values.js";
import type { FinishReason, StreamDoneItem, UniEvent, UniMessage, UsageMetadata } from "../schema.js";
import { errorParts } from "./wire-error.js";

type Rec = Record<string, unknown>;

/** Options of {@link GeminiEncoderStream} and {@link geminiResponse}. */
export interface GeminiEncoderOptions {
  /** The `modelVersion` every chunk names (the model the client asked for), when known. */
  modelVersion?: string;
  /** The `responseId` every chunk names, when known. */
  responseId?: string;
  /** Told about an item Gemini has no part for (embeddings), which is left out. */
  onWarning?: (message: string) => void;
}

const anyString = { must: "a string", type: (v: unknown) => typeof v === "string" };
/** The options' rules (checked at the boundary). */
const OPTIONS: OptionSpec = { modelVersion: anyString, responseId: anyString, onWarning: FUNCTION };

/** A finish reason → a candidate's `finishReason` (SPEC §9 read backwards: a turn that calls functions stops with `STOP`). */
export const GEMINI_FINISH: Readonly<Record<FinishReason, string>> = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_call: "STOP",
  unknown: "OTHER",
};

const n = (v: number | null | undefined): number => (typeof v === "number" ? v : 0);

/**
 * A stop event's usage as Gemini's `usageMetadata` (SPEC §9's table read backwards): `promptTokenCount`
 * = cached + prompt, `cachedContentTokenCount` = cached, `thoughtsTokenCount` = thoughts,
 * `candidatesTokenCount` = response (a count that is null is left out, as Gemini leaves it out).
 */
export function geminiUsage(usage: UsageMetadata | null | undefined): Rec {
  const out: Rec = { promptTokenCount: n(usage?.cached_tokens) + n(usage?.prompt_tokens) };
  if (n(usage?.response_tokens)) out.candidatesTokenCount = n(usage?.response_tokens);
  if (n(usage?.cached_tokens)) out.cachedContentTokenCount = n(usage?.cached_tokens);
  if (n(usage?.thoughts_tokens)) out.thoughtsTokenCount = n(usage?.thoughts_tokens);
  out.totalTokenCount = (out.promptTokenCount as number) + n(usage?.response_tokens) + n(usage?.thoughts_tokens);
  return out;
}

/** The provider-bound value a fragment's fidelity carries for Gemini's `thoughtSignature`, if any. */
function signatureOf(fidelity: unknown): string | undefined {
  if (!isRecord(fidelity)) return undefined;
  for (const key of ["signature", "encrypted_content"]) {
    const v = fidelity[key];
    if (typeof v === "string" && v) return v;
  }
  return undefined;
}

const signed = (part: Rec, fidelity: unknown): Rec => {
  const signature = signatureOf(fidelity);
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
};

/** The part of a finished call, image, audio or thought image (what Gemini sends whole). */
function wholePart(item: StreamDoneItem): Rec | undefined {
  switch (item.type) {
    case "tool_call.done":
      return signed({ functionCall: { id: item.tool_call_id, name: item.name, args: item.arguments } }, item.fidelity);
    case "inline_data.done":
      return signed({ inlineData: { mimeType: item.mime_type, data: encodeBase64(item.data) } }, item.fidelity);
    case "inline_thinking.done":
      return signed({ inlineData: { mimeType: item.mime_type, data: encodeBase64(item.data) }, thought: true }, item.fidelity);
    default:
      return undefined;
  }
}

/**
 * The Gemini writer over one stream of UniEvents: each output one SSE message (`data: <chunk>` and its
 * blank line), so a writer that numbers frames (a kept stream's `id:`) can put one on each.
 */
export class GeminiEncoderCore implements StreamCore<UniEvent, string> {
  finished = false;
  /** Every chunk with parts is `head + parts + tail`. */
  private readonly head = `data: {"candidates":[{"content":{"role":"model","parts":`;
  private readonly tail: string;
  /**
   * The hot chunks (a text or thought fragment) written from templates made once per answer, only the
   * fragment (and its signature) JSON-escaped: the bytes `chunk({ text, thought?, thoughtSignature? })`
   * writes, with no part object built per fragment only to be stringified.
   */
  // (the templates and `ended` are protected: the relay's door writes the same chunks as bytes from
  // them, relay/doors/gemini/bytes.ts)
  protected readonly text: string;
  protected readonly thought = `,"thought":true`;
  protected readonly close: string;
  private readonly meta: string;
  protected ended = false;

  constructor(private readonly options: GeminiEncoderOptions) {
    let meta = "";
    if (options.modelVersion !== undefined) meta += `,"modelVersion":${JSON.stringify(options.modelVersion)}`;
    if (options.responseId !== undefined) meta += `,"responseId":${JSON.stringify(options.responseId)}`;
    this.meta = meta;
    this.tail = `},"index":0}]${meta}}\r\n\r\n`;
    this.text = `${this.head}[{"text":`;
    this.close = `}]${this.tail}`;
  }

  push(event: UniEvent, emit: (chunk: string) => void): void {
    if (this.ended) return;
    if (event.event_type === "stop") {
      this.ended = this.finished = true;
      const finish = GEMINI_FINISH[event.finish_reason ?? "unknown"] ?? "OTHER";
      return emit(
        `data: {"candidates":[{"finishReason":"${finish}","index":0}],"usageMetadata":${
          JSON.stringify(geminiUsage(event.usage_metadata))
        }${this.meta}}\r\n\r\n`,
      );
    }
    for (const item of event.content_items) {
      switch (item.type) {
        case "text.delta":
        case "thinking.delta": {
          const thought = item.type === "thinking.delta";
          const text = thought ? item.thinking : item.text;
          const signature = item.fidelity === undefined ? undefined : signatureOf(item.fidelity);
          // (an empty fragment is written only to carry its signature)
          if (signature !== undefined) {
            emit(
              `${this.text}${JSON.stringify(text)}${thought ? this.thought : ""},"thoughtSignature":${
                JSON.stringify(signature)
              }${this.close}`,
            );
          } else if (text) {
            emit(thought ? this.text + JSON.stringify(text) + this.thought + this.close : this.text + JSON.stringify(text) + this.close);
          }
          break;
        }
        case "tool_call.done":
        case "inline_data.done":
        case "inline_thinking.done":
          emit(this.chunk(wholePart(item)!));
          break;
        case "embedding.done":
          this.options.onWarning?.("Gemini has no part for embedding.done: left out.");
          break;
          // (tool calls, images and audio are written whole at their .done; text ends with its last fragment)
      }
    }
  }

  private chunk(part: Rec): string {
    return `${this.head}[${JSON.stringify(part)}]${this.tail}`;
  }

  abort(reason: unknown, emit: (chunk: string) => void): void {
    if (this.ended) return;
    this.ended = this.finished = true;
    emit(`data: ${JSON.stringify(geminiError(reason).body)}\r\n\r\n`);
  }

  end(emit: (chunk: string) => void): void {
    // a stream that ends without its stop event is no whole answer (the checked reader errors first)
    if (!this.ended) this.abort(new Error("the stream ended before its stop event"), emit);
  }
}

/** The core's chunks of each UniEvent as one piece of bytes. */
class Encoder implements StreamCore<UniEvent, Uint8Array> {
  private readonly utf8 = new TextEncoder();
  private readonly core: GeminiEncoderCore;
  private out = "";
  private readonly collect = (chunk: string): void => void (this.out += chunk);

  constructor(options: GeminiEncoderOptions) {
    this.core = new GeminiEncoderCore(options);
  }

  get finished(): boolean {
    return this.core.finished;
  }

  private flush(emit: (b: Uint8Array) => void): void {
    if (this.out) emit(this.utf8.encode(this.out));
    this.out = "";
  }

  push(event: UniEvent, emit: (b: Uint8Array) => void): void {
    this.core.push(event, this.collect);
    this.flush(emit);
  }

  abort(reason: unknown, emit: (b: Uint8Array) => void): void {
    this.core.abort(reason, this.collect);
    this.flush(emit);
  }

  end(emit: (b: Uint8Array) => void): void {
    this.core.end(this.collect);
    this.flush(emit);
  }
}

/**
 * Writes checked UniEvents (a public stream: SPEC §3) as the bytes of Gemini's
 * `streamGenerateContent?alt=sse` answer: `data: <GenerateContentResponse>` messages, each UniEvent's
 * chunks in one piece, the last with `finishReason` and `usageMetadata`. An error on the writable side
 * (a failed upstream, a Stop) becomes Gemini's `{"error": {code, message, status}}` chunk.
 *
 * @example
 * ```ts
 * import type { UniEvent } from "mmsp-streams";
 * import { GeminiEncoderStream } from "mmsp-streams/encode";
 *
 * const usage = { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 };
 * const events: UniEvent[] = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: "stop" },
 * ];
 * const body = ReadableStream.from(events).pipeThrough(new GeminiEncoderStream({ modelVersion: "gemini-2.5-flash" }));
 * console.log(await new Response(body).text()); // data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},…
 * ```
 */
export class GeminiEncoderStream extends CoreStream<UniEvent, Uint8Array> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the encoder (`modelVersion` and `responseId` name every chunk). */
  constructor(options: GeminiEncoderOptions = {}) {
    checkOptions("GeminiEncoderStream", options, OPTIONS);
    super(new Encoder(options));
  }
}

/**
 * The non-streamed answer (`generateContent`'s `GenerateContentResponse`) of a finished message: one
 * part per item (text, thought text, a function call with its `args`, `inlineData`; each
 * `thoughtSignature` on its item's part), the candidate's `finishReason` and the `usageMetadata`.
 *
 * @example
 * ```ts
 * import { geminiResponse } from "mmsp-streams/encode";
 *
 * const message = { role: "assistant" as const, content_items: [{ type: "text.done" as const, text: "Hi" }], finish_reason: "stop" as const };
 * console.log(geminiResponse(message).candidates); // [{ content: { role: "model", parts: [{ text: "Hi" }] }, finishReason: "STOP", index: 0 }]
 * ```
 */
export function geminiResponse(message: UniMessage, options: GeminiEncoderOptions = {}): Rec & { candidates: Rec[] } {
  checkOptions("geminiResponse", options, OPTIONS);
  const parts: Rec[] = [];
  for (const item of message.content_items) {
    if (item.type === "text.done") parts.push(signed({ text: item.text }, item.fidelity));
    else if (item.type === "thinking.done") parts.push(signed({ text: item.thinking, thought: true }, item.fidelity));
    else {
      const part = item.type === "embedding.done" || item.type === "image_url.done" || item.type === "tool_result.done"
        ? undefined
        : wholePart(item);
      if (part) parts.push(part);
      else options.onWarning?.(`Gemini has no part for ${item.type}: left out.`);
    }
  }
  return {
    candidates: [{
      content: { role: "model", parts },
      finishReason: GEMINI_FINISH[message.finish_reason ?? "unknown"] ?? "OTHER",
      index: 0,
    }],
    usageMetadata: geminiUsage(message.usage_metadata),
    ...(options.modelVersion !== undefined ? { modelVersion: options.modelVersion } : {}),
    ...(options.responseId !== undefined ? { responseId: options.responseId } : {}),
  };
}

/** The `status` word of Google's APIs for an HTTP status. */
const GOOGLE_STATUS: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/**
 * Any thrown value in Google's error shape: the HTTP status it stands for and the body
 * `{"error": {code, message, status}}` (`status` Google's word for the code; a Gemini error relayed
 * as it was read keeps its own). In a stream the same body is the error chunk.
 *
 * @example
 * ```ts
 * import { geminiError } from "mmsp-streams/encode";
 *
 * class RateLimitError extends Error {}
 * console.log(geminiError(new RateLimitError("slow down")));
 * // { status: 429, body: { error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" } } }
 * ```
 */
export function geminiError(reason: unknown): { status: number; body: { error: Rec } } {
  const { message, status } = errorParts(reason);
  const upstream = isRecord((reason as { error?: unknown } | null)?.error) ? (reason as { error: Rec }).error : undefined;
  if (upstream && typeof upstream.code === "number" && typeof upstream.status === "string") return { status, body: { error: upstream } };
  const word = GOOGLE_STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
  return { status, body: { error: { code: status, message, status: word } } };
}
