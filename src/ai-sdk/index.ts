/**
 * mmsp-streams/ai-sdk: MMSP streams in and out of the Vercel AI SDK's UI message stream protocol
 * (`useChat`, `readUIMessageStream`, v1), both ways, without importing `ai`:
 *
 *   checked UniEvents ─ UIMessageChunkStream ─ toUIMessageStreamResponse ─▶ useChat
 *   useChat's UIMessage[] ─ toMmspMessages ─▶ the `messages` of an MMSP request
 *   useChat ─ MmspChatTransport ─▶ a relay that keeps answers: stop() cancels, a drop resumes
 *
 * A subpath of its own, so the core entry (`mmsp-streams`) does not grow.
 */
export { UIMessageChunkStream, type UIMessageChunkStreamOptions } from "./ui-message-chunk-stream.js";
export { toMmspMessages, type ToMmspMessagesOptions } from "./to-mmsp-messages.js";
export { toUIMessageStreamResponse, UI_MESSAGE_STREAM_HEADERS } from "./response.js";
export { UIMessageConversionError } from "./conversion-error.js";
export {
  type ChatRequestOptions,
  MmspChatTransport,
  type MmspChatTransportOptions,
  type ReconnectToStreamOptions,
  type Resolvable,
  type SendMessagesOptions,
} from "./chat-transport.js";
export type {
  DataUIPart,
  DynamicToolUIPart,
  EmbeddingData,
  FileUIPart,
  JSONValue,
  MmspMessageMetadata,
  ProviderMetadata,
  ReasoningFileUIPart,
  ReasoningUIPart,
  StepStartUIPart,
  TextUIPart,
  ToolPartState,
  ToolUIPart,
  UIFinishReason,
  UIMessage,
  UIMessageChunk,
  UIMessagePart,
} from "./types.js";
