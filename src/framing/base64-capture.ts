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
import { joinBytes } from "../internal/bytes.js";
import { BYTE_KINDS, carriesBytes } from "../internal/byte-kinds.js";

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

/**
 * The open inline group whose `.done` a capture may be decoding, when the reader knows it (the fused
 * reader in validate mode; assemble/group.ts). `length`: the bytes of its fragments, so the capture
 * decodes into one buffer of that size instead of joining pieces at the end. `adopt`: told each time
 * the buffer holds more, the group compares those bytes with its fragments and, where they agree,
 * lets the buffer's bytes stand in for the fragments', so the image is not held twice while its
 * `.done` arrives. Only ever a saving: a wrong length costs a copy, a `.done` that differs is still
 * judged against the very bytes its fragments brought.
 */
export interface InlineTarget {
  readonly length: number;
  adopt(buffer: Uint8Array, end: number): void;
}
export type InlineTargetOf = () => InlineTarget | undefined;

/** A `.done` of an inline kind named before its `data` (servers write `type` first). */
const INLINE_DONE = /*#__PURE__*/ new RegExp(`"type"\\s*:\\s*"(?:${BYTE_KINDS.join("|")})\\.done"`);

export class Base64Capture implements LineCaptureState {
  readonly terminator = '"'; // base64 holds no quotes: the first one closes the string
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  /** Up to 3 characters that do not make a whole group yet. */
  private rest = "";
  private padded = false;
  /** With a target: the one buffer the bytes are decoded into (undefined once they outgrow it). */
  private buffer: Uint8Array | undefined;

  private constructor(
    /** The line's text up to and including the string's opening quote. */
    readonly prefix: string,
    private target: InlineTarget | undefined,
  ) {
    if (target !== undefined && target.length > 0) this.buffer = new Uint8Array(target.length);
  }

  /** A capture when `text` (a line so far) ends inside a `"data": "<base64…` string, else undefined. */
  static begin(text: string, targetOf?: InlineTargetOf): Base64Capture | undefined {
    const at = text.lastIndexOf('"data"'); // base64 holds no quotes: this is the last key before the string
    if (at < 0) return undefined;
    const m = /^"data"\s*:\s*"/.exec(text.slice(at, at + 64));
    if (!m) return undefined;
    const open = at + m[0].length - 1;
    const prefix = text.slice(0, open + 1);
    const capture = new Base64Capture(prefix, targetOf && INLINE_DONE.test(prefix) ? targetOf() : undefined);
    return capture.add(text.slice(open + 1)) ? capture : undefined;
  }

  /** Keeps decoded bytes: in the target's buffer while they fit, else as pieces joined at the end. */
  private keep(bytes: Uint8Array): void {
    const buffer = this.buffer;
    if (buffer !== undefined) {
      if (this.size + bytes.length <= buffer.length) {
        buffer.set(bytes, this.size);
        this.size += bytes.length;
        this.target!.adopt(buffer, this.size);
        return;
      }
      // more than the fragments brought: what came so far becomes the first piece
      this.chunks.push(buffer.subarray(0, this.size));
      this.buffer = this.target = undefined;
    }
    this.chunks.push(bytes);
    this.size += bytes.length;
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
    if (bytes) this.keep(bytes);
    this.rest = rest;
    this.padded = padded;
    return true;
  }

  close(): { placeholder: string; value: Uint8Array } | undefined {
    if (this.rest.length > 0) return undefined;
    const buffer = this.buffer;
    this.buffer = undefined;
    // with a length that held (a valid .done) the buffer is the value; fewer bytes: a copy of their size
    const value = buffer === undefined
      ? joinBytes(this.chunks, this.size)
      : this.size === buffer.length
      ? buffer
      : buffer.slice(0, this.size);
    this.chunks.length = 0;
    return { placeholder: BYTES_SENTINEL_JSON, value };
  }

  restore(): string {
    // (with a target's buffer, nothing was kept beside it)
    const bytes = this.buffer !== undefined ? this.buffer.subarray(0, this.size) : joinBytes(this.chunks, this.size);
    return this.prefix + encodeBase64(bytes) + this.rest;
  }
}

/** Lines longer than this many UTF-16 units have a long `"data"` string decoded as it arrives. */
const CAPTURE_AFTER = 1 << 20;

/** The MMSP capture; with the open inline group when the reader knows it (the fused reader in validate mode). */
export function inlineDataCapture(targetOf?: InlineTargetOf): LineCapture {
  return { after: CAPTURE_AFTER, begin: (line) => Base64Capture.begin(line, targetOf) };
}

/** The MMSP capture without a target (the MMSP framing stages, assemble mode). */
export const INLINE_DATA_CAPTURE: LineCapture = /*#__PURE__*/ inlineDataCapture();

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
        const inline = k === "data" && carriesBytes(o.type);
        o[k] = inline ? bytes : encodeBase64(bytes);
        return;
      }
      if (typeof v === "object" && v !== null) stack.push(v);
    }
  }
}
