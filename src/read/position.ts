/**
 * Where a record or event sits in the input: the one description every error is located by
 * (fault.ts `locate`), the fused reader's and the chained stages' alike, so their errors agree. The
 * fused reader's framer builds one only when asked (a failure; the last event, at the end); chained
 * stages cannot ask it (each is its own stream), so the framing stages tag every record they hand out,
 * the decoding stage tags the event it makes from a record, and the grammar stage looks its input up.
 * A WeakMap: nothing is added to the objects, and a position lives no longer than its object.
 */
import { PREVIEW_CHARS, previewText } from "../internal/values.js";
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

/** A `"data"` member's base64 string too long for a preview (the capture's placeholder is one too). */
const LONG_DATA = /("data"\s*:\s*")([A-Za-z0-9+/]*={0,2})(?=")/g;

/** `<N bytes of base64>`: how a preview shows the bytes of a long base64 string. */
const bytesOfBase64 = (n: number): string => `<${n} bytes of base64>`;

/**
 * The preview of a record's text, the one wording of every path: a `"data"` string of base64 longer
 * than a preview shows as its size, `"data":"<1800000 bytes of base64>"`, whether the fused reader
 * captured it while it arrived (its placeholder) or a stage read it as text.
 */
export function recordPreview(text: string, captured?: Uint8Array): string {
  const shown = captured ? text.replace(BYTES_SENTINEL_JSON, bytesOfBase64(captured.length)) : text;
  if (shown.length <= PREVIEW_CHARS) return shown;
  return previewText(shown.replace(LONG_DATA, (all, member: string, b64: string) => {
    if (b64.length <= PREVIEW_CHARS || b64.length % 4 !== 0) return all;
    const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
    return member + bytesOfBase64(Math.floor((b64.length * 3) / 4) - pad);
  }));
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
