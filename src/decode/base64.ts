/**
 * Standard padded base64 (RFC 4648 §4) to and from bytes, with web APIs only. Hand-written because
 * `atob` yields a binary string that must then be copied byte by byte, and `Uint8Array.fromBase64`
 * is not in every runtime yet.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

const sextet = (text: string, i: number): number => {
  const c = text.charCodeAt(i);
  return c < 128 ? DECODE[c]! : -1;
};

/** Decodes padded base64; returns undefined when `text` is not valid padded base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const n = text.length;
  if (n % 4 !== 0) return undefined;
  if (n === 0) return new Uint8Array(0);
  const pad = text.charCodeAt(n - 1) === 61 /* = */ ? (text.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  const out = new Uint8Array((n / 4) * 3 - pad);
  const full = n - (pad ? 4 : 0);
  let o = 0;
  for (let i = 0; i < full; i += 4) {
    const a = sextet(text, i), b = sextet(text, i + 1), c = sextet(text, i + 2), d = sextet(text, i + 3);
    if ((a | b | c | d) < 0) return undefined;
    const v = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = v >> 16;
    out[o++] = (v >> 8) & 255;
    out[o++] = v & 255;
  }
  if (pad) {
    const i = n - 4;
    const a = sextet(text, i), b = sextet(text, i + 1);
    if ((a | b) < 0) return undefined;
    if (pad === 2) {
      out[o] = (a << 2) | (b >> 4);
    } else {
      const c = sextet(text, i + 2);
      if (c < 0) return undefined;
      out[o++] = (a << 2) | (b >> 4);
      out[o] = ((b & 15) << 4) | (c >> 2);
    }
  }
  return out;
}

/** Encodes bytes as padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 3 * 4096; // build in pieces: no quadratic string growth, no giant argument lists
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(start + CHUNK, bytes.length);
    let s = "";
    let i = start;
    for (; i + 2 < end; i += 3) {
      const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      s += ALPHABET[v >> 18]! + ALPHABET[(v >> 12) & 63]! + ALPHABET[(v >> 6) & 63]! + ALPHABET[v & 63]!;
    }
    if (i < end) {
      const a = bytes[i]!;
      const b = i + 1 < end ? bytes[i + 1]! : 0;
      s += ALPHABET[a >> 2]! + ALPHABET[((a & 3) << 4) | (b >> 4)]!;
      s += i + 1 < end ? ALPHABET[(b & 15) << 2]! + "=" : "==";
    }
    parts.push(s);
  }
  return parts.join("");
}
