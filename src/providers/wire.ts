/**
 * What every provider's reader says the same way: a record that is not the provider's JSON object,
 * an event out of the provider's own order, an error the provider sent inside its stream, and a body
 * that ended before the provider's own end. One wording for all (SPEC §6, §9).
 */
import { fromWireError, type UpstreamError } from "../errors.js";
import { Fault } from "../internal/fault.js";
import { isRecord, previewValue } from "../internal/values.js";
import { isTokenCount } from "../internal/usage.js";

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

/**
 * A token count the provider sent, for a usage map: `null` when absent; the number when it is a count
 * to keep (`isTokenCount`: whole, ≥ 0, within `MAX_TOKEN_COUNT`); `NaN` otherwise (`-1000000`, `1e300`,
 * `1.5`, `"12"`): arithmetic keeps it invalid, and the core writes every count that is no token count
 * as `null` with an `"invalid"` warning (core.ts), so a map never decides that on its own.
 */
export const count = (v: unknown): number | null => (v === undefined || v === null ? null : isTokenCount(v) ? v : NaN);

/**
 * A count less the part of it counted elsewhere (`prompt_tokens` − cached, output − reasoning): `null`
 * when `total` is; never below 0 — a part larger than its total (a hostile or muddled report) leaves 0,
 * so the part itself, bounded, is what counts and no count hands tokens back; `NaN` (invalid) when
 * either is.
 */
export const minus = (
  total: number | null,
  part: number | null,
): number | null => (total === null ? null : Math.max(0, total - (part ?? 0)));

/** A count of 0 as `null`, as MMSP writes these members (an invalid count stays invalid: not `|| null`). */
export const zeroNull = (n: number | null): number | null => (n === 0 ? null : n);
