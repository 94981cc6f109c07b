/**
 * The AI SDK's UI message stream protocol (`x-vercel-ai-ui-message-stream: v1`), declared here so
 * the library never imports `ai` at run time: the chunks this adapter writes and the `UIMessage`
 * shape it reads. They match the published `ai` types structurally (the tests check both ways
 * with the real package): a `ReadableStream<UIMessageChunk>` from here is what `useChat`,
 * `readUIMessageStream` and `createUIMessageStreamResponse` take, and an AI SDK `UIMessage[]` is
 * what `toMmspMessages` takes.
 */
import type { Fidelity, FinishReason as MmspFinishReason, UsageMetadata } from "../index.js";

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
  /** The MMSP stop event's members, as the stream carried them. */
  mmsp: {
    /** The stop event's token counts. */
    usage_metadata: UsageMetadata;
    /** The stop event's finish reason (MMSP's, not the AI SDK's). */
    finish_reason: MmspFinishReason;
    /** The stop event's time, Unix ms, when it had one. */
    created_at?: number;
  };
}

/** The `data-embedding` part's data: one vector of an embedding response. */
export interface EmbeddingData {
  /** The vector. */
  embedding: number[];
}

// ---- the chunks (one JSON object per SSE event on the wire) ------------------------------------

/** One chunk of a UI message stream, as this adapter writes them (a subset of the AI SDK's `UIMessageChunk`). */
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

/** A text part (an MMSP `text.done`). */
export interface TextUIPart {
  /** `"text"`. */
  type: "text";
  /** The text. */
  text: string;
  /** `"streaming"` while it grows, `"done"` once complete. */
  state?: "streaming" | "done";
  /** Provider metadata; the MMSP fidelity travels as `providerMetadata.mmsp`. */
  providerMetadata?: ProviderMetadata;
}
/** A reasoning part (an MMSP `thinking.done`). */
export interface ReasoningUIPart {
  /** `"reasoning"`. */
  type: "reasoning";
  /** The reasoning text. */
  text: string;
  /** `"streaming"` while it grows, `"done"` once complete. */
  state?: "streaming" | "done";
  /** Provider metadata; the MMSP fidelity (a signature…) travels as `providerMetadata.mmsp`. */
  providerMetadata?: ProviderMetadata;
}
/** A file part (an MMSP `inline_data.done`: an image, audio…). */
export interface FileUIPart {
  /** `"file"`. */
  type: "file";
  /** The IANA media type, e.g. `image/png`. */
  mediaType: string;
  /** The bytes, as a `data:` URL (or a URL the AI SDK fetched from). */
  url: string;
  /** A file name, when the UI has one. */
  filename?: string;
  /** Provider metadata; the MMSP fidelity travels as `providerMetadata.mmsp`. */
  providerMetadata?: ProviderMetadata;
}
/** A file the model reasoned with (an MMSP `inline_thinking.done`; AI SDK 7). */
export interface ReasoningFileUIPart {
  /** `"reasoning-file"`. */
  type: "reasoning-file";
  /** The IANA media type. */
  mediaType: string;
  /** The bytes, as a `data:` URL. */
  url: string;
  /** Provider metadata; the MMSP fidelity travels as `providerMetadata.mmsp`. */
  providerMetadata?: ProviderMetadata;
}
/** The start of a step (the AI SDK's marker; carries nothing MMSP keeps). */
export interface StepStartUIPart {
  /** `"step-start"`. */
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
/** A tool invocation of a static tool (an MMSP `tool_call.done`, and its result when there is one). */
export interface ToolUIPart {
  /** `tool-<name>` (a static tool) */
  type: `tool-${string}`;
  /** The call's id (MMSP's `tool_call_id`). */
  toolCallId: string;
  /** Where the invocation is. */
  state: ToolPartState;
  /** The arguments (MMSP's `arguments`), once available. */
  input?: unknown;
  /** The tool's result, once available. */
  output?: unknown;
  /** Why the tool failed (`state: "output-error"`). */
  errorText?: string;
  /** Provider metadata of the call; the MMSP fidelity travels as `callProviderMetadata.mmsp`. */
  callProviderMetadata?: ProviderMetadata;
  /** The user's approval of the call, when the tool asks for one. */
  approval?: { id: string; approved?: boolean; reason?: string };
}
/** A tool invocation of a tool not known in advance (the name is a member, not part of the type). */
export interface DynamicToolUIPart extends Omit<ToolUIPart, "type"> {
  /** `"dynamic-tool"`. */
  type: "dynamic-tool";
  /** The tool's name. */
  toolName: string;
}
/** A data part (`data-<name>`); this adapter writes embeddings as `data-embedding`. */
export interface DataUIPart {
  /** `data-<name>`. */
  type: `data-${string}`;
  /** An id, for parts that are updated in place. */
  id?: string;
  /** The data. */
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

/** A message as `useChat` keeps it and sends it back. */
export interface UIMessage {
  /** The message's id. */
  id: string;
  /** Who wrote it. */
  role: "system" | "user" | "assistant";
  /** Message metadata (this adapter's: {@link MmspMessageMetadata}). */
  metadata?: unknown;
  /** The parts, in order. */
  parts: readonly UIMessagePart[];
}

/** Re-exported for the option types: an MMSP item's fidelity. */
export type { Fidelity };
