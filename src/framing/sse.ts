/**
 * `SseDecoderStream`: bytes → SSE messages `{data, event?, id?}`, as the SSE standard reads them.
 * A thin stream shell over `SseFramer` (framer.ts), the same framer the fused reader uses.
 */
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { resolveLimits } from "../internal/limits.js";
import { BODY_CONTEXT, checkOptions, SSE_DECODER_OPTIONS } from "../internal/options.js";
import { tagPosition } from "../read/position.js";
import { SseFramer, type BodyContext } from "./framer.js";
import type { SseMessage } from "./sse-parser.js";

export type { SseMessage } from "./sse-parser.js";

/** Options of `SseDecoderStream`: a size limit, the MMSP reader's reading, and the stream options. */
export interface SseDecoderOptions extends CoreStreamOptions {
  /** The largest event, in bytes (default 64 MiB); past it the stream fails with `StreamLimitError`. */
  maxEventBytes?: number;
  /**
   * Read as the MMSP reader (`UniEventStream`) does, so that this stage chained with
   * `UniEventDecoderStream` and `MessageAssemblerStream` gives exactly its events and errors:
   * invalid UTF-8 is an error (rule `UTF8`) instead of U+FFFD; a last message whose blank line never
   * came is still handed out (a body cut right after the stop event, or inside the final `[DONE]`,
   * reads cleanly); a body with no message at all is diagnosed (an HTML page, NDJSON, compressed
   * bytes…). Default false: the SSE standard.
   */
  mmsp?: boolean;
  /** Names the producer in errors; default `"upstream"`. */
  client?: string;
}

class SseDecoderCore implements StreamCore<Uint8Array, SseMessage> {
  private readonly framer: SseFramer;
  private emit: (m: SseMessage) => void = () => {};
  readonly finished = false;

  constructor(options: SseDecoderOptions, context: BodyContext) {
    const mmsp = options.mmsp === true;
    this.framer = new SseFramer({
      stage: "SseDecoderStream",
      requested: "sse",
      client: options.client ?? "upstream",
      maxEventBytes: resolveLimits(options).maxEventBytes,
      strictUtf8: mmsp,
      mmsp,
      capture: null,
      contentType: context.contentType,
      contentEncoding: context.contentEncoding,
    });
  }

  private readonly onRecord = (data: string): void => {
    const f = this.framer;
    const message: SseMessage = { data };
    if (f.eventType !== undefined) message.event = f.eventType;
    if (f.lastEventId !== undefined) message.id = f.lastEventId;
    const position = { eventIndex: f.index, byteOffset: f.recordStart(), byteEnd: f.recordEnd(), preview: f.preview(), format: "sse" as const };
    tagPosition(message, f.unterminated ? { ...position, unterminated: true } : position);
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
 * last message whose blank line never came discarded. (`{ mmsp: true }`: as the MMSP reader reads.)
 *
 * @example
 * ```ts
 * const messages = response.body!.pipeThrough(new SseDecoderStream());
 * for await (const { data, id } of messages) console.log(id, data);
 * ```
 */
export class SseDecoderStream extends CoreStream<Uint8Array, SseMessage> {
  /**
   * Checks the options and the context (a `TypeError` / `RangeError` naming a wrong one) and makes the stream.
   * @param options see the options type
   * @param context what the response said about the body (`Content-Type`, `Content-Encoding`): with it,
   *   the diagnosis of a body that is no stream names them (`fromResponse` passes them for you)
   */
  constructor(options: SseDecoderOptions = {}, context: BodyContext = {}) {
    checkOptions("SseDecoderStream", options, SSE_DECODER_OPTIONS);
    checkOptions("SseDecoderStream", context, BODY_CONTEXT, "SseDecoderStream: context");
    super(new SseDecoderCore(options, context), options);
  }
}
