// The capture of a long base64 `data` string while its line arrives (src/framing/base64-capture.ts),
// fed piece by piece as the line splitter feeds it: the bytes it hands out, the text it restores when
// the string turns out not to be capturable, and the size hint (memory only: never a different byte).
import fc from "fast-check";
import { expect, test } from "vitest";
import { Base64Capture } from "../../src/framing/base64-capture.ts";
import { encodeBase64Portable } from "../../src/decode/base64.ts";

const PREFIX = '{"role":"assistant","event_type":"delta","content_items":[{"type":"inline_data.done","mime_type":"image/png","data":"';

/** Feeds `text` after the prefix in pieces cut at `cuts`; the capture, or undefined when it declined. */
function feed(text: string, cuts: number[], hint?: () => number | undefined): Base64Capture | undefined {
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
      const capture = feed(text, cuts, hinted ? () => Math.max(0, bytes.length + off) : undefined);
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
  const capture = feed(encodeBase64Portable(bytes), [100, 1001, 2500], () => bytes.length)!;
  const { value } = capture.close()!;
  expect(value).toEqual(bytes);
  expect(value.byteOffset).toBe(0);
  expect(value.buffer.byteLength).toBe(bytes.length); // the one buffer, not a join of pieces
});

test("the hint is asked only for an inline .done, and a string that cannot be captured is restored exactly", () => {
  let asked = 0;
  const hint = () => (asked++, 10);
  expect(Base64Capture.begin('{"type":"inline_data.delta","data":"AAAA', hint)).toBeDefined();
  expect(asked).toBe(0);
  expect(Base64Capture.begin('{"type":"inline_thinking.done","data":"AAAA', hint)).toBeDefined();
  expect(asked).toBe(1);
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 3, maxLength: 60 }), fc.constantFrom("\\n", "A=", "é", "===="), fc.nat(), (bytes, bad, cut) => {
      const text = encodeBase64Portable(bytes) + bad;
      const capture = Base64Capture.begin(PREFIX, () => bytes.length)!;
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
