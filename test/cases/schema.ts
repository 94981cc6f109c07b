// The schemas are the one source of truth: the reader's fast path must never accept what they refuse.
import fc from "fast-check";
import { UniEventSchema, UniMessageSchema, isUniEvent } from "../../dist/index.js";
import { assertEqual, type Case } from "../harness.ts";
import { mutatedEvent as mutated, VALID_EVENTS as VALID } from "../arbitraries.ts";
import type { Json } from "../fixtures.ts";

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
