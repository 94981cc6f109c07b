// The schemas are the one source of truth: the reader's fast path must never accept what they refuse.
import fc from "fast-check";
import { UniEventSchema, UniMessageSchema, isUniEvent } from "../../dist/index.js";
import { assertEqual, type Case } from "../harness.ts";
import { SEED_EXAMPLE, AUDIO, EMBEDDINGS, MINIMAX_TOOL, type Json } from "../fixtures.ts";

const bytesOf = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const decoded = (e: Json): Json => ({
  ...e,
  content_items: (e.content_items as Json[]).map((i) => ((i.type as string).startsWith("inline_") ? { ...i, data: bytesOf(i.data as string) } : i)),
});
const VALID = [...SEED_EXAMPLE, ...AUDIO, ...EMBEDDINGS, ...MINIMAX_TOOL].map(decoded);

const anyValue = fc.oneof(
  fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.constant(2 ** 53), fc.constant(-1), fc.constant(1.5),
  fc.string({ maxLength: 5 }), fc.constant("stop"), fc.constant("assistant"), fc.constant("user"), fc.constant([]), fc.constant([1, "x"]),
  fc.constant({}), fc.constant({ a: 1 }), fc.constant(new Uint8Array(2)), fc.constant(new Date(0)), fc.constant(Object.create(null)),
  fc.constant({ cached_tokens: 1, prompt_tokens: 2, thoughts_tokens: null, response_tokens: 3 }),
  fc.constant({ cached_tokens: 1, prompt_tokens: 2, thoughts_tokens: null }),
  fc.constant({ cached_tokens: 1, prompt_tokens: 2, thoughts_tokens: null, response_tokens: 3, extra: 0 }),
);
const keys = fc.constantFrom("role", "event_type", "content_items", "usage_metadata", "finish_reason", "created_at", "extra");
const itemKeys = fc.constantFrom("type", "text", "thinking", "name", "tool_call_id", "arguments", "data", "mime_type", "embedding", "fidelity");

/** A valid event with a few members replaced by arbitrary values. */
const mutated = fc.tuple(
  fc.constantFrom(...VALID),
  fc.array(fc.tuple(keys, anyValue), { maxLength: 2 }),
  fc.array(fc.tuple(itemKeys, anyValue), { maxLength: 2 }),
).map(([e, top, inner]) => {
  const ev: Json = { ...e, content_items: (e.content_items as Json[]).map((i) => ({ ...i })) };
  for (const [k, v] of top) ev[k] = v;
  const items = ev.content_items;
  if (Array.isArray(items) && items[0] && typeof items[0] === "object") for (const [k, v] of inner) (items[0] as Json)[k] = v;
  return ev;
});

export const cases: Case[] = [
  ["isUniEvent agrees with UniEventSchema on valid and mutated events", () => {
    for (const e of VALID) assertEqual(isUniEvent(e), true);
    fc.assert(fc.property(mutated, (e) => {
      assertEqual(isUniEvent(e), UniEventSchema.safeParse(e).success, JSON.stringify(e, (_k, v) => (v instanceof Uint8Array ? "<bytes>" : v)));
    }), { numRuns: 2000 });
  }],
  ["the message schema accepts what the reader builds", () => {
    const m = { role: "assistant", content_items: VALID.filter((e) => String((e.content_items as Json[])[0]?.type).endsWith(".done")).map((e) => (e.content_items as Json[])[0]), usage_metadata: null, finish_reason: "stop" };
    assertEqual(UniMessageSchema.safeParse(m).success, true);
  }],
];
