/**
 * `NdjsonDecoderStream`: bytes → one parsed JSON object per line. A thin stream shell over
 * `NdjsonFramer` (framer.ts) and the record parser, the same ones the fused reader uses.
 */
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { resolveLimits, type LimitOptions } from "../internal/limits.js";
import { BODY_CONTEXT, checkOptions, NDJSON_DECODER_OPTIONS } from "../internal/options.js";
import { tagPosition } from "../read/position.js";
import { parseStep } from "../read/parse-step.js";
import { failure } from "../read/located.js";
import { parseJsonLineAt } from "../decode/record.js";
import { NdjsonFramer, type BodyContext } from "./framer.js";
import { INLINE_DATA_CAPTURE } from "./base64-capture.js";

export { isBlankLine } from "./framer.js";

/** Options of `NdjsonDecoderStream`: limits, the MMSP reader's reading, and the stream options. */
export interface NdjsonDecoderOptions extends CoreStreamOptions, Pick<LimitOptions, "maxEventBytes" | "maxDepth"> {
  /** Names the producer in errors; default `"upstream"`. */
  client?: string;
  /**
   * Read as the MMSP reader (`UniEventStream`) does: long base64 `data` strings of inline items
   * decoded while they arrive (so their `data` is already bytes), and a body with no line at all
   * diagnosed. Default false.
   */
  mmsp?: boolean;
}

class NdjsonDecoderCore implements StreamCore<Uint8Array, unknown> {
  private readonly framer: NdjsonFramer;
  /** The line's parse, chosen once: the MMSP reader's (objects only, diagnosed) or JSON Lines' (any value). */
  private readonly parse: (text: string, captured: Uint8Array | undefined) => unknown;
  private emit: (value: unknown) => void = () => {};
  readonly finished = false;

  constructor(options: NdjsonDecoderOptions, context: BodyContext) {
    const client = options.client ?? "upstream";
    const { maxEventBytes, maxDepth } = resolveLimits(options);
    const mmsp = options.mmsp === true;
    const f = (this.framer = new NdjsonFramer({ stage: "NdjsonDecoderStream", requested: "ndjson", client, maxEventBytes, strictUtf8: true, mmsp, capture: mmsp ? INLINE_DATA_CAPTURE : null, ...context }));
    this.parse = mmsp
      ? (text, captured) => parseStep(text, captured, f, maxDepth, client, () => f.recordDiagnosis())
      : (text) => {
          try {
            return parseJsonLineAt(text, maxDepth, f.index, f.unterminated);
          } catch (e) {
            throw failure(e, client, f);
          }
        };
  }

  private readonly onRecord = (text: string, captured: Uint8Array | undefined): void => {
    const f = this.framer;
    const value = this.parse(text, captured);
    // (a value that is no object cannot carry its position: the decoder after it counts it instead)
    if (typeof value === "object" && value !== null) {
      const position = { eventIndex: f.index, byteOffset: f.recordStart(), byteEnd: f.recordEnd(), line: f.line, preview: f.preview(), format: "ndjson" as const };
      tagPosition(value, f.unterminated ? { ...position, unterminated: true } : position);
    }
    this.emit(value);
  };

  push(chunk: Uint8Array, emit: (value: unknown) => void): void {
    this.emit = emit;
    this.framer.push(chunk, this.onRecord);
  }

  end(emit: (value: unknown) => void): void {
    this.emit = emit;
    this.framer.end(this.onRecord);
  }
}

/**
 * Bytes → parsed JSON values, one per line that is not blank (LF or CRLF end a line; a lone CR is
 * part of the line), as JSON Lines reads them: a line may hold any JSON value (`1`, `[1,2]`, `null`,
 * `"text"`). Invalid UTF-8 or a line that is not JSON is a `StreamProtocolError` (rules `UTF8`,
 * `JSON`) naming the line, event index and byte offset. With `mmsp: true` a line must hold a JSON
 * object (an event), as the MMSP reader reads it.
 *
 * @example
 * ```ts
 * for await (const value of file.stream().pipeThrough(new NdjsonDecoderStream())) console.log(value);
 * ```
 */
export class NdjsonDecoderStream extends CoreStream<Uint8Array, unknown> {
  /**
   * Checks the options and the context (a `TypeError` / `RangeError` naming a wrong one) and makes the stream.
   * @param options see the options type
   * @param context what the response said about the body (`Content-Type`, `Content-Encoding`): with it,
   *   the diagnosis of a body that is no stream names them (`fromResponse` passes them for you)
   */
  constructor(options: NdjsonDecoderOptions = {}, context: BodyContext = {}) {
    checkOptions("NdjsonDecoderStream", options, NDJSON_DECODER_OPTIONS);
    checkOptions("NdjsonDecoderStream", context, BODY_CONTEXT, "NdjsonDecoderStream: context");
    super(new NdjsonDecoderCore(options, context), options);
  }
}
