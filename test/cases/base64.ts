// Padded base64 (RFC 4648 §4), the only form bytes take on the wire.
import fc from "fast-check";
import { holds } from "../property.ts";
import { decodeBase64, encodeBase64 } from "../../dist/index.js";
import { decodeBase64Portable, encodeBase64Portable } from "../../dist/decode/base64.js";
import { assertEqual, type Case } from "../harness.ts";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Text that is mostly base64, with the characters and paddings a broken producer sends. */
const base64ish = fc
  .array(fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...B64) }, { weight: 1, arbitrary: fc.constantFrom("=", " ", "\n", "\t", "\r", "\f", "-", "_", "é", "\u00a0", "\v") }), { maxLength: 24 })
  .map((cs) => cs.join(""));

export const cases: Case[] = [
  ["the runtime's own base64 (where it has one) and the portable code answer alike on any text and any bytes", () => {
    holds(fc.property(base64ish, fc.constantFrom("", "=", "=="), (text, pad) => {
      const t = text.slice(0, text.length - (text.length % 4) - pad.length) + pad;
      assertEqual(decodeBase64(t), decodeBase64Portable(t), JSON.stringify(t));
    }), { numRuns: 2000 });
    holds(fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
      assertEqual(encodeBase64(bytes), encodeBase64Portable(bytes));
      assertEqual(encodeBase64(bytes.subarray(1)), encodeBase64Portable(bytes.subarray(1)));
    }), { numRuns: 500 });
  }],
  ["round trip of any bytes, and agreement with btoa", () => {
    holds(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const text = encodeBase64(bytes);
      assertEqual(text, btoa(String.fromCharCode(...bytes)));
      assertEqual(decodeBase64(text), bytes);
    }), { numRuns: 300 });
  }],
  ["the portable decoder over long text (it reads 64 Ki characters at a time): the bytes of any length, a bad character in any block", () => {
    const bytes = new Uint8Array(3 * 65536 + 7).map((_, i) => (i * 2654435761) >>> 24);
    for (const n of [49151, 49152, 49153, 98304, bytes.length]) {
      const text = encodeBase64Portable(bytes.subarray(0, n));
      assertEqual(decodeBase64Portable(text), bytes.subarray(0, n), `${n} bytes`);
      for (const at of [0, 65535, 65536, 131073, text.length - 5]) {
        for (const bad of ["é", "-", "=", "\u0100"]) {
          if (at < text.length - 4) assertEqual(decodeBase64Portable(text.slice(0, at) + bad + text.slice(at + 1)), undefined, `${bad} at ${at} of ${n}`);
        }
      }
    }
  }],
  ["invalid text is refused: length, alphabet, padding in the middle, non-ASCII", () => {
    for (const bad of ["A", "AAA", "AAAAA", "AA=A", "A===", "=AAA", "AAAA=AAA", "AA-_", "AA AA", "ÀAAA", "AAA\u0100", "AA\u2028A"]) {
      assertEqual(decodeBase64(bad), undefined, JSON.stringify(bad));
    }
    assertEqual(decodeBase64(""), new Uint8Array(0));
    assertEqual(decodeBase64("AA=="), new Uint8Array([0]));
    assertEqual(decodeBase64("AAA="), new Uint8Array([0, 0]));
  }],
];
