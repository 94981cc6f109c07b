/**
 * Where a record or event sits in the input: the one description every error is located by
 * (fault.ts `locate`), the fused reader's and the chained stages' alike, so their errors agree. The
 * fused reader's framer builds one only when asked (a failure; the last event, at the end); chained
 * stages cannot ask it (each is its own stream), so the framing stages tag every record they hand out,
 * the decoding stage tags the event it makes from a record, and the grammar stage looks its input up.
 * A WeakMap: nothing is added to the objects, and a position lives no longer than its object.
 */
import { previewText } from "../internal/values.js";
import { BYTES_SENTINEL_JSON } from "../framing/captured.js";

export interface Position {
  /** 0-based index of the record among the input's records. */
  eventIndex: number;
  /** Byte offset where the record begins, and just past its end (unknown for an event from your own source). */
  byteOffset?: number;
  byteEnd?: number;
  /** 1-based line number (NDJSON); said in the message only. */
  line?: number;
  /** The body ended inside this record. */
  unterminated?: boolean;
  /** A short preview of the record's text as it arrived. */
  preview: string;
  /** What the record is: an SSE message or a parsed NDJSON line (for a record a framer handed out). */
  format?: "sse" | "ndjson";
}

/** The preview of a record's text: a captured string shows as its size, not as its placeholder. */
export function recordPreview(text: string, captured?: Uint8Array): string {
  return previewText(captured ? text.replace(BYTES_SENTINEL_JSON, `<${captured.length} bytes of base64>`) : text);
}

/** Where the input ended (or reached `[DONE]`): just past the last event (`undefined`: none came). */
export function endOf(last: Position | undefined): Position {
  if (last === undefined) return { eventIndex: 0, byteOffset: 0, preview: "<no event>" };
  return { eventIndex: last.eventIndex + 1, byteOffset: last.byteEnd, preview: `<end of input after> ${last.preview}` };
}

const positions = new WeakMap<object, Position>();

export function tagPosition(o: object, position: Position): void {
  positions.set(o, position);
}

export function positionOf(o: unknown): Position | undefined {
  return typeof o === "object" && o !== null ? positions.get(o) : undefined;
}
