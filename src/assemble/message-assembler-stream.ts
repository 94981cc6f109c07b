/**
 * `MessageAssemblerStream`: UniEvents → the same UniEvents checked against the grammar of SPEC §3
 * (validate mode), or bare fragments → the public stream (assemble mode, SPEC §5), with the message
 * as a promise. A thin stream shell over the decoder's checks and the grammar the fused reader uses; an
 * event's failure is located once, by the position the stages before tagged it with (read/position.ts).
 */
import type { StreamCore } from "../internal/core.js";
import type { CoreStreamOptions } from "../internal/core-stream.js";
import { boundDepth, type LimitOptions, resolveLimits } from "../internal/limits.js";
import { type ReaderParts, ReaderStream } from "../internal/reader-stream.js";
import { checkOptions, MESSAGE_ASSEMBLER_OPTIONS } from "../internal/options.js";
import { textChunkError } from "../internal/chunks.js";

const BEFORE_ASSEMBLER = "read a body with UniEventStream (bytes in, checked events and the message out), or decode it first: " +
  "MmspSseDecoderStream or MmspNdjsonDecoderStream, then UniEventDecoderStream, then this stage";
import { SKIP, UniEventDecoder } from "../decode/uni-event.js";
import { locate } from "../internal/fault.js";
import { endOf, type Position, positionOf } from "../read/position.js";
import { previewValue } from "../internal/values.js";
import type { UniEvent, UniMessage } from "../schema.js";
import { createGrammar, type Grammar } from "./grammar.js";
import { LiveMessage } from "./live-message.js";
import { ReadTimings } from "../read/timings.js";

/** Options of `MessageAssemblerStream`: the mode, limits, who is blamed, and the stream options. */
export interface MessageAssemblerOptions extends CoreStreamOptions, Pick<LimitOptions, "maxItems" | "maxDepth"> {
  /** Names the producer in errors; default `"upstream"`. */
  client?: string;
  /**
   * `"validate"` (default): the input is a public stream, checked (SPEC §3, §4).
   * `"assemble"`: the input is bare fragments (several per event, `fidelity.item_id`, stop events
   * in pieces), and the output is the public stream built from them (SPEC §5).
   */
  mode?: "validate" | "assemble";
}

/** Where an event sits: the position a stage before it tagged it with, else (from your own source) its count and a preview of it. */
const placeOf = (event: unknown, position: Position | undefined, index: number): Position =>
  position ?? { eventIndex: index, preview: previewValue(event) };

class MessageAssemblerCore implements StreamCore<UniEvent, UniEvent>, ReaderParts {
  private readonly grammar: Grammar;
  private readonly decoder: UniEventDecoder;
  private readonly client: string;
  readonly live: LiveMessage;
  readonly timings: ReadTimings;
  private count = 0;
  /** The last event the grammar took, for its end: its position, or (from your own source) itself and its count (-1: none). */
  private lastEvent: unknown;
  private lastPosition: Position | undefined;
  private lastIndex = -1;
  readonly finished = false;

  message(): UniMessage | undefined {
    return this.grammar.message;
  }

  constructor(options: MessageAssemblerOptions) {
    const client = (this.client = options.client ?? "upstream");
    const mode = options.mode ?? "validate";
    const limits = resolveLimits(options);
    const grammar = (this.grammar = createGrammar(mode, client, limits));
    // Events from your own source get the decoder's checks too (for piped ones they are cheap: the
    // schema's fast path).
    this.decoder = new UniEventDecoder({ client, maxDepth: limits.maxDepth, mode, unknownItems: "error", onWarning: undefined });
    this.timings = new ReadTimings(grammar);
    this.live = new LiveMessage(mode === "validate" ? () => grammar : null, this.timings);
  }

  push(event: UniEvent, emit: (event: UniEvent) => void): void {
    const wrongPipe = textChunkError(event, "MessageAssemblerStream", "UniEvents", BEFORE_ASSEMBLER);
    if (wrongPipe) throw wrongPipe;
    emit = this.live.tap(emit);
    this.timings.arrived(); // (events in: one clock call per event, which is this stage's chunk)
    const position = positionOf(event);
    const index = position?.eventIndex ?? this.count;
    this.count++;
    try {
      if (!position) boundDepth(event, this.decoder.maxDepth);
      const checked = this.decoder.value(event as unknown as Record<string, unknown>, index);
      if (checked === SKIP) return;
      this.grammar.push(checked, emit);
    } catch (e) {
      throw locate(e, this.client, placeOf(event, position, index));
    } finally {
      this.timings.update();
    }
    // (previewed only if the end fails)
    this.lastEvent = event;
    this.lastPosition = position;
    this.lastIndex = index;
  }

  end(emit: (event: UniEvent) => void): void {
    this.timings.ended();
    emit = this.live.tap(emit);
    try {
      this.grammar.end(emit);
    } catch (e) {
      const last = this.lastIndex < 0 ? undefined : placeOf(this.lastEvent, this.lastPosition, this.lastIndex);
      throw locate(e, this.client, endOf(last));
    } finally {
      this.timings.update();
    }
  }
}

/**
 * Checks a stream of UniEvents (from `UniEventDecoderStream` or your own source) and assembles the
 * message: every rule of SPEC §3, every `.done` compared with what its fragments build.
 *
 * With `{ mode: "assemble" }` it is the producer side instead (SPEC §5): it takes the events a
 * provider adapter makes from raw fragments and emits the public stream, each item closed by its
 * `.done` and one stop event with the merged usage; `message` is the assembled message.
 *
 * @example
 * ```ts
 * import { MessageAssemblerStream, type UniEvent } from "mmsp-streams";
 *
 * // assemble mode: a provider adapter's fragments (two in one event, an item id) in, the public stream out
 * const fragments = [
 *   {
 *     role: "assistant", event_type: "delta", usage_metadata: null, finish_reason: null,
 *     content_items: [{ type: "text.delta", text: "Hel", fidelity: { item_id: "m1" } }, { type: "text.delta", text: "lo" }],
 *   },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { prompt_tokens: 3 }, finish_reason: null },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { response_tokens: 2 }, finish_reason: "stop" },
 * ] as unknown as UniEvent[];
 * const assembler = new MessageAssemblerStream({ mode: "assemble" });
 * ReadableStream.from(fragments).pipeTo(assembler.writable);
 * const message = await assembler.message; // drains the readable: nobody reads it here
 * if (message.content_items[0]?.type !== "text.done") throw new Error("expected one text item");
 * ```
 */
export class MessageAssemblerStream extends ReaderStream<UniEvent, UniEvent> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the stage. */
  constructor(options: MessageAssemblerOptions = {}) {
    checkOptions("MessageAssemblerStream", options, MESSAGE_ASSEMBLER_OPTIONS);
    const core = new MessageAssemblerCore(options);
    super(core, core, options);
  }
}
