/**
 * A hand-written fast path for `UniEventSchema`: true only for events the schema accepts. The schema
 * stays the one source of truth: whatever this does not vouch for is checked by zod, which then
 * accepts it or names the issue. (A differential test holds the two together.) Why: a zod check of
 * an event costs about as much as its `JSON.parse`, and this runs on every token of every response.
 * The members of each item kind are checked by the kind's entry (kinds.ts `valid`).
 */

import { ITEM_MEMBER_DEPTH, nestsDeeper } from "../internal/limits.js";
import { isPlainObject as isPlain, memberCount } from "../internal/values.js";
import { itemType } from "../assemble/kinds.js";

const isCount = (v: unknown): boolean => v === null || (typeof v === "number" && Number.isSafeInteger(v) && v >= 0);

const FINISH = /*#__PURE__*/ new Set(["stop", "length", "tool_call", "unknown"]);

/** Whether an item of a known type has its members of the schema's types (the kind's check, kinds.ts). */
function itemOk(item: Record<string, unknown>): boolean {
  const t = itemType(item.type);
  return t !== undefined && t.spec.valid(item, t.delta);
}

function usageOk(u: unknown): boolean {
  return isPlain(u) && memberCount(u) === 4 && isCount(u.cached_tokens) && isCount(u.prompt_tokens) && isCount(u.thoughts_tokens) &&
    isCount(u.response_tokens) &&
    "cached_tokens" in u && "prompt_tokens" in u && "thoughts_tokens" in u && "response_tokens" in u;
}

/** The event's items when its envelope (a plain object, an integer `created_at` if any, an items array) is sound. */
function itemsOf(v: Record<string, unknown>): unknown[] | undefined {
  if (!isPlain(v)) return undefined;
  const createdAt = v.created_at;
  if (createdAt !== undefined && !(typeof createdAt === "number" && Number.isSafeInteger(createdAt))) return undefined;
  const items = v.content_items;
  return Array.isArray(items) ? items : undefined;
}

/** The one item of a public delta event whose envelope is sound (usage and finish null), else undefined. */
function deltaItem(v: Record<string, unknown>): Record<string, unknown> | undefined {
  const items = v.role === "assistant" && v.event_type === "delta" && v.usage_metadata === null && v.finish_reason === null
    ? itemsOf(v)
    : undefined;
  const item = items?.length === 1 ? items[0] : undefined;
  return isPlain(item) ? item : undefined;
}

/**
 * True when `v` certainly matches `UniEventSchema` **and** keeps the event-level rules of a public
 * stream (ROLE, DELTA-SHAPE, STOP-SHAPE, KIND): the one walk a valid event costs. False means: find
 * out what is wrong the slow way (validate.ts), which names the rule.
 */
export function fastValidPublicEvent(v: Record<string, unknown>): boolean {
  if (v.event_type === "delta") {
    const item = deltaItem(v);
    return item !== undefined && itemOk(item);
  }
  return v.event_type === "stop" && v.role === "assistant" && itemsOf(v)?.length === 0 && usageOk(v.usage_metadata) &&
    FINISH.has(v.finish_reason as string);
}

/**
 * The item of `v` when `v` is a public delta event with nothing but its members (`created_at` if any
 * an integer); what the item is, is the caller's to check (validator.ts `takeFragment`).
 */
export function plainDeltaItem(v: Record<string, unknown>): Record<string, unknown> | undefined {
  return memberCount(v) === (v.created_at === undefined ? 5 : 6) ? deltaItem(v) : undefined;
}

/** True when `v` certainly matches `UniEventSchema` (false means: ask the schema). */
export function fastValidEvent(v: Record<string, unknown>): boolean {
  const items = v.role === "assistant" || v.role === "user" ? itemsOf(v) : undefined;
  if (items === undefined) return false;
  if (v.event_type === "delta") {
    if (v.usage_metadata !== null || v.finish_reason !== null) return false;
  } else if (v.event_type === "stop") {
    if (!(v.usage_metadata === null || usageOk(v.usage_metadata))) return false;
    if (!(v.finish_reason === null || FINISH.has(v.finish_reason as string))) return false;
  } else return false;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (!isPlain(item) || !itemOk(item)) return false;
  }
  return true;
}

/**
 * Whether an event `fastValidPublicEvent` vouched for nests deeper than `max`: the same answer as
 * `nestsDeeper(v, max)`, walking only what the shape leaves open (fidelity, tool arguments, unknown
 * members), not an embedding's numbers nor the usage's counts (embeddings SSE: A/B 1.2×).
 */
export function validEventNestsDeeper(v: Record<string, unknown>, max: number): boolean {
  if (max < ITEM_MEMBER_DEPTH) return nestsDeeper(v, max); // the known shape itself may be too deep
  for (const k in v) {
    if (k !== "content_items" && k !== "usage_metadata" && nestsDeeper(v[k], max, 2)) return true;
  }
  const item = (v.content_items as Record<string, unknown>[])[0];
  if (item === undefined) return false;
  for (const k in item) {
    const m = item[k];
    if (typeof m === "object" && m !== null && !isVector(item, k) && nestsDeeper(m, max, ITEM_MEMBER_DEPTH)) return true;
  }
  return false;
}

/** Whether `k` is the vector an embedding grows: its numbers were checked flat by the fast path (kinds.ts). */
function isVector(item: Record<string, unknown>, k: string): boolean {
  const { grows, joins } = itemType(item.type)!.spec;
  return joins === "vector" && k === grows;
}
