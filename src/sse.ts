/**
 * `mmsp-streams/sse`: Server-Sent Events framing alone, bytes → `{ data, event?, id? }` messages,
 * without the UniEvent checks (and without zod); `MmspSseDecoderStream` reads as the MMSP reader
 * does (strict UTF-8, a body that is no stream explained). The same classes as the main entry, so
 * `instanceof` works across the two.
 *
 * @example
 * ```ts
 * import { SseDecoderStream } from "mmsp-streams/sse";
 *
 * const body = new Response("data: hello\n\ndata: world\n\n").body!;
 * for await (const message of body.pipeThrough(new SseDecoderStream())) console.log(message.data);
 * ```
 *
 * @module
 */
export { type SseDecoderOptions, SseDecoderStream, type SseMessage } from "./framing/sse.js";
export { type MmspSseDecoderOptions, MmspSseDecoderStream } from "./framing/mmsp.js";
export { type ErrorContext, MmspError, StreamLimitError } from "./errors.js";
export { DEFAULT_LIMITS, type LimitOptions } from "./internal/limits.js";
export type { CoreStreamOptions } from "./internal/core-stream.js";
export type { BodyContext } from "./framing/framer.js";
