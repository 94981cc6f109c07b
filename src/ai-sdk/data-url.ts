/**
 * Bytes ↔ `data:` URLs (RFC 2397), the form the AI SDK's `file` parts carry inline media in.
 * Written out as `data:<mime>;base64,<padded base64>`; read back from that form or from the
 * percent-encoded form (`data:text/plain,a%20b`), so a URL built anywhere decodes to its bytes.
 */
import { decodeBase64, encodeBase64 } from "../index.js";

export function toDataUrl(bytes: Uint8Array, mimeType: string): string {
  return `data:${mimeType};base64,${encodeBase64(bytes)}`;
}

/** The bytes of a `data:` URL, or undefined when `url` is not one (or its payload does not decode). */
export function fromDataUrl(url: string): Uint8Array | undefined {
  if (!/^data:/i.test(url)) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (/;base64$/i.test(meta)) {
    return decodeBase64(payload.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
  }
  return percentDecode(payload);
}

/**
 * Percent-decoding to bytes: `%XX` is one byte, any other character its UTF-8 bytes. One pass into
 * one buffer (a per-character array of numbers made a 45 MiB URL cost seconds and gigabytes).
 */
function percentDecode(text: string): Uint8Array | undefined {
  let out: Uint8Array = new Uint8Array(text.length); // (ASCII as many bytes, %XX one for three; other text grows it)
  const encoder = new TextEncoder();
  let n = 0;
  for (let i = 0; i < text.length;) {
    const percent = text.indexOf("%", i);
    const end = percent < 0 ? text.length : percent;
    while (i < end) {
      // (a run without escapes, written at once; it ends before a %, so no surrogate pair is split)
      const { read, written } = encoder.encodeInto(text.slice(i, end), out.subarray(n));
      n += written;
      i += read;
      if (i < end) out = grown(out, n + (end - i) * 3);
    }
    if (n === out.length && percent >= 0) out = grown(out, n + 1);
    if (percent < 0) break;
    const byte = hexByte(text, percent + 1);
    if (byte < 0) return undefined;
    out[n++] = byte;
    i = percent + 3;
  }
  return out.slice(0, n);
}

/** `bytes` copied into a buffer of at least `size` bytes (doubling). */
function grown(bytes: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(Math.max(size, bytes.length * 2));
  out.set(bytes);
  return out;
}

/** The byte written by the two hex digits at `at`, or -1. */
function hexByte(text: string, at: number): number {
  const hi = hexValue(text.charCodeAt(at));
  const lo = hexValue(text.charCodeAt(at + 1));
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}
