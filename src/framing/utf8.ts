/**
 * UTF-8 bytes → text, chunk by chunk, knowing where each piece of text sits in the byte input.
 * Chunks may split a character anywhere; the platform `TextDecoder` (streaming mode) holds the
 * partial bytes back. In strict mode invalid bytes are an error that names their byte offset,
 * after the text before them has been handed out (so no valid event is lost).
 */

/** Thrown by `Utf8Decoder.decode` in strict mode; `text` is the valid text before the bad bytes. */
export class InvalidUtf8 {
  constructor(
    /** Byte offset of the first invalid (or unfinished) byte. */
    readonly byteOffset: number,
    /** The valid text before it. */
    readonly text: string,
    /** Byte offset where `text` begins. */
    readonly textStart: number,
    /** The bad byte, for a preview (only it: what follows depends on how the input was chunked). */
    readonly bytes: Uint8Array,
  ) {}
}

/** Number of bytes `text[from..to)` takes in UTF-8 (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8Length(text: string, from = 0, to = text.length): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Index of the first byte of the first invalid sequence, or -1 (an incomplete final sequence is not invalid). */
export function findInvalidUtf8(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return -1; // incomplete at the end: not (yet) invalid
      const d = b[i + k]!;
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** How many bytes at the end of `b` start a multi-byte character that is not complete yet. */
function incompleteTail(b: Uint8Array): number {
  const n = b.length;
  for (let k = 1; k <= 3 && k <= n; k++) {
    const c = b[n - k]!;
    if ((c & 0xc0) === 0x80) continue; // continuation byte: look further back
    const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return len > k ? k : 0;
  }
  return 0;
}

const EMPTY: Uint8Array = /*#__PURE__*/ new Uint8Array(0);
const BOM = [0xef, 0xbb, 0xbf];

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export class Utf8Decoder {
  private readonly decoder: TextDecoder;
  /** Bytes of an unfinished character carried from the previous chunk (at most 3). */
  private tail: Uint8Array = EMPTY;
  /** Total bytes received. */
  bytesReceived = 0;
  /** Byte offset of the first character of the text last returned. */
  textStart = 0;
  /** Byte offset just past the text last returned. */
  textEnd = 0;

  constructor(strict: boolean) {
    // ignoreBOM: the leading BOM is dropped here, not by the platform: workerd's streaming decoder
    // also drops a U+FEFF that begins a later chunk, so the text would depend on the chunking
    this.decoder = new TextDecoder("utf-8", { fatal: strict, ignoreBOM: true });
  }

  /**
   * Bytes of a leading BOM matched so far (3: the input starts with one; -1: it does not). The
   * leading BOM is dropped, so text never starts before byte 3 then, however the chunks fell (the
   * byte offsets of the first line would otherwise depend on the chunking).
   */
  private bom = 0;
  /** Whether the leading BOM is still to be dropped from the text (it has not been handed out yet). */
  private bomPending = true;

  /** `text` without the input's leading BOM, when it begins the input's text (only U+FEFF at byte 0 is one). */
  private withoutBom(text: string): string {
    if (!this.bomPending || text === "") return text;
    this.bomPending = false;
    return this.bom === 3 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  /** Where the text decoded from bytes starting at `start` begins: past a leading BOM. */
  private textStartAt(start: number): number {
    return this.bom === 3 && start < 3 ? 3 : start;
  }

  decode(chunk: Uint8Array): string {
    const start = this.bytesReceived - this.tail.length;
    for (let i = 0; i < chunk.length && this.bom >= 0 && this.bom < 3; i++) this.bom = chunk[i] === BOM[this.bom] ? this.bom + 1 : -1;
    this.bytesReceived += chunk.length;
    let text: string;
    try {
      text = this.withoutBom(this.decoder.decode(chunk, { stream: true }));
    } catch {
      throw this.invalid(concat(this.tail, chunk), start);
    }
    const held = chunk.length >= 3 ? incompleteTail(chunk) : incompleteTail(concat(this.tail, chunk));
    this.tail = held === 0 ? EMPTY : chunk.length >= held ? chunk.slice(chunk.length - held) : concat(this.tail, chunk).slice(-held);
    this.textStart = this.textStartAt(start);
    this.textEnd = this.bytesReceived - held;
    return text;
  }

  /** Ends the input: the final text, or InvalidUtf8 for an unfinished character in strict mode. */
  end(): string {
    const start = this.bytesReceived - this.tail.length;
    let text: string;
    try {
      text = this.withoutBom(this.decoder.decode());
    } catch {
      throw new InvalidUtf8(start, "", start, this.tail.slice(0, 1));
    }
    this.tail = EMPTY;
    this.textStart = this.textStartAt(start);
    this.textEnd = this.bytesReceived;
    return text;
  }

  private invalid(bytes: Uint8Array, start: number): InvalidUtf8 {
    let at = findInvalidUtf8(bytes);
    if (at < 0) at = 0; // the platform disagreed with our scan: blame the chunk's start
    const text = this.withoutBom(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(0, at)));
    return new InvalidUtf8(start + at, text, this.textStartAt(start), bytes.slice(at, at + 1));
  }
}
