/**
 * Decodes a long base64 string while its line is still arriving, so that a 40 MiB image's
 * `.done` never exists as one 53 MB string (nor as a second copy inside `JSON.parse`).
 *
 * This is the MMSP-specific `LineCapture` the framer gives its line splitter: when a line grows past
 * a threshold, `begin` looks whether the text so far ends inside a JSON string member
 * `"data": "<base64…` — the bytes of an inline item. From then on the string's characters are
 * decoded as they come and dropped; when the string closes, the line goes on with `BYTES_SENTINEL`
 * in its place, and the decoded bytes travel beside the line in its record (the decoder puts them
 * back where the sentinel stands). Anything unexpected (an escape, a character outside the
 * alphabet, non-canonical padding bits, a line that ends inside the string) restores the original
 * text exactly and the line is read the ordinary way. Only canonical base64 is captured, so bytes
 * put back as text (outside an inline item) are the very characters that arrived.
 */
import { decodeBase64, encodeBase64 } from "../decode/base64.js";
import type { LineCapture, LineCaptureState } from "./lines.js";

import { BYTES_SENTINEL, BYTES_SENTINEL_JSON } from "./captured.js";

export { BYTES_SENTINEL, BYTES_SENTINEL_JSON };

const ALPHABET = /^[A-Za-z0-9+/=]*$/;
const PAD_BITS: Record<string, number> = /*#__PURE__*/ padBits();

function padBits(): Record<string, number> {
  const bits: Record<string, number> = {};
  const a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < 64; i++) bits[a[i]!] = i;
  return bits;
}

/** Whether the last group of padded base64 `group` (4 characters) leaves its unused bits zero. */
function canonicalLastGroup(group: string): boolean {
  if (group[3] !== "=") return true;
  if (group[2] === "=") return (PAD_BITS[group[1]!]! & 15) === 0;
  return (PAD_BITS[group[2]!]! & 3) === 0;
}

export class Base64Capture implements LineCaptureState {
  readonly terminator = '"'; // base64 holds no quotes: the first one closes the string
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  /** Up to 3 characters that do not make a whole group yet. */
  private rest = "";
  private padded = false;

  private constructor(
    /** The line's text up to and including the string's opening quote. */
    readonly prefix: string,
  ) {}

  /** A capture when `text` (a line so far) ends inside a `"data": "<base64…` string, else undefined. */
  static begin(text: string): Base64Capture | undefined {
    const at = text.lastIndexOf('"data"'); // base64 holds no quotes: this is the last key before the string
    if (at < 0) return undefined;
    const m = /^"data"\s*:\s*"/.exec(text.slice(at, at + 64));
    if (!m) return undefined;
    const open = at + m[0].length - 1;
    const capture = new Base64Capture(text.slice(0, open + 1));
    return capture.add(text.slice(open + 1)) ? capture : undefined;
  }

  add(chars: string): boolean {
    if (chars.length === 0) return true;
    if (this.padded) return false;
    const s = this.rest + chars;
    const whole = s.length - (s.length % 4);
    const padded = whole > 0 && s.charCodeAt(whole - 1) === 61; /* = */
    if (padded && whole < s.length) return false; // characters after the padding
    if (padded && !canonicalLastGroup(s.slice(whole - 4, whole))) return false;
    const bytes = whole > 0 ? decodeBase64(s.slice(0, whole)) : undefined;
    if (whole > 0 && !bytes) return false;
    const rest = s.slice(whole);
    if (!ALPHABET.test(rest)) return false; // decodeBase64 checked the whole groups
    if (bytes) {
      this.chunks.push(bytes);
      this.size += bytes.length;
    }
    this.rest = rest;
    this.padded = padded;
    return true;
  }

  close(): { placeholder: string; value: Uint8Array } | undefined {
    if (this.rest.length > 0) return undefined;
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    this.chunks.length = 0;
    return { placeholder: BYTES_SENTINEL_JSON, value: out };
  }

  restore(): string {
    let digits = "";
    if (this.chunks.length > 0) {
      const all = new Uint8Array(this.size);
      let o = 0;
      for (const c of this.chunks) (all.set(c, o), (o += c.length));
      digits = encodeBase64(all);
    }
    return this.prefix + digits + this.rest;
  }
}

/** The MMSP capture: lines longer than 1 Mi UTF-16 units have a long `"data"` string decoded as it arrives. */
export const INLINE_DATA_CAPTURE: LineCapture = {
  after: 1 << 20,
  begin: (line) => Base64Capture.begin(line),
};

/**
 * Puts captured bytes back where the sentinel stands: in the `data` of an inline item as bytes, or
 * (anywhere else) as the base64 text it was.
 */
export function restoreCaptured(value: unknown, bytes: Uint8Array): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const x = stack.pop();
    if (typeof x !== "object" || x === null) continue;
    const o = x as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (v === BYTES_SENTINEL) {
        const inline = k === "data" && typeof o.type === "string" && o.type.startsWith("inline_");
        o[k] = inline ? bytes : encodeBase64(bytes);
        return;
      }
      if (typeof v === "object" && v !== null) stack.push(v);
    }
  }
}
