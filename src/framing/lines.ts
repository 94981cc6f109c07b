/**
 * Splits decoded text into lines (LF, CRLF or a lone CR end a line; a CRLF split across chunks is
 * one line end) and says at which byte of the input each line begins. The text of one line is kept
 * as pieces until its end arrives, so a long line costs its length once, never once per chunk.
 */
import { Base64Capture, BYTES_SENTINEL_JSON } from "./base64-capture.js";
import { utf8Length } from "./utf8.js";

/**
 * Receives a line without its terminator, and `raw`: the same line ending in one LF (a slice of the
 * input where it can be, so handing it on costs no copy). `bytes`: a long base64 string of the line,
 * decoded while it arrived, whose place in the line holds `BYTES_SENTINEL` (see base64-capture.ts).
 */
export type LineHandler = (line: string, raw: string, bytes?: Uint8Array) => void;

export class LineSplitter {
  private pieces: string[] = [];
  /** A CR ended the last chunk: a LF at the start of the next one belongs to it. */
  private skipLf = false;
  private lineNo = 0;

  // Where the text being split sits in the input, for byte offsets.
  private text = "";
  private textStart = 0;
  private textEnd = 0;
  private lineStartPos = 0;
  /** Byte offset of a line that began in an earlier chunk (-1: it began in this one). */
  private carriedStart = -1;
  private cursorPos = 0;
  private cursorByte = 0;

  // Capturing a long base64 string of the current line (see base64-capture.ts).
  private pendingChars = 0;
  private captureTried = false;
  private capture: Base64Capture | null = null;
  private captured: Uint8Array | undefined;

  constructor(
    /** The longest line, in bytes (a bound on memory); `onTooLong` is called (and should throw) past it. */
    private readonly maxLineBytes = Infinity,
    private readonly onTooLong: (bytes: number) => void = () => {},
    /** Past this many pending UTF-16 units, look for a base64 string to decode as it arrives (off by default). */
    private readonly captureAfter = Infinity,
  ) {}

  /** 1-based number of the line last handed out. */
  get lineNumber(): number {
    return this.lineNo;
  }

  /** Byte offset in the input where the line last handed out (or being built) begins. */
  lineByteOffset(): number {
    if (this.carriedStart >= 0) return this.carriedStart;
    return this.byteOffsetOf(this.lineStartPos);
  }

  /**
   * A cheap mark of where the current line begins, for `resolve` — valid until the next `push`
   * (`beforePush` is the moment to resolve a mark that must outlive it). Counting bytes costs a
   * pass over the text, so it is done only for marks someone asks about.
   */
  mark(): number {
    return this.carriedStart >= 0 ? this.carriedStart : -(this.lineStartPos + 1);
  }

  resolve(mark: number): number {
    return mark >= 0 ? mark : this.byteOffsetOf(-mark - 1);
  }

  /** Called at the start of each `push`, while the previous text is still current. */
  beforePush: (() => void) | null = null;

  /**
   * Byte offset of `text[pos]`, counting from the nearest known point: the chunk's start, a cursor
   * left by the last count (positions asked for mostly grow within a chunk), or the chunk's end
   * (a line still open when the chunk ends starts near it).
   */
  private byteOffsetOf(pos: number): number {
    const { text, textStart, textEnd } = this;
    if (textEnd - textStart === text.length) return textStart + pos; // all ASCII
    const fromEnd = text.length - pos;
    if (pos < this.cursorPos || pos - this.cursorPos > fromEnd) {
      if (fromEnd < pos) return textEnd - utf8Length(text, pos);
      this.cursorPos = 0;
      this.cursorByte = textStart;
    }
    this.cursorByte += utf8Length(text, this.cursorPos, pos);
    this.cursorPos = pos;
    return this.cursorByte;
  }

  /** Splits `text`, which occupies bytes [textStart, textEnd) of the input. */
  push(text: string, textStart: number, textEnd: number, onLine: LineHandler): void {
    this.beforePush?.();
    this.text = text;
    this.textStart = textStart;
    this.textEnd = textEnd;
    this.cursorPos = 0;
    this.cursorByte = textStart;
    let pos = 0;
    const n = text.length;
    if (this.skipLf && n > 0) {
      this.skipLf = false;
      if (text.charCodeAt(0) === 10) pos = 1;
    }
    this.lineStartPos = pos;
    if (this.capture) {
      pos = this.continueCapture(text, pos);
      if (pos === n) return this.checkPending(textEnd);
    }
    if (text.indexOf("\r", pos) === -1) {
      // The common case: LF only.
      for (let end = text.indexOf("\n", pos); end !== -1; end = text.indexOf("\n", pos)) {
        const raw = this.pieces.length > 0 ? this.join(text.slice(pos, end + 1)) : text.slice(pos, end + 1);
        this.emit(raw.slice(0, -1), raw, onLine);
        pos = end + 1;
        this.lineStartPos = pos;
        this.carriedStart = -1;
      }
    } else {
      let lf = text.indexOf("\n", pos);
      let cr = text.indexOf("\r", pos);
      while (lf !== -1 || cr !== -1) {
        let end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        const joined = this.pieces.length > 0;
        const line = joined ? this.join(text.slice(pos, end)) : text.slice(pos, end);
        this.emit(line, end === lf && !joined ? text.slice(pos, end + 1) : line + "\n", onLine);
        if (end === cr) {
          if (end + 1 === n) this.skipLf = true;
          else if (text.charCodeAt(end + 1) === 10) end++;
        }
        pos = end + 1;
        this.lineStartPos = pos;
        this.carriedStart = -1;
        if (lf !== -1 && lf < pos) lf = text.indexOf("\n", pos);
        if (cr !== -1 && cr < pos) cr = text.indexOf("\r", pos);
      }
    }
    if (pos < n) {
      if (this.pieces.length === 0 && !this.capture) this.carriedStart = this.byteOffsetOf(pos);
      this.pieces.push(pos === 0 ? text : text.slice(pos));
      this.pendingChars += n - pos;
      this.checkPending(textEnd);
      if (this.pendingChars > this.captureAfter && !this.captureTried) this.beginCapture();
    }
  }

  private checkPending(textEnd: number): void {
    const bytes = textEnd - this.carriedStart;
    if (bytes > this.maxLineBytes) {
      this.pieces = [];
      this.capture = null;
      this.onTooLong(bytes);
    }
  }

  private beginCapture(): void {
    this.captureTried = true;
    const sofar = this.pieces.join("");
    const capture = Base64Capture.begin(sofar);
    if (capture) {
      this.capture = capture;
      this.pieces = [];
    } else this.pieces = [sofar];
  }

  /** Feeds the captured string from `text[pos]` on; returns where ordinary splitting resumes. */
  private continueCapture(text: string, pos: number): number {
    const capture = this.capture!;
    const quote = text.indexOf('"', pos); // base64 holds no quotes: this closes the string
    const end = quote === -1 ? text.length : quote;
    if (!capture.add(text.slice(pos, end))) {
      this.capture = null;
      this.pieces = [capture.restore()];
      return pos; // read the rest the ordinary way
    }
    this.pendingChars += end - pos;
    if (quote === -1) return text.length;
    this.capture = null;
    const bytes = capture.close();
    if (bytes) {
      this.pieces = [capture.prefix, BYTES_SENTINEL_JSON];
      this.captured = bytes;
    } else this.pieces = [capture.restore()];
    return quote;
  }

  /** Ends the input: an unterminated last line is handed out. */
  end(onLine: LineHandler): void {
    if (this.capture) {
      this.pieces = [this.capture.restore()];
      this.capture = null;
    }
    if (this.pieces.length > 0) {
      const line = this.join("");
      this.emit(line, line + "\n", onLine);
    }
  }

  private join(last: string): string {
    if (last) this.pieces.push(last);
    const line = this.pieces.length === 1 ? this.pieces[0]! : this.pieces.join("");
    this.pieces = [];
    this.pendingChars = 0;
    this.captureTried = false;
    return line;
  }

  private emit(line: string, raw: string, onLine: LineHandler): void {
    // A line is at least as many bytes as UTF-16 units, and at most three times as many.
    if (line.length * 3 > this.maxLineBytes) {
      const bytes = utf8Length(line);
      if (bytes > this.maxLineBytes) this.onTooLong(bytes);
    }
    this.lineNo++;
    const bytes = this.captured;
    this.captured = undefined;
    onLine(line, raw, bytes);
  }
}
