/**
 * What every provider's reader says the same way: a record that is not the provider's JSON object,
 * an event out of the provider's own order, an error the provider sent inside its stream, and a body
 * that ended before the provider's own end. One wording for all (SPEC §6, §9).
 */
import { fromWireError, type UpstreamError } from "../errors.js";
import { Fault } from "../internal/fault.js";
import { isRecord, previewValue } from "../internal/values.js";

/** The record as the provider's event object, or the `JSON` fault (as the MMSP reader says it). */
export function eventObject(value: unknown): Record<string, unknown> {
  if (isRecord(value)) return value;
  throw new Fault("JSON", `an event must be a JSON object, not ${previewValue(value, 40)}`);
}

/** An event the provider's own order does not allow (a delta of a block that never began…): `SCHEMA`. */
export function outOfOrder(detail: string): Fault {
  return new Fault("SCHEMA", detail);
}

/** An error object the provider sent inside its stream → `UpstreamError` (its type, message, status when it gives one). */
export function streamedError(error: unknown, client: string): UpstreamError {
  return fromWireError(error, null, client);
}

/** The body ended before the provider's own end (`message_stop`, `[DONE]`…): truncated, and the open item gets no `.done`. */
export function truncated(end: string): Fault {
  return new Fault("STOP-LAST", `the body ended before ${end}: the stream was truncated`);
}

/** A number the provider sent, or null (a token count absent or not a number). */
export const count = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
