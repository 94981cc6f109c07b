/**
 * Where a record or event came from, carried from one stage to the next. The fused reader asks its
 * framer; chained stages cannot (each is its own stream), so the framing stages tag every record
 * they hand out, the decoding stage tags the event it makes from a record, and the grammar stage
 * looks its input up: errors found three stages down still name the event index and byte offset
 * of the input, exactly as the fused reader does. A WeakMap: nothing is added to the objects, and
 * a position lives no longer than its object.
 */

export interface Position {
  /** 0-based index of the record in the input. */
  eventIndex: number;
  /** Byte offset where the record begins, and just past its end. */
  byteOffset: number;
  byteEnd: number;
  /** 1-based line number (NDJSON). */
  line?: number;
  /** The body ended inside this record. */
  unterminated?: boolean;
  /** A short preview of the record's text as it arrived. */
  preview: string;
  /** What the record is: an SSE message or a parsed NDJSON line. */
  format: "sse" | "ndjson";
}

const positions = new WeakMap<object, Position>();

export function tagPosition(o: object, position: Position): void {
  positions.set(o, position);
}

export function positionOf(o: unknown): Position | undefined {
  return typeof o === "object" && o !== null ? positions.get(o) : undefined;
}
