/**
 * `mmsp-streams/ndjson`: NDJSON / JSON Lines framing alone, bytes → one parsed JSON value per
 * line, without the UniEvent checks (and without zod); `MmspNdjsonDecoderStream` reads as the MMSP
 * reader does (an event object a line, a body that is no stream explained). The same classes as the main entry, so
 * `instanceof` works across the two.
 *
 * @example
 * ```ts
 * import { NdjsonDecoderStream } from "mmsp-streams/ndjson";
 *
 * const body = new Response('{"a":1}\n{"a":2}\n').body!;
 * for await (const value of body.pipeThrough(new NdjsonDecoderStream())) console.log(value);
 * ```
 *
 * @module
 */
export { type NdjsonDecoderOptions, NdjsonDecoderStream } from "./framing/ndjson.js";
export { type MmspNdjsonDecoderOptions, MmspNdjsonDecoderStream } from "./framing/mmsp.js";
export { type ErrorContext, MmspError, StreamLimitError, StreamProtocolError } from "./errors.js";
export { DEFAULT_LIMITS, type LimitOptions } from "./internal/limits.js";
export type { CoreStreamOptions } from "./internal/core-stream.js";
export type { BodyContext } from "./framing/framer.js";
