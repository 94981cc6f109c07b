// stream/utf8-out.ts: an encoder's records written straight as UTF-8 — `json` is the UTF-8 of
// JSON.stringify for any UTF-16 string (escapes, 1–4 byte characters, lone surrogates, long ones
// through the native path), `text` that of the text, `idLine` an SSE id line; a slice taken is its
// own bytes, however the buffer grows or is written after.
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { Utf8Out } from "../../../../src/relay/stream/utf8-out.ts";

const utf8 = new TextEncoder();
/** Units that make every case likely: ASCII, what JSON escapes, 2- and 3-byte characters, a pair, both halves alone. */
const unit = fc.constantFrom(
  "a",
  "~",
  '"',
  "\\",
  "\n",
  "\t",
  "\b",
  "\f",
  "\r",
  "\u0000",
  "\u001f",
  "\u007f",
  "é",
  "\u07ff",
  "€",
  "\u2028",
  "\uffff",
  "\u{1F600}",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
);
const text = fc.oneof(fc.string({ unit: "binary", maxLength: 60 }), fc.array(unit, { maxLength: 40 }).map((u) => u.join("")));

describe("Utf8Out", () => {
  it("json: the UTF-8 of JSON.stringify, for any UTF-16 string", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), (texts) => {
        const out = new Utf8Out(8);
        for (const t of texts) out.json(t);
        expect(out.take()).toEqual(utf8.encode(texts.map((t) => JSON.stringify(t)).join("")));
      }),
      { numRuns: 3000 },
    );
  });

  it("json of a long string (the native path) and text, id lines and template bytes in order", () => {
    const long = 'é\u0001"\ud800😀'.repeat(1000);
    const out = new Utf8Out(16);
    out.idLine(0);
    out.bytes(utf8.encode("data: "));
    out.json(long);
    out.text("\n\n€");
    out.idLine(1234567);
    expect(new TextDecoder().decode(out.take())).toBe(`id: 0\ndata: ${JSON.stringify(long)}\n\n€id: 1234567\n`);
  });

  it("int: String(n)'s bytes for any safe non-negative integer (a sequence number), between other records", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat(), fc.constantFrom(0, 9, 10, 99, 100, Number.MAX_SAFE_INTEGER)), { maxLength: 8 }), (ns) => {
        const out = new Utf8Out(2);
        for (const n of ns) {
          out.int(n);
          out.text(",");
        }
        expect(new TextDecoder().decode(out.take())).toBe(ns.map((n) => `${n},`).join(""));
      }),
      { numRuns: 1000 },
    );
  });

  it("take: the slice's own bytes (the next slice does not write over them), the buffer empty after", () => {
    const out = new Utf8Out(4);
    out.text("first slice, longer than the buffer");
    const first = out.take();
    const copy = first.slice();
    expect(out.length).toBe(0);
    out.json("second");
    expect(first).toEqual(copy);
    expect(out.take()).toEqual(utf8.encode('"second"'));
    out.text("x".repeat(2 << 20)); // (a large slice: its buffer is dropped after it)
    expect(out.take().length).toBe(2 << 20);
    expect(out.capacity).toBe(4);
    out.text("after");
    expect(out.take()).toEqual(utf8.encode("after"));
  });

  it("json's strategy: a fragment up to 2,048 units escaped in one pass here (no string made), a longer one by JSON.stringify", () => {
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      const out = new Utf8Out();
      out.json('é\n"'.repeat(2048 / 3) + "ab");
      expect(stringify).not.toHaveBeenCalled();
      out.json("x".repeat(2049));
      expect(stringify).toHaveBeenCalledTimes(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it("room: text of 3-byte and 4-byte characters into a full buffer is written whole; a buffer grows by doubling (no copy per write)", () => {
    const out = new Utf8Out(1);
    out.text("€".repeat(5) + "\u{1F600}");
    expect(out.take()).toEqual(utf8.encode("€".repeat(5) + "\u{1F600}"));
    const small = new Utf8Out(16);
    small.bytes(new Uint8Array(17));
    expect(small.capacity).toBe(32);
    for (let i = 0; i < 40; i++) small.bytes(new Uint8Array(1));
    expect(small.capacity).toBe(64);
  });

  it("memory: a buffer grown past 1 MiB for one slice is dropped after it; one of 1 MiB or less is kept (written again, not made again)", () => {
    const out = new Utf8Out(16);
    const units = Math.floor((1 << 20) / 3); // (`text` makes room for 3 bytes a unit: just under 1 MiB)
    out.text("x".repeat(units));
    out.take();
    expect(out.capacity).toBe(3 * units);
    out.text("x".repeat(units + 1)); // (just over)
    out.take();
    expect(out.capacity).toBe(16);
  });
});
