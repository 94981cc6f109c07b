/**
 * Decodes a long base64 string while its line is still arriving, so that a 40 MiB image's
 * `.done` never exists as one 53 MB string (nor as a second copy inside `JSON.parse`).
 *
 * When a line grows past a threshold, the line splitter asks `Base64Capture.begin` whether the text
 * so far ends inside a JSON string member `"data": "<base64…` — the bytes of an inline item. From
 * then on the string's characters are decoded as they come and dropped; when the string closes,
 * the line goes on with `BYTES_SENTINEL` in its place, and the decoded bytes travel beside the line
 * (the decoder puts them back where the sentinel stands). Anything unexpected (an escape, a
 * character outside the alphabet, a line that ends inside the string) restores the original text
 * exactly and the line is read the ordinary way.
 */
import { decodeBase64, encodeBase64 } from "../decode/base64.js";

/** What the decoder finds in place of captured bytes (never valid base64, so never confused with data). */
export const BYTES_SENTINEL = "\u0000mmsp-streams:captured-bytes\u0000";
/** The sentinel as JSON string content. */
export const BYTES_SENTINEL_JSON = "\\u0000mmsp-streams:captured-bytes\\u0000";


export class Base64Capture {
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

  /** Takes more characters of the string; false (and nothing taken) when they are not padded base64. */
  add(chars: string): boolean {
    if (chars.length === 0) return true;
    if (this.padded) return false;
    const s = this.rest + chars;
    const whole = s.length - (s.length % 4);
    const padded = whole > 0 && s.charCodeAt(whole - 1) === 61; /* = */
    if (padded && whole < s.length) return false; // characters after the padding
    const bytes = whole > 0 ? decodeBase64(s.slice(0, whole)) : undefined;
    if (whole > 0 && !bytes) return false;
    if (bytes) {
      this.chunks.push(bytes);
      this.size += bytes.length;
    }
    const rest = s.slice(whole);
    if (!/^[A-Za-z0-9+/=]*$/.test(rest)) return false; // decodeBase64 checked the whole groups
    this.rest = rest;
    this.padded = padded;
    return true;
  }

  /** The string closed: its bytes, or undefined when it was not whole groups. */
  close(): Uint8Array | undefined {
    if (this.rest.length > 0) return undefined;
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    this.chunks.length = 0;
    return out;
  }

  /** The original text of the line so far (prefix and the string's characters as they came). */
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
