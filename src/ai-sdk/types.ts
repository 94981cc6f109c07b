/**
 * The AI SDK's UI message stream protocol (`x-vercel-ai-ui-message-stream: v1`), declared here so
 * the library never imports `ai` at run time: the chunks this adapter writes and the `UIMessage`
 * shape it reads. They match the published `ai` types structurally (the tests check both ways
 * with the real package): a `ReadableStream<UIMessageChunk>` from here is what `useChat`,
 * `readUIMessageStream` and `createUIMessageStreamResponse` take, and an AI SDK `UIMessage[]` is
 * what `toMmspMessages` takes.
 */
import type { FinishReason as MmspFinishReason, Fidelity, UsageMetadata } from "../index.js";

/** JSON values, as the AI SDK's `providerMetadata` holds them. */
export type JSONValue = null | string | number | boolean | JSONValue[] | { [key: string]: JSONValue | undefined };

/**
 * Provider metadata: `{ [provider]: { …JSON } }`. This adapter writes an item's MMSP `fidelity`
 * (signatures, phase labels…) as `providerMetadata.mmsp`, and reads it back from there.
 */
export type ProviderMetadata = Record<string, Record<string, JSONValue | undefined>>;

/** The AI SDK's finish reasons (the `finish` chunk). */
export type UIFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "interrupted" | "other";

/**
 * What the adapter writes as the message's `metadata` (on the `finish` chunk): the stop event's
 * usage, finish reason and time, so the MMSP message can be rebuilt exactly.
 */
export interface MmspMessageMetadata {
  mmsp: {
    usage_metadata: UsageMetadata;
    finish_reason: MmspFinishReason;
    created_at?: number;
  };
}

/** The `data-embedding` part's data: one vector of an embedding response. */
export interface EmbeddingData {
  embedding: number[];
}

// ---- the chunks (one JSON object per SSE event on the wire) ------------------------------------

export type UIMessageChunk =
  | { type: "start"; messageId?: string; messageMetadata?: unknown }
  | { type: "text-start"; id: string; providerMetadata?: ProviderMetadata }
  | { type: "text-delta"; id: string; delta: string; providerMetadata?: ProviderMetadata }
  | { type: "text-end"; id: string; providerMetadata?: ProviderMetadata }
  | { type: "reasoning-start"; id: string; providerMetadata?: ProviderMetadata }
  | { type: "reasoning-delta"; id: string; delta: string; providerMetadata?: ProviderMetadata }
  | { type: "reasoning-end"; id: string; providerMetadata?: ProviderMetadata }
  | { type: "tool-input-start"; toolCallId: string; toolName: string; providerMetadata?: ProviderMetadata }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown; providerMetadata?: ProviderMetadata }
  | { type: "file"; url: string; mediaType: string; providerMetadata?: ProviderMetadata }
  | { type: "reasoning-file"; url: string; mediaType: string; providerMetadata?: ProviderMetadata }
  | { type: "data-embedding"; id?: string; data: EmbeddingData }
  | { type: "finish"; finishReason?: UIFinishReason; messageMetadata?: unknown }
  | { type: "error"; errorText: string };

// ---- the message (what useChat keeps and sends back) -------------------------------------------

export interface TextUIPart {
  type: "text";
  text: string;
  state?: "streaming" | "done";
  providerMetadata?: ProviderMetadata;
}
export interface ReasoningUIPart {
  type: "reasoning";
  text: string;
  state?: "streaming" | "done";
  providerMetadata?: ProviderMetadata;
}
export interface FileUIPart {
  type: "file";
  mediaType: string;
  url: string;
  filename?: string;
  providerMetadata?: ProviderMetadata;
}
export interface ReasoningFileUIPart {
  type: "reasoning-file";
  mediaType: string;
  url: string;
  providerMetadata?: ProviderMetadata;
}
export interface StepStartUIPart {
  type: "step-start";
}
/** The states of a tool invocation part (`tool-<name>` or `dynamic-tool`). */
export type ToolPartState =
  | "input-streaming"
  | "input-available"
  | "approval-requested"
  | "approval-responded"
  | "output-available"
  | "output-error"
  | "output-denied";
export interface ToolUIPart {
  /** `tool-<name>` (a static tool) */
  type: `tool-${string}`;
  toolCallId: string;
  state: ToolPartState;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  callProviderMetadata?: ProviderMetadata;
  approval?: { id: string; approved?: boolean; reason?: string };
}
export interface DynamicToolUIPart extends Omit<ToolUIPart, "type"> {
  type: "dynamic-tool";
  toolName: string;
}
export interface DataUIPart {
  type: `data-${string}`;
  id?: string;
  data: unknown;
}

/** The parts `toMmspMessages` converts; any other part (`source-url`, …) is typed by its `type` alone. */
export type UIMessagePart =
  | TextUIPart
  | ReasoningUIPart
  | FileUIPart
  | ReasoningFileUIPart
  | StepStartUIPart
  | ToolUIPart
  | DynamicToolUIPart
  | DataUIPart
  | { type: string };

export interface UIMessage {
  id: string;
  role: "system" | "user" | "assistant";
  metadata?: unknown;
  parts: readonly UIMessagePart[];
}

/** Re-exported for the option types: an MMSP item's fidelity. */
export type { Fidelity };
