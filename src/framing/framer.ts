/**
 * Framing: bytes → records, chosen once. A framer owns everything below the record: UTF-8
 * decoding, lines, the SSE field parser, byte offsets and the capture of long base64 strings.
 * A record is an SSE message's `data` or an NDJSON line that is not blank; the framer is the one
 * place that knows where the record being handed out sits in the input (`index`, `recordStart()`,
 * `recordEnd()`, `line`; all of it as a `Position` when asked), so every error, found by whichever
 * part, is located the same way.
 *
 * `SseFramer` and `NdjsonFramer` are the two formats (`format: "auto"` is told before a framer is
 * made: the fused reader holds the first chunks until sniff.ts tells it, uni-event-stream.ts).
 *
 * What a body that held no record was (an HTML page, a JSON document…) is not the framer's to say:
 * given an `explain` function (the MMSP reader's, diagnose.ts), it keeps the body's first bytes and
 * asks it after the failure; without one (the general-purpose stages) it keeps nothing.
 */
import { Fault, locate } from "../internal/fault.js";
import { limitError } from "../internal/limits.js";
import { type Position, recordPreview } from "../read/position.js";
import { checkBytesChunk } from "../internal/chunks.js";
import { BodyHead, HEAD_BYTES, hexBytes } from "./head.js";
import { type LineBreaks, type LineCapture, LineSplitter } from "./lines.js";
import { SseParser } from "./sse-parser.js";
import { InvalidUtf8, Utf8Decoder } from "./utf8.js";

/** The framing of a byte stream: Server-Sent Events or NDJSON (JSON Lines). */
export type WireFormat = "sse" | "ndjson";

/** Receives one record: its text, and what a capture took from it (the text then holds a placeholder). */
export type RecordSink = (text: string, captured: Uint8Array | undefined) => void;

/** What the response said about its body (for the diagnosis of a body that is no stream). */
export interface BodyContext {
  /** The response's `Content-Type` header (`response.headers.get("content-type")`), or null. */
  contentType?: string | null;
  /** The response's `Content-Encoding` header, or null (a compressed body nobody decompressed is named). */
  contentEncoding?: string | null;
  /**
   * The response's status (`fromResponse` and `fromFetch` pass it): a body that is one JSON error
   * document (its first line `{"error": …}`, read as NDJSON) is refused with it, `UpstreamError.status`
   * 200 rather than null (which means an error in the middle of a stream). Only the fused reader reads it.
   */
  status?: number;
}

/** What an explainer says a body was: a sentence for the message, and a preview of its first bytes. */
export interface Explanation {
  detail: string;
  preview: string;
}

/**
 * Says what a body was when it held no record, or failed before its first one (an HTML page, a JSON
 * document, compressed bytes…), from its first bytes (at most `HEAD_BYTES`) and how many it had in
 * all; undefined when they look like the start of a real stream. Called only after a failure. The
 * MMSP reader's is `bodyExplainer` (diagnose.ts), which also knows the response's headers.
 */
export type Explainer = (head: Uint8Array, totalBytes: number) => Explanation | undefined;

/** How a framer reads. */
export interface FramerOptions {
  /** The stream that reads with it, for the error a chunk that is not bytes gets. */
  stage: string;
  /** Names the producer in errors. */
  client: string;
  /** The largest record, in bytes. */
  maxEventBytes: number;
  /** Invalid UTF-8 is an error (`UTF8`), not U+FFFD. */
  strictUtf8: boolean;
  /**
   * SSE: an unterminated last message is still handed out (flagged `unterminated`, so a body cut
   * right after the stop event or inside the final `[DONE]` reads cleanly); the standard drops it.
   */
  keepUnterminated: boolean;
  /**
   * What a body that yields no record was: with one, such a body (or bad UTF-8 before the first
   * record) is `NOT-A-STREAM`, explained; without, it is an empty stream (or `UTF8`).
   */
  explain: Explainer | null;
  /**
   * What to capture of a long line while it arrives (the MMSP reader gives `INLINE_DATA_CAPTURE`, see
   * base64-capture.ts; a stage that hands out text gives none).
   */
  capture: LineCapture | null;
  /**
   * SSE: asked of each message (with its id, if it has one) before it is handed out; true skips it,
   * uncounted. fromFetch's reader gives one after a reconnect (ReconnectingCore: an event the server
   * sends again).
   */
  resent?: (id: string | undefined, index: number) => boolean;
  /** The count its records start from (fromFetch's reader after a reconnect: the events of the bodies before). */
  firstIndex?: number;
}

/**
 * Bytes in, records out to a sink, and where the record being handed out sits: the parts both
 * formats share (UTF-8, lines, the record's position, the head for an explainer).
 */
export abstract class Framer {
  abstract readonly format: WireFormat;
  protected readonly utf8: Utf8Decoder;
  protected readonly lines: LineSplitter;
  protected sink: RecordSink = () => {};
  // Where the record being handed out sits (valid inside the sink call):
  /** 0-based index of the record among the input's records. */
  index = 0;
  /** The input ended inside this record (it had no terminator). */
  unterminated = false;
  /** 1-based line number, for line-based input (NDJSON). */
  line: number | undefined = undefined;
  /** SSE: the current message's `event`. */
  eventType: string | undefined = undefined;
  /** SSE: the current message's last event id. */
  lastEventId: string | undefined = undefined;
  /** The input has ended: a line handed out now had no terminator. */
  protected ending = false;
  protected startMark = 0;
  protected endMark = 0;
  /** The text of the record being handed out (and what a capture took from it), for its preview. */
  protected recordText = "";
  protected recordCaptured: Uint8Array | undefined;
  private keptEndMark = 0;
  private keptIndex = -1;
  private keptText = "";
  private keptCaptured: Uint8Array | undefined;
  /** The first bytes and the count of all, to say what a body was when it held no record (kept only for an explainer). */
  private readonly head: BodyHead | undefined;
  /** Invalid UTF-8 before the first record, raised once the head is whole (see `push`). */
  private badUtf8: InvalidUtf8 | undefined;

  constructor(
    protected readonly options: FramerOptions,
    breaks: LineBreaks,
  ) {
    this.utf8 = new Utf8Decoder(options.strictUtf8);
    this.index = options.firstIndex ?? 0;
    if (options.explain) this.head = new BodyHead();
    this.lines = new LineSplitter(breaks, options.maxEventBytes, () => this.tooLong(this.openRecordStart()), options.capture);
  }

  /** Byte offset where the record begins. */
  recordStart(): number {
    return (this.startMark = this.lines.resolve(this.startMark));
  }

  /** Byte offset just past it (its terminating line included). */
  recordEnd(): number {
    return (this.endMark = this.lines.resolve(this.endMark));
  }

  /** All of it, with a preview of the record's text as it arrived (built only when asked: a failure, a stage's tag). */
  position(): Position {
    const p: Position = {
      eventIndex: this.index,
      byteOffset: this.recordStart(),
      byteEnd: this.recordEnd(),
      preview: recordPreview(this.recordText, this.recordCaptured),
      format: this.format,
    };
    if (this.line !== undefined) p.line = this.line;
    if (this.unterminated) p.unterminated = true;
    return p;
  }

  /** Remembers this record as the last event (its end is counted, its text cut, only if asked). */
  keepEnd(): void {
    this.keptEndMark = this.endMark;
    this.keptIndex = this.index;
    // never pin a large line: keep what its preview needs
    this.keptText = this.recordText.length <= 4096 ? this.recordText : this.recordText.slice(0, 200);
    this.keptCaptured = this.recordCaptured;
  }

  /** Where the record last kept sits. */
  kept(): Position | undefined {
    if (this.keptIndex < 0) return undefined;
    this.keptEndMark = this.lines.resolve(this.keptEndMark);
    return { eventIndex: this.keptIndex, byteEnd: this.keptEndMark, preview: recordPreview(this.keptText, this.keptCaptured) };
  }

  /** Marks point into the text being split; fix them before it is replaced. */
  private fixMarks(): void {
    if (this.startMark < 0) this.startMark = this.lines.resolve(this.startMark);
    if (this.endMark < 0) this.endMark = this.lines.resolve(this.endMark);
    if (this.keptEndMark < 0) this.keptEndMark = this.lines.resolve(this.keptEndMark);
  }

  /** Where the record still being read began. */
  protected abstract openRecordStart(): number;

  push(chunk: Uint8Array, sink: RecordSink): void {
    checkBytesChunk(chunk, this.options.stage);
    this.sink = sink;
    const head = this.head;
    if (head) {
      head.push(chunk);
      if (this.badUtf8) {
        if (head.totalBytes >= HEAD_BYTES) throw this.invalidUtf8(this.badUtf8, false);
        return;
      }
    }
    this.fixMarks();
    let text: string;
    try {
      text = this.utf8.decode(chunk);
    } catch (e) {
      if (!(e instanceof InvalidUtf8)) throw e;
      this.lines.push(e.text, e.textStart, e.byteOffset, this.onLine); // deliver what came before the bad bytes
      // Before the first record, the error says what the body is, from its head: wait for the whole
      // head (or the end), so that what it says does not depend on how the body was chunked.
      if (this.index === 0 && head && head.totalBytes < HEAD_BYTES) {
        this.badUtf8 = e;
        return;
      }
      throw this.invalidUtf8(e, false);
    }
    this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, this.onLine);
  }

  end(sink: RecordSink): void {
    this.sink = sink;
    if (this.badUtf8) throw this.invalidUtf8(this.badUtf8, true);
    this.fixMarks();
    let text: string;
    try {
      text = this.utf8.end();
    } catch (e) {
      if (e instanceof InvalidUtf8) throw this.invalidUtf8(e, true);
      throw e;
    }
    if (text) this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, this.onLine);
    this.ending = true;
    this.lines.end(this.onLine);
    this.endRecords();
    // no record at all: the body is no stream, if the explainer can say what it was instead
    const d = this.index === 0 ? this.diagnosis(true) : undefined;
    if (d) throw locate(new Fault("NOT-A-STREAM", d.detail), this.options.client, { eventIndex: 0, byteOffset: 0, preview: d.preview });
  }

  protected abstract readonly onLine: (line: string, captured: Uint8Array | undefined) => void;

  /** The input ended: hand out a record still open, if the format does. */
  protected endRecords(): void {}

  /**
   * What the body was, judged from its first bytes, when it held no record (or failed before the
   * first one); needs `explain`. `ended`: the whole body is in (else only "more than the head" is
   * said of its size, which does not depend on chunks).
   */
  private diagnosis(ended: boolean): Explanation | undefined {
    const head = this.head;
    if (!head) return undefined;
    return this.options.explain!(head.bytes(), ended ? head.totalBytes : Math.min(head.totalBytes, HEAD_BYTES + 1));
  }

  /** For the first record, which failed: judged from the bytes up to its end only (what came after depends on chunks). */
  recordDiagnosis(): Explanation | undefined {
    const head = this.head;
    if (!head) return undefined;
    return this.options.explain!(head.bytes().subarray(0, this.recordEnd()), HEAD_BYTES + 1);
  }

  /** The record that began at `byteOffset` grew past `maxEventBytes`. */
  protected tooLong(byteOffset: number): never {
    const e = limitError("maxEventBytes", this.options.maxEventBytes, `event ${this.index}`);
    e.eventIndex = this.index;
    e.byteOffset = byteOffset;
    throw e;
  }

  private invalidUtf8(e: InvalidUtf8, ended: boolean): unknown {
    const d = this.index === 0 ? this.diagnosis(ended) : undefined;
    const detail = d ? d.detail : `invalid UTF-8 at byte ${e.byteOffset}`;
    // bytes that are no text before any event (compressed, binary): the body is no stream at all
    return locate(new Fault(d ? "NOT-A-STREAM" : "UTF8", detail), this.options.client, {
      eventIndex: this.index,
      byteOffset: e.byteOffset,
      preview: d ? d.preview : hexBytes(e.bytes),
    });
  }
}

/** SSE: lines → messages (see sse-parser.ts); a record is a message's `data`. */
export class SseFramer extends Framer {
  readonly format = "sse" as const;
  private readonly parser = new SseParser();
  /** A field line came since the last blank line: a message is being read. */
  private reading = false;
  private messageChars = 0;
  private captured: Uint8Array | undefined;

  constructor(options: FramerOptions) {
    super(options, "sse");
  }

  protected openRecordStart(): number {
    return this.reading ? this.recordStart() : this.lines.resolve(this.lines.mark());
  }

  protected readonly onLine = (line: string, captured: Uint8Array | undefined): void => {
    if (line.length === 0) {
      this.reading = false;
      const message = this.parser.dispatch();
      if (message) {
        this.endMark = this.lines.endMark();
        this.hand(message.data, message.event, message.id);
      }
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return; // a comment, e.g. ": keep-alive"
    if (!this.reading) {
      this.reading = true;
      this.startMark = this.lines.mark();
      this.messageChars = 0;
    }
    if (captured) this.captured = captured;
    this.messageChars += line.length + 1;
    if (this.messageChars > this.options.maxEventBytes) this.tooLong(this.recordStart());
    this.parser.field(line);
  };

  private hand(data: string, event: string | undefined, id: string | undefined): void {
    const captured = this.captured;
    this.captured = undefined;
    if (this.options.resent?.(id, this.index)) return;
    this.eventType = event;
    this.lastEventId = id;
    this.recordText = data;
    this.recordCaptured = captured;
    this.sink(data, captured);
    this.index++;
  }

  protected override endRecords(): void {
    this.reading = false;
    // The standard discards a message whose blank line never came; the MMSP reader hands it out,
    // flagged, so that a body cut right after the stop event (or inside `[DONE]`) still reads.
    if (!this.options.keepUnterminated) return;
    const message = this.parser.dispatch();
    if (!message) return;
    this.endMark = this.utf8.bytesReceived;
    this.unterminated = true;
    this.hand(message.data, message.event, message.id);
  }
}

/** A line that holds nothing but spaces and tabs (or nothing). */
export function isBlankLine(line: string): boolean {
  if (line.length === 0) return true;
  const c = line.charCodeAt(0);
  return (c === 32 || c === 9) && /^[ \t]*$/.test(line);
}

/** NDJSON: a record is a line that is not blank (LF or CRLF end lines; a lone CR is text). */
export class NdjsonFramer extends Framer {
  readonly format = "ndjson" as const;

  constructor(options: FramerOptions) {
    super(options, "ndjson");
  }

  protected openRecordStart(): number {
    return this.lines.resolve(this.lines.mark());
  }

  protected readonly onLine = (line: string, captured: Uint8Array | undefined): void => {
    if (isBlankLine(line)) return;
    this.line = this.lines.lineNumber;
    this.unterminated = this.ending; // only the last line, without its LF, comes at the end
    this.startMark = this.lines.mark();
    this.endMark = this.lines.endMark();
    this.recordText = line;
    this.recordCaptured = captured;
    this.sink(line, captured);
    this.index++;
  };
}

/** The framer for a format. */
export function createFramer(format: WireFormat, options: FramerOptions): Framer {
  return format === "sse" ? new SseFramer(options) : new NdjsonFramer(options);
}
