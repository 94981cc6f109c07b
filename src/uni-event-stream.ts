/**
 * The one-call reader: bytes (SSE or NDJSON) → checked UniEvents, plus the finished message.
 * It composes the cores of the four stages (UTF-8 + framing, decoding, checking) in one synchronous
 * call per chunk, so a chunk costs one stream hop, not four.
 */
import { StreamProtocolError } from "./errors.js";
import { AssembleInputDecoder, MessageAssembler } from "./assemble/assembler.js";
import { MessageValidator } from "./assemble/validator.js";
import { LiveMessage, type MessageSnapshot } from "./assemble/live-message.js";
import { DONE, UniEventDecoder } from "./decode/uni-event.js";
import { LineSplitter } from "./framing/lines.js";
import { BYTES_SENTINEL_JSON } from "./framing/base64-capture.js";
import { isBlankLine } from "./framing/ndjson.js";
import { SseParser, type SseHandler } from "./framing/sse.js";
import { InvalidUtf8, Utf8Decoder } from "./framing/utf8.js";
import type { StreamCore } from "./internal/core.js";
import { CoreStream, type CoreStreamOptions } from "./internal/core-stream.js";
import { limitError, resolveLimits, type LimitOptions } from "./internal/limits.js";
import { Fault, locate } from "./internal/fault.js";
import { MessagePromise } from "./internal/message-promise.js";
import { previewText } from "./internal/values.js";
import type { UniEvent, UniMessage } from "./schema.js";

export type WireFormat = "sse" | "ndjson";

export interface UniEventStreamOptions extends LimitOptions, CoreStreamOptions {
  /**
   * The framing of the bytes; default `"sse"`. `"auto"`: told by the first line that is not blank
   * (a JSON object: NDJSON; anything else: SSE).
   */
  format?: WireFormat | "auto";
  /** Names the reader in error messages and in `UpstreamError.client`; default `"mmsp-streams"`. */
  client?: string;
  /**
   * `"validate"` (default): the bytes are a public stream, checked (SPEC §3, §4).
   * `"assemble"`: the bytes carry bare fragments (several per event, `fidelity.item_id`, stop
   * events in pieces) and the output is the public stream built from them (SPEC §5).
   */
  mode?: "validate" | "assemble";
  /**
   * Items of a kind this version does not know (`<kind>.delta` / `<kind>.done`, e.g. from a newer
   * server): `"error"` (default) fails with rule `KIND`; `"skip"` drops their events, `.done`
   * included, and reports each through `onWarning`. (Validate mode.)
   */
  unknownItems?: "error" | "skip";
  /** Called for what the reader let pass but you may want to know about (skipped items). */
  onWarning?: (warning: ReaderWarning) => void;
}

export interface ReaderWarning {
  type: "unknown-item";
  itemType: string;
  eventIndex: number;
  message: string;
}

/** A type shaped like a future kind's item (`<kind>.delta` or `<kind>.done`, a kind no version names). */
const isFutureItem = (type: string): boolean =>
  /^[a-z][a-z0-9_]*\.(delta|done)$/.test(type) && !/^(image_url|tool_result)\./.test(type);

/** Lines longer than this have a long base64 string decoded as it arrives (see base64-capture.ts). */
const CAPTURE_AFTER_CHARS = 1 << 20;

const isDonePrefix = (data: string): boolean => "[DONE]".startsWith(data);

/** The fused core: bytes in, checked UniEvents out. */
export class UniEventCore implements StreamCore<Uint8Array, UniEvent> {
  private readonly utf8 = new Utf8Decoder(true);
  private readonly lines: LineSplitter;
  private sse: SseParser | null;
  private readonly skipUnknown: boolean;
  private readonly onWarning: ((w: ReaderWarning) => void) | undefined;
  private readonly decoder: UniEventDecoder;
  readonly validator: MessageValidator;
  /** Assemble mode's stage (replaces the validator's checks), or null in validate mode. */
  readonly assembler: MessageAssembler | null;
  private readonly client: string;
  private emit: (event: UniEvent) => void = () => {};
  /** Index of the next record (SSE message or non-blank NDJSON line). */
  private index = 0;
  private ending = false;
  /** The last record (or a preview of a long one), for an error found at the end. */
  private lastText = "";
  finished = false;

  private onLine: (line: string, raw: string, bytes?: Uint8Array) => void;
  private readonly onMessage: SseHandler;

  constructor(options: UniEventStreamOptions = {}, onMessage?: (message: UniMessage) => void) {
    this.client = options.client ?? "mmsp-streams";
    const limits = resolveLimits(options);
    this.skipUnknown = options.unknownItems === "skip";
    this.onWarning = options.onWarning;
    const tooLong = (): never => {
      const e = limitError("maxEventBytes", limits.maxEventBytes, `event ${this.index}`);
      e.eventIndex = this.index;
      e.byteOffset = this.sse?.reading ? this.sse.messageByteOffset() : this.lines.lineByteOffset();
      throw e;
    };
    this.lines = new LineSplitter(limits.maxEventBytes, tooLong, CAPTURE_AFTER_CHARS);
    this.assembler = options.mode === "assemble" ? new MessageAssembler(this.client, onMessage, limits) : null;
    this.decoder = this.assembler ? new AssembleInputDecoder(this.client) : new UniEventDecoder(this.client, limits.maxDepth);
    this.validator = new MessageValidator(this.client, onMessage, limits);
    // Validate mode: the live message starts from the checker's state when first asked for.
    this.live = new LiveMessage(this.assembler ? null : () => this.validator);
    const sse = options.format === "ndjson" ? null : new SseParser(this.lines, limits.maxEventBytes, tooLong);
    this.sse = sse;
    this.onMessage = (m, bytes) => this.record(m.data, undefined, bytes);
    const sseLine = (line: string, raw: string, bytes?: Uint8Array): void => sse!.line(line, raw, this.onMessage, bytes);
    const ndjsonLine = (line: string, _raw: string, bytes?: Uint8Array): void => {
      if (!isBlankLine(line)) this.record(line, this.lines.lineNumber, bytes);
    };
    let decided: typeof ndjsonLine | undefined;
    this.onLine = !sse ? ndjsonLine : options.format !== "auto" ? sseLine : (line, raw, bytes) => {
      // "auto": the first line that is not blank tells: a JSON object is NDJSON, anything else SSE.
      // (Lines of the chunk being split still come here: hand them on once decided.)
      if (!decided) {
        if (isBlankLine(line)) return;
        decided = this.onLine = line.charCodeAt(0) === 123 /* { */ ? ndjsonLine : sseLine;
        if (decided === ndjsonLine) this.sse = null;
      }
      decided(line, raw, bytes);
    };
  }

  /** The message as it streams (see `UniEventStream.snapshot`). */
  readonly live: LiveMessage;

  push(chunk: Uint8Array, emit: (event: UniEvent) => void): void {
    this.emit = this.live.tap(emit);
    let text: string;
    try {
      text = this.utf8.decode(chunk);
    } catch (e) {
      if (!(e instanceof InvalidUtf8)) throw e;
      this.lines.push(e.text, e.textStart, e.byteOffset, this.onLine); // deliver what came before the bad bytes
      throw this.invalidUtf8(e);
    }
    this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, this.onLine);
  }

  end(emit: (event: UniEvent) => void): void {
    this.emit = this.live.tap(emit);
    emit = this.emit;
    this.ending = true;
    let text: string;
    try {
      text = this.utf8.end();
    } catch (e) {
      if (e instanceof InvalidUtf8) throw this.invalidUtf8(e);
      throw e;
    }
    if (text) this.lines.push(text, this.utf8.textStart, this.utf8.textEnd, this.onLine);
    this.lines.end(this.onLine);
    this.sse?.end(this.onMessage);
    if (!this.finished) {
      try {
        if (this.assembler) this.assembler.end(emit);
        else this.validator.end();
      } catch (e) {
        const preview = this.index === 0 ? "<empty input>" : `<end of input after> ${previewText(this.lastText)}`;
        throw locate(e, this.client, { eventIndex: this.index, byteOffset: this.utf8.bytesReceived, preview });
      }
    }
  }

  /** Where the record being handled began (counted only when an error needs it). */
  private recordByteOffset(): number {
    return this.sse ? this.sse.messageByteOffset() : this.lines.lineByteOffset();
  }

  private record(text: string, line?: number, bytes?: Uint8Array): void {
    if (this.finished) return; // after [DONE] nothing more is read
    const index = this.index++;
    try {
      if (this.ending && this.sse && (this.assembler !== null || this.validator.stopped) && isDonePrefix(text)) {
        this.finished = true; // the body was cut inside the final `data: [DONE]`
        this.assembler?.end(this.emit);
        return;
      }
      const event = this.decoder.decodeText(text, this.sse !== null, bytes);
      if (event === DONE) {
        if (this.assembler) this.assembler.end(this.emit); // the input is complete: the stop goes out
        else if (!this.validator.stopped) throw new Fault("STOP-LAST", "[DONE] arrived before the stop event: the stream was truncated");
        this.finished = true;
        return;
      }
      if (this.assembler) this.assembler.push(event, this.emit);
      else {
        this.validator.push(event);
        this.emit(event);
      }
      this.lastText = text.length <= 4096 ? text : previewText(text); // never pin a large line
    } catch (e) {
      if (this.skipUnknown && e instanceof Fault && e.itemType !== undefined && isFutureItem(e.itemType) && !this.assembler) {
        const message = `skipped an item of unknown kind ${JSON.stringify(e.itemType)} (event ${index})`;
        this.onWarning?.({ type: "unknown-item", itemType: e.itemType, eventIndex: index, message });
        return;
      }
      // A captured string shows as its size, not as the placeholder that stands in the text.
      const shown = bytes ? text.replace(BYTES_SENTINEL_JSON, `<${bytes.length} bytes of base64>`) : text;
      throw locate(e, this.client, { line, eventIndex: index, byteOffset: this.recordByteOffset(), preview: previewText(shown) });
    }
  }

  private invalidUtf8(e: InvalidUtf8): StreamProtocolError {
    const preview = Array.from(e.bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");
    return locate(new Fault("UTF8", `invalid UTF-8 at byte ${e.byteOffset}`), this.client, {
      eventIndex: this.index,
      byteOffset: e.byteOffset,
      preview,
    }) as StreamProtocolError;
  }
}

/**
 * Bytes of an MMSP stream → checked UniEvents, with the finished assistant message.
 *
 * Every event is validated (SPEC §2) and the grammar of SPEC §3 enforced as it arrives; each
 * `.done` is checked against its fragments. The first violation errors the readable (after every
 * valid event before it) and rejects `message`.
 *
 * @example
 * ```ts
 * const stream = new UniEventStream();
 * const events = (await fetch(url, init)).body!.pipeThrough(stream);
 * for await (const event of events) render(event);
 * const message = await stream.message;
 * ```
 */
export class UniEventStream extends CoreStream<Uint8Array, UniEvent> {
  /**
   * The finished message: resolves when the stop event has passed the checks, rejects with the
   * error the readable errors with. Awaiting it while nobody reads `readable` drains the stream.
   */
  readonly message: Promise<UniMessage>;

  constructor(options: UniEventStreamOptions = {}) {
    let stream!: UniEventStream;
    const message = new MessagePromise<UniMessage>(() => stream.drain());
    const core = new UniEventCore(options, (m) => message.resolve(m));
    super(core, { ...options, onError: (e) => message.reject(e) });
    stream = this;
    this.message = message;
    this.live = core.live;
  }

  private readonly live: LiveMessage;

  /**
   * The message so far: the done items, then the open item's value so far (`partial: true`; tool
   * arguments parsed best-effort by `PartialJsonParser`), and usage once the stop event passed.
   * Cheap to call after every event: it returns the same live object, updated in place — read or
   * render it, copy what you keep, do not mutate it. It reflects the events emitted so far.
   */
  snapshot(): MessageSnapshot {
    return this.live.snapshot();
  }
}
