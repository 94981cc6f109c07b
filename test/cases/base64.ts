// Padded base64 (RFC 4648 §4), the only form bytes take on the wire.
import fc from "fast-check";
import { decodeBase64, encodeBase64 } from "../../dist/index.js";
import { assertEqual, type Case } from "../harness.ts";

export const cases: Case[] = [
  ["round trip of any bytes, and agreement with btoa", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      const text = encodeBase64(bytes);
      assertEqual(text, btoa(String.fromCharCode(...bytes)));
      assertEqual(decodeBase64(text), bytes);
    }), { numRuns: 300 });
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
