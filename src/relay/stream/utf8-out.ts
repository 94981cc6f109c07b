// Records written straight as UTF-8 bytes (issue #47 "Speed": a kept door's answer in the stream's
// object costs no more than the MMSP door's + 20%).
//
// A door's answer in workerd cost most in making its text: each record's string put together, the
// slice's records joined into one string, that string made UTF-8 — every character copied twice
// before its bytes exist (measured: without that work a kept Chat Completions answer cost 17% less).
// The hot records of a stream (a text, a thinking, an argument fragment: nearly all its events) are
// the same bytes each time but for the fragment, so an encoder core that can writes them here
// (`WritesInto`): its templates' bytes made once per answer, the fragment JSON-escaped and made UTF-8
// in one pass, into one buffer per answer that each slice is copied out of once. Any other record
// comes as text and is made UTF-8 here by `encodeInto`. The bytes are the text path's: `json` writes
// exactly the UTF-8 of `JSON.stringify(text)` (test/unit/relay/stream/utf8-out.test.ts, any UTF-16 string).
import type { UniEvent } from "../../schema.js";

const utf8 = new TextEncoder();
/** ASCII of the hex digits, lowercase (JSON.stringify's `\u00xx` and `\udxxx`). */
const HEX = utf8.encode("0123456789abcdef");
/** The short escapes JSON.stringify writes for these characters (`\b`, `\t`, `\n`, `\f`, `\r`, `\"`, `\\`), by code; 0: `\u00xx`. */
const SHORT = new Uint8Array(0x80);
for (const [c, e] of [[8, "b"], [9, "t"], [10, "n"], [12, "f"], [13, "r"], [0x22, '"'], [0x5c, "\\"]] as const) SHORT[c] = e.charCodeAt(0);
/** A fragment longer than this is escaped by JSON.stringify and made UTF-8 natively (one pass in JS costs more per unit there). */
const LONG = 2048;
/** A buffer grown past this is dropped after its slice is taken (one large event does not pin its size). */
const KEEP_BYTES = 1 << 20;
const ID_HEAD = utf8.encode("id: ");
const LF = utf8.encode("\n");

/** One answer's bytes as they are written: templates, fragments JSON-escaped, text; taken a slice at a time. */
export class Utf8Out {
  private buf: Uint8Array;
  private at = 0;

  constructor(private readonly size = 16 * 1024) {
    this.buf = new Uint8Array(size);
  }

  /** The bytes written since the last `take`. */
  get length(): number {
    return this.at;
  }

  /** The bytes its buffer holds now (what an answer keeps between slices: at most KEEP_BYTES after a take). */
  get capacity(): number {
    return this.buf.length;
  }

  /** The buffer, with room for `n` more bytes. */
  private room(n: number): Uint8Array {
    const need = this.at + n;
    if (need > this.buf.length) {
      const grown = new Uint8Array(Math.max(need, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.at));
      this.buf = grown;
    }
    return this.buf;
  }

  /** Writes `bytes` (a template's, made once). */
  bytes(bytes: Uint8Array): void {
    this.room(bytes.length).set(bytes, this.at);
    this.at += bytes.length;
  }

  /** Writes `text` as UTF-8 (a whole record: no surrogate pair cut between two texts). */
  text(text: string): void {
    this.room(text.length * 3); // (UTF-8 writes at most 3 bytes a UTF-16 unit)
    this.at += utf8.encodeInto(text, this.buf.subarray(this.at)).written;
  }

  /** Writes an SSE `id: <n>` line, ended by `end` (a line end, or two: an event of its own). */
  idLine(n: number, end: Uint8Array = LF): void {
    this.bytes(ID_HEAD);
    this.int(n);
    this.bytes(end);
  }

  /** Drops what was written after `length` (an id line whose record did not come). */
  truncate(length: number): void {
    if (length < this.at) this.at = length;
  }

  /** Writes a non-negative integer's decimal digits (`String(n)`'s bytes: a sequence number), no string made. */
  int(n: number): void {
    let digits = 1;
    for (let m = n; m >= 10; m = Math.floor(m / 10)) digits++;
    const buf = this.room(digits);
    let at = (this.at += digits);
    for (let m = n; digits-- > 0; m = Math.floor(m / 10)) buf[--at] = 0x30 + (m % 10);
  }

  /** Writes `text` as a JSON string, the UTF-8 of `JSON.stringify(text)`: quoted, escaped as it escapes (lone surrogates as `\udxxx`). */
  json(text: string): void {
    if (text.length > LONG) return this.text(JSON.stringify(text));
    const buf = this.room(text.length * 6 + 2); // (a unit is at most 6 bytes: `\u00xx`, `\udxxx`)
    let at = this.at;
    buf[at++] = 0x22;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) {
        if (c >= 0x20 && c !== 0x22 && c !== 0x5c) buf[at++] = c;
        else {
          buf[at++] = 0x5c;
          const short = SHORT[c]!;
          if (short !== 0) buf[at++] = short;
          else {
            buf[at++] = 0x75;
            buf[at++] = 0x30;
            buf[at++] = 0x30;
            buf[at++] = HEX[c >> 4]!;
            buf[at++] = HEX[c & 15]!;
          }
        }
      } else if (c < 0x800) {
        buf[at++] = 0xc0 | (c >> 6);
        buf[at++] = 0x80 | (c & 0x3f);
      } else if ((c & 0xf800) !== 0xd800) {
        buf[at++] = 0xe0 | (c >> 12);
        buf[at++] = 0x80 | ((c >> 6) & 0x3f);
        buf[at++] = 0x80 | (c & 0x3f);
      } else if (c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        const p = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
        buf[at++] = 0xf0 | (p >> 18);
        buf[at++] = 0x80 | ((p >> 12) & 0x3f);
        buf[at++] = 0x80 | ((p >> 6) & 0x3f);
        buf[at++] = 0x80 | (p & 0x3f);
      } else {
        // (a lone surrogate: JSON.stringify writes it escaped, well-formed)
        buf[at++] = 0x5c;
        buf[at++] = 0x75;
        buf[at++] = HEX[c >> 12]!;
        buf[at++] = HEX[(c >> 8) & 15]!;
        buf[at++] = HEX[(c >> 4) & 15]!;
        buf[at++] = HEX[c & 15]!;
      }
    }
    buf[at++] = 0x22;
    this.at = at;
  }

  /** The bytes written since the last take, as their own array (the buffer is written again next). */
  take(): Uint8Array {
    const out = this.buf.slice(0, this.at);
    this.at = 0;
    if (this.buf.length > KEEP_BYTES) this.buf = new Uint8Array(this.size);
    return out;
  }
}

/**
 * An encoder core that writes its hot records straight into a {@link Utf8Out}: `pushInto` writes the
 * one record `push` would emit for the event (or none, where `push` emits none), leaving the core as
 * `push` would, and returns true; or it writes nothing and returns false, and the event goes through
 * `push`. Its bytes are the UTF-8 of that record's text; where the event's id goes is the writer's
 * (stream/encoding.ts). It writes only records its encoding's `settle` would not wait for (a hot
 * fragment is never a terminal event, whose response Open Responses keeps first), since they go out at
 * once: the writer runs it beside any `settle` (stream/encoding.ts `EncodedWriter.into`).
 */
export interface WritesInto {
  pushInto(event: UniEvent, out: Utf8Out): boolean;
}

/** Whether `core` writes hot records as bytes. */
export const writesInto = (core: object): core is WritesInto => typeof (core as Partial<WritesInto>).pushInto === "function";

/** The UTF-8 of a template (made once per answer). */
export const utf8Of = (text: string): Uint8Array => utf8.encode(text);
