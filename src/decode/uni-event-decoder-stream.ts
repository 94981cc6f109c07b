/**
 * `UniEventDecoderStream`: records (SSE messages or parsed NDJSON lines) → UniEvents. A thin stream
 * shell over the record parser and the decoder the fused reader uses; each record's failure is located
 * once, by the position the stage before tagged it with (read/position.ts).
 */
import type { StreamCore } from "../internal/core.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { Fault, locate } from "../internal/fault.js";
import { boundDepth, type LimitOptions, resolveLimits } from "../internal/limits.js";
import { isRecord, notAnObject, previewValue } from "../internal/values.js";
import { checkOptions, UNI_EVENT_DECODER_OPTIONS } from "../internal/options.js";
import { textChunkError } from "../internal/chunks.js";

const BEFORE_DECODER = "pipe the body through MmspSseDecoderStream or MmspNdjsonDecoderStream before this stage, " +
  "or read it with UniEventStream, which does all of it (a string you split yourself: JSON.parse it first)";
import { type Position, positionOf, recordPreview, tagPosition } from "../read/position.js";
import type { UniEvent } from "../schema.js";
import { parseJson, recordValueAt } from "./record.js";
import { DONE, type ReaderWarning, SKIP, UniEventDecoder } from "./uni-event.js";

/** Options of `UniEventDecoderStream`: what its records are, the mode, unknown items, and the stream options. */
export interface UniEventDecoderOptions extends CoreStreamOptions, Pick<LimitOptions, "maxDepth"> {
  /**
   * What the records are: SSE messages `{data}` (`"sse"`) or parsed JSON values (`"ndjson"`).
   * By default each record is what the stage before it said (`SseDecoderStream`,
   * `NdjsonDecoderStream`), else an SSE message when it is an object whose only members are a string
   * `data` and optional `event` / `id`.
   */
  format?: "sse" | "ndjson";
  /** Names the producer in errors and in `UpstreamError.client`; default `"upstream"`. */
  client?: string;
  /**
   * `"validate"` (default): the records are a public stream's events. `"assemble"`: they are the
   * input of assemble mode (several items per event, `fidelity.item_id`, stop events in pieces),
   * for `MessageAssemblerStream({ mode: "assemble" })` after it.
   */
  mode?: "validate" | "assemble";
  /** Items of a kind this version does not know: `"error"` (default) or `"skip"` (see `UniEventStream`). */
  unknownItems?: "error" | "skip";
  /** Called for what the reader let pass but you may want to know about (skipped items). */
  onWarning?: (warning: ReaderWarning) => void;
}

const SSE_KEYS = new Set(["data", "event", "id"]);

function looksLikeSseMessage(r: unknown): r is { data: string } {
  if (!isRecord(r) || typeof r.data !== "string") return false;
  for (const k in r) if (!SSE_KEYS.has(k)) return false;
  return true;
}

/** What arrived, for a record no stage tagged (your own source's): an SSE message's data, else the value. */
const arrived = (r: unknown): string => isRecord(r) && typeof r.data === "string" ? recordPreview(r.data) : previewValue(r);

class UniEventDecoderCore implements StreamCore<unknown, UniEvent> {
  private readonly decoder: UniEventDecoder;
  private readonly client: string;
  private count = 0;
  finished = false;

  constructor(private readonly options: UniEventDecoderOptions) {
    this.client = options.client ?? "upstream";
    this.decoder = new UniEventDecoder({
      client: this.client,
      maxDepth: resolveLimits(options).maxDepth,
      mode: options.mode ?? "validate",
      unknownItems: options.unknownItems ?? "error",
      onWarning: options.onWarning,
    });
  }

  push(record: unknown, emit: (event: UniEvent) => void): void {
    if (this.finished) return;
    const wrongPipe = textChunkError(
      record,
      "UniEventDecoderStream",
      "records (SSE messages {data}, or parsed JSON values)",
      BEFORE_DECODER,
    );
    if (wrongPipe) throw wrongPipe;
    const position = positionOf(record);
    const index = position?.eventIndex ?? this.count;
    this.count++;
    let event: UniEvent | typeof DONE | typeof SKIP;
    try {
      event = this.decode(record, position, index);
    } catch (e) {
      throw locate(e, this.client, position ?? { eventIndex: index, preview: arrived(record) });
    }
    if (event === DONE) {
      this.finished = true;
      return;
    }
    if (event === SKIP) return;
    if (position && (event as object) !== record) tagPosition(event, position);
    emit(event);
  }

  /** A record → its event (or `DONE` / `SKIP`); what fails here is located by `push`, once. */
  private decode(record: unknown, position: Position | undefined, index: number): UniEvent | typeof DONE | typeof SKIP {
    const format = position?.format ?? this.options.format ?? (looksLikeSseMessage(record) ? "sse" : "ndjson");
    if (format === "sse") {
      const data = isRecord(record) ? record.data : undefined;
      if (typeof data !== "string") throw new Fault("SCHEMA", "an SSE message must be an object with a string data");
      const unterminated = position?.unterminated ?? false;
      if (UniEventDecoder.isDone(data, unterminated)) return DONE;
      return this.decoder.value(
        recordValueAt(parseJson(data, index, unterminated), undefined, Infinity, index, unterminated),
        index,
        false,
      );
    }
    if (!isRecord(record)) throw new Fault("JSON", notAnObject(record));
    if (!position) boundDepth(record, this.decoder.maxDepth);
    return this.decoder.value(record, index);
  }

  end(): void {}
}

/**
 * Wire records → UniEvents: SSE messages (`{data}`, from `SseDecoderStream`) or JSON values (from
 * `NdjsonDecoderStream`). `[DONE]` ends the stream (and cancels its source), `{"error": E}` raises
 * `UpstreamError`, the base64 `data` of inline items becomes `Uint8Array`, and every event is checked
 * against the schema. The grammar across events is `MessageAssemblerStream`'s job.
 *
 * @example
 * ```ts
 * const events = body.pipeThrough(new SseDecoderStream()).pipeThrough(new UniEventDecoderStream());
 * ```
 */
export class UniEventDecoderStream extends CoreStream<unknown, UniEvent> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the stage. */
  constructor(options: UniEventDecoderOptions = {}) {
    checkOptions("UniEventDecoderStream", options, UNI_EVENT_DECODER_OPTIONS);
    super(new UniEventDecoderCore(options), options);
  }
}
