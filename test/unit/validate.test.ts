// The event check's fast path (src/decode/fast-validate.ts) against the slow path it stands in for:
// the event-level rules (eventShapeFault) then the schema (zod). A valid event is vouched for in one
// walk; anything the fast path lets through must be what the slow path accepts, and checkEvent must
// answer (value or fault) exactly as the slow path alone would.
import fc from "fast-check";
import { expect, test } from "vitest";
import { fastValidEvent, fastValidPublicEvent } from "../../src/decode/fast-validate.ts";
import { checkEvent, eventShapeFault } from "../../src/decode/validate.ts";
import { UniEventSchema } from "../../src/schema.ts";
import { Fault } from "../../src/internal/fault.ts";
import { mutatedEvent, VALID_EVENTS } from "../arbitraries.ts";
import type { Json } from "../fixtures.ts";

/** What the slow path alone says: the first event-level rule broken, else the schema's verdict. */
function slowVerdict(e: Json): string {
  const shape = eventShapeFault(e);
  if (shape) return `${shape.rule}: ${shape.detail}`;
  const r = UniEventSchema.safeParse(e);
  return r.success ? "ok" : "SCHEMA";
}

function checkVerdict(e: Json): string {
  try {
    const out = checkEvent(e, false);
    expect(out).toBe(e); // nothing to decode: the event itself goes on
    return "ok";
  } catch (err) {
    if (!(err instanceof Fault)) throw err;
    return err.rule === "SCHEMA" && !err.detail.includes("must be") ? "SCHEMA" : `${err.rule}: ${err.detail}`;
  }
}

test("every valid event is vouched for by the fast path", () => {
  for (const e of VALID_EVENTS) {
    expect(fastValidPublicEvent(e), JSON.stringify(e)).toBe(true);
    expect(fastValidEvent(e)).toBe(true);
  }
});

test("what the fast path vouches for, the rules and the schema accept", () => {
  fc.assert(
    fc.property(mutatedEvent, (e) => {
      if (fastValidPublicEvent(e)) expect(slowVerdict(e)).toBe("ok");
      if (fastValidEvent(e)) expect(UniEventSchema.safeParse(e).success).toBe(true);
    }),
    { numRuns: 3000 },
  );
});

test("checkEvent answers as the slow path alone: the same value or the same rule", () => {
  fc.assert(
    fc.property(mutatedEvent, (e) => {
      const slow = slowVerdict(e);
      const got = checkVerdict(e);
      expect(got.startsWith("SCHEMA") ? "SCHEMA" : got).toBe(slow.startsWith("SCHEMA") ? "SCHEMA" : slow);
    }),
    { numRuns: 3000 },
  );
});

test("a base64 fault comes after the event-level rules, as before the fast path", () => {
  const bad = { role: "bot", event_type: "delta", content_items: [{ type: "inline_data.delta", data: "%%%", mime_type: "image/png" }], usage_metadata: null, finish_reason: null };
  expect(() => checkEvent(bad, true)).toThrow(expect.objectContaining({ rule: "ROLE" }));
  expect(() => checkEvent({ ...bad, role: "assistant" }, true)).toThrow(expect.objectContaining({ rule: "SCHEMA", detail: 'inline_data.delta.data is not padded base64: "%%%"' }));
  const unknown = { ...bad, role: "assistant", content_items: [{ type: "inline_audio.delta", data: "%%%" }] };
  expect(() => checkEvent(unknown, true)).toThrow(expect.objectContaining({ rule: "KIND" }));
  const ok = checkEvent({ ...bad, role: "assistant", content_items: [{ type: "inline_data.delta", data: "AAE=", mime_type: "image/png" }] }, true);
  expect((ok.content_items[0] as { data: Uint8Array }).data).toEqual(new Uint8Array([0, 1]));
});
