/**
 * Checks one event against the data model (SPEC §2) and the event-level rules of SPEC §3, naming
 * the rule it breaks: ROLE, DELTA-SHAPE, STOP-SHAPE and KIND before the schema as a whole (SCHEMA).
 */
import * as z from "zod/mini";
import { DeltaItemSchema, EventTypeSchema, FinishReasonSchema, RoleSchema, type UniEvent, UniEventSchema } from "../schema.js";
import { itemType } from "../assemble/kinds.js";
import { Fault } from "../internal/fault.js";
import { boundDepth, depthError } from "../internal/limits.js";
import { isRecord, notAnObject, previewValue } from "../internal/values.js";
import { decodeBase64 } from "./base64.js";
import { fastValidEvent, fastValidPublicEvent, validEventNestsDeeper } from "./fast-validate.js";
import { describeIssue } from "./schema-issue.js";

const show = (v: unknown): string => previewValue(v, 40);

/** What every event must be, public or assemble-mode input: its type, its role, a list of items. */
function envelopeFault(v: Record<string, unknown>): Fault | undefined {
  const eventType = v.event_type;
  if (eventType !== "delta" && eventType !== "stop") {
    return new Fault("SCHEMA", `event_type must be "delta" or "stop", not ${show(eventType)}`);
  }
  if (v.role !== "assistant") return new Fault("ROLE", `role must be "assistant", not ${show(v.role)}`);
  if (!Array.isArray(v.content_items)) return new Fault("SCHEMA", `content_items must be an array, not ${show(v.content_items)}`);
  return undefined;
}

/** The first event-level rule `v` breaks, if any. */
export function eventShapeFault(v: Record<string, unknown>): Fault | undefined {
  const envelope = envelopeFault(v);
  if (envelope) return envelope;
  const eventType = v.event_type;
  const items = v.content_items as unknown[];
  if (eventType === "stop") {
    if (items.length !== 0) return new Fault("STOP-SHAPE", `the stop event carries ${items.length} item(s); it must carry none`);
    if (v.usage_metadata == null) return new Fault("STOP-SHAPE", "the stop event has no usage_metadata");
    if (v.finish_reason == null) return new Fault("STOP-SHAPE", "the stop event has no finish_reason");
    return undefined;
  }
  if (items.length !== 1) return new Fault("DELTA-SHAPE", `a delta event carries ${items.length} items; it must carry exactly one`);
  if (v.usage_metadata != null) return new Fault("DELTA-SHAPE", "a delta event carries usage_metadata; it must be null");
  if (v.finish_reason != null) return new Fault("DELTA-SHAPE", "a delta event carries finish_reason; it must be null");
  const item = items[0];
  if (!isRecord(item) || typeof item.type !== "string") {
    return new Fault("SCHEMA", `a content item must be an object with a string type, not ${show(item)}`);
  }
  if (itemType(item.type) === undefined) {
    return new Fault(
      "KIND",
      `unknown item type ${JSON.stringify(item.type)}: a stream carries K.delta or K.done of the six kinds`,
      false,
      item.type,
    );
  }
  return undefined;
}

/** Throws the `SCHEMA` fault of `value` when it does not match `schema` (`at`: the path of `value` in the event). */
function matchSchema(value: unknown, schema: z.ZodMiniType = UniEventSchema, at: PropertyKey[] = []): void {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new Fault("SCHEMA", `the event does not match the schema: ${describeIssue(result.error.issues[0]!, value, at)}`);
  }
}

/**
 * What is being checked: a public stream (`"validate"`, SPEC §3) or the input of assemble mode
 * (`"assemble"`, SPEC §5: bare fragments, several per event, stop events in pieces).
 */
export type CheckMode = "validate" | "assemble";

/**
 * Checks `value` and returns it as a UniEvent. With `wireBytes`, the base64 `data` of inline items
 * is decoded to bytes (the item is copied, the input is not changed). `maxDepth`: the nesting is
 * bounded here too, before any other rule (as if by `boundDepth` first); default: not checked.
 */
export function checkEvent(value: unknown, wireBytes: boolean, mode: CheckMode = "validate", maxDepth = Infinity): UniEvent {
  if (!isRecord(value)) throw new Fault("JSON", notAnObject(value));
  if (mode === "assemble") {
    boundDepth(value, maxDepth);
    return checkInputEvent(value, wireBytes);
  }
  // a valid event costs one walk; anything else is taken apart below, rule by rule, in their order
  const event = wireBytes ? withBytes(value) : value;
  if (event && fastValidPublicEvent(event)) {
    // (walked as parsed, its base64 still text: as the whole-value walk sees it)
    if (maxDepth !== Infinity && validEventNestsDeeper(value, maxDepth)) throw depthError(maxDepth);
    return event as UniEvent;
  }
  boundDepth(value, maxDepth);
  const shape = eventShapeFault(value);
  if (shape) throw shape;
  if (!event) {
    const item = (value.content_items as Record<string, unknown>[])[0]!;
    throw new Fault("SCHEMA", `${item.type as string}.data is not padded base64: ${show(item.data)}`);
  }
  if (!fastValidEvent(event)) matchSchema(event);
  return event as UniEvent;
}

/**
 * A delta event whose inline item's base64 `data` is decoded to bytes (a copy; the input is not
 * changed), the event itself when there is nothing to decode, or undefined when `data` is not padded
 * base64. Reads the shape defensively: it runs before the shape is checked.
 */
function withBytes(value: Record<string, unknown>): Record<string, unknown> | undefined {
  const items = value.content_items;
  if (value.event_type !== "delta" || !Array.isArray(items) || items.length !== 1) return value;
  const item: unknown = items[0];
  // (bytes are base64 text on the wire; kinds.ts says which kinds grow bytes, always in `data`)
  if (!isRecord(item) || typeof item.data !== "string" || itemType(item.type)?.spec.joins !== "bytes") return value;
  const bytes = decodeBase64(item.data);
  return bytes ? { ...value, content_items: [{ ...item, data: bytes }] } : undefined;
}

// ---- assemble mode's input (SPEC §5) ------------------------------------------------------------

/**
 * An input event of assemble mode: any number of items; a stop event's usage may come in pieces
 * (a member may be missing or null) and its finish reason later. Items are only required to have a
 * string `type` here: the assembler refuses a type that is not a delta at its place in the event.
 * Built on first use: an import that never assembles pays nothing for it.
 */
let inputEventSchema: z.ZodMiniType | undefined;
function InputEventSchema(): z.ZodMiniType {
  if (inputEventSchema) return inputEventSchema;
  const tokenPiece = z.optional(z.nullable(z.int().check(z.nonnegative())));
  return (inputEventSchema = z.object({
    role: RoleSchema,
    event_type: EventTypeSchema,
    content_items: z.array(z.looseObject({ type: z.string() })),
    usage_metadata: z.nullable(
      z.strictObject({ cached_tokens: tokenPiece, prompt_tokens: tokenPiece, thoughts_tokens: tokenPiece, response_tokens: tokenPiece }),
    ),
    finish_reason: z.nullable(FinishReasonSchema),
    created_at: z.optional(z.int()),
  }));
}

function checkInputEvent(value: Record<string, unknown>, wireBytes: boolean): UniEvent {
  const envelope = envelopeFault(value);
  if (envelope) throw envelope;
  const eventType = value.event_type;
  const items = value.content_items as unknown[];
  if (eventType === "delta" && (value.usage_metadata != null || value.finish_reason != null)) {
    throw new Fault("DELTA-SHAPE", "a delta event carries usage_metadata or finish_reason", true);
  }
  let copied: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (!isRecord(item) || typeof item.type !== "string") {
      throw new Fault("SCHEMA", `a content item must be an object with a string type, not ${show(item)}`);
    }
    const known = itemType(item.type);
    if (!known?.delta) continue; // refused by the assembler, in its place
    let checked = item;
    if (wireBytes && known.spec.joins === "bytes" && typeof item.data === "string") {
      const bytes = decodeBase64(item.data);
      if (!bytes) throw new Fault("SCHEMA", `${item.type}.data is not padded base64: ${show(item.data)}`);
      checked = { ...item, data: bytes };
      (copied ??= items.slice())[i] = checked;
    }
    matchSchema(checked, DeltaItemSchema, ["content_items", i]);
    const itemId = isRecord(checked.fidelity) ? checked.fidelity.item_id : undefined;
    if (itemId !== undefined && itemId !== null && typeof itemId !== "string") {
      throw new Fault("SCHEMA", `fidelity.item_id must be a string, not ${show(itemId)}`);
    }
  }
  const event = copied ? { ...value, content_items: copied } : value;
  matchSchema(event, InputEventSchema());
  return event as UniEvent;
}

/** Whether `value` matches `UniEventSchema` (the fast path first, the schema for the rest). */
export function isUniEvent(value: unknown): value is UniEvent {
  return (isRecord(value) && fastValidEvent(value)) || UniEventSchema.safeParse(value).success;
}
