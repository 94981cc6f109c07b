// Issue #49: a large Gemini call's value written once. Its reader writes the fragment's `arguments` as
// `JSON.stringify(args)`, the `.done` holds `args` itself, and the relay's run loop writes that `.done`
// with the fragment's text in place (src/encode/wire-event.ts `encodeWireEventWith`, the text kept by
// src/providers/json-text.ts): the bytes must be `encodeWireEvent`'s, whatever the event holds.
import { expect, test } from "vitest";
import fc from "fast-check";
import { encodeWireEvent, encodeWireEventWith } from "../../src/encode/wire-event.ts";
import { knownJsonText } from "../../src/providers/json-text.ts";
import { ProviderEventStream } from "../../src/providers/index.ts";
import type { UniEvent } from "../../src/schema.ts";
import { decoded, piece, streamEvents, unit } from "../arbitraries.ts";
import { delta, deltaOf, type Json, text, toolDone } from "../fixtures.ts";

const MARK = "\u0000mmsp:known-json\u0000";

/** A large arguments value: `args` with a member long enough for the known text to be used. */
const large = fc.tuple(fc.dictionary(fc.string({ unit, maxLength: 4 }), fc.oneof(piece, fc.double(), fc.integer(), fc.constant(MARK)), { maxKeys: 4 }), piece)
  .map(([args, p]) => ({ ...args, pad: p.repeat(Math.ceil(1100 / Math.max(1, p.length))) + "x".repeat(1100) }));

test("encodeWireEventWith writes encodeWireEvent's bytes on random streams, known texts in place (the stand-in in an event's own text too)", () => {
  fc.assert(
    fc.property(streamEvents, fc.array(large, { maxLength: 3 }), fc.boolean(), (events, calls, marked) => {
      const all = events.map(decoded) as Json[];
      // (calls whose `.done` holds a large value, its text known; one text item that holds the stand-in itself)
      // (named by the stand-in itself when `marked`: its JSON then holds the stand-in's text once more)
      for (const [i, args] of calls.entries()) all.splice(i, 0, delta(toolDone(marked ? MARK : "fn", `call_${i}`, args as Json)));
      if (marked) all.unshift(delta(text(`a ${MARK} b`)));
      const known = new Map<object, string>();
      for (const e of all) {
        for (const item of e.content_items as Json[]) {
          if (typeof item.arguments === "object" && item.arguments !== null) known.set(item.arguments, JSON.stringify(item.arguments));
        }
      }
      let used = 0;
      const textOf = (v: object) => (known.has(v) ? (used++, known.get(v)) : undefined);
      for (const e of all) expect(encodeWireEventWith(e as unknown as UniEvent, textOf)).toBe(encodeWireEvent(e as unknown as UniEvent));
      const large = calls.filter((c) => JSON.stringify(c).length >= 1024).length;
      expect(used).toBeGreaterThanOrEqual(large);
    }),
    { numRuns: 200 },
  );
});

test("two known values in one event, and a stand-in in the arguments' own text: the same bytes", () => {
  const a = { q: "x".repeat(2000), n: 1.5 };
  const b = { r: MARK + "y".repeat(2000) };
  const event = deltaOf([toolDone("f", "c1", a as Json), toolDone("g", "c2", b as Json)]) as unknown as UniEvent;
  const texts = new Map<object, string>([[a, JSON.stringify(a)], [b, JSON.stringify(b)]]);
  expect(encodeWireEventWith(event, (v) => texts.get(v))).toBe(encodeWireEvent(event));
  const one = delta(toolDone("f", "c1", a as Json)) as unknown as UniEvent;
  expect(encodeWireEventWith(one, (v) => texts.get(v))).toBe(encodeWireEvent(one));
});

test("a whole Gemini call: its .done's value is known by its fragment's text, and written with it, the same bytes", async () => {
  const args = { query: "“quoted” naïve", items: Array.from({ length: 300 }, (_, i) => ({ id: i, score: i / 7, name: `n${i}` })) };
  const chunk = (parts: unknown[], finishReason?: string) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts }, ...(finishReason ? { finishReason } : {}) }], modelVersion: "gemini-x" })}\r\n\r\n`;
  const body = chunk([{ functionCall: { name: "lookup", args } }]) + chunk([{ text: "" }], "STOP");
  const events: UniEvent[] = [];
  const reader = new Blob([body]).stream().pipeThrough(new ProviderEventStream("gemini")).getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
  const items = events.flatMap((e) => e.content_items as unknown as Json[]);
  const fragment = items.find((i) => i.type === "tool_call.delta")!;
  const done = items.find((i) => i.type === "tool_call.done")!;
  expect(knownJsonText(done.arguments as object)).toBe(fragment.arguments); // (the very text: no second stringify)
  let used = 0;
  const textOf = (v: object) => {
    const t = knownJsonText(v);
    if (t !== undefined) used++;
    return t;
  };
  for (const e of events) expect(encodeWireEventWith(e, textOf)).toBe(encodeWireEvent(e));
  expect(used).toBe(1);
});
