/**
 * Server-Sent Events framing: lines of text → messages `{data, event?, id?}`, on the parser core of
 * `eventsource-parser` (fed one line at a time, so the reader knows where each event began).
 * Comments (keep-alives) are skipped; an unterminated final event is still dispatched at the end.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { LineSplitter } from "./lines.js";
import { Utf8Decoder } from "./utf8.js";
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { DEFAULT_LIMITS, limitError, resolveLimits } from "../internal/limits.js";

export interface SseMessage {
  data: string;
  event?: string;
  id?: string;
}

/** Receives a message, and the bytes captured from one of its lines (see base64-capture.ts). */
export type SseHandler = (message: SseMessage, bytes?: Uint8Array) => void;

/** Lines in, messages out; remembers the byte offset of the event being read. */
export class SseParser {
  private readonly parser: EventSourceParser;
  private sink: SseHandler = () => {};
  private pending = false;
  /** Index of the next message (keep-alive comments are not counted). */
  messageIndex = 0;
  /** Where the message being read (or last dispatched) began: a mark of the line splitter. */
  private start = 0;

  /** UTF-16 units of the fields of the message being read (a multi-line event's size). */
  private messageChars = 0;

  constructor(
    private readonly lines: LineSplitter,
    /** The largest message; `onTooLong` is called (and should throw) past it. */
    private readonly maxMessageChars = Infinity,
    private readonly onTooLong: (chars: number) => void = () => {},
  ) {
    this.parser = createParser({ onEvent: (e) => this.dispatch(e) });
    // A message still being read when the next text comes: fix its start while it can be counted.
    lines.beforePush = () => {
      if (this.start < 0) this.start = lines.resolve(this.start);
    };
  }

  /** Byte offset where the message being read (or last dispatched) began. */
  messageByteOffset(): number {
    if (this.start < 0) this.start = this.lines.resolve(this.start);
    return this.start;
  }

  /** A message has begun (a field line came) and is not dispatched yet. */
  get reading(): boolean {
    return this.pending;
  }

  private bytes: Uint8Array | undefined;

  /** One line; `raw` is the same line ending in LF, `bytes` what was captured from it (see `LineHandler`). */
  line(line: string, raw: string, sink: SseHandler, bytes?: Uint8Array): void {
    this.sink = sink;
    if (line.length === 0) {
      this.parser.feed("\n");
      this.pending = false;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return; // a comment, e.g. ": keep-alive"
    if (!this.pending) {
      this.pending = true;
      this.start = this.lines.mark();
      this.messageChars = 0;
    }
    if (bytes) this.bytes = bytes;
    this.messageChars += line.length + 1;
    if (this.messageChars > this.maxMessageChars) this.onTooLong(this.messageChars);
    this.parser.feed(raw);
  }

  /** The input ended: dispatches an event whose blank line never came. */
  end(sink: SseHandler): void {
    this.sink = sink;
    this.parser.feed("\n");
    this.pending = false;
  }

  private dispatch(e: EventSourceMessage): void {
    const message: SseMessage = { data: e.data };
    if (e.event !== undefined) message.event = e.event;
    if (e.id !== undefined) message.id = e.id;
    const bytes = this.bytes;
    this.bytes = undefined;
    this.sink(message, bytes);
    this.messageIndex++;
  }
}

/** The SSE stage as a synchronous core: bytes in (decoded with U+FFFD for bad bytes), messages out. */
export class SseDecoderCore implements StreamCore<Uint8Array, SseMessage> {
  private readonly utf8 = new Utf8Decoder(false);
  private readonly lines: LineSplitter;
  private readonly sse: SseParser;
  readonly finished = false;

  constructor(maxEventBytes = DEFAULT_LIMITS.maxEventBytes) {
    const tooLong = (): never => {
      throw limitError("maxEventBytes", maxEventBytes, "an SSE event");
    };
    this.lines = new LineSplitter(maxEventBytes, tooLong);
    this.sse = new SseParser(this.lines, maxEventBytes, tooLong);
  }

  push(chunk: Uint8Array, emit: SseHandler): void {
    const text = this.utf8.decode(chunk);
    this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, (line, raw) => this.sse.line(line, raw, emit));
  }

  end(emit: SseHandler): void {
    const text = this.utf8.end();
    if (text) this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, (line, raw) => this.sse.line(line, raw, emit));
    this.lines.end((line, raw) => this.sse.line(line, raw, emit));
    this.sse.end(emit);
  }
}

/**
 * Bytes → SSE messages `{data, event?, id?}`, as the SSE standard reads them: BOM, CR / LF / CRLF,
 * chunks split anywhere (inside lines, CRLFs and UTF-8 characters), comments skipped, invalid bytes
 * decoded as U+FFFD, an unterminated final event still dispatched.
 *
 * @example
 * ```ts
 * const messages = response.body!.pipeThrough(new SseDecoderStream());
 * for await (const { data } of messages) console.log(data);
 * ```
 */
export class SseDecoderStream extends CoreStream<Uint8Array, SseMessage> {
  constructor(options: SseDecoderOptions = {}) {
    super(new SseDecoderCore(resolveLimits(options).maxEventBytes), options);
  }
}

export interface SseDecoderOptions extends CoreStreamOptions {
  /** The largest event, in bytes (default 64 MiB); past it the stream fails with `StreamLimitError`. */
  maxEventBytes?: number;
}
