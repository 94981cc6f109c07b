/**
 * The one-call reader: bytes (SSE or NDJSON) → checked UniEvents, plus the finished message. It is
 * the composition of the stages' own parts — a framer (framing/framer.ts), the record parser, the
 * decoder and the grammar — called synchronously per chunk, so a chunk costs one stream hop, not
 * four, and the fused path and the chained stages cannot drift apart. A record's failure is located
 * once, around all three, by where the framer is (read/position.ts); the end's, after the last event.
 */
import { createGrammar, type Grammar } from "./assemble/grammar.js";
import type { GroupBuffer } from "./assemble/group.js";
import { LiveMessage } from "./assemble/live-message.js";
import { KIND_SPECS } from "./assemble/kinds.js";
import { parseJson, recordValueAt } from "./decode/record.js";
import { type ReaderWarning, SKIP, UniEventDecoder } from "./decode/uni-event.js";
import { bodyExplainer } from "./diagnose.js";
import { type BodyContext, createFramer, type Explanation, type Framer, type RecordSink, type WireFormat } from "./framing/framer.js";
import { FormatSniffer } from "./framing/sniff.js";
import { checkBytesChunk } from "./internal/chunks.js";
import { INLINE_DATA_CAPTURE, inlineDataCapture } from "./framing/base64-capture.js";
import type { StreamCore } from "./internal/core.js";
import type { CoreStreamOptions } from "./internal/core-stream.js";
import { locate } from "./internal/fault.js";
import { type LimitOptions, resolveLimits } from "./internal/limits.js";
import { type ReaderParts, ReaderStream } from "./internal/reader-stream.js";
import { BODY_CONTEXT, checkOptions, READER_OPTIONS } from "./internal/options.js";
import { endOf, type Position } from "./read/position.js";
import { ReadTimings } from "./read/timings.js";
import type { UniEvent, UniMessage } from "./schema.js";

export type { BodyContext, WireFormat } from "./framing/framer.js";
export type { ReaderWarning } from "./decode/uni-event.js";

/** Options of `UniEventStream` (and `fromResponse`): format, mode, who is blamed, limits, unknown items, and the stream options. */
export interface UniEventStreamOptions extends LimitOptions, CoreStreamOptions {
  /**
   * The framing of the bytes; default `"sse"`. `"auto"`: told once by the first byte that is not
   * whitespace (`{`: NDJSON; anything else: SSE).
   */
  format?: WireFormat | "auto";
  /**
   * Names the producer in error messages and in `UpstreamError.client` (a protocol error is the
   * producer's: `upstream broke the streaming protocol: …`); default `"upstream"`.
   */
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

/** @internal The fused core: framer → parse → decode → grammar, in one synchronous call per chunk. */
export class UniEventCore implements StreamCore<Uint8Array, UniEvent>, ReaderParts {
  protected framer!: Framer;
  private readonly client: string;
  private decoder!: UniEventDecoder;
  private readonly grammar: Grammar;
  readonly live: LiveMessage;
  readonly timings: ReadTimings;
  private emit: (event: UniEvent) => void = () => {};
  finished = false;
  /**
   * `format: "auto"` before it is told (sniff.ts: the first byte that is not whitespace, after a BOM):
   * the chunks so far, held, and how to frame them once it is.
   */
  protected untold: { sniffer: FormatSniffer; held: Uint8Array[]; frame: (format: WireFormat) => void } | undefined;

  constructor(options: UniEventStreamOptions, context: BodyContext) {
    const client = (this.client = options.client ?? "upstream");
    const limits = resolveLimits(options);
    const mode = options.mode ?? "validate";
    const grammar = (this.grammar = createGrammar(mode, client, limits));
    this.timings = new ReadTimings(grammar);
    this.live = new LiveMessage(mode === "validate" ? () => grammar : null, this.timings);
    this.frame(options, context, options.format ?? "sse", limits);
  }

  /**
   * The framer, the decoder and the record handler, for a body read from its start in `format` with
   * what its response said (the grammar, the live message and the timings go on); for `"auto"`, once
   * it is told (`said`: the format the reader was told, for the diagnosis). The constructor's;
   * `ReconnectingCore` calls it again for each body it reads; `resent`, `firstIndex`: `FramerOptions`'.
   */
  protected frame(
    options: UniEventStreamOptions,
    context: BodyContext,
    format: WireFormat | "auto",
    limits: Required<LimitOptions>,
    resent?: (id: string | undefined, index: number) => boolean,
    firstIndex?: number,
    said: WireFormat | "auto" = format,
  ): void {
    if (format === "auto") {
      const frame = (told: WireFormat): void => this.frame(options, context, told, limits, resent, firstIndex, "auto");
      this.untold = { sniffer: new FormatSniffer(limits.maxEventBytes), held: [], frame };
      return;
    }
    this.untold = undefined; // (a body framed in a known format is told, whatever the one before was)
    const { client } = this;
    const mode = options.mode ?? "validate";
    this.framer = createFramer(format, {
      stage: "UniEventStream",
      client,
      maxEventBytes: limits.maxEventBytes,
      strictUtf8: true,
      keepUnterminated: true,
      // validate mode knows the group an inline .done closes: the capture decodes into one buffer its size, adopted by the group
      capture: mode === "validate" ? inlineDataCapture(() => this.openInlineGroup()) : INLINE_DATA_CAPTURE,
      explain: bodyExplainer(context, said),
      resent,
      firstIndex,
    });
    this.decoder = new UniEventDecoder({
      client,
      maxDepth: limits.maxDepth,
      mode,
      unknownItems: options.unknownItems ?? "error",
      onWarning: options.onWarning,
      contentType: context.contentType,
      status: format === "ndjson" ? context.status : undefined,
    });
    this.sink = format === "sse" ? this.sseRecord : this.ndjsonRecord; // the record handler of the format, chosen once
  }

  /** `"auto"` before it is told: the chunk is held; once the format is told, the framer is made and fed them all. */
  private sniff(chunk: Uint8Array): void {
    const untold = this.untold!;
    checkBytesChunk(chunk, "UniEventStream");
    untold.held.push(chunk);
    const told = untold.sniffer.push(chunk);
    if (told !== undefined) this.tell(told);
  }

  private tell(format: WireFormat): void {
    const { held, frame } = this.untold!;
    frame(format); // (which ends the untold state)
    for (const chunk of held) this.framer.push(chunk, this.sink);
  }

  message(): UniMessage | undefined {
    return this.grammar.message;
  }

  /** The open inline group (whose bytes its `.done` must hold), if one is open. */
  private openInlineGroup(): GroupBuffer | undefined {
    const group = this.grammar.openGroup;
    return group !== null && KIND_SPECS[group.kind].joins === "bytes" ? group : undefined;
  }

  /** The last event of an earlier body, while this one's framer has kept none (`ReconnectingCore`). */
  declare protected carried: Position | undefined;

  /** Where the framer hands records: the handler of the format, chosen once per body framed. */
  private sink!: RecordSink;

  private readonly sseRecord: RecordSink = (data, captured) => {
    if (this.finished) return; // after [DONE] nothing more is read
    if (!UniEventDecoder.isDone(data, this.framer.unterminated)) return this.record(data, captured, undefined);
    this.endGrammar(); // [DONE]: the input is complete (may fail: then the stream did not finish)
    this.finished = true;
  };

  private readonly ndjsonRecord: RecordSink = (text, captured) => this.record(text, captured, this.diagnosis);

  /** What the body is, when its first NDJSON line does not parse. */
  private readonly diagnosis = (): Explanation | undefined => this.framer.recordDiagnosis();

  /**
   * A record → its event, through the grammar: one try around all three, located where the framer is.
   * A fragment continuing the open group (most of a stream) the grammar takes whole (`takeFragment`).
   */
  private record(text: string, captured: Uint8Array | undefined, diagnosis: (() => Explanation | undefined) | undefined): void {
    const f = this.framer;
    try {
      const parsed = parseJson(text, f.index, f.unterminated, diagnosis);
      if (captured !== undefined || !this.grammar.takeFragment(parsed, this.emit)) {
        const event = this.decoder.value(recordValueAt(parsed, captured, Infinity, f.index, f.unterminated, diagnosis), f.index, false);
        if (event === SKIP) return;
        this.grammar.push(event, this.emit);
      }
    } catch (e) {
      throw locate(e, this.client, f.position());
    }
    f.keepEnd();
  }

  /** The input is complete (its end, or `[DONE]`): the grammar's end, located after the last event kept. */
  private endGrammar(): void {
    try {
      this.grammar.end(this.emit);
    } catch (e) {
      throw locate(e, this.client, endOf(this.framer.kept() ?? this.carried));
    }
  }

  push(chunk: Uint8Array, emit: (event: UniEvent) => void): void {
    this.emit = this.live.tap(emit);
    this.timings.arrived();
    try {
      if (this.untold === undefined) this.framer.push(chunk, this.sink);
      else this.sniff(chunk);
    } finally {
      this.timings.update();
    }
  }

  end(emit: (event: UniEvent) => void): void {
    this.emit = this.live.tap(emit);
    this.timings.ended();
    try {
      if (this.untold !== undefined) this.tell(this.untold.sniffer.end());
      this.framer.end(this.sink);
      if (!this.finished) this.endGrammar();
    } finally {
      this.timings.update();
    }
  }
}

/**
 * Bytes of an MMSP stream → checked UniEvents, with the finished assistant message.
 *
 * Every event is validated (SPEC §2) and the grammar of SPEC §3 enforced as it arrives; each
 * `.done` is checked against its fragments. The first violation errors the readable (after every
 * valid event before it) and rejects `message` with the same error (SPEC §7).
 *
 * @example
 * ```ts
 * import { UniEventStream } from "mmsp-streams";
 *
 * const events = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   {
 *     role: "assistant", event_type: "stop", content_items: [], finish_reason: "stop",
 *     usage_metadata: { cached_tokens: 0, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 },
 *   },
 * ];
 * const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
 * // in real use: (await fetch(url, init)).body!
 * const stream = new UniEventStream();
 * for await (const event of new Response(body).body!.pipeThrough(stream)) console.log(event.content_items[0]?.type ?? "stop");
 * const message = await stream.message;
 * if (message.content_items[0]?.type !== "text.done") throw new Error("expected the text");
 * ```
 */
export class UniEventStream extends ReaderStream<Uint8Array, UniEvent> {
  /**
   * Checks the options and the context (a `TypeError` / `RangeError` naming a wrong one) and makes the stream.
   * @param options see the options type
   * @param context what the response said about the body (`Content-Type`, `Content-Encoding`): with it,
   *   the diagnosis of a body that is no stream names them (`fromResponse` passes them for you)
   */
  constructor(options: UniEventStreamOptions = {}, context: BodyContext = {}) {
    checkOptions("UniEventStream", options, READER_OPTIONS);
    checkOptions("UniEventStream", context, BODY_CONTEXT, "UniEventStream: context");
    const core = new UniEventCore(options, context);
    super(core, core, options);
  }
}

/** Written into a `ReconnectingCore`'s stream before a reconnect's body: a new connection begins. */
export const NEXT_CONNECTION: unique symbol = /*#__PURE__*/ Symbol("a new connection");

/**
 * @internal fromFetch's reader: the fused core over one connection's body after another. Its input is
 * bytes and, before each reconnect's body, `NEXT_CONNECTION`. The bytes of two connections are never
 * joined: the framer is made anew, so what the old body left unfinished (a record without its end, a
 * line, a character the cut split, bytes held to tell the format) is dropped; the resume sends it
 * again whole. The records go on counting (an error's `eventIndex` is the stream's, the index
 * `Last-Event-ID` names) and the last event stays the end's reference; byte offsets and NDJSON line
 * numbers start again at 0 and 1 (a position in the body the record came in). The decoding, the
 * grammar, the live message and the timings go on; after a reconnect an SSE event the server sends
 * again is skipped (`isResent`). (A class of its own so that `UniEventStream` does not carry it.)
 */
export class ReconnectingCore extends UniEventCore implements StreamCore<Uint8Array | typeof NEXT_CONNECTION, UniEvent> {
  private lastId: string | undefined;
  private context: BodyContext = {};

  /** Made before the first answer came: `answer()` frames its body. */
  constructor(private readonly options: UniEventStreamOptions) {
    super(options, {});
  }

  /** The first answer came: its body is read as `fromResponse` reads one (the format, the headers the diagnosis names). */
  answer(format: WireFormat | "auto", context: BodyContext): void {
    this.context = context;
    this.frame(this.options, context, format, resolveLimits(this.options));
  }

  override push(chunk: Uint8Array | typeof NEXT_CONNECTION, emit: (event: UniEvent) => void): void {
    if (chunk === NEXT_CONNECTION) this.connection();
    else super.push(chunk, emit);
  }

  private connection(): void {
    // (a body that never told its format handed out nothing: the next is told anew)
    const old = this.untold === undefined ? this.framer : undefined;
    this.carried = old?.kept() ?? this.carried;
    this.lastId = undefined;
    // the new framer goes on from the old one's count
    this.frame(this.options, this.context, old?.format ?? "auto", resolveLimits(this.options), this.isResent, old?.index);
  }

  /**
   * After a reconnect, an SSE event the server sends again: its own id line (not one carried over from
   * the message before) names an index already handed out. The one place of that rule.
   */
  private readonly isResent = (id: string | undefined, index: number): boolean => {
    if (id === undefined || id === this.lastId) return false;
    this.lastId = id;
    return /^[0-9]{1,15}$/.test(id) && Number(id) < index;
  };

  /** The format, once known (`"auto"`: once the framer has told it). */
  get format(): WireFormat | undefined {
    return this.untold === undefined ? this.framer.format : undefined;
  }

  /** The records handed out so far (resent ones skipped): the next event's index. */
  get records(): number {
    return this.untold === undefined ? this.framer.index : 0;
  }
}
