/**
 * The one way every part's failure becomes the error a caller sees: located at the event index and
 * byte offset of the record, with a preview chosen by what failed — the text for a record that did
 * not parse, the value for one that parsed but broke a rule, the last event for an input that
 * ended too early. The fused reader and the chained stages both call these, so their errors agree.
 */
import { locate } from "../internal/fault.js";
import { previewText, previewValue } from "../internal/values.js";
import { BYTES_SENTINEL_JSON } from "../framing/base64-capture.js";
import type { UniEvent } from "../schema.js";

export interface Where {
  eventIndex: number;
  byteOffset?: number;
  line?: number;
}

/** A record whose text did not parse (or a limit hit while reading it). */
export function textFailure(e: unknown, client: string, where: Where, text: string, captured?: Uint8Array): unknown {
  // A captured string shows as its size, not as the placeholder that stands in the text.
  const shown = captured ? text.replace(BYTES_SENTINEL_JSON, `<${captured.length} bytes of base64>`) : text;
  return locate(e, client, { ...where, preview: previewText(shown) });
}

/** A parsed record or an event that broke a rule. */
export function valueFailure(e: unknown, client: string, where: Where, value: unknown): unknown {
  return locate(e, client, { ...where, preview: previewValue(value) });
}

/** The input ended (or reached `[DONE]`) and the grammar refused to end there. */
export function endFailure(e: unknown, client: string, last: { event: UniEvent | undefined; index: number; byteEnd: number | undefined }): unknown {
  const preview = last.event === undefined ? "<no event>" : `<end of input after> ${previewValue(last.event)}`;
  const where: Where = { eventIndex: last.index + 1 };
  if (last.byteEnd !== undefined) where.byteOffset = last.byteEnd;
  return locate(e, client, { ...where, preview });
}
