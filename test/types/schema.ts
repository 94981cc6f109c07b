// Type-level test, compiled by `tsc -p .` (the typecheck step): each schema of src/schema.ts infers
// exactly the type written beside it, both ways (what the schema accepts is the type, and back).
// The types are spelled out for JSR and for readers; this keeps zod the one source of truth.
// Nothing here runs: a mismatch is a compile error on the line of the pair that differs.
import type * as z from "zod/mini";
import type * as S from "../../src/schema.ts";

/** Identical types (not merely assignable: an optional member missing on one side fails too). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Each assignable to the other. */
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Both, for the output (what `parse` returns) and the input (what it accepts) of a schema. */
type Exactly<Schema extends z.ZodMiniType, T> = [
  Equal<z.output<Schema>, T>,
  Mutual<z.output<Schema>, T>,
  Equal<z.input<Schema>, T>,
  Mutual<z.input<Schema>, T>,
];
type Pass<Checks extends readonly true[]> = Checks;

export type SchemaTypes = [
  Pass<Exactly<typeof S.RoleSchema, S.Role>>,
  Pass<Exactly<typeof S.EventTypeSchema, S.EventType>>,
  Pass<Exactly<typeof S.FinishReasonSchema, S.FinishReason>>,
  Pass<Exactly<typeof S.FidelitySchema, S.Fidelity>>,
  Pass<Exactly<typeof S.UsageMetadataSchema, S.UsageMetadata>>,
  Pass<Exactly<typeof S.TextDeltaSchema, S.TextDelta>>,
  Pass<Exactly<typeof S.ThinkingDeltaSchema, S.ThinkingDelta>>,
  Pass<Exactly<typeof S.ToolCallDeltaSchema, S.ToolCallDelta>>,
  Pass<Exactly<typeof S.InlineDataDeltaSchema, S.InlineDataDelta>>,
  Pass<Exactly<typeof S.InlineThinkingDeltaSchema, S.InlineThinkingDelta>>,
  Pass<Exactly<typeof S.EmbeddingDeltaSchema, S.EmbeddingDelta>>,
  Pass<Exactly<typeof S.TextDoneSchema, S.TextDone>>,
  Pass<Exactly<typeof S.ThinkingDoneSchema, S.ThinkingDone>>,
  Pass<Exactly<typeof S.ToolCallDoneSchema, S.ToolCallDone>>,
  Pass<Exactly<typeof S.InlineDataDoneSchema, S.InlineDataDone>>,
  Pass<Exactly<typeof S.InlineThinkingDoneSchema, S.InlineThinkingDone>>,
  Pass<Exactly<typeof S.EmbeddingDoneSchema, S.EmbeddingDone>>,
  Pass<Exactly<typeof S.ImageUrlDoneSchema, S.ImageUrlDone>>,
  Pass<Exactly<typeof S.ToolResultDoneSchema, S.ToolResultDone>>,
  Pass<Exactly<typeof S.DeltaItemSchema, S.DeltaItem>>,
  Pass<Exactly<typeof S.DoneItemSchema, S.DoneItem>>,
  Pass<Exactly<typeof S.StreamDoneItemSchema, S.StreamDoneItem>>,
  Pass<Exactly<typeof S.ContentItemSchema, S.ContentItem>>,
  Pass<Exactly<typeof S.UniEventSchema, S.UniEvent>>,
  Pass<Exactly<typeof S.UniMessageSchema, S.UniMessage>>,
];

// The checks can fail: each pair below differs by one thing, and each line must be a compile error.
export type Differences = [
  // @ts-expect-error a missing optional member (assignable both ways, so only Equal sees it)
  Pass<Exactly<typeof S.TextDeltaSchema, { type: "text.delta"; text: string }>>,
  // @ts-expect-error a member of another type
  Pass<Exactly<typeof S.UsageMetadataSchema, { [K in keyof S.UsageMetadata]: number }>>,
  // @ts-expect-error a union with a member too few
  Pass<Exactly<typeof S.DeltaItemSchema, Exclude<S.DeltaItem, S.EmbeddingDelta>>>,
  // @ts-expect-error an optional member made required
  Pass<Exactly<typeof S.UniMessageSchema, Required<S.UniMessage>>>,
];
