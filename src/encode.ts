/**
 * `mmsp-streams/encode`: the producer side without the reader. UniEvents → SSE or NDJSON bytes
 * (inline bytes as padded base64, an error on the writable side as one `{"error": E}` event), the
 * SPEC §6 wire shape of errors, and the base64 codec. The events are written as given: to build
 * the grammatical public stream from bare fragments, put `MessageAssemblerStream({ mode: "assemble" })`
 * (main entry) in front.
 *
 * @example
 * ```ts
 * import type { UniEvent } from "mmsp-streams";
 * import { SseEncoderStream } from "mmsp-streams/encode";
 *
 * const stop: UniEvent = {
 *   role: "assistant",
 *   event_type: "stop",
 *   content_items: [],
 *   usage_metadata: { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 0 },
 *   finish_reason: "stop",
 * };
 * const events = new ReadableStream<UniEvent>({ start: (c) => (c.enqueue(stop), c.close()) });
 * const body = events.pipeThrough(new SseEncoderStream());
 * console.log(await new Response(body).text()); // data: {"role":"assistant",…}\n\ndata: [DONE]\n\n
 * ```
 *
 * @module
 */
export { type SseEncoderOptions, SseEncoderStream } from "./encode/sse-encoder.js";
export { NdjsonEncoderStream } from "./encode/ndjson-encoder.js";
export { encodeWireEvent, toWireEvent } from "./encode/wire-event.js";
export { toWireError, type WireError } from "./errors.js";
export { decodeBase64, encodeBase64 } from "./decode/base64.js";
export type { CoreStreamOptions } from "./internal/core-stream.js";
export {
  errorType as openResponsesErrorType,
  type OpenResponsesEncoderOptions,
  OpenResponsesEncoderStream,
  type OpenResponsesEvent,
  type OpenResponsesResource,
  openResponsesSse,
  OpenResponsesSseEncoderStream,
  openResponsesUsage,
} from "./encode/open-responses.js";
export {
  CHAT_FINISH,
  chatCompletion,
  type ChatCompletionsEncoderOptions,
  ChatCompletionsEncoderStream,
  chatCompletionsError,
  chatCompletionsUsage,
  type ChatReasoningField,
  reasoningDetails,
} from "./encode/chat-completions.js";
export {
  GEMINI_FINISH,
  type GeminiEncoderOptions,
  GeminiEncoderStream,
  geminiError,
  geminiResponse,
  geminiUsage,
} from "./encode/gemini.js";
export {
  type AnthropicContentBlock,
  type AnthropicMessage,
  anthropicMessage,
  type AnthropicMessagesEncoderOptions,
  AnthropicMessagesEncoderStream,
  anthropicMessagesError,
  anthropicStopReason,
  anthropicUsage,
} from "./encode/anthropic-messages.js";
