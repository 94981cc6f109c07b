/**
 * One record's text → a JSON object: the one place a record is parsed, for the NDJSON stage, the
 * decoding stage and the fused reader alike. Rule `JSON` for text that is not JSON or JSON that is
 * not an object; `maxDepth` bounds the nesting of the whole value (the event counting 1).
 */
import { restoreCaptured } from "../framing/base64-capture.js";
import { Fault } from "../internal/fault.js";
import { depthError, nestsDeeper } from "../internal/limits.js";
import { isRecord, notAnObject } from "../internal/values.js";
import { parseJsonText } from "../internal/json.js";

/**
 * What `parseJson` made of the record at `index` → the JSON object it must be. `unterminated`: the body
 * ended inside the record, so a value that is no object is a truncated stream (`STOP-LAST`); `diagnosis`:
 * what the body looks like, asked when the first record is no object (an HTML page, SSE read as NDJSON…).
 */
export function recordValueAt(
  value: unknown,
  captured: Uint8Array | undefined,
  maxDepth: number,
  index: number,
  unterminated: boolean,
  diagnosis?: () => { detail: string } | undefined,
): Record<string, unknown> {
  if (!isRecord(value)) throw notJson(notAnObject(value), index, unterminated, diagnosis);
  if (captured) restoreCaptured(value, captured);
  if (nestsDeeper(value, maxDepth)) throw depthError(maxDepth);
  return value;
}

/**
 * One JSON Lines line → the JSON value it holds, of any kind (`1`, `[1,2]`, `null` included): the
 * general-purpose NDJSON stage's parse. That an event is an object is the UniEvent decoder's rule.
 */
export function parseJsonLineAt(text: string, maxDepth: number, index: number, unterminated: boolean): unknown {
  const value = parseJson(text, index, unterminated);
  if (nestsDeeper(value, maxDepth)) throw depthError(maxDepth);
  return value;
}

/** `JSON.parse` of a record, its failure a fault (one try: this runs for every event); `recordValueAt` checks what it made. */
export function parseJson(text: string, index: number, unterminated: boolean, diagnosis?: () => { detail: string } | undefined): unknown {
  try {
    return parseJsonText(text);
  } catch (e) {
    throw notJson(`the event is not valid JSON (${(e as Error).message})`, index, unterminated, diagnosis);
  }
}

/** The fault of a record that is not a JSON object (cold path). */
function notJson(detail: string, index: number, unterminated: boolean, diagnosis?: () => { detail: string } | undefined): Fault {
  if (unterminated) return new Fault("STOP-LAST", `the body ended inside event ${index}: the stream was truncated`);
  const d = index === 0 ? diagnosis?.() : undefined;
  // the first record told what the body is instead (an HTML page, a JSON document…): no stream at all
  return d ? new Fault("NOT-A-STREAM", `${detail}: ${d.detail}`) : new Fault("JSON", detail);
}
