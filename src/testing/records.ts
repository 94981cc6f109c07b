/**
 * Where the events of a captured body end: the byte offsets a replay cuts, paces and resumes at.
 * SSE: a record ends with its blank line (LF, CRLF or a lone CR end a line) and is an event when it
 * dispatches a message (the package's `SseParser` decides; comments and id-only records are not),
 * `[DONE]` apart; NDJSON: every line that is not blank. A last record without its end counts too.
 * CR and LF are never part of a multi-byte UTF-8 character, so the scan reads bytes, not text.
 */
import { SseParser } from "../framing/sse-parser.js";

const LF = 10;
const CR = 13;

/** The events of a body: where each begins and ends, and where the `[DONE]` record begins (SSE), if any. */
export interface BodyEvents {
  /** Byte offsets of each event's first byte and of the byte after its record (its blank line included). */
  readonly starts: number[];
  readonly ends: number[];
  /** The offset where `data: [DONE]`'s record begins, or -1. */
  readonly done: number;
}

/** The events of `body` framed as `format`. */
export function bodyEvents(body: Uint8Array, format: "sse" | "ndjson"): BodyEvents {
  const starts: number[] = [];
  const ends: number[] = [];
  let done = -1;
  // (a BOM is kept, then dropped from the first line only: elsewhere it is text, as the reader takes it)
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const parser = new SseParser();
  let recordStart = 0;
  let lineStart = 0;
  const endRecord = (end: number): void => {
    if (format === "ndjson") {
      if (!/^[ \t\r]*$/.test(decoder.decode(body.subarray(recordStart, end)))) starts.push(recordStart), ends.push(end);
    } else {
      const message = parser.dispatch();
      if (message?.data === "[DONE]") done = done === -1 ? recordStart : done;
      else if (message) starts.push(recordStart), ends.push(end);
    }
    recordStart = end;
  };
  for (let i = 0; i <= body.length; i++) {
    const b = body[i];
    const atEnd = i === body.length;
    if (!atEnd && b !== LF && (b !== CR || format === "ndjson")) continue;
    // a line [lineStart, i) ends here; its terminator is 1 byte, or 2 for CRLF
    const next = atEnd ? i : b === CR && body[i + 1] === LF ? i + 2 : i + 1;
    if (format === "ndjson") {
      if (i > recordStart || !atEnd) endRecord(next);
    } else if (i === lineStart) {
      if (!atEnd) endRecord(next); // a blank line ends the record
    } else {
      const text = decoder.decode(body.subarray(lineStart, i));
      const line = lineStart === 0 && text.startsWith("\uFEFF") ? text.slice(1) : text;
      if (!line.startsWith(":")) parser.field(line);
      if (atEnd) endRecord(next); // the body ends inside a record: it counts as it stands
    }
    if (atEnd) break;
    lineStart = next;
    i = next - 1;
  }
  return { starts, ends, done };
}
