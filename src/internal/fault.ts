/**
 * A broken rule found by a core, before the stream shell knows where it happened. The shell turns
 * it into a `StreamProtocolError` carrying the event index, byte offset and preview.
 */
import { MmspError, StreamProtocolError } from "../errors.js";

export class Fault {
  constructor(
    readonly rule: string,
    readonly detail: string,
    /** Keep `detail` as the whole detail of the message (assemble mode's exact MMSP wording). */
    readonly exact = false,
    /** For `KIND`: the item type that is not known. */
    readonly itemType?: string,
  ) {}
}

export interface Where {
  /** 1-based line number, for line-based input (NDJSON); said in the message only. */
  line?: number;
  eventIndex?: number;
  byteOffset?: number;
  preview?: string;
}

/** Gives an error found by a core its place in the input. */
export function locate(error: unknown, client: string, { line, ...where }: Where): unknown {
  if (error instanceof Fault) {
    let detail = error.detail;
    if (!error.exact) {
      const at = [`rule ${error.rule}`];
      if (line !== undefined) at.push(`line ${line}`);
      if (where.eventIndex !== undefined) at.push(`event ${where.eventIndex}`);
      if (where.byteOffset !== undefined) at.push(`byte ${where.byteOffset}`);
      detail += ` (${at.join(", ")})`;
      if (where.preview !== undefined) detail += `: ${where.preview}`;
    }
    return new StreamProtocolError({ client, detail, rule: error.rule, ...where });
  }
  if (error instanceof MmspError) {
    if (error.eventIndex === undefined && where.eventIndex !== undefined) error.eventIndex = where.eventIndex;
    if (error.byteOffset === undefined && where.byteOffset !== undefined) error.byteOffset = where.byteOffset;
    if (error.preview === undefined && where.preview !== undefined) error.preview = where.preview;
  }
  return error;
}
