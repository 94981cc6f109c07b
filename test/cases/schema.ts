// The schemas are the one source of truth: the reader's fast path must never accept what they refuse.
import fc from "fast-check";
import { holds } from "../property.ts";
import { UniEventSchema, UniEventStream, UniMessageSchema, isUniEvent } from "../../dist/index.js";
import { assertEqual, collectSettled, type Case } from "../harness.ts";
import { mutatedEvent as mutated, VALID_EVENTS as VALID } from "../arbitraries.ts";
import type { Json } from "../fixtures.ts";

export const cases: Case[] = [
  ["isUniEvent agrees with UniEventSchema on valid and mutated events", () => {
    for (const e of VALID) assertEqual(isUniEvent(e), true);
    holds(fc.property(mutated, (e) => {
      assertEqual(isUniEvent(e), UniEventSchema.safeParse(e).success, JSON.stringify(e, (_k, v) => (v instanceof Uint8Array ? "<bytes>" : v)));
    }), { numRuns: 2000 });
  }],
  ["a SCHEMA fault names the member, what it must be and what came (never zod/mini's bare \"Invalid input\")", async () => {
    const stop = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: null, response_tokens: 1 }, finish_reason: "stop" };
    const delta = (item: Json) => ({ ...stop, event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null });
    const cases: [Json, string][] = [
      [{ ...stop, usage_metadata: { ...stop.usage_metadata, prompt_tokens: -1 } }, "usage_metadata.prompt_tokens: must be at least 0, not -1"],
      [{ ...stop, usage_metadata: { ...stop.usage_metadata, total: 1 } }, 'usage_metadata: unknown member "total"'],
      [{ ...stop, created_at: 1.5 }, "created_at: expected an integer, not 1.5"],
      [{ ...stop, finish_reason: "done" }, 'finish_reason: must be "stop" or "length" or "tool_call" or "unknown", not "done"'],
      [delta({ type: "text.delta", text: 5 }), "content_items.0.text: expected a string, not 5"],
      [delta({ type: "inline_data.delta", data: "AAE=" }), "content_items.0.mime_type: missing (expected a string)"],
    ];
    for (const [event, detail] of cases) {
      const r = await collectSettled(new Response(`data: ${JSON.stringify(event)}\n\n`).body!.pipeThrough(new UniEventStream()));
      const message = (r.error as Error).message;
      assertEqual(message.split(" (rule SCHEMA")[0], `upstream broke the streaming protocol: the event does not match the schema: ${detail}`);
    }
  }],
  ["the message schema accepts what the reader builds", () => {
    const m = { role: "assistant", content_items: VALID.filter((e) => String((e.content_items as Json[])[0]?.type).endsWith(".done")).map((e) => (e.content_items as Json[])[0]), usage_metadata: null, finish_reason: "stop" };
    assertEqual(UniMessageSchema.safeParse(m).success, true);
  }],
];
