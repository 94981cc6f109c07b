// The capture of a long base64 `data` string while its line arrives (src/framing/base64-capture.ts),
// fed piece by piece as the line splitter feeds it: the bytes it hands out, the text it restores when
// the string turns out not to be capturable, and the size hint (memory only: never a different byte).
import fc from "fast-check";
import { expect, test } from "vitest";
import { Base64Capture, type InlineTarget } from "../../src/framing/base64-capture.ts";
import { GroupBuffer } from "../../src/assemble/group.ts";
import { encodeBase64Portable } from "../../src/decode/base64.ts";

const PREFIX = '{"role":"assistant","event_type":"delta","content_items":[{"type":"inline_data.done","mime_type":"image/png","data":"';

/** A target of `length` bytes that adopts nothing. */
const sized = (length: number): InlineTarget => ({ length, adopt: () => {} });

/** Feeds `text` after the prefix in pieces cut at `cuts`; the capture, or undefined when it declined. */
function feed(text: string, cuts: number[], hint?: () => InlineTarget | undefined): Base64Capture | undefined {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let at = points[0] ?? text.length;
  const capture = Base64Capture.begin(PREFIX + text.slice(0, at), hint);
  if (!capture) return undefined;
  for (const p of [...points.slice(1), text.length]) {
    if (!capture.add(text.slice(at, p))) return undefined;
    at = p;
  }
  return capture;
}

test("the bytes handed out are the string's, whatever the pieces and whatever the size hint", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: -5, max: 5 }), fc.boolean(), (bytes, cuts, off, hinted) => {
      const text = encodeBase64Portable(bytes);
      const capture = feed(text, cuts, hinted ? () => sized(Math.max(0, bytes.length + off)) : undefined);
      expect(capture).toBeDefined();
      const closed = capture!.close();
      expect(closed?.value).toEqual(bytes);
      expect(closed!.value.length).toBe(bytes.length); // never a longer view over a hinted buffer
    }),
    { numRuns: 1500 },
  );
});

test("with an exact hint the bytes are decoded into one buffer, handed out as it is", () => {
  const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 31) & 255);
  const capture = feed(encodeBase64Portable(bytes), [100, 1001, 2500], () => sized(bytes.length))!;
  const { value } = capture.close()!;
  expect(value).toEqual(bytes);
  expect(value.byteOffset).toBe(0);
  expect(value.buffer.byteLength).toBe(bytes.length); // the one buffer, not a join of pieces
});

test("the hint is asked only for an inline .done, and a string that cannot be captured is restored exactly", () => {
  let asked = 0;
  const hint = () => (asked++, sized(10));
  expect(Base64Capture.begin('{"type":"inline_data.delta","data":"AAAA', hint)).toBeDefined();
  expect(asked).toBe(0);
  expect(Base64Capture.begin('{"type":"inline_thinking.done","data":"AAAA', hint)).toBeDefined();
  expect(asked).toBe(1);
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 3, maxLength: 60 }), fc.constantFrom("\\n", "A=", "é", "===="), fc.nat(), (bytes, bad, cut) => {
      const text = encodeBase64Portable(bytes) + bad;
      const capture = Base64Capture.begin(PREFIX, () => sized(bytes.length))!;
      const at = cut % text.length;
      // a piece that does not belong to the string is not taken: the text so far is what was taken
      const first = capture.add(text.slice(0, at));
      const second = first && capture.add(text.slice(at));
      if (second) expect(capture.close()).toBeUndefined();
      expect(capture.restore()).toBe(PREFIX + (second ? text : first ? text.slice(0, at) : ""));
    }),
    { numRuns: 500 },
  );
});

/** The fragments of an inline group, as the grammar keeps them. */
function group(fragments: Uint8Array[]): GroupBuffer {
  const g = new GroupBuffer("inline_data", { type: "inline_data.delta", mime_type: "image/png", data: fragments[0]! });
  for (const data of fragments.slice(1)) g.add({ type: "inline_data.delta", mime_type: "image/png", data });
  return g;
}
const joined = (g: GroupBuffer): Uint8Array => g.bytes();
/** Equal bytes (toEqual is slow on megabytes). */
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

test("a .done decoded into the group's buffer: the fragments give way to it where equal, and nothing is lost where not", () => {
  const fragment = fc.uint8Array({ minLength: 0, maxLength: 600 });
  fc.assert(
    fc.property(
      fc.array(fragment, { minLength: 1, maxLength: 8 }),
      fc.constantFrom("same", "flip", "short", "long"),
      fc.nat(),
      fc.array(fc.nat(), { maxLength: 8 }),
      (fragments, change, where, cuts) => {
        const g = group(fragments);
        const original = joined(g);
        const done = change === "short" ? original.slice(0, Math.max(0, original.length - 1 - (where % 4)))
          : change === "long" ? Uint8Array.from([...original, where & 255])
          : original.slice();
        if (change === "flip" && done.length > 0) done[where % done.length]! ^= 1 << (where % 8);
        const differs = change !== "same" && !(change === "flip" && done.length === 0) && !(change === "short" && done.length === original.length);
        const capture = feed(encodeBase64Portable(done), cuts, () => g);
        const { value } = capture!.close()!;
        expect(value).toEqual(done);
        expect(joined(g)).toEqual(original); // the fragments' bytes, whatever was adopted
        expect(g.sameBytes(value)).toBe(!differs);
        if (!differs && original.length > 0) {
          expect(g.pieces.length).toBe(1); // held once: the fragments gave way to the .done's buffer
          expect((g.pieces[0] as Uint8Array).buffer).toBe(value.buffer);
        }
      },
    ),
    { numRuns: 800 },
  );
});

test("a second capture for the same group is compared from its first byte (a first one that stopped midway proves nothing)", () => {
  const data = new Uint8Array(3 << 20).map((_, i) => (i * 7) & 255);
  const g = group([data.subarray(0, 1 << 20), data.subarray(1 << 20, 2 << 20), data.subarray(2 << 20)]);
  const first = new Uint8Array(g.length);
  first.set(data.subarray(0, 3 << 19));
  g.adopt(first, 3 << 19); // equal so far: the first MiB gave way to `first`
  expect((g.pieces[0] as Uint8Array).buffer).toBe(first.buffer);
  const other = data.slice();
  other[10] ^= 1;
  g.adopt(other, other.length);
  expect(g.sameBytes(other)).toBe(false);
  expect(same(joined(g), data)).toBe(true);
  expect(g.sameBytes(data.slice())).toBe(true);
});
