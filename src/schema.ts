/**
 * The MMSP data model (SPEC §2) as zod schemas: the one source of the package's types.
 *
 * Bytes are `Uint8Array` here; on the wire they travel as padded base64 (see `decode/base64.ts`).
 * Events and items keep members this version does not know (they pass through untouched);
 * `usage_metadata` is exact, as the protocol says.
 *
 * @example
 * ```ts
 * import { UniEventSchema } from "mmsp-streams";
 * const result = UniEventSchema.safeParse(candidate);
 * if (!result.success) console.error(result.error.issues);
 * ```
 */
import * as z from "zod/mini";

/** Unix milliseconds. */
const timestamp = z.int();
const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array, "expected bytes (Uint8Array)");
const tokenCount = z.nullable(z.int().check(z.nonnegative()));

export const RoleSchema = z.enum(["assistant", "user"]);
export const EventTypeSchema = z.enum(["delta", "stop"]);
export const FinishReasonSchema = z.enum(["stop", "length", "tool_call", "unknown"]);

/** Opaque producer data (signatures, phase labels…). Absent, `null` and `{}` mean the same. */
export const FidelitySchema = z.record(z.string(), z.unknown());
const fidelity = z.optional(z.nullable(FidelitySchema));

export const UsageMetadataSchema = z.strictObject({
  cached_tokens: tokenCount,
  prompt_tokens: tokenCount,
  thoughts_tokens: tokenCount,
  response_tokens: tokenCount,
});

// ---- delta items: fragments, only inside events -------------------------------------------

export const TextDeltaSchema = z.object({ type: z.literal("text.delta"), text: z.string(), fidelity });
export const ThinkingDeltaSchema = z.object({ type: z.literal("thinking.delta"), thinking: z.string(), fidelity });
export const ToolCallDeltaSchema = z.object({
  type: z.literal("tool_call.delta"),
  name: z.string(),
  tool_call_id: z.string(),
  /** A fragment of the JSON text of the arguments. */
  arguments: z.string(),
  fidelity,
});
export const InlineDataDeltaSchema = z.object({
  type: z.literal("inline_data.delta"),
  data: bytes,
  mime_type: z.string(),
  fidelity,
});
export const InlineThinkingDeltaSchema = z.object({
  type: z.literal("inline_thinking.delta"),
  data: bytes,
  mime_type: z.string(),
  fidelity,
});
export const EmbeddingDeltaSchema = z.object({ type: z.literal("embedding.delta"), embedding: z.array(z.number()) });

// ---- done items: complete, the only items a message holds ---------------------------------

export const TextDoneSchema = z.object({ type: z.literal("text.done"), text: z.string(), fidelity });
export const ThinkingDoneSchema = z.object({ type: z.literal("thinking.done"), thinking: z.string(), fidelity });
export const ToolCallDoneSchema = z.object({
  type: z.literal("tool_call.done"),
  name: z.string(),
  /** The parsed arguments: always a JSON object. */
  arguments: z.record(z.string(), z.unknown()),
  tool_call_id: z.string(),
  fidelity,
});
export const InlineDataDoneSchema = z.object({
  type: z.literal("inline_data.done"),
  data: bytes,
  mime_type: z.string(),
  fidelity,
});
export const InlineThinkingDoneSchema = z.object({
  type: z.literal("inline_thinking.done"),
  data: bytes,
  mime_type: z.string(),
  fidelity,
});
export const EmbeddingDoneSchema = z.object({ type: z.literal("embedding.done"), embedding: z.array(z.number()) });
/** Written by users only, never streamed. */
export const ImageUrlDoneSchema = z.object({ type: z.literal("image_url.done"), image_url: z.string() });
/** Written by users only, never streamed. */
export const ToolResultDoneSchema = z.object({
  type: z.literal("tool_result.done"),
  text: z.string(),
  images: z.optional(z.array(z.string())),
  tool_call_id: z.string(),
});

export const DeltaItemSchema = z.discriminatedUnion("type", [
  TextDeltaSchema,
  ThinkingDeltaSchema,
  ToolCallDeltaSchema,
  InlineDataDeltaSchema,
  InlineThinkingDeltaSchema,
  EmbeddingDeltaSchema,
]);

export const DoneItemSchema = z.discriminatedUnion("type", [
  TextDoneSchema,
  ThinkingDoneSchema,
  ToolCallDoneSchema,
  InlineDataDoneSchema,
  InlineThinkingDoneSchema,
  EmbeddingDoneSchema,
  ImageUrlDoneSchema,
  ToolResultDoneSchema,
]);

/** The done items a stream may carry (the six streaming kinds). */
export const StreamDoneItemSchema = z.discriminatedUnion("type", [
  TextDoneSchema,
  ThinkingDoneSchema,
  ToolCallDoneSchema,
  InlineDataDoneSchema,
  InlineThinkingDoneSchema,
  EmbeddingDoneSchema,
]);

export const ContentItemSchema = z.union([DeltaItemSchema, DoneItemSchema]);

export const UniEventSchema = z.object({
  role: RoleSchema,
  event_type: EventTypeSchema,
  content_items: z.array(ContentItemSchema),
  usage_metadata: z.nullable(UsageMetadataSchema),
  finish_reason: z.nullable(FinishReasonSchema),
  created_at: z.optional(timestamp),
});

export const UniMessageSchema = z.object({
  role: RoleSchema,
  content_items: z.array(DoneItemSchema),
  usage_metadata: z.optional(z.nullable(UsageMetadataSchema)),
  finish_reason: z.optional(z.nullable(FinishReasonSchema)),
  created_at: z.optional(timestamp),
});

export type Role = z.infer<typeof RoleSchema>;
export type EventType = z.infer<typeof EventTypeSchema>;
export type FinishReason = z.infer<typeof FinishReasonSchema>;
export type Fidelity = z.infer<typeof FidelitySchema>;
export type UsageMetadata = z.infer<typeof UsageMetadataSchema>;

export type TextDelta = z.infer<typeof TextDeltaSchema>;
export type ThinkingDelta = z.infer<typeof ThinkingDeltaSchema>;
export type ToolCallDelta = z.infer<typeof ToolCallDeltaSchema>;
export type InlineDataDelta = z.infer<typeof InlineDataDeltaSchema>;
export type InlineThinkingDelta = z.infer<typeof InlineThinkingDeltaSchema>;
export type EmbeddingDelta = z.infer<typeof EmbeddingDeltaSchema>;
export type TextDone = z.infer<typeof TextDoneSchema>;
export type ThinkingDone = z.infer<typeof ThinkingDoneSchema>;
export type ToolCallDone = z.infer<typeof ToolCallDoneSchema>;
export type InlineDataDone = z.infer<typeof InlineDataDoneSchema>;
export type InlineThinkingDone = z.infer<typeof InlineThinkingDoneSchema>;
export type EmbeddingDone = z.infer<typeof EmbeddingDoneSchema>;
export type ImageUrlDone = z.infer<typeof ImageUrlDoneSchema>;
export type ToolResultDone = z.infer<typeof ToolResultDoneSchema>;

export type DeltaItem = z.infer<typeof DeltaItemSchema>;
export type DoneItem = z.infer<typeof DoneItemSchema>;
export type StreamDoneItem = z.infer<typeof StreamDoneItemSchema>;
export type ContentItem = z.infer<typeof ContentItemSchema>;
export type UniEvent = z.infer<typeof UniEventSchema>;
export type UniMessage = z.infer<typeof UniMessageSchema>;

/** The six kinds that stream as `K.delta+ K.done`. */
export const KINDS = ["text", "thinking", "tool_call", "inline_data", "inline_thinking", "embedding"] as const;
export type Kind = (typeof KINDS)[number];
