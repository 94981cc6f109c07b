// Compile-time only (npx tsc -p test/ai-sdk): the types mmsp-streams/ai-sdk declares for itself
// match the real AI SDK's, in the directions users rely on.
import type { UIMessage as AiUIMessage, UIMessageChunk as AiUIMessageChunk } from "ai";
import { readUIMessageStream } from "ai";
import { toMmspMessages, UIMessageChunkStream, type UIMessage, type UIMessageChunk } from "../../dist/ai-sdk/index.js";

// every chunk the adapter writes is an AI SDK chunk
export const chunk = (c: UIMessageChunk): AiUIMessageChunk => c;
// the adapter's readable is what readUIMessageStream (and createUIMessageStreamResponse) take
export const read = (s: UIMessageChunkStream) => readUIMessageStream({ stream: s.readable });
// useChat's messages go into toMmspMessages as they are
export const convert = (messages: AiUIMessage[]) => toMmspMessages(messages);
export const one = (m: AiUIMessage): UIMessage => m;

// MmspChatTransport is an AI SDK ChatTransport (useChat's `transport`), without importing `ai`
import type { ChatTransport } from "ai";
import { MmspChatTransport } from "../../dist/ai-sdk/index.js";
export const transport: ChatTransport<AiUIMessage> = new MmspChatTransport<AiUIMessage>();
