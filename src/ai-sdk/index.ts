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
  MmspChatTransport,
  type MmspChatTransportOptions,
  type Resolvable,
  type ChatRequestOptions,
  type SendMessagesOptions,
  type ReconnectToStreamOptions,
} from "./chat-transport.js";
export type {
  UIMessageChunk,
  UIMessage,
  UIMessagePart,
  TextUIPart,
  ReasoningUIPart,
  FileUIPart,
  ReasoningFileUIPart,
  StepStartUIPart,
  ToolUIPart,
  DynamicToolUIPart,
  DataUIPart,
  ToolPartState,
  ProviderMetadata,
  JSONValue,
  UIFinishReason,
  MmspMessageMetadata,
  EmbeddingData,
} from "./types.js";
