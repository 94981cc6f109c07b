/**
 * The one way every part's failure becomes the error a caller sees: located at the event index and
 * byte offset of its record, with a preview of the text that actually arrived (the record's own
 * text, a captured base64 string shown by its size), or, for an input that ended too early, of the
 * last event. The fused reader and the chained stages both call these, so their errors agree.
 */
import { locate } from "../internal/fault.js";
import { previewText } from "../internal/values.js";
import { BYTES_SENTINEL_JSON } from "../framing/captured.js";
import { type Locator, whereOf } from "./locator.js";

export interface Where {
  eventIndex: number;
  byteOffset?: number;
  line?: number;
}

/** The preview of a record's text: a captured string shows as its size, not as its placeholder. */
export function recordPreview(text: string, captured?: Uint8Array): string {
  return previewText(captured ? text.replace(BYTES_SENTINEL_JSON, `<${captured.length} bytes of base64>`) : text);
}

/** A failure of the record `loc` points at. */
export function failure(e: unknown, client: string, loc: Locator): unknown {
  return locate(e, client, { ...whereOf(loc), preview: loc.preview() });
}

/** What the grammar's end needs of the last event: where it was and what it looked like. */
export interface LastEvent {
  index: number;
  byteEnd: number | undefined;
  preview: string | undefined;
}

/** The input ended (or reached `[DONE]`) and the grammar refused to end there. */
export function endFailure(e: unknown, client: string, last: LastEvent | undefined): unknown {
  if (last === undefined) return locate(e, client, { eventIndex: 0, byteOffset: 0, preview: "<no event>" });
  const where: Where = { eventIndex: last.index + 1 };
  if (last.byteEnd !== undefined) where.byteOffset = last.byteEnd;
  return locate(e, client, { ...where, preview: `<end of input after> ${last.preview ?? ""}` });
}
