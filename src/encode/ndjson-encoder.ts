/**
 * UniEvents → NDJSON bytes: one compact JSON per line (`\n`), byte fields as padded base64, an
 * error as a last line `{"error": …}`. There is no `[DONE]` line: the end of the body ends it.
 */
import { checkOptions, NDJSON_ENCODER_OPTIONS } from "../internal/options.js";
import { CoreStream } from "../internal/core-stream.js";
import type { UniEvent } from "../schema.js";
import { NDJSON_FRAMING, WireEncoderCore } from "./wire-event.js";

/**
 * Writes UniEvents as NDJSON / JSON Lines (serve it as `application/x-ndjson`).
 *
 * An error on the writable side (`writer.abort(err)`, or an erroring source in a pipe) becomes one
 * last line `{"error": toWireError(err)}` and the output ends normally.
 *
 * @example
 * ```ts
 * const body = events.pipeThrough(new NdjsonEncoderStream());
 * return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
 * ```
 */
export class NdjsonEncoderStream extends CoreStream<UniEvent, Uint8Array> {
  /** It takes no options (the argument exists only so that a mistaken one is refused, not ignored). */
  constructor(options: Record<string, never> = {}) {
    checkOptions("NdjsonEncoderStream", options, NDJSON_ENCODER_OPTIONS);
    super(new WireEncoderCore(NDJSON_FRAMING));
  }
}
