/**
 * mmsp-streams: the bytes of a streamed LLM response (MMSP UniEvents over SSE or NDJSON) → typed,
 * checked events and the finished assistant message, with web streams only.
 *
 * The pipeline, each stage usable on its own:
 *   bytes ─ MmspSseDecoderStream / MmspNdjsonDecoderStream ─ UniEventDecoderStream ─ MessageAssemblerStream ─▶ events
 * and fused in one stage: `UniEventStream` (or `fromResponse`). The producer side: bare fragments ─
 * `MessageAssemblerStream({ mode: "assemble" })` (or `UniEventStream({ mode: "assemble" })` from
 * bytes) ─ `SseEncoderStream` / `NdjsonEncoderStream` ─▶ bytes.
 *
 * The wire format defaults to SSE (`format: "sse"`); `fromResponse` follows `Content-Type`. The
 * protocol: https://github.com/Prism-Shadow/model-message-stream-protocol. Smaller entry points
 * load only what they need: `mmsp-streams/sse`, `/ndjson`, `/encode`, `/partial-json`.
 *
 * @example Read a streamed response: the events as they arrive, then the finished message
 * ```ts
 * import { UniEventStream } from "mmsp-streams";
 *
 * const body = new Response(
 *   'data: {"role":"assistant","event_type":"delta","content_items":[{"type":"text.delta","text":"Hi"}],"usage_metadata":null,"finish_reason":null}\n\n' +
 *     'data: {"role":"assistant","event_type":"delta","content_items":[{"type":"text.done","text":"Hi"}],"usage_metadata":null,"finish_reason":null}\n\n' +
 *     'data: {"role":"assistant","event_type":"stop","content_items":[],"usage_metadata":{"cached_tokens":null,"prompt_tokens":2,"thoughts_tokens":null,"response_tokens":1},"finish_reason":"stop"}\n\n' +
 *     "data: [DONE]\n\n",
 * ).body!;
 * const stream = new UniEventStream();
 * const reader = body.pipeThrough(stream).getReader();
 * for (let r = await reader.read(); !r.done; r = await reader.read()) console.log(r.value.event_type);
 * console.log((await stream.message).content_items); // [{ type: "text.done", text: "Hi" }]
 * ```
 *
 * @module
 */
export * from "./schema.js";
export {
  ConnectionError,
  EmptyResponseError,
  type ErrorContext,
  fromWireError,
  MmspError,
  refusalError,
  StreamLimitError,
  StreamProtocolError,
  ToolCallArgumentParseError,
  toWireError,
  UnsupportedOperationError,
  UnsupportedParameterError,
  UpstreamError,
  type WireError,
} from "./errors.js";
export { type SseDecoderOptions, SseDecoderStream, type SseMessage } from "./framing/sse.js";
export { type NdjsonDecoderOptions, NdjsonDecoderStream } from "./framing/ndjson.js";
export {
  type MmspNdjsonDecoderOptions,
  MmspNdjsonDecoderStream,
  type MmspSseDecoderOptions,
  MmspSseDecoderStream,
} from "./framing/mmsp.js";
export { type UniEventDecoderOptions, UniEventDecoderStream } from "./decode/uni-event-decoder-stream.js";
export { type MessageAssemblerOptions, MessageAssemblerStream } from "./assemble/message-assembler-stream.js";
export { type SseEncoderOptions, SseEncoderStream } from "./encode/sse-encoder.js";
export { NdjsonEncoderStream } from "./encode/ndjson-encoder.js";
export { encodeWireEvent, toWireEvent } from "./encode/wire-event.js";
export { UniEventBatchStream } from "./uni-event-batch-stream.js";
export { type BodyContext, type ReaderWarning, UniEventStream, type UniEventStreamOptions, type WireFormat } from "./uni-event-stream.js";
export { DEFAULT_LIMITS, type LimitOptions } from "./internal/limits.js";
export type { CoreStreamOptions } from "./internal/core-stream.js";
export { formatFromContentType, fromResponse, type ResponseEvents } from "./from-response.js";
export { decodeBase64, encodeBase64 } from "./decode/base64.js";
export { PartialJsonParser, type PartialJsonParserOptions } from "./partial/partial-json.js";
export { isUniEvent } from "./decode/validate.js";
export type { MessageSnapshot, PartialItem, SnapshotDoneItem, SnapshotItem } from "./assemble/live-message.js";
export type { StreamTimings } from "./read/timings.js";
export { type FetchEvents, fromFetch, type FromFetchOptions, type ReconnectOptions } from "./from-fetch.js";
