/**
 * Wire records → UniEvents: `[DONE]` ends an SSE stream, `{"error": E}` raises `UpstreamError`,
 * everything else is parsed and checked (`checkEvent`).
 */
import { fromWireError } from "../errors.js";
import { restoreCaptured } from "../framing/base64-capture.js";
import type { StreamCore } from "../internal/core.js";
import { checkItemDepth, resolveLimits, type LimitOptions } from "../internal/limits.js";
import { CoreStream, type CoreStreamOptions } from "../internal/core-stream.js";
import { Fault, locate } from "../internal/fault.js";
import { isRecord, previewText, previewValue } from "../internal/values.js";
import type { UniEvent } from "../schema.js";
import { checkEvent } from "./validate.js";

/** The end marker of an SSE stream. */
export const DONE: unique symbol = Symbol("[DONE]");

export class UniEventDecoder {
  constructor(
    private readonly client: string,
    private readonly maxDepth = Infinity,
  ) {}

  /**
   * Decodes the text of one record: an SSE message's data (`sse`) or an NDJSON line. `bytes` were
   * captured from the text as it arrived; the sentinel in their place is replaced by them.
   */
  decodeText(text: string, sse: boolean, bytes?: Uint8Array): UniEvent | typeof DONE {
    if (sse && text === "[DONE]") return DONE;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new Fault("JSON", `the event is not valid JSON (${(e as Error).message})`);
    }
    if (bytes) restoreCaptured(value, bytes);
    return this.decodeValue(value);
  }

  /** Decodes one parsed record. */
  decodeValue(value: unknown): UniEvent {
    if (isRecord(value) && value.error !== undefined && value.error !== null) {
      throw fromWireError(value, null, this.client);
    }
    const event = checkEvent(value, true);
    for (const item of event.content_items as Record<string, unknown>[]) checkItemDepth(item, this.maxDepth);
    return event;
  }
}

export interface UniEventDecoderOptions extends CoreStreamOptions, Pick<LimitOptions, "maxDepth"> {
  /**
   * What the records are: SSE messages `{data}` (`"sse"`) or parsed JSON values (`"ndjson"`).
   * By default each record is taken for an SSE message when it is an object whose only members
   * are a string `data` and optional `event` / `id`.
   */
  format?: "sse" | "ndjson";
  /** Names the reader in error messages and in `UpstreamError.client`; default `"mmsp-streams"`. */
  client?: string;
}

const SSE_KEYS = new Set(["data", "event", "id"]);

function looksLikeSseMessage(r: unknown): r is { data: string } {
  if (!isRecord(r) || typeof r.data !== "string") return false;
  for (const k in r) if (!SSE_KEYS.has(k)) return false;
  return true;
}

/** The decoding stage as a synchronous core: wire records in, UniEvents out. */
export class UniEventDecoderCore implements StreamCore<unknown, UniEvent> {
  private readonly decoder: UniEventDecoder;
  private readonly client: string;
  private index = 0;
  finished = false;

  constructor(private readonly options: UniEventDecoderOptions = {}) {
    this.client = options.client ?? "mmsp-streams";
    this.decoder = new UniEventDecoder(this.client, resolveLimits(options).maxDepth);
  }

  push(record: unknown, emit: (event: UniEvent) => void): void {
    if (this.finished) return;
    const index = this.index++;
    const sse = this.options.format === "sse" || (this.options.format === undefined && looksLikeSseMessage(record));
    try {
      const event = sse ? this.decoder.decodeText((record as { data: string }).data, true) : this.decoder.decodeValue(record);
      if (event === DONE) this.finished = true;
      else emit(event);
    } catch (e) {
      const preview = sse ? previewText(String((record as { data: unknown }).data)) : previewValue(record);
      throw locate(e, this.client, { eventIndex: index, preview });
    }
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
  constructor(options: UniEventDecoderOptions = {}) {
    super(new UniEventDecoderCore(options), options);
  }
}
