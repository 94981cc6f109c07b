/**
 * A broken rule found by a core, before it knows where it happened. The core that catches it turns
 * it into a `StreamProtocolError` carrying the event index, byte offset and preview (`locate`).
 */
import { MmspError, StreamProtocolError } from "../errors.js";
import type { Position } from "../read/position.js";

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

/** Gives an error found by a core its place in the input (a `Fault` becomes a `StreamProtocolError`). */
export function locate(error: unknown, client: string, { eventIndex, byteOffset, line, preview }: Position): unknown {
  if (error instanceof Fault) {
    let detail = error.detail;
    if (!error.exact) {
      const at = [`rule ${error.rule}`];
      if (line !== undefined) at.push(`line ${line}`);
      at.push(`event ${eventIndex}`);
      if (byteOffset !== undefined) at.push(`byte ${byteOffset}`);
      detail += ` (${at.join(", ")}): ${preview}`;
    }
    return new StreamProtocolError({ client, detail, rule: error.rule, eventIndex, byteOffset, preview });
  }
  if (error instanceof MmspError) {
    if (error.eventIndex === undefined) error.eventIndex = eventIndex;
    if (error.byteOffset === undefined && byteOffset !== undefined) error.byteOffset = byteOffset;
    if (error.preview === undefined) error.preview = preview;
  }
  return error;
}
