/**
 * `NdjsonDecoderStream`: bytes → one parsed JSON value per line (JSON Lines). A thin stream shell
 * over `NdjsonFramer` (framer.ts) and the record parser, the same ones the fused reader uses; the
 * MMSP reader's way of reading is `MmspNdjsonDecoderStream` (mmsp.ts), the same core.
 */
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { type LimitOptions, resolveLimits } from "../internal/limits.js";
import { checkOptions, NDJSON_DECODER_OPTIONS } from "../internal/options.js";
import { tagPosition } from "../read/position.js";
import { locate } from "../internal/fault.js";
import { parseJsonLineAt } from "../decode/record.js";
import { NdjsonFramer } from "./framer.js";

export { isBlankLine } from "./framer.js";

/** Options of `NdjsonDecoderStream`: limits, who is blamed, and the stream options. */
export interface NdjsonDecoderOptions extends CoreStreamOptions, Pick<LimitOptions, "maxEventBytes" | "maxDepth"> {
  /** Names the producer in errors; default `"upstream"`. */
  client?: string;
  /**
   * Only `false` (the default). `true` was the MMSP reader's way of reading until 0.2; it is
   * `MmspNdjsonDecoderStream` now.
   * @deprecated use `MmspNdjsonDecoderStream`
   */
  mmsp?: false;
}

/** A line's text (and what a capture took from it) → the value handed out. */
export type LineParse = (text: string, captured: Uint8Array | undefined) => unknown;

/** @internal The NDJSON stage's core: a framer and the line's parse, both chosen once by the stage. */
export class NdjsonDecoderCore implements StreamCore<Uint8Array, unknown> {
  private emit: (value: unknown) => void = () => {};
  readonly finished = false;

  constructor(
    private readonly framer: NdjsonFramer,
    private readonly parse: LineParse,
    private readonly client: string,
  ) {}

  private readonly onRecord = (text: string, captured: Uint8Array | undefined): void => {
    const f = this.framer;
    let value: unknown;
    try {
      value = this.parse(text, captured);
    } catch (e) {
      throw locate(e, this.client, f.position());
    }
    // (a value that is no object cannot carry its position: the decoder after it counts it instead)
    if (typeof value === "object" && value !== null) tagPosition(value, f.position());
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
 * `JSON`) naming the line, event index and byte offset. (As the MMSP reader reads, a line holding
 * an event object: `MmspNdjsonDecoderStream`.)
 *
 * @example
 * ```ts
 * for await (const value of file.stream().pipeThrough(new NdjsonDecoderStream())) console.log(value);
 * ```
 */
export class NdjsonDecoderStream extends CoreStream<Uint8Array, unknown> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the stream. */
  constructor(options: NdjsonDecoderOptions = {}) {
    checkOptions("NdjsonDecoderStream", options, NDJSON_DECODER_OPTIONS);
    const client = options.client ?? "upstream";
    const { maxEventBytes, maxDepth } = resolveLimits(options);
    const f = new NdjsonFramer({
      stage: "NdjsonDecoderStream",
      client,
      maxEventBytes,
      strictUtf8: true,
      keepUnterminated: false,
      capture: null,
      explain: null,
    });
    const parse: LineParse = (text) => parseJsonLineAt(text, maxDepth, f.index, f.unterminated);
    super(new NdjsonDecoderCore(f, parse, client), options);
  }
}
