/**
 * UniEvents → the bytes of an MMSP SSE stream: `data: <json>\n\n` per event, `data: [DONE]\n\n` at
 * the end, byte fields as padded base64, an error as `data: {"error": …}` + `[DONE]`.
 */
import { CoreStream } from "../internal/core-stream.js";
import { checkOptions, SSE_ENCODER_OPTIONS } from "../internal/options.js";
import type { UniEvent } from "../schema.js";
import { SSE_FRAMING, WireEncoderCore } from "./wire-event.js";

/** Options of `SseEncoderStream`. */
export interface SseEncoderOptions {
  /**
   * Writes the comment `: keep-alive\n\n` after this many milliseconds without output (MMSP uses
   * 15000), so proxies and clients do not time out a long silence. Default: off.
   */
  keepAliveMs?: number;
}

/**
 * Writes UniEvents as Server-Sent Events, the way an MMSP server does.
 *
 * An error on the writable side (`writer.abort(err)`, or an erroring source in a pipe) becomes one
 * `data: {"error": toWireError(err)}` event and `data: [DONE]`: the reader gets the error, not a
 * broken connection. The keep-alive timer stops when the stream closes, errors or is cancelled.
 *
 * @example
 * ```ts
 * import { SseEncoderStream, type UniEvent } from "mmsp-streams";
 *
 * const events = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 * ] as UniEvent[];
 * const body = ReadableStream.from(events).pipeThrough(new SseEncoderStream({ keepAliveMs: 15000 }));
 * const response = new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
 * console.log(await response.text()); // data: {...}\n\ndata: [DONE]\n\n
 * ```
 */
export class SseEncoderStream extends CoreStream<UniEvent, Uint8Array> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the encoder. */
  constructor(options: SseEncoderOptions = {}) {
    checkOptions("SseEncoderStream", options, SSE_ENCODER_OPTIONS);
    super(new WireEncoderCore(SSE_FRAMING, options.keepAliveMs ?? 0));
  }
}
