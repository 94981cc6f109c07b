/**
 * `mmsp-streams/encode`: the producer side without the reader. UniEvents → SSE or NDJSON bytes
 * (inline bytes as padded base64, an error on the writable side as one `{"error": E}` event), the
 * SPEC §6 wire shape of errors, and the base64 codec. The events are written as given: to build
 * the grammatical public stream from bare fragments, put `MessageAssemblerStream({ mode: "assemble" })`
 * (main entry) in front.
 *
 * @example
 * ```ts
 * import { SseEncoderStream } from "mmsp-streams/encode";
 *
 * const events = ReadableStream.from([
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 * ] as const);
 * const body = events.pipeThrough(new SseEncoderStream());
 * console.log(await new Response(body).text()); // data: {...}\n\ndata: [DONE]\n\n
 * ```
 *
 * @module
 */
export { SseEncoderStream, type SseEncoderOptions } from "./encode/sse-encoder.js";
export { NdjsonEncoderStream } from "./encode/ndjson-encoder.js";
export { toWireEvent, encodeWireEvent } from "./encode/wire-event.js";
export { toWireError, type WireError } from "./errors.js";
export { decodeBase64, encodeBase64 } from "./decode/base64.js";
export type { CoreStreamOptions } from "./internal/core-stream.js";
