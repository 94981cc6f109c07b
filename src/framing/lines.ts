/**
 * Splits decoded text into lines and says at which byte of the input each line begins and ends.
 * Which characters end a line is chosen once: SSE ends a line at LF, CRLF or a lone CR (a CRLF split
 * across chunks is one line end); NDJSON only at LF (a CR before it is dropped, a lone CR is text).
 * The text of one line is kept as pieces until its end arrives, so a long line costs its length once.
 *
 * A `LineCapture` may take over a long line while it arrives (see base64-capture.ts): the splitter
 * knows nothing of what it captures, only that the line's text then holds a placeholder and the
 * line record carries what was captured.
 */
import { utf8Length } from "./utf8.js";

/** What a capture strategy holds for the line being built. */
export interface LineCaptureState {
  /** Takes more characters of the captured run; false when they do not belong to it (nothing taken). */
  add(chars: string): boolean;
  /** The captured run closed: the placeholder text and what was captured, or undefined to restore. */
  close(): { placeholder: string; value: Uint8Array } | undefined;
  /** The text of the line so far, exactly as it arrived. */
  restore(): string;
  /** The line's text before the captured run. */
  readonly prefix: string;
  /** The character that closes the run (it is not part of it). */
  readonly terminator: string;
}

/** Decides, for a line that grew past `after` characters, whether its tail is worth capturing. */
export interface LineCapture {
  readonly after: number;
  begin(lineSoFar: string): LineCaptureState | undefined;
}

/**
 * Receives a line without its terminator, and what a capture took from it (its place in the line
 * holds the capture's placeholder).
 */
export type LineHandler = (line: string, captured: Uint8Array | undefined) => void;

export type LineBreaks = "sse" | "ndjson";

export class LineSplitter {
  private pieces: string[] = [];
  /** A CR ended the last chunk: a LF at the start of the next one belongs to it (SSE). */
  private skipLf = false;
  /** 1-based number of the line last handed out. */
  lineNumber = 0;

  // Where the text being split sits in the input, for byte offsets.
  private text = "";
  private textStart = 0;
  private textEnd = 0;
  private lineStartPos = 0;
  /** Where the line being handed out ends (just past the CR or LF that ended it), as a position in `text`. */
  private lineEndPos = 0;
  /** Byte offset of a line that began in an earlier chunk (-1: it began in this one). */
  private carriedStart = -1;
  private cursorPos = 0;
  private cursorByte = 0;
  /** The line handed out at `end()` has no terminator: its end is the end of the input. */
  private endedAt = -1;

  // Capturing a long run of the current line.
  private pendingChars = 0;
  private captureTried = false;
  private state: LineCaptureState | null = null;
  private captured: Uint8Array | undefined;

  private readonly split: (text: string, pos: number, onLine: LineHandler) => number;

  constructor(
    breaks: LineBreaks,
    /** The longest line, in bytes (a bound on memory); `onTooLong` is called (and must throw) past it. */
    private readonly maxLineBytes: number,
    private readonly onTooLong: () => never,
    private readonly capture: LineCapture | null,
  ) {
    this.split = breaks === "sse" ? this.splitAnyBreak : this.splitLf;
  }

  /**
   * A cheap mark of where the current line begins, for `resolve`, valid until the next `push`
   * (`resolve` it before then if it must live longer). Counting bytes costs a pass over the text,
   * so it is done only for marks someone asks about.
   */
  mark(): number {
    return this.carriedStart >= 0 ? this.carriedStart : -(this.lineStartPos + 1);
  }

  /** A mark of where the line being handed out ends (after its terminator). */
  endMark(): number {
    return this.endedAt >= 0 ? this.endedAt : -(this.lineEndPos + 1);
  }

  resolve(mark: number): number {
    return mark >= 0 ? mark : this.byteOffsetOf(-mark - 1);
  }

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
    if (this.state) {
      pos = this.continueCapture(text, pos);
      if (pos === n) return this.checkPending(textEnd);
    }
    pos = this.split(text, pos, onLine);
    if (pos < n) {
      if (this.pieces.length === 0 && !this.state) this.carriedStart = this.byteOffsetOf(pos);
      this.pieces.push(pos === 0 ? text : text.slice(pos));
      this.pendingChars += n - pos;
      this.checkPending(textEnd);
      if (this.capture && this.pendingChars > this.capture.after && !this.captureTried) this.beginCapture();
    }
  }

  /** NDJSON: only LF ends a line; a CR right before it is part of the terminator. */
  private readonly splitLf = (text: string, pos: number, onLine: LineHandler): number => {
    for (let end = text.indexOf("\n", pos); end !== -1; end = text.indexOf("\n", pos)) {
      let line = this.pieces.length > 0 ? this.join(text.slice(pos, end)) : text.slice(pos, end);
      if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
      this.lineEndPos = end + 1;
      this.emit(line, onLine);
      pos = end + 1;
      this.lineStartPos = pos;
      this.carriedStart = -1;
    }
    return pos;
  };

  /** SSE: LF, CRLF or a lone CR end a line. */
  private readonly splitAnyBreak = (text: string, pos: number, onLine: LineHandler): number => {
    const n = text.length;
    let lf = text.indexOf("\n", pos);
    let cr = text.indexOf("\r", pos);
    while (lf !== -1 || cr !== -1) {
      let end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      const line = this.pieces.length > 0 ? this.join(text.slice(pos, end)) : text.slice(pos, end);
      // A line ends just past the character that ended it: the LF of a CRLF is not counted, since
      // whether one follows a CR at the end of a chunk is known only with the next chunk.
      this.lineEndPos = end + 1;
      if (end === cr) {
        if (end + 1 === n) this.skipLf = true;
        else if (text.charCodeAt(end + 1) === 10) end++;
      }
      this.emit(line, onLine);
      pos = end + 1;
      this.lineStartPos = pos;
      this.carriedStart = -1;
      if (lf !== -1 && lf < pos) lf = text.indexOf("\n", pos);
      if (cr !== -1 && cr < pos) cr = text.indexOf("\r", pos);
    }
    return pos;
  };

  private checkPending(textEnd: number): void {
    if (textEnd - this.carriedStart > this.maxLineBytes) {
      this.pieces = [];
      this.state = null;
      this.onTooLong();
    }
  }

  private beginCapture(): void {
    this.captureTried = true;
    const sofar = this.pieces.join("");
    const state = this.capture!.begin(sofar);
    if (state) {
      this.state = state;
      this.pieces = [];
    } else this.pieces = [sofar];
  }

  /** Feeds the captured run from `text[pos]` on; returns where ordinary splitting resumes. */
  private continueCapture(text: string, pos: number): number {
    const state = this.state!;
    const close = text.indexOf(state.terminator, pos);
    const end = close === -1 ? text.length : close;
    if (!state.add(text.slice(pos, end))) {
      this.state = null;
      this.pieces = [state.restore()];
      return pos; // read the rest the ordinary way
    }
    this.pendingChars += end - pos;
    if (close === -1) return text.length;
    this.state = null;
    const closed = state.close();
    if (closed) {
      this.pieces = [state.prefix, closed.placeholder];
      this.captured = closed.value;
    } else this.pieces = [state.restore()];
    return close;
  }

  /** Ends the input: an unterminated last line is handed out (its end is the end of the input). */
  end(onLine: LineHandler): void {
    if (this.state) {
      this.pieces = [this.state.restore()];
      this.state = null;
    }
    if (this.pieces.length > 0) {
      const line = this.join("");
      this.endedAt = this.textEnd;
      this.emit(line, onLine);
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

  private emit(line: string, onLine: LineHandler): void {
    // A line is at least as many bytes as UTF-16 units, and at most three times as many.
    if (line.length * 3 > this.maxLineBytes && utf8Length(line) > this.maxLineBytes) this.onTooLong();
    this.lineNumber++;
    const captured = this.captured;
    this.captured = undefined;
    onLine(line, captured);
  }
}
