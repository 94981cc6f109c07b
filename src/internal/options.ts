/**
 * Argument checking at the boundary (issue #12): every option of every exported stream and function
 * is checked when it is constructed, so `format: "NDJSON"`, `mode: "assembly"` or a typo such as
 * `unknownItem` fail at once with a message naming the option, instead of turning into a
 * misleading protocol error later. A wrong type is a `TypeError`, a wrong value a `RangeError`.
 */
import { describeValue, fail } from "./describe.js";

export { describeValue, fail };

/** Checks one option's value; `label` names it (`UniEventStream: options.format`). Throws. */
export type Checker = (value: unknown, label: string) => void;

/** The options an export takes, each with its checker. */
export type OptionSpec = Readonly<Record<string, Checker>>;

/** setTimeout's largest delay (a larger one fires at once in every runtime). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The edit distance of two short strings (for "did you mean"). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** The known name `given` most likely meant: same letters in another case, an alias, or a near typo. */
export function nearMiss(given: string, known: readonly string[], aliases: Readonly<Record<string, string>> = {}): string | undefined {
  const lower = given.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase) return sameCase;
  const alias = Object.prototype.hasOwnProperty.call(aliases, lower) ? aliases[lower] : undefined;
  if (alias !== undefined && known.includes(alias)) return alias;
  if (lower.length < 3) return undefined;
  let best: string | undefined;
  let bestDistance = 3; // at most two edits away
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (d < bestDistance) (best = k), (bestDistance = d);
  }
  return best;
}

const didYouMean = (guess: string | undefined): string => (guess === undefined ? "" : ` (did you mean ${JSON.stringify(guess)}?)`);

// ---- checkers -----------------------------------------------------------------------------------

/** One of some strings; `aliases` maps other names people use (lower-cased) to the right one. */
export function oneOf(values: readonly string[], aliases: Readonly<Record<string, string>> = {}): Checker {
  const expected = `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`;
  return (value, label) => {
    if (typeof value !== "string") fail(TypeError, label, expected, value);
    if (!values.includes(value as string)) fail(RangeError, label, expected, value, didYouMean(nearMiss(value as string, values, aliases)));
  };
}

/** A number above 0; `Infinity` allowed unless `finite`, at most `max`. */
export function positiveNumber({ finite = false, max = Infinity }: { finite?: boolean; max?: number } = {}): Checker {
  const expected = `a positive number${finite ? "" : " (or Infinity)"}${max < Infinity ? ` up to ${max}` : ""}`;
  return (value, label) => {
    if (typeof value !== "number") fail(TypeError, label, expected, value);
    const n = value as number;
    if (!(n > 0) || (finite && !Number.isFinite(n)) || n > max) fail(RangeError, label, expected, value);
  };
}

/** A whole number above 0, or `Infinity` (no limit). */
export function positiveLimit(): Checker {
  const expected = "a positive integer (or Infinity for no limit)";
  return (value, label) => {
    if (typeof value !== "number") fail(TypeError, label, expected, value);
    const n = value as number;
    if (!(n > 0) || (!Number.isInteger(n) && n !== Infinity)) fail(RangeError, label, expected, value);
  };
}

/** A whole number, 0 or more, at most `max`. */
export function nonNegativeInteger({ max = Number.MAX_SAFE_INTEGER }: { max?: number } = {}): Checker {
  const expected = `an integer from 0 to ${max}`;
  return (value, label) => {
    if (typeof value !== "number") fail(TypeError, label, expected, value);
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max) fail(RangeError, label, expected, value);
  };
}

/** A string; not empty unless `allowEmpty`. */
export function string({ allowEmpty = false }: { allowEmpty?: boolean } = {}): Checker {
  const expected = allowEmpty ? "a string" : "a non-empty string";
  return (value, label) => {
    if (typeof value !== "string") fail(TypeError, label, expected, value);
    if (!allowEmpty && value === "") fail(RangeError, label, expected, value);
  };
}

/** A string or null (a header's value as `headers.get` gives it). */
export function stringOrNull(): Checker {
  return (value, label) => {
    if (value !== null && typeof value !== "string") fail(TypeError, label, "a string or null", value);
  };
}

export function boolean(): Checker {
  return (value, label) => {
    if (typeof value !== "boolean") fail(TypeError, label, "true or false", value);
  };
}

export function func(): Checker {
  return (value, label) => {
    if (typeof value !== "function") fail(TypeError, label, "a function", value);
  };
}

/** A plain object (not null, not an array). */
export function object(): Checker {
  return (value, label) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail(TypeError, label, "an object", value);
  };
}

/** An `AbortSignal` (an `AbortController` is a common slip: its `.signal` is meant). */
export function abortSignal(): Checker {
  return (value, label) => {
    if (isAbortSignal(value)) return;
    const controller = typeof AbortController !== "undefined" && value instanceof AbortController;
    fail(TypeError, label, "an AbortSignal", value, controller ? " (pass controller.signal, not the controller)" : "");
  };
}

function isAbortSignal(value: unknown): boolean {
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return true;
  // another realm's signal (an iframe, a vm context): by shape
  const v = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown } | null;
  return typeof v === "object" && v !== null && typeof v.aborted === "boolean" && typeof v.addEventListener === "function" && typeof v.removeEventListener === "function";
}

/** `false`, or an object whose members pass their own checkers (`fromFetch`'s `reconnect`). */
export function falseOr(spec: OptionSpec): Checker {
  return (value, label) => {
    if (value === false) return;
    if (typeof value !== "object" || value === null || Array.isArray(value)) fail(TypeError, label, `false or an object { ${Object.keys(spec).join(", ")} }`, value);
    checkOptions(label, value, spec, label);
  };
}

// ---- options ------------------------------------------------------------------------------------

/**
 * Checks an options argument against its spec: undefined is no options; anything but an object is
 * a `TypeError`; each known option (when not undefined) goes through its checker; an unknown key
 * is a `TypeError` naming the nearest known one and listing them all (a key set to undefined is
 * let pass: spreading `{ ...options, format: undefined }` is common and harmless).
 *
 * @param name the export, e.g. `UniEventStream`, shown first in messages
 */
export function checkOptions(name: string, options: unknown, spec: OptionSpec, base = `${name}: options`): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options))
    fail(TypeError, base, "an object (or left out)", options);
  if (isAbortSignal(options)) fail(TypeError, base, "an object (or left out)", options, " (pass { signal })");
  const known = Object.keys(spec);
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (value === undefined) continue;
    const check = Object.prototype.hasOwnProperty.call(spec, key) ? spec[key] : undefined;
    if (check) {
      check(value, `${base}.${key}`);
      continue;
    }
    const list = known.length > 0 ? `the options are ${known.join(", ")}` : `${name} takes no options`;
    throw new TypeError(`${name}: unknown option ${JSON.stringify(key)}${didYouMean(nearMiss(key, known))}; ${list}`);
  }
}

/** For `fromResponse(response)`: anything but a Response says what it was and what to pass. */
export function checkResponse(value: unknown, name = "fromResponse"): asserts value is Response {
  const v = value as { status?: unknown; ok?: unknown; headers?: { get?: unknown }; bodyUsed?: unknown; body?: { locked?: unknown } | null } | null;
  // a Response of another realm or fetch implementation: by shape
  const isResponse = (typeof Response !== "undefined" && value instanceof Response) ||
    (typeof v === "object" && v !== null && typeof v.status === "number" && typeof v.ok === "boolean" && typeof v.headers?.get === "function" && "body" in v);
  if (isResponse) {
    // a body read before (await response.text(), a second fromResponse) cannot be read again
    if (v!.bodyUsed === true || v!.body?.locked === true)
      throw new TypeError(`${name}: the response's body was already read or is being read (${v!.bodyUsed === true ? "response.bodyUsed" : "response.body.locked"}); a body is read once: pass the response to ${name} before anything else reads it, or pass response.clone() to read it twice`);
    return;
  }
  const isStream = typeof ReadableStream !== "undefined" && value instanceof ReadableStream;
  const hint = isStream
    ? ": pass the Response itself (fromResponse(response)), or pipe a body stream through new UniEventStream()"
    : value instanceof Promise
      ? ": await the fetch first (fromResponse(await fetch(url)))"
      : "";
  fail(TypeError, `${name}: the response`, "a Response (what fetch resolves to)", value, hint);
}

// ---- the specs of the exports -------------------------------------------------------------------

const FORMAT_ALIASES = {
  jsonl: "ndjson",
  jsonlines: "ndjson",
  "json-lines": "ndjson",
  json: "ndjson",
  "x-ndjson": "ndjson",
  "application/x-ndjson": "ndjson",
  "application/jsonl": "ndjson",
  "text/event-stream": "sse",
  "event-stream": "sse",
  eventsource: "sse",
  "server-sent-events": "sse",
  detect: "auto",
};
const MODE_ALIASES = { assembly: "assemble", assembler: "assemble", build: "assemble", validation: "validate", check: "validate", strict: "validate" };
const UNKNOWN_ITEMS_ALIASES = { ignore: "skip", drop: "skip", throw: "error", fail: "error", reject: "error" };

// Each export's spec is its own constant, built from pure calls without spreads, so that a bundle
// keeps only the specs (and checkers) of the exports it uses.
const signal = /*#__PURE__*/ abortSignal();
const idleTimeoutMs = /*#__PURE__*/ positiveNumber({ finite: true, max: MAX_TIMER_MS });
const client = /*#__PURE__*/ string();
const mode = /*#__PURE__*/ oneOf(["validate", "assemble"], MODE_ALIASES);
const limit = /*#__PURE__*/ positiveLimit();
const readerFormat = /*#__PURE__*/ oneOf(["sse", "ndjson", "auto"], FORMAT_ALIASES);
const unknownItems = /*#__PURE__*/ oneOf(["error", "skip"], UNKNOWN_ITEMS_ALIASES);
const onWarning = /*#__PURE__*/ func();
/** `mmsp: true` moved to its own class (0.2); `false`, the default, still passes. */
const mmsp = (name: string): Checker => (value, label) => {
  if (typeof value !== "boolean") fail(TypeError, label, "true or false", value);
  if (value) fail(RangeError, label, `false (the MMSP reader's framing is ${name} now)`, value);
};

/** `UniEventStream`, `UniEventBatchStream`, `fromResponse`. */
export const READER_OPTIONS: OptionSpec = {
  format: readerFormat, client, mode, unknownItems, onWarning,
  maxEventBytes: limit, maxDepth: limit, maxItems: limit, signal, idleTimeoutMs,
};
export const SSE_DECODER_OPTIONS: OptionSpec = { client, mmsp: /*#__PURE__*/ mmsp("MmspSseDecoderStream"), maxEventBytes: limit, signal, idleTimeoutMs };
export const NDJSON_DECODER_OPTIONS: OptionSpec = { client, mmsp: /*#__PURE__*/ mmsp("MmspNdjsonDecoderStream"), maxEventBytes: limit, maxDepth: limit, signal, idleTimeoutMs };
export const MMSP_SSE_DECODER_OPTIONS: OptionSpec = { client, maxEventBytes: limit, signal, idleTimeoutMs };
export const MMSP_NDJSON_DECODER_OPTIONS: OptionSpec = { client, maxEventBytes: limit, maxDepth: limit, signal, idleTimeoutMs };
export const UNI_EVENT_DECODER_OPTIONS: OptionSpec = {
  format: /*#__PURE__*/ oneOf(["sse", "ndjson"], FORMAT_ALIASES),
  client, mode, unknownItems, onWarning, maxDepth: limit, signal, idleTimeoutMs,
};
export const MESSAGE_ASSEMBLER_OPTIONS: OptionSpec = { client, mode, maxItems: limit, maxDepth: limit, signal, idleTimeoutMs };
export const FROM_FETCH_OPTIONS: OptionSpec = {
  format: readerFormat, client, maxEventBytes: limit, maxDepth: limit, maxItems: limit, signal, idleTimeoutMs,
  fetch: /*#__PURE__*/ func(),
  reconnect: /*#__PURE__*/ falseOr({ retries: /*#__PURE__*/ nonNegativeInteger({ max: 1000 }), delayMs: /*#__PURE__*/ nonNegativeInteger({ max: 30_000 }) }),
};
/** The second argument of the readers and framing stages: what the response said about its body. */
export const BODY_CONTEXT: OptionSpec = { contentType: /*#__PURE__*/ stringOrNull(), contentEncoding: /*#__PURE__*/ stringOrNull() };
export const SSE_ENCODER_OPTIONS: OptionSpec = { keepAliveMs: /*#__PURE__*/ nonNegativeInteger({ max: MAX_TIMER_MS }) };
export const NDJSON_ENCODER_OPTIONS: OptionSpec = {};

/** Every exported stream's and function's options (from their option interfaces), for the tests. */
export const OPTION_SPECS = {
  UniEventStream: READER_OPTIONS,
  UniEventBatchStream: READER_OPTIONS,
  fromResponse: READER_OPTIONS,
  SseDecoderStream: SSE_DECODER_OPTIONS,
  NdjsonDecoderStream: NDJSON_DECODER_OPTIONS,
  MmspSseDecoderStream: MMSP_SSE_DECODER_OPTIONS,
  MmspNdjsonDecoderStream: MMSP_NDJSON_DECODER_OPTIONS,
  UniEventDecoderStream: UNI_EVENT_DECODER_OPTIONS,
  MessageAssemblerStream: MESSAGE_ASSEMBLER_OPTIONS,
  fromFetch: FROM_FETCH_OPTIONS,
  SseEncoderStream: SSE_ENCODER_OPTIONS,
  NdjsonEncoderStream: NDJSON_ENCODER_OPTIONS,
} as const satisfies Record<string, OptionSpec>;

export type CheckedExport = keyof typeof OPTION_SPECS;

/** `checkOptions` with an export's spec from the table (tests; the exports pass their own constant). */
export function checkExportOptions(name: CheckedExport, options: unknown): void {
  checkOptions(name, options, OPTION_SPECS[name]);
}
