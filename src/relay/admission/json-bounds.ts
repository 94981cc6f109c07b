// Admission: SPEC §1 server side (a request body's bounds, scanned before it is parsed).
//
// What a request body may cost before JSON.parse sees it. A scan over the body's bytes as they
// stream in, one pass, constant memory, that stops at the first bound it passes: the nesting depth,
// the number of values, the length of one string (an inline image's base64 or data: URL is one
// string, the one large thing an ordinary request carries). `JSON.parse` builds nothing for a body
// refused here, so 7 MiB of `[]` or 20 MB of `[` cost a scan of their first bytes, not a parse.
//
// It bounds; it does not validate: structural characters are counted outside strings (all ASCII,
// so a byte scan of UTF-8 is exact), and `JSON.parse` still refuses what is not JSON.

/** The bounds of one request body (the relay's defaults: limits.ts). */
export interface JsonBounds {
  /** The deepest nesting of arrays and objects (the body itself counting 1). */
  depth: number;
  /** The most values inside the body: array elements and object members, however nested. */
  values: number;
  /** The longest string, in bytes of the body (escapes counted as written). */
  stringBytes: number;
}

/** Which bound a body passed, and at which byte. */
export interface JsonBoundPassed {
  bound: keyof JsonBounds;
  limit: number;
  offset: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const SPACE = 0x20;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const TAB = 0x09;

/** The incremental scan: `push` each chunk of the body; the first bound passed is kept (and returned). */
export class JsonBoundsScan {
  private depth = 0;
  private values = 0;
  private inString = false;
  private escaped = false;
  /** Just after `[` or `{`: the next byte that is not whitespace begins the first value (or closes). */
  private fresh = false;
  /** Bytes of the open string so far. */
  private stringBytes = 0;
  /** Bytes scanned before the current chunk. */
  private offset = 0;
  /** The first bound passed, once one is. */
  passed: JsonBoundPassed | null = null;

  constructor(private readonly bounds: JsonBounds) {}

  /** Scans one chunk; the bound it passes (and every later call returns it too), or null. */
  push(chunk: Uint8Array): JsonBoundPassed | null {
    if (this.passed) return this.passed;
    const { depth: maxDepth, values: maxValues, stringBytes: maxString } = this.bounds;
    let { depth, values, inString, escaped, stringBytes, fresh } = this;
    const n = chunk.length;
    // the next quote and backslash at or after i within this chunk (n: none), each found once per
    // chunk position: a run of ordinary string bytes (an image's base64) is skipped in one step, and
    // a string of escapes still costs one pass
    let quoteAt = -1;
    let slashAt = -1;
    for (let i = 0; i < n; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          if (++stringBytes > maxString) return this.pass("stringBytes", maxString, this.offset + i);
          continue;
        }
        if (quoteAt < i) quoteAt = nextOf(chunk, QUOTE, i);
        if (slashAt < i) slashAt = nextOf(chunk, BACKSLASH, i);
        const stop = Math.min(quoteAt, slashAt);
        if (stringBytes + (stop - i) > maxString) return this.pass("stringBytes", maxString, this.offset + i + (maxString - stringBytes));
        stringBytes += stop - i;
        if (stop === n) break;
        i = stop;
        if (stop === quoteAt) inString = false;
        else {
          escaped = true;
          if (++stringBytes > maxString) return this.pass("stringBytes", maxString, this.offset + i);
        }
        continue;
      }
      const b = chunk[i]!;
      if (b === SPACE || b === NEWLINE || b === RETURN || b === TAB) continue;
      if (fresh) {
        // the first byte inside a container: a value begins there, unless it closes at once
        fresh = false;
        if (b !== CLOSE_ARRAY && b !== CLOSE_OBJECT && ++values > maxValues) return this.pass("values", maxValues, this.offset + i);
      }
      if (b === QUOTE) {
        inString = true;
        stringBytes = 0;
      } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
        if (++depth > maxDepth) return this.pass("depth", maxDepth, this.offset + i);
        fresh = true;
      } else if (b === COMMA) {
        if (++values > maxValues) return this.pass("values", maxValues, this.offset + i);
      } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
        depth--;
      }
    }
    Object.assign(this, { depth, values, inString, escaped, stringBytes, fresh });
    this.offset += n;
    return null;
  }

  private pass(bound: keyof JsonBounds, limit: number, offset: number): JsonBoundPassed {
    return (this.passed = { bound, limit, offset });
  }
}

/** What a passed bound says to the client (a 400's message). */
export function boundMessage({ bound, limit, offset }: JsonBoundPassed): string {
  const what = bound === "depth"
    ? `nests arrays and objects deeper than ${limit} levels`
    : bound === "values"
    ? `holds more than ${limit} values (array elements and object members)`
    : `has a string longer than ${limit} bytes (an inline file's base64 or data: URL counts as one)`;
  return `The request body ${what}, at byte ${offset}: the relay does not read it.`;
}

/** The index of `byte` in `chunk` at or after `from`, or the chunk's length. */
function nextOf(chunk: Uint8Array, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at < 0 ? chunk.length : at;
}
