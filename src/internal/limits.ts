/**
 * Bounds on what a reader accepts from the network (issue: hostile input). Every limit has a safe
 * default; exceeding one is a `StreamLimitError` (rule `LIMIT`) raised before the rest of the body
 * is read, with memory held below twice the limit.
 */
import { StreamLimitError } from "../errors.js";

/** Bounds on what a reader accepts (each past its bound is a `StreamLimitError`, rule `LIMIT`). */
export interface LimitOptions {
  /**
   * The largest event (an SSE message or an NDJSON line) in bytes; default 64 MiB, enough for the
   * `.done` of a 40 MiB image in base64.
   */
  maxEventBytes?: number;
  /** The deepest JSON nesting of an event (objects and arrays, the event itself counting 1); default 64. */
  maxDepth?: number;
  /** The most items a message may hold; default 100 000. */
  maxItems?: number;
}

/** The limits in force when an option is not given: 64 MiB per event, nesting 64, 100 000 items. */
export const DEFAULT_LIMITS: Required<LimitOptions> = {
  maxEventBytes: 64 * 1024 * 1024,
  maxDepth: 64,
  maxItems: 100_000,
};

/** The limits in force: the defaults, overridden by the options given (checked at the boundary, options.ts). */
export function resolveLimits(options: LimitOptions = {}): Required<LimitOptions> {
  const { maxEventBytes = DEFAULT_LIMITS.maxEventBytes, maxDepth = DEFAULT_LIMITS.maxDepth, maxItems = DEFAULT_LIMITS.maxItems } = options;
  return { maxEventBytes, maxDepth, maxItems };
}

export function limitError(limit: string, value: number, what: string): StreamLimitError {
  return new StreamLimitError({ limit, value, detail: `${what} exceeds ${limit}=${value}` });
}

/**
 * What a reader holds back before it writes it (tool-call arguments waiting for their turn, a call's
 * streamed arguments being built), counted as it arrives against the stream's own limits (SPEC §9):
 * held characters past `maxEventBytes` (counted as the framer counts an event: characters of text),
 * held items past `maxItems`, a `StreamLimitError` the moment they pass it — not when what was held
 * is let go. Integers only: it runs on every fragment held.
 */
export class HeldBudget {
  private chars = 0;
  private items = 0;

  constructor(private readonly limits: { maxEventBytes: number; maxItems: number }) {}

  /** `chars` characters and `items` items more held (negative: let go, written). */
  hold(chars: number, items: number): void {
    this.chars += chars;
    this.items += items;
    const { maxEventBytes, maxItems } = this.limits;
    if (this.chars > maxEventBytes) throw limitError("maxEventBytes", maxEventBytes, "what the reader holds back to write later");
    if (this.items > maxItems) throw limitError("maxItems", maxItems, "the items the reader holds back to write later");
  }
}

/** The `maxDepth` limit error of an event. */
export const depthError = (max: number): StreamLimitError => limitError("maxDepth", max, "the nesting of the event");

/** Throws the `maxDepth` limit error when `value` nests deeper than `max` (the whole value walked). */
export function boundDepth(value: unknown, max: number): void {
  if (nestsDeeper(value, max)) throw depthError(max);
}

/**
 * Whether `v` nests deeper than `max` levels of objects and arrays (`start`: the level of `v`). It
 * runs on every event, so it recurses (no stacks to allocate) while the depth is small, which a
 * finite limit keeps it; a large limit falls back to an explicit stack, and no limit checks nothing.
 */
export function nestsDeeper(v: unknown, max: number, start = 1): boolean {
  if (typeof v !== "object" || v === null || v instanceof Uint8Array || max === Infinity) return false;
  return max <= 1024 ? deeper(v, start, max) : deeperByStack(v, max, start);
}

function deeper(v: object, depth: number, max: number): boolean {
  // bytes are a leaf, as the base64 string they stand for (a captured `data`): asked only past the limit
  if (depth > max) return !(v instanceof Uint8Array);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const y: unknown = v[i];
      if (typeof y === "object" && y !== null && deeper(y, depth + 1, max)) return true;
    }
    return false;
  }
  if (v instanceof Uint8Array) return false;
  for (const k in v) {
    const y = (v as Record<string, unknown>)[k];
    if (typeof y === "object" && y !== null && deeper(y, depth + 1, max)) return true;
  }
  return false;
}

function deeperByStack(v: object, max: number, start: number): boolean {
  const stack: unknown[] = [v];
  const depths: number[] = [start];
  while (stack.length > 0) {
    const x = stack.pop() as Record<string, unknown>;
    const d = depths.pop()!;
    if (d > max) {
      if (x instanceof Uint8Array) continue;
      return true;
    }
    if (Array.isArray(x)) {
      for (const y of x) if (typeof y === "object" && y !== null) (stack.push(y), depths.push(d + 1));
    } else if (!(x instanceof Uint8Array)) {
      for (const k in x) {
        const y = x[k];
        if (typeof y === "object" && y !== null) (stack.push(y), depths.push(d + 1));
      }
    }
  }
  return false;
}

/** The depth of an item's members in an event: event (1) › content_items (2) › item (3) › member (4). */
export const ITEM_MEMBER_DEPTH = 4;
