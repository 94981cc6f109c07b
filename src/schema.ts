/**
 * The MMSP data model (SPEC §2) as zod schemas, and its TypeScript types.
 *
 * Bytes are `Uint8Array` here; on the wire they travel as padded base64 (see `decode/base64.ts`).
 * Events and items keep members this version does not know (they pass through untouched);
 * `usage_metadata` is exact, as the protocol says.
 *
 * The types are written out (for readers, and for JSR, which wants explicit types), and the schemas
 * stay the one source of truth: `test/types/schema.ts` fails to compile unless each schema infers
 * exactly its type. Every schema is built in a `/*#__PURE__*\/` call, so a bundle that never
 * validates drops it (and zod with it).
 *
 * @example
 * ```ts
 * import { UniEventSchema } from "mmsp-streams";
 *
 * const candidate: unknown = JSON.parse('{"role": "assistant", "event_type": "delta"}');
 * const result = UniEventSchema.safeParse(candidate);
 * if (!result.success) console.log(result.error.issues.map((issue) => issue.path.join("."))); // ["content_items", …]
 * ```
 *
 * @module
 */
import * as z from "zod/mini";

// ---- the types ---------------------------------------------------------------------------------
// Type aliases, not interfaces: like the inferred types they replace, they fit `Record<string, unknown>`.

/** Who wrote a message: `"assistant"` on every streamed event; `"user"` only in messages a caller writes. */
export type Role = "assistant" | "user";
/** `"delta"`: an event carrying one fragment or `.done` item; `"stop"`: the last event, with usage and finish reason. */
export type EventType = "delta" | "stop";
/** Why the model stopped: it finished, hit its length limit, wants a tool call run, or did not say. */
export type FinishReason = "stop" | "length" | "tool_call" | "unknown";
/** Opaque producer data (signatures, phase labels…): pass it back unchanged. Absent, `null` and `{}` mean the same. */
export type Fidelity = Record<string, unknown>;
/**
 * Token counts, read from the stop event (never add them up across events). Input = cached + prompt;
 * output = thoughts + response. Each is a non-negative integer, or `null` when the provider did not say.
 */
export type UsageMetadata = {
  /** Input tokens served from the provider's cache. */
  cached_tokens: number | null;
  /** Input tokens not from the cache. */
  prompt_tokens: number | null;
  /** Output tokens spent on thinking. */
  thoughts_tokens: number | null;
  /** Output tokens of the response itself. */
  response_tokens: number | null;
};

/** A fragment of text; may be `""` (e.g. a fragment that only brings fidelity). */
export type TextDelta = { type: "text.delta"; text: string; fidelity?: Fidelity | null };
/** A fragment of the model's thinking; may be `""`. */
export type ThinkingDelta = { type: "thinking.delta"; thinking: string; fidelity?: Fidelity | null };
/** A fragment of a tool call: `name` and `tool_call_id` are set on the first fragment, `""` afterwards. */
export type ToolCallDelta = {
  type: "tool_call.delta";
  /** The tool's name (first fragment only). */
  name: string;
  /** The call's id (first fragment only). */
  tool_call_id: string;
  /** A fragment of the JSON text of the arguments. */
  arguments: string;
  fidelity?: Fidelity | null;
};
/** A chunk of bytes of an image or audio item; `mime_type` on every fragment. */
export type InlineDataDelta = { type: "inline_data.delta"; data: Uint8Array; mime_type: string; fidelity?: Fidelity | null };
/** A chunk of bytes of an image the model thinks with. */
export type InlineThinkingDelta = {
  type: "inline_thinking.delta";
  data: Uint8Array;
  mime_type: string;
  fidelity?: Fidelity | null;
};
/** One whole embedding vector (no fidelity). */
export type EmbeddingDelta = { type: "embedding.delta"; embedding: number[] };

/** The whole text of a group. */
export type TextDone = { type: "text.done"; text: string; fidelity?: Fidelity | null };
/** The whole thinking of a group. */
export type ThinkingDone = { type: "thinking.done"; thinking: string; fidelity?: Fidelity | null };
/** A complete tool call. */
export type ToolCallDone = {
  type: "tool_call.done";
  name: string;
  /** The parsed arguments: always a JSON object. */
  arguments: Record<string, unknown>;
  tool_call_id: string;
  fidelity?: Fidelity | null;
};
/** A complete image or audio item. */
export type InlineDataDone = { type: "inline_data.done"; data: Uint8Array; mime_type: string; fidelity?: Fidelity | null };
/** A complete image the model thought with. */
export type InlineThinkingDone = {
  type: "inline_thinking.done";
  data: Uint8Array;
  mime_type: string;
  fidelity?: Fidelity | null;
};
/** A complete embedding vector. */
export type EmbeddingDone = { type: "embedding.done"; embedding: number[] };
/** An image by URL. Written by users only, never streamed. */
export type ImageUrlDone = { type: "image_url.done"; image_url: string };
/** The result of a tool call. Written by users only, never streamed. */
export type ToolResultDone = { type: "tool_result.done"; text: string; images?: string[]; tool_call_id: string };

/** A fragment: only inside events. */
export type DeltaItem = TextDelta | ThinkingDelta | ToolCallDelta | InlineDataDelta | InlineThinkingDelta | EmbeddingDelta;
/** A complete item: the only items a message holds. */
export type DoneItem =
  | TextDone
  | ThinkingDone
  | ToolCallDone
  | InlineDataDone
  | InlineThinkingDone
  | EmbeddingDone
  | ImageUrlDone
  | ToolResultDone;
/** The done items a stream may carry (the six streaming kinds). */
export type StreamDoneItem = TextDone | ThinkingDone | ToolCallDone | InlineDataDone | InlineThinkingDone | EmbeddingDone;
/** Any item an event may carry. */
export type ContentItem = DeltaItem | DoneItem;

/**
 * One event of a stream. In a public stream (SPEC §3) a `"delta"` event carries exactly one item and
 * null usage and finish reason; the `"stop"` event, the last, carries no item and both.
 */
export type UniEvent = {
  role: Role;
  event_type: EventType;
  content_items: ContentItem[];
  usage_metadata: UsageMetadata | null;
  finish_reason: FinishReason | null;
  /** Unix milliseconds (optional in the type, always sent by servers). */
  created_at?: number;
};

/** A complete message: what a stream builds, or what a caller writes. */
export type UniMessage = {
  role: Role;
  content_items: DoneItem[];
  usage_metadata?: UsageMetadata | null;
  finish_reason?: FinishReason | null;
  /** Unix milliseconds. */
  created_at?: number;
};

/**
 * The message a stream built (what a reader's `message` resolves to): a `UniMessage` whose items are
 * the done items a stream may carry, so the code that renders a snapshot's items renders it too.
 */
export type StreamedMessage = Omit<UniMessage, "content_items"> & { content_items: StreamDoneItem[] };

// ---- the schemas -------------------------------------------------------------------------------
// Each schema's type is spelled out (JSR's fast check reads no initialiser); the type test checks
// that each infers exactly the type above. Each is built in one pure call (an arrow run at once), so
// an unused schema goes with everything it would have built.

type Str = z.ZodMiniString<string>;
type Lit<T extends string> = z.ZodMiniLiteral<T>;
type Bytes = z.ZodMiniCustom<Uint8Array, Uint8Array>;
type Floats = z.ZodMiniArray<z.ZodMiniNumber<number>>;
type Fid = z.ZodMiniOptional<z.ZodMiniNullable<typeof FidelitySchema>>;
type TokenCount = z.ZodMiniNullable<z.ZodMiniInt>;
/** A zod object that checks the members it names and lets others pass. */
type Obj<Shape extends z.core.$ZodLooseShape> = z.ZodMiniObject<Shape, z.core.$strip>;
/** An inline item (`Inline<"inline_data.delta">`…): bytes and their MIME type. */
type Inline<T extends string> = Obj<{ type: Lit<T>; data: Bytes; mime_type: Str; fidelity: Fid }>;

/** Unix milliseconds. */
const timestamp = /*#__PURE__*/ z.int();
const bytes = /*#__PURE__*/ z.custom<Uint8Array>((v) => v instanceof Uint8Array, "expected bytes (Uint8Array)");
const tokenCount = /*#__PURE__*/ (() => z.nullable(z.int().check(z.nonnegative())))();

/** {@link Role}. */
export const RoleSchema: z.ZodMiniEnum<{ assistant: "assistant"; user: "user" }> = /*#__PURE__*/ z.enum(["assistant", "user"]);
/** {@link EventType}. */
export const EventTypeSchema: z.ZodMiniEnum<{ delta: "delta"; stop: "stop" }> = /*#__PURE__*/ z.enum(["delta", "stop"]);
/** {@link FinishReason}. */
export const FinishReasonSchema: z.ZodMiniEnum<{ stop: "stop"; length: "length"; tool_call: "tool_call"; unknown: "unknown" }> =
  /*#__PURE__*/ z.enum(["stop", "length", "tool_call", "unknown"]);

/** {@link Fidelity}: any JSON object. */
export const FidelitySchema: z.ZodMiniRecord<Str, z.ZodMiniUnknown> = /*#__PURE__*/ (() => z.record(z.string(), z.unknown()))();
const fidelity = /*#__PURE__*/ (() => z.optional(z.nullable(FidelitySchema)))();

/** {@link UsageMetadata}: exactly its four members (strict). */
export const UsageMetadataSchema: z.ZodMiniObject<
  { cached_tokens: TokenCount; prompt_tokens: TokenCount; thoughts_tokens: TokenCount; response_tokens: TokenCount },
  z.core.$strict
> = /*#__PURE__*/ (() =>
  z.strictObject({
    cached_tokens: tokenCount,
    prompt_tokens: tokenCount,
    thoughts_tokens: tokenCount,
    response_tokens: tokenCount,
  }))();

// ---- delta items: fragments, only inside events -------------------------------------------

/** {@link TextDelta}. */
export const TextDeltaSchema: Obj<{ type: Lit<"text.delta">; text: Str; fidelity: Fid }> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("text.delta"), text: z.string(), fidelity }))();
/** {@link ThinkingDelta}. */
export const ThinkingDeltaSchema: Obj<{ type: Lit<"thinking.delta">; thinking: Str; fidelity: Fid }> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("thinking.delta"), thinking: z.string(), fidelity }))();
/** {@link ToolCallDelta}. */
export const ToolCallDeltaSchema: Obj<{
  type: Lit<"tool_call.delta">;
  name: Str;
  tool_call_id: Str;
  arguments: Str;
  fidelity: Fid;
}> = /*#__PURE__*/ (() =>
  z.object({
    type: z.literal("tool_call.delta"),
    name: z.string(),
    tool_call_id: z.string(),
    arguments: z.string(),
    fidelity,
  }))();
/** {@link InlineDataDelta}. */
export const InlineDataDeltaSchema: Inline<"inline_data.delta"> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("inline_data.delta"), data: bytes, mime_type: z.string(), fidelity }))();
/** {@link InlineThinkingDelta}. */
export const InlineThinkingDeltaSchema: Inline<"inline_thinking.delta"> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("inline_thinking.delta"), data: bytes, mime_type: z.string(), fidelity }))();
/** {@link EmbeddingDelta}. */
export const EmbeddingDeltaSchema: Obj<{ type: Lit<"embedding.delta">; embedding: Floats }> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("embedding.delta"), embedding: z.array(z.number()) }))();

// ---- done items: complete, the only items a message holds ---------------------------------

/** {@link TextDone}. */
export const TextDoneSchema: Obj<{ type: Lit<"text.done">; text: Str; fidelity: Fid }> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("text.done"), text: z.string(), fidelity }))();
/** {@link ThinkingDone}. */
export const ThinkingDoneSchema: Obj<{ type: Lit<"thinking.done">; thinking: Str; fidelity: Fid }> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("thinking.done"), thinking: z.string(), fidelity }))();
/** {@link ToolCallDone}: `arguments` is a JSON object. */
export const ToolCallDoneSchema: Obj<{
  type: Lit<"tool_call.done">;
  name: Str;
  arguments: z.ZodMiniRecord<Str, z.ZodMiniUnknown>;
  tool_call_id: Str;
  fidelity: Fid;
}> = /*#__PURE__*/ (() =>
  z.object({
    type: z.literal("tool_call.done"),
    name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    tool_call_id: z.string(),
    fidelity,
  }))();
/** {@link InlineDataDone}. */
export const InlineDataDoneSchema: Inline<"inline_data.done"> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("inline_data.done"), data: bytes, mime_type: z.string(), fidelity }))();
/** {@link InlineThinkingDone}. */
export const InlineThinkingDoneSchema: Inline<"inline_thinking.done"> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("inline_thinking.done"), data: bytes, mime_type: z.string(), fidelity }))();
/** {@link EmbeddingDone}. */
export const EmbeddingDoneSchema: Obj<{ type: Lit<"embedding.done">; embedding: Floats }> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("embedding.done"), embedding: z.array(z.number()) }))();
/** {@link ImageUrlDone}: written by users only, never streamed. */
export const ImageUrlDoneSchema: Obj<{ type: Lit<"image_url.done">; image_url: Str }> =
  /*#__PURE__*/ (() => z.object({ type: z.literal("image_url.done"), image_url: z.string() }))();
/** {@link ToolResultDone}: written by users only, never streamed. */
export const ToolResultDoneSchema: Obj<{
  type: Lit<"tool_result.done">;
  text: Str;
  images: z.ZodMiniOptional<z.ZodMiniArray<Str>>;
  tool_call_id: Str;
}> = /*#__PURE__*/ (() =>
  z.object({
    type: z.literal("tool_result.done"),
    text: z.string(),
    images: z.optional(z.array(z.string())),
    tool_call_id: z.string(),
  }))();

/** {@link DeltaItem}: one of the six delta items, by `type`. */
export const DeltaItemSchema: z.ZodMiniDiscriminatedUnion<
  [
    typeof TextDeltaSchema,
    typeof ThinkingDeltaSchema,
    typeof ToolCallDeltaSchema,
    typeof InlineDataDeltaSchema,
    typeof InlineThinkingDeltaSchema,
    typeof EmbeddingDeltaSchema,
  ],
  "type"
> = /*#__PURE__*/ z.discriminatedUnion("type", [
  TextDeltaSchema,
  ThinkingDeltaSchema,
  ToolCallDeltaSchema,
  InlineDataDeltaSchema,
  InlineThinkingDeltaSchema,
  EmbeddingDeltaSchema,
]);

/** {@link DoneItem}: one of the eight done items, by `type`. */
export const DoneItemSchema: z.ZodMiniDiscriminatedUnion<
  [
    typeof TextDoneSchema,
    typeof ThinkingDoneSchema,
    typeof ToolCallDoneSchema,
    typeof InlineDataDoneSchema,
    typeof InlineThinkingDoneSchema,
    typeof EmbeddingDoneSchema,
    typeof ImageUrlDoneSchema,
    typeof ToolResultDoneSchema,
  ],
  "type"
> = /*#__PURE__*/ z.discriminatedUnion("type", [
  TextDoneSchema,
  ThinkingDoneSchema,
  ToolCallDoneSchema,
  InlineDataDoneSchema,
  InlineThinkingDoneSchema,
  EmbeddingDoneSchema,
  ImageUrlDoneSchema,
  ToolResultDoneSchema,
]);

/** {@link StreamDoneItem}: the done items a stream may carry (the six streaming kinds). */
export const StreamDoneItemSchema: z.ZodMiniDiscriminatedUnion<
  [
    typeof TextDoneSchema,
    typeof ThinkingDoneSchema,
    typeof ToolCallDoneSchema,
    typeof InlineDataDoneSchema,
    typeof InlineThinkingDoneSchema,
    typeof EmbeddingDoneSchema,
  ],
  "type"
> = /*#__PURE__*/ z.discriminatedUnion("type", [
  TextDoneSchema,
  ThinkingDoneSchema,
  ToolCallDoneSchema,
  InlineDataDoneSchema,
  InlineThinkingDoneSchema,
  EmbeddingDoneSchema,
]);

/** {@link ContentItem}: a delta or a done item. */
export const ContentItemSchema: z.ZodMiniUnion<readonly [typeof DeltaItemSchema, typeof DoneItemSchema]> = /*#__PURE__*/ z.union([
  DeltaItemSchema,
  DoneItemSchema,
]);

/** {@link UniEvent}: the shape of one event (the grammar of a stream is checked by the streams, not here). */
export const UniEventSchema: Obj<{
  role: typeof RoleSchema;
  event_type: typeof EventTypeSchema;
  content_items: z.ZodMiniArray<typeof ContentItemSchema>;
  usage_metadata: z.ZodMiniNullable<typeof UsageMetadataSchema>;
  finish_reason: z.ZodMiniNullable<typeof FinishReasonSchema>;
  created_at: z.ZodMiniOptional<z.ZodMiniInt>;
}> = /*#__PURE__*/ (() =>
  z.object({
    role: RoleSchema,
    event_type: EventTypeSchema,
    content_items: z.array(ContentItemSchema),
    usage_metadata: z.nullable(UsageMetadataSchema),
    finish_reason: z.nullable(FinishReasonSchema),
    created_at: z.optional(timestamp),
  }))();

/** {@link UniMessage}. */
export const UniMessageSchema: Obj<{
  role: typeof RoleSchema;
  content_items: z.ZodMiniArray<typeof DoneItemSchema>;
  usage_metadata: z.ZodMiniOptional<z.ZodMiniNullable<typeof UsageMetadataSchema>>;
  finish_reason: z.ZodMiniOptional<z.ZodMiniNullable<typeof FinishReasonSchema>>;
  created_at: z.ZodMiniOptional<z.ZodMiniInt>;
}> = /*#__PURE__*/ (() =>
  z.object({
    role: RoleSchema,
    content_items: z.array(DoneItemSchema),
    usage_metadata: z.optional(z.nullable(UsageMetadataSchema)),
    finish_reason: z.optional(z.nullable(FinishReasonSchema)),
    created_at: z.optional(timestamp),
  }))();

/** The six kinds that stream as `K.delta+ K.done`. */
export const KINDS: readonly ["text", "thinking", "tool_call", "inline_data", "inline_thinking", "embedding"] = [
  "text",
  "thinking",
  "tool_call",
  "inline_data",
  "inline_thinking",
  "embedding",
] as const;
/** One of {@link KINDS}. */
export type Kind = (typeof KINDS)[number];
