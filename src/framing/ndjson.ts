/**
 * NDJSON / JSON Lines framing: one JSON value per line (LF or CRLF), blank lines (spaces and tabs
 * only) skipped, a last line without a newline accepted.
 */
import { MmspError, StreamLimitError, StreamProtocolError } from "../errors.js";
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { DEFAULT_LIMITS, limitError, nestsDeeper, resolveLimits, type LimitOptions } from "../internal/limits.js";
import { previewText } from "../internal/values.js";
import { LineSplitter } from "./lines.js";
import { InvalidUtf8, Utf8Decoder } from "./utf8.js";

/** A line that holds nothing but spaces and tabs (or nothing). */
export function isBlankLine(line: string): boolean {
  if (line.length === 0) return true;
  const c = line.charCodeAt(0);
  return (c === 32 || c === 9) && /^[ \t]*$/.test(line);
}

export interface NdjsonDecoderOptions extends CoreStreamOptions, Pick<LimitOptions, "maxEventBytes" | "maxDepth"> {
  /** Names the reader in error messages; default `"mmsp-streams"`. */
  client?: string;
}

/** The NDJSON stage as a synchronous core: bytes in, parsed JSON values out. */
export class NdjsonDecoderCore implements StreamCore<Uint8Array, unknown> {
  private readonly utf8 = new Utf8Decoder(true);
  private readonly lines: LineSplitter;
  private readonly maxDepth: number;
  private index = 0;
  readonly finished = false;

  constructor(
    private readonly client = "mmsp-streams",
    limits: Required<LimitOptions> = DEFAULT_LIMITS,
  ) {
    this.maxDepth = limits.maxDepth;
    this.lines = new LineSplitter(limits.maxEventBytes, () => {
      throw this.locateLimit(limitError("maxEventBytes", limits.maxEventBytes, `line ${this.lines.lineNumber + 1}`));
    });
  }

  private locateLimit(e: StreamLimitError): StreamLimitError {
    e.eventIndex = this.index;
    e.byteOffset = this.lines.lineByteOffset();
    return e;
  }

  push(chunk: Uint8Array, emit: (value: unknown) => void): void {
    let text: string;
    try {
      text = this.utf8.decode(chunk);
    } catch (e) {
      if (!(e instanceof InvalidUtf8)) throw e;
      this.lines.push(e.text, e.textStart, e.byteOffset, (line) => this.line(line, emit));
      throw this.utf8Error(e);
    }
    this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, (line) => this.line(line, emit));
  }

  end(emit: (value: unknown) => void): void {
    let text: string;
    try {
      text = this.utf8.end();
    } catch (e) {
      if (e instanceof InvalidUtf8) throw this.utf8Error(e);
      throw e;
    }
    if (text) this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, (line) => this.line(line, emit));
    this.lines.end((line) => this.line(line, emit));
  }

  private utf8Error(e: InvalidUtf8): MmspError {
    return new StreamProtocolError({
      client: this.client,
      detail: `invalid UTF-8 at byte ${e.byteOffset} (rule UTF8, event ${this.index})`,
      rule: "UTF8",
      eventIndex: this.index,
      byteOffset: e.byteOffset,
      preview: Array.from(e.bytes, (b) => b.toString(16).padStart(2, "0")).join(" "),
    });
  }

  private line(line: string, emit: (value: unknown) => void): void {
    if (isBlankLine(line)) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      const byteOffset = this.lines.lineByteOffset();
      const preview = previewText(line);
      throw new StreamProtocolError({
        client: this.client,
        detail: `line ${this.lines.lineNumber} is not valid JSON (${(e as Error).message}) (rule JSON, event ${this.index}, byte ${byteOffset}): ${preview}`,
        rule: "JSON",
        eventIndex: this.index,
        byteOffset,
        preview,
      });
    }
    if (nestsDeeper(value, this.maxDepth))
      throw this.locateLimit(limitError("maxDepth", this.maxDepth, `the nesting of line ${this.lines.lineNumber}`));
    this.index++;
    emit(value);
  }
}

/**
 * Bytes → parsed JSON values, one per non-blank line. Invalid UTF-8 or JSON is a
 * `StreamProtocolError` (rules `UTF8`, `JSON`) naming the line, event index and byte offset.
 *
 * @example
 * ```ts
 * for await (const value of file.stream().pipeThrough(new NdjsonDecoderStream())) console.log(value);
 * ```
 */
export class NdjsonDecoderStream extends CoreStream<Uint8Array, unknown> {
  constructor(options: NdjsonDecoderOptions = {}) {
    super(new NdjsonDecoderCore(options.client, resolveLimits(options)), options);
  }
}
