/**
 * A record's text → a JSON object, failures located: the parse the NDJSON stage and the decode step
 * share. Apart from `DecodeStep` so that a stage that only parses does not pull in the schemas.
 */
import { parseRecordAt } from "../decode/record.js";
import { failure } from "./located.js";
import type { Locator } from "./locator.js";

export function parseStep(
  text: string,
  captured: Uint8Array | undefined,
  loc: Locator,
  maxDepth: number,
  client: string,
  diagnosis?: () => { detail: string } | undefined,
): Record<string, unknown> {
  try {
    return parseRecordAt(text, captured, maxDepth, loc.index, loc.unterminated, diagnosis);
  } catch (e) {
    throw failure(e, client, loc);
  }
}
