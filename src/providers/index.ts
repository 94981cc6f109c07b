/**
 * mmsp-streams/providers: a provider's own streaming answer (OpenAI Chat Completions, OpenAI
 * Responses, Anthropic Messages, Gemini) → checked UniEvents and the finished message, with web `fetch` and web streams only, in
 * every runtime the package runs in (a Worker, Deno, Bun, a browser, Node).
 *
 * Each provider's reader turns its events into the fragments of SPEC §5 and the package's assemble
 * mode makes the public stream, so every event passes `UniEventStream`'s checks by construction.
 * `ProviderEventStream` and `fromProviderResponse` read a body or a `Response` you fetched; the
 * factories (`openaiChat`, `openaiResponses`, `anthropic`, `gemini`) also build the provider's request from MMSP's request shape
 * (`{ model, messages, config }`) and do the fetch.
 *
 * @example Read an Anthropic stream you fetched yourself
 * ```ts
 * import { ProviderEventStream } from "mmsp-streams/providers";
 *
 * const body = [
 *   'data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}',
 *   'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
 *   'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
 *   'data: {"type":"content_block_stop","index":0}',
 *   'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
 *   'data: {"type":"message_stop"}',
 * ].join("\n\n") + "\n\n";
 * const stream = new ProviderEventStream("anthropic");
 * new Response(body).body!.pipeTo(stream.writable);
 * const message = await stream.message;
 * console.log(message.content_items, message.usage_metadata);
 * ```
 *
 * @module
 */
export { fromProviderResponse, ProviderEventStream } from "./provider-event-stream.js";
export type { ProviderName } from "./names.js";
export type { ProviderStreamOptions } from "./read.js";
export type { ProviderCoreOptions, ProviderWarning } from "./core.js";
export type { ProviderSpec } from "./spec.js";
export type { TraceSpan, TraceTracer, TraceValue } from "./tracing.js";
export type { EventReader, FragmentSink } from "./event-reader.js";
export type { ResponseEvents } from "../from-response.js";
export { openaiChat, type OpenAIChatOptions } from "./openai-chat/index.js";
export { anthropic, type AnthropicOptions } from "./anthropic/index.js";
export type { ThinkingMode } from "./anthropic/models.js";
export { openaiResponses } from "./openai-responses/index.js";
export { gemini } from "./gemini/index.js";
export type { Provider, ProviderEvents, ProviderOptions } from "./provider.js";
export type { MmspRequest, ThinkingLevel, ToolChoice, ToolSchema, UniConfig } from "./request.js";
