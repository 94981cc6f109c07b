/**
 * One record's text → a JSON object: the one place a record is parsed, for the NDJSON stage, the
 * decoding stage and the fused reader alike. Rule `JSON` for text that is not JSON or JSON that is
 * not an object; `maxDepth` bounds the nesting of the whole value (the event counting 1).
 */
import { restoreCaptured } from "../framing/base64-capture.js";
import { Fault } from "../internal/fault.js";
import { limitError, nestsDeeper } from "../internal/limits.js";
import { isRecord, previewValue } from "../internal/values.js";

export function parseRecord(text: string, captured: Uint8Array | undefined, maxDepth: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Fault("JSON", `the event is not valid JSON (${(e as Error).message})`);
  }
  if (!isRecord(value)) throw new Fault("JSON", `an event must be a JSON object, not ${previewValue(value, 40)}`);
  if (captured) restoreCaptured(value, captured);
  if (nestsDeeper(value, maxDepth)) throw limitError("maxDepth", maxDepth, "the nesting of the event");
  return value;
}

/**
 * `parseRecord` for the record at `index`. `unterminated`: the body ended inside it, so text that
 * does not parse is a truncated stream (`STOP-LAST`), not bad JSON. `diagnosis`: what the body looks
 * like, asked when the first record does not parse (an HTML page, SSE read as NDJSON…).
 */
export function parseRecordAt(
  text: string,
  captured: Uint8Array | undefined,
  maxDepth: number,
  index: number,
  unterminated: boolean,
  diagnosis?: () => { detail: string } | undefined,
): Record<string, unknown> {
  try {
    return parseRecord(text, captured, maxDepth);
  } catch (e) {
    if (!(e instanceof Fault) || e.rule !== "JSON") throw e;
    if (unterminated) throw new Fault("STOP-LAST", `the body ended inside event ${index}: the stream was truncated`);
    const d = index === 0 ? diagnosis?.() : undefined;
    if (d) throw new Fault("JSON", `${e.detail}: ${d.detail}`);
    throw e;
  }
}
