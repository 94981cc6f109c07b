/**
 * Argument checking at the boundary (issue #12): every option of every exported stream and function
 * is checked when it is constructed, so `format: "NDJSON"`, `mode: "assembly"` or a typo such as
 * `unknownItem` fail at once with a message naming the option, the value and what is allowed,
 * instead of turning into a misleading protocol error later. A wrong type is a `TypeError`, a wrong
 * value a `RangeError`. Each export's options are a table (option → rule), and a rule is data read
 * by one function, so a bundle keeps only the rules of the exports it uses.
 */
import { describeValue, fail } from "./describe.js";
import { isRecord } from "./values.js";

export { describeValue, fail };

/**
 * How one option is checked: `type` tells a value of the right type (or a `TypeError`), `ok` a right
 * value among those (or a `RangeError`), `must` is what the message says it must be, `hint` what it
 * adds (an option's likely meaning), and `members` check the members of an object value.
 */
export interface Rule {
  readonly must: string;
  readonly type: (value: unknown) => boolean;
  /** Called only once `type` passed, so it may take the type it checked. */
  // deno-lint-ignore no-explicit-any -- each rule narrows to its own type (number, string…) after `type`
  readonly ok?: (value: any) => boolean;
  readonly hint?: (value: unknown) => string;
  readonly members?: OptionSpec;
}

/** The options an export takes, each with its rule. */
export type OptionSpec = Readonly<Record<string, Rule>>;

/** setTimeout's largest delay (a larger one fires at once in every runtime). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Other names people give the allowed values of `oneOf` (lower-cased), suggested where the value is allowed. */
const ALIASES: Readonly<Record<string, string>> = {
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
  assembly: "assemble",
  assembler: "assemble",
  build: "assemble",
  validation: "validate",
  check: "validate",
  strict: "validate",
  ignore: "skip",
  drop: "skip",
  throw: "error",
  fail: "error",
  reject: "error",
};

/** The edit distance of two short strings (for "did you mean"). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

const own = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** The known name `given` most likely meant: the same in another case, an alias, or at most two edits away. */
export function nearMiss(given: string, known: readonly string[], aliases: Readonly<Record<string, string>> = {}): string | undefined {
  const lower = given.toLowerCase();
  const alias = own(aliases, lower) ? aliases[lower] : undefined;
  let best = known.find((k) => k.toLowerCase() === lower) ?? known.find((k) => k === alias);
  let bestDistance = lower.length < 3 ? 0 : 3;
  for (const k of best === undefined ? known : []) {
    const d = distance(lower, k.toLowerCase());
    if (d < bestDistance) (best = k), (bestDistance = d);
  }
  return best;
}

const didYouMean = (guess: string | undefined): string => (guess === undefined ? "" : ` (did you mean ${JSON.stringify(guess)}?)`);

function isAbortSignal(value: unknown): boolean {
  if (typeof AbortSignal !== "undefined" && value instanceof AbortSignal) return true;
  // another realm's signal (an iframe, a vm context): by shape
  const v = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown } | null;
  return typeof v === "object" && v !== null && typeof v.aborted === "boolean" && typeof v.addEventListener === "function" &&
    typeof v.removeEventListener === "function";
}

function checkValue(value: unknown, label: string, rule: Rule): void {
  const Kind = !rule.type(value) ? TypeError : rule.ok && !rule.ok(value) ? RangeError : undefined;
  if (Kind) fail(Kind, label, rule.must, value, rule.hint?.(value));
  if (rule.members && typeof value === "object") checkOptions(label, value, rule.members, label);
}

/** One of some strings (a near miss or a common other name for one is suggested). */
export function oneOf(values: readonly string[]): Rule {
  return {
    must: `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`,
    type: (v) => typeof v === "string",
    ok: (v: string) => values.includes(v),
    hint: (v) => (typeof v === "string" ? didYouMean(nearMiss(v, values, ALIASES)) : ""),
  };
}

/**
 * Checks an options argument against its spec: undefined is no options; anything but an object is
 * a `TypeError`; each known option (when not undefined) goes through its rule; an unknown key is a
 * `TypeError` naming the nearest known one and listing them all (a key set to undefined is let
 * pass: spreading `{ ...options, format: undefined }` is common and harmless).
 *
 * @param name the export, e.g. `UniEventStream`, shown first in messages
 */
export function checkOptions(name: string, options: unknown, spec: OptionSpec, base = `${name}: options`): void {
  if (options === undefined) return;
  const signal = isAbortSignal(options);
  if (typeof options !== "object" || options === null || Array.isArray(options) || signal) {
    fail(TypeError, base, "an object (or left out)", options, signal ? " (pass { signal })" : "");
  }
  for (const key of Object.keys(options as object)) {
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (!own(spec, key)) {
      const known = Object.keys(spec);
      const list = known.length > 0 ? `the options are ${known.join(", ")}` : `${name} takes no options`;
      throw new TypeError(`${name}: unknown option ${JSON.stringify(key)}${didYouMean(nearMiss(key, known))}; ${list}`);
    }
    checkValue(value, `${base}.${key}`, spec[key]!);
  }
}

/** For `fromResponse(response)`: anything but a Response says what it was and what to pass. */
export function checkResponse(value: unknown): asserts value is Response {
  const v = value as
    | { status?: unknown; ok?: unknown; headers?: { get?: unknown }; bodyUsed?: unknown; body?: { locked?: unknown } | null }
    | null;
  // a Response of another realm or fetch implementation: by shape
  const isResponse = (typeof Response !== "undefined" && value instanceof Response) ||
    (typeof v === "object" && v !== null && typeof v.status === "number" && typeof v.ok === "boolean" &&
      typeof v.headers?.get === "function" && "body" in v);
  if (isResponse) {
    // a body read before (await response.text(), a second fromResponse) cannot be read again
    const used = v!.bodyUsed === true ? "response.bodyUsed" : v!.body?.locked === true ? "response.body.locked" : undefined;
    if (used) {
      throw new TypeError(
        `fromResponse: the response's body was already read or is being read (${used}); a body is read once: pass the response to fromResponse before anything else reads it, or pass response.clone() to read it twice`,
      );
    }
    return;
  }
  const hint = typeof ReadableStream !== "undefined" && value instanceof ReadableStream
    ? ": pass the Response itself (fromResponse(response)), or pipe a body stream through new UniEventStream()"
    : value instanceof Promise
    ? ": await the fetch first (fromResponse(await fetch(url)))"
    : "";
  fail(TypeError, "fromResponse: the response", "a Response (what fetch resolves to)", value, hint);
}

// ---- the rules, and the specs of the exports ----------------------------------------------------

const isNumber = (v: unknown): boolean => typeof v === "number";
/** A whole number from 0 to `max`. */
export const integer = (max: number): Rule => ({
  must: `an integer from 0 to ${max}`,
  type: isNumber,
  ok: (n: number) => Number.isInteger(n) && n >= 0 && n <= max,
});

/** A string that is not empty. */
/** true or false. */
export const BOOLEAN: Rule = { must: "true or false", type: (v) => typeof v === "boolean" };
export const NON_EMPTY_STRING: Rule = { must: "a non-empty string", type: (v) => typeof v === "string", ok: (s: string) => s !== "" };
export const FUNCTION: Rule = { must: "a function", type: (v) => typeof v === "function" };
const client = NON_EMPTY_STRING;
/** A whole number above 0, or `Infinity` (no limit). */
const limit: Rule = {
  must: "a positive integer (or Infinity for no limit)",
  type: isNumber,
  ok: (n: number) => n > 0 && (Number.isInteger(n) || n === Infinity),
};
const idleTimeoutMs: Rule = {
  must: `a positive number up to ${MAX_TIMER_MS}`,
  type: isNumber,
  ok: (n: number) => n > 0 && n <= MAX_TIMER_MS,
};
/** An `AbortSignal` (an `AbortController` is a common slip: its `.signal` is meant). */
const signal: Rule = {
  must: "an AbortSignal",
  type: isAbortSignal,
  hint: (v) =>
    typeof AbortController !== "undefined" && v instanceof AbortController ? " (pass controller.signal, not the controller)" : "",
};
const mode = /*#__PURE__*/ oneOf(["validate", "assemble"]);
const readerFormat = /*#__PURE__*/ oneOf(["sse", "ndjson", "auto"]);
const unknownItems = /*#__PURE__*/ oneOf(["error", "skip"]);
/** `mmsp: true` moved to its own class; `false`, the default, still passes. */
const mmsp = (moved: string): Rule => ({
  must: `false (the MMSP reader's framing is ${moved} now)`,
  type: (v) => typeof v === "boolean",
  ok: (v) => v === false,
});
const stringOrNull: Rule = { must: "a string or null", type: (v) => v === null || typeof v === "string" };

/** `UniEventStream`, `UniEventBatchStream`, `fromResponse`. */
export const READER_OPTIONS: OptionSpec = {
  format: readerFormat,
  client,
  mode,
  unknownItems,
  onWarning: FUNCTION,
  maxEventBytes: limit,
  maxDepth: limit,
  maxItems: limit,
  signal,
  idleTimeoutMs,
};
export const SSE_DECODER_OPTIONS: OptionSpec = {
  client,
  mmsp: /*#__PURE__*/ mmsp("MmspSseDecoderStream"),
  maxEventBytes: limit,
  signal,
  idleTimeoutMs,
};
export const NDJSON_DECODER_OPTIONS: OptionSpec = {
  client,
  mmsp: /*#__PURE__*/ mmsp("MmspNdjsonDecoderStream"),
  maxEventBytes: limit,
  maxDepth: limit,
  signal,
  idleTimeoutMs,
};
export const MMSP_SSE_DECODER_OPTIONS: OptionSpec = { client, maxEventBytes: limit, signal, idleTimeoutMs };
export const MMSP_NDJSON_DECODER_OPTIONS: OptionSpec = { client, maxEventBytes: limit, maxDepth: limit, signal, idleTimeoutMs };
export const UNI_EVENT_DECODER_OPTIONS: OptionSpec = {
  format: /*#__PURE__*/ oneOf(["sse", "ndjson"]),
  client,
  mode,
  unknownItems,
  onWarning: FUNCTION,
  maxDepth: limit,
  signal,
  idleTimeoutMs,
};
export const MESSAGE_ASSEMBLER_OPTIONS: OptionSpec = { client, mode, maxItems: limit, maxDepth: limit, signal, idleTimeoutMs };
export const FROM_FETCH_OPTIONS: OptionSpec = {
  format: readerFormat,
  client,
  maxEventBytes: limit,
  maxDepth: limit,
  maxItems: limit,
  signal,
  idleTimeoutMs,
  fetch: FUNCTION,
  reconnect: {
    must: "false or an object { retries, delayMs }",
    type: (v) => v === false || isRecord(v),
    members: { retries: /*#__PURE__*/ integer(1000), delayMs: /*#__PURE__*/ integer(30_000) },
  },
};
/** The second argument of the MMSP reader's streams: what the response said about its body. */
export const BODY_CONTEXT: OptionSpec = { contentType: stringOrNull, contentEncoding: stringOrNull, status: /*#__PURE__*/ integer(999) };
export const SSE_ENCODER_OPTIONS: OptionSpec = { keepAliveMs: /*#__PURE__*/ integer(MAX_TIMER_MS) };
export const NDJSON_ENCODER_OPTIONS: OptionSpec = {};
/** `ProviderEventStream`, `fromProviderResponse` and a provider's `stream()` (mmsp-streams/providers). */
export const PROVIDER_STREAM_OPTIONS: OptionSpec = {
  client,
  onWarning: FUNCTION,
  maxEventBytes: limit,
  maxDepth: limit,
  maxItems: limit,
  maxResponseBytes: limit,
  signal,
  idleTimeoutMs,
  stallMs: idleTimeoutMs,
};
