/**
 * Records → UniEvents, the one decoder of both paths: `[DONE]` ends an SSE stream, `{"error": E}`
 * raises `UpstreamError`, everything else, once parsed (`parseJson` and `recordValueAt`, record.ts), is checked (`checkEvent`) as a
 * public event (validate mode) or as assemble mode's input (SPEC §5). The mode is chosen once.
 */
import { fromWireError } from "../errors.js";
import { diagnosisText, foreignEventHint } from "../diagnose.js";
import { Fault } from "../internal/fault.js";
import { boundDepth } from "../internal/limits.js";
import { isJsonDocumentType, mediaType } from "../internal/media-type.js";

import type { UniEvent } from "../schema.js";
import { checkEvent } from "./validate.js";

/** The end marker of an SSE stream. */
export const DONE: unique symbol = Symbol("[DONE]");
/** A record dropped on purpose (an item of a kind this version does not know, with `unknownItems: "skip"`). */
export const SKIP: unique symbol = Symbol("skip");

/** Something the reader let pass but a caller may want to know about (given to `onWarning`). */
export interface ReaderWarning {
  /** What it was: an item of a kind this version does not know, skipped (`unknownItems: "skip"`). */
  type: "unknown-item";
  /** The item's type, e.g. `"audio.delta"`. */
  itemType: string;
  /** 0-based index of the event that carried it. */
  eventIndex: number;
  /** A sentence saying what was skipped and where. */
  message: string;
}

export interface DecoderSettings {
  client: string;
  maxDepth: number;
  mode: "validate" | "assemble";
  unknownItems: "error" | "skip";
  onWarning: ((warning: ReaderWarning) => void) | undefined;
  /** The response's Content-Type, when the reader knows it (fromResponse). */
  contentType?: string | null | undefined;
  /** The response's status, when the records are JSON lines (a first `{"error": …}` is the answer's refusal). */
  status?: number | undefined;
}

/** A type shaped like a future kind's item (`<kind>.delta` or `<kind>.done`, a kind no version names). */
const isFutureItem = (type: string): boolean => /^[a-z][a-z0-9_]*\.(delta|done)$/.test(type) && !/^(image_url|tool_result)\./.test(type);

export class UniEventDecoder {
  private readonly check: (value: Record<string, unknown>, maxDepth: number) => UniEvent;
  readonly maxDepth: number;

  constructor(private readonly settings: DecoderSettings) {
    this.maxDepth = settings.maxDepth;
    this.check = settings.mode === "assemble"
      ? (v, maxDepth) => checkEvent(v, true, "assemble", maxDepth)
      : (v, maxDepth) => checkEvent(v, true, "validate", maxDepth);
  }

  /**
   * The error a `{"error": …}` record raises, once its nesting is bounded (cold path). The first
   * record of a JSON body is the answer itself, a refusal sent with a 2xx: it keeps the status
   * (SPEC §6), where an error later in a stream has none of its own.
   */
  private wireError(value: Record<string, unknown>, maxDepth: number, index: number): Error {
    boundDepth(value, maxDepth);
    return fromWireError(value, index === 0 ? this.settings.status ?? null : null, this.settings.client);
  }

  /** Whether an SSE message's data is the end marker (a cut inside the final one counts, see framer.ts). */
  static isDone(data: string, unterminated: boolean): boolean {
    return data === "[DONE]" || (unterminated && data.length < 6 && "[DONE]".startsWith(data));
  }

  /**
   * A parsed record. `bounded`: its nesting was checked already (else it is checked here, before any
   * other rule, where the schema has bounded most of it).
   */
  value(value: Record<string, unknown>, index: number, bounded = true): UniEvent | typeof SKIP {
    const maxDepth = bounded ? Infinity : this.maxDepth;
    if (value.error !== undefined && value.error !== null) throw this.wireError(value, maxDepth, index);
    try {
      return this.check(value, maxDepth);
    } catch (e) {
      if (this.settings.unknownItems === "skip" && e instanceof Fault && e.itemType !== undefined && isFutureItem(e.itemType)) {
        const message = `skipped an item of unknown kind ${JSON.stringify(e.itemType)} (event ${index})`;
        this.settings.onWarning?.({ type: "unknown-item", itemType: e.itemType, eventIndex: index, message });
        return SKIP;
      }
      // An event of another protocol (the wrong endpoint): say so, not only which member is off.
      // (told of the first event, before any was read, the body is no MMSP stream at all: NOT-A-STREAM)
      if (e instanceof Fault) {
        const foreign = foreignEventHint(value);
        if (foreign) throw new Fault(index === 0 ? "NOT-A-STREAM" : e.rule, `${e.detail}: ${diagnosisText(foreign)}`, e.exact, e.itemType);
        // A JSON answer read as a one-line stream: it is a document, not events.
        const type = this.settings.contentType;
        if (index === 0 && isJsonDocumentType(mediaType(type))) {
          throw new Fault(
            "NOT-A-STREAM",
            `${e.detail}: the body is a JSON document (Content-Type: ${type}), not an event stream; check the URL and the request: an MMSP server streams from POST …/v1/stream`,
            e.exact,
            e.itemType,
          );
        }
      }
      throw e;
    }
  }
}
