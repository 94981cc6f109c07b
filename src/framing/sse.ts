/**
 * `SseDecoderStream`: bytes → SSE messages `{data, event?, id?}`, as the SSE standard reads them.
 * A thin stream shell over `SseFramer` (framer.ts), the same framer the fused reader uses; the MMSP
 * reader's way of reading is `MmspSseDecoderStream` (mmsp.ts), the same core with its framer.
 */
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { resolveLimits } from "../internal/limits.js";
import { checkOptions, SSE_DECODER_OPTIONS } from "../internal/options.js";
import { tagPosition } from "../read/position.js";
import { type FramerOptions, SseFramer } from "./framer.js";
import type { SseMessage } from "./sse-parser.js";

export type { SseMessage } from "./sse-parser.js";

/** Options of `SseDecoderStream`: a size limit, who is blamed, and the stream options. */
export interface SseDecoderOptions extends CoreStreamOptions {
  /** The largest event, in bytes (default 64 MiB); past it the stream fails with `StreamLimitError`. */
  maxEventBytes?: number;
  /**
   * Only `false` (the default). `true` was the MMSP reader's way of reading until 0.2; it is
   * `MmspSseDecoderStream` now.
   * @deprecated use `MmspSseDecoderStream`
   */
  mmsp?: false;
  /** Names the producer in errors; default `"upstream"`. */
  client?: string;
}

/** @internal The SSE stage's core over a framer built by the stage (the standard's or the MMSP reader's). */
export class SseDecoderCore implements StreamCore<Uint8Array, SseMessage> {
  private readonly framer: SseFramer;
  private emit: (m: SseMessage) => void = () => {};
  readonly finished = false;

  constructor(
    stage: string,
    options: Omit<SseDecoderOptions, "mmsp">,
    how: Pick<FramerOptions, "strictUtf8" | "keepUnterminated" | "explain">,
  ) {
    this.framer = new SseFramer({
      stage,
      client: options.client ?? "upstream",
      maxEventBytes: resolveLimits(options).maxEventBytes,
      capture: null,
      ...how,
    });
  }

  private readonly onRecord = (data: string): void => {
    const f = this.framer;
    const message: SseMessage = { data };
    if (f.eventType !== undefined) message.event = f.eventType;
    if (f.lastEventId !== undefined) message.id = f.lastEventId;
    tagPosition(message, f.position());
    this.emit(message);
  };

  push(chunk: Uint8Array, emit: (m: SseMessage) => void): void {
    this.emit = emit;
    this.framer.push(chunk, this.onRecord);
  }

  end(emit: (m: SseMessage) => void): void {
    this.emit = emit;
    this.framer.end(this.onRecord);
  }
}

/**
 * Bytes → SSE messages `{data, event?, id?}`, as the SSE standard reads them: BOM, CR / LF / CRLF,
 * chunks split anywhere (inside lines, CRLFs and UTF-8 characters), comments skipped, invalid bytes
 * decoded as U+FFFD, the last event id kept across messages (as `EventSource.lastEventId`), and a
 * last message whose blank line never came discarded. (As the MMSP reader reads: `MmspSseDecoderStream`.)
 *
 * @example
 * ```ts
 * const messages = response.body!.pipeThrough(new SseDecoderStream());
 * for await (const { data, id } of messages) console.log(id, data);
 * ```
 */
export class SseDecoderStream extends CoreStream<Uint8Array, SseMessage> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the stream. */
  constructor(options: SseDecoderOptions = {}) {
    checkOptions("SseDecoderStream", options, SSE_DECODER_OPTIONS);
    super(new SseDecoderCore("SseDecoderStream", options, { strictUtf8: false, keepUnterminated: false, explain: null }), options);
  }
}
