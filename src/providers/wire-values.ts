/**
 * Reading a provider's JSON members beside wire.ts's: a string member, inline bytes, so that an absent
 * or ill-typed member reads as empty, never as `undefined` text.
 */
import { decodeBase64 } from "../decode/base64.js";
import { Fault } from "../internal/fault.js";

/** `v` when it is a string, else `""`. */
export const text = (v: unknown): string => (typeof v === "string" ? v : "");

/**
 * The bytes of a provider's base64 member (`what` names it in the error). Bytes already decoded while
 * the line arrived (the framer's capture of a long `"data"` string) are taken as they are.
 */
export function bytesOf(v: unknown, what: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  const bytes = typeof v === "string" ? decodeBase64(v) : undefined;
  if (bytes === undefined) throw new Fault("SCHEMA", `${what} is not padded base64`);
  return bytes;
}
