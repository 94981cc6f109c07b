/** Where the record being read sits: the framer itself in the fused reader, a tagged position in the stages. */
import type { Where } from "./located.js";

export interface Locator {
  readonly index: number;
  recordStart(): number | undefined;
  readonly line: number | undefined;
  readonly unterminated: boolean;
  /** A short preview of the record's text as it arrived (computed only when asked). */
  preview(): string;
  /** Remembers this record as the last event, for the grammar's end (cheaply: counted only if asked). */
  keepEnd(): void;
}

export function whereOf(loc: Locator): Where {
  const where: Where = { eventIndex: loc.index };
  const byteOffset = loc.recordStart();
  if (byteOffset !== undefined) where.byteOffset = byteOffset;
  if (loc.line !== undefined) where.line = loc.line;
  return where;
}
