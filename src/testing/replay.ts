/**
 * `replay(capture, options)`: a `Response` that delivers a capture as a server would, with the faults
 * a reader must survive: chunks of any size (seeded, so a failure can be replayed), a pace, a cut
 * after an event or a byte, a stall, a refusal, an error event. The body is pulled (nothing is made
 * ahead of the reader) and its cancel stops every timer.
 */
import { sleep } from "../internal/abort.js";
import { checkOptions, fail, integer, type OptionSpec, type Rule } from "../internal/options.js";
import { joinBytes } from "../internal/bytes.js";
import { type Capture, captureFormat, checkCapture } from "./capture.js";
import { bodyEvents } from "./records.js";
import { MMSP_ERRORS, type ProblemKind, problemOf, PROVIDER_ROUTES } from "./routes.js";

/** How `replay` delivers a capture. */
export interface ReplayOptions {
  /**
   * How the body is split into chunks: `"events"` (the default: one record each, a keep-alive with the
   * event after it), `"random"` (sizes of 1 B–16 KiB drawn from `seed`), `"bytes"` (one byte each), a
   * size in bytes, or the byte offsets to cut at (increasing).
   */
  chunking?: "events" | "random" | "bytes" | number | readonly number[];
  /** The seed of `"random"` chunking (the same seed, the same chunks); default 1. */
  seed?: number;
  /** Events per second, or `"capture"`: the capture's own `timing`; default: no waits. */
  pace?: number | "capture";
  /** The connection breaks (the body errors with a `TypeError`, as fetch's does) after this many events. */
  cutAfterEvents?: number;
  /** The connection breaks after this many bytes. */
  cutAfterBytes?: number;
  /**
   * The body goes silent this long where it ends (at its cut, or before it closes); `Infinity`: it
   * stays silent until the reader cancels (a model that went quiet).
   */
  stallMs?: number;
  /** A refusal instead of the stream: this status (400–599) with the server's error body (MMSP's or the capture's provider's). */
  refuse?: number | { status: number; message?: string };
  /** Event `errorAt` (0-based) and everything after it are replaced by an error event (MMSP: `{"error": …}`, then `[DONE]`). */
  errorAt?: number;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const CHUNKINGS = ["events", "random", "bytes"];
const isIncreasing = (v: readonly unknown[]): boolean =>
  v.every((n, i) => Number.isInteger(n) && (n as number) > 0 && (i === 0 || (n as number) > (v[i - 1] as number)));
const chunking: Rule = {
  must: '"events", "random", "bytes", a chunk size (a positive integer) or increasing byte offsets to cut at',
  type: (v) => typeof v === "string" || typeof v === "number" || Array.isArray(v),
  ok: (v: string | number | unknown[]) =>
    typeof v === "string" ? CHUNKINGS.includes(v) : typeof v === "number" ? Number.isInteger(v) && v > 0 : isIncreasing(v),
};
const REPLAY_OPTIONS: OptionSpec = {
  chunking,
  seed: /*#__PURE__*/ integer(2 ** 32 - 1),
  pace: {
    must: 'events per second (a positive number) or "capture"',
    type: (v) => typeof v === "number" || typeof v === "string",
    ok: (v: number | string) => v === "capture" || (typeof v === "number" && v > 0 && Number.isFinite(v)),
  },
  cutAfterEvents: /*#__PURE__*/ integer(Number.MAX_SAFE_INTEGER),
  cutAfterBytes: /*#__PURE__*/ integer(Number.MAX_SAFE_INTEGER),
  stallMs: {
    must: `a number of milliseconds from 0 to ${MAX_TIMER_MS}, or Infinity`,
    type: (v) => typeof v === "number",
    ok: (n: number) => n === Infinity || (n >= 0 && n <= MAX_TIMER_MS),
  },
  refuse: {
    must: "an HTTP status from 400 to 599, or { status, message }",
    type: (v) => typeof v === "number" || (typeof v === "object" && v !== null),
    ok: (v: number | { status?: unknown; message?: unknown }) => {
      const status = typeof v === "number" ? v : v.status;
      const message = typeof v === "number" ? undefined : v.message;
      return Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599 &&
        (message === undefined || typeof message === "string");
    },
  },
  errorAt: /*#__PURE__*/ integer(Number.MAX_SAFE_INTEGER),
};

/** A small seeded generator (mulberry32): the same seed, the same chunk sizes, in every runtime. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The body's events' ends, and the error event that replaces event `at` on: the body to send. */
function withErrorAt(capture: Capture, at: number | undefined, count: { starts: number[]; done: number }): Uint8Array {
  if (at === undefined) return capture.body;
  if (at > count.starts.length) {
    fail(
      RangeError,
      "replay: options.errorAt",
      `an event index from 0 to ${count.starts.length} (the capture has ${count.starts.length} events)`,
      at,
    );
  }
  const end = at < count.starts.length ? count.starts[at]! : count.done !== -1 ? count.done : capture.body.length;
  const message = `replay: an error event at event ${at}`;
  const kind: ProblemKind = "overloaded";
  const text = capture.provider
    ? PROVIDER_ROUTES[capture.provider].errorEvent(kind, message)
    : MMSP_ERRORS.errorEvent(kind, message, captureFormat(capture));
  const tail = new TextEncoder().encode(text);
  return joinBytes([capture.body.subarray(0, end), tail], end + tail.length);
}

/** The refusal `refuse` asks for, in the capture's server's shape. */
function refusal(capture: Capture, refuse: NonNullable<ReplayOptions["refuse"]>): Response {
  const status = typeof refuse === "number" ? refuse : refuse.status;
  const message = (typeof refuse === "object" && refuse.message) || `replay: refused with ${status}`;
  const kind = problemOf(status);
  const { body } = capture.provider ? PROVIDER_ROUTES[capture.provider].refusal(kind, message) : MMSP_ERRORS.refusal(kind, message);
  return Response.json(body, { status });
}

/** Statuses whose answer has no body (the Response constructor refuses one). */
const NULL_BODY = [101, 103, 204, 205, 304];

/**
 * A `Response` that delivers `capture` (its status, headers and body) with the faults `options` ask
 * for. Every option is checked here: a wrong type is a `TypeError`, a value out of range (a cut past
 * the capture's events or bytes) a `RangeError`, each naming the option.
 *
 * @example A stream cut after three events, in random chunks
 * ```ts
 * import { parseCapture, replay } from "mmsp-streams/testing";
 * import { fromResponse } from "mmsp-streams";
 *
 * const capture = parseCapture('data: {"role":"assistant","event_type":"delta","content_items":[{"type":"text.delta","text":"Hi"}],"usage_metadata":null,"finish_reason":null}\n\n');
 * const { message } = fromResponse(replay(capture, { chunking: "random", seed: 7, cutAfterEvents: 1 }));
 * await message.catch((e) => console.log(e.name)); // a cut: the reader's error
 * ```
 */
export function replay(capture: Capture, options: ReplayOptions = {}): Response {
  checkCapture(capture, "replay: the capture");
  checkOptions("replay", options, REPLAY_OPTIONS);
  if (options.refuse !== undefined) return refusal(capture, options.refuse);
  if (options.cutAfterEvents !== undefined && options.cutAfterBytes !== undefined) {
    throw new RangeError("replay: give cutAfterEvents or cutAfterBytes, not both (the connection breaks once)");
  }
  if (options.pace === "capture" && !capture.timing) {
    throw new RangeError('replay: options.pace "capture" needs the capture\'s timing (a capture made by record() has one)');
  }
  const format = captureFormat(capture);
  const body = withErrorAt(capture, options.errorAt, bodyEvents(capture.body, format));
  const { ends } = bodyEvents(body, format);
  let limit = body.length;
  if (options.cutAfterEvents !== undefined) {
    if (options.cutAfterEvents > ends.length) {
      fail(RangeError, "replay: options.cutAfterEvents", `at most the capture's ${ends.length} events`, options.cutAfterEvents);
    }
    limit = options.cutAfterEvents === 0 ? 0 : ends[options.cutAfterEvents - 1]!;
  } else if (options.cutAfterBytes !== undefined) {
    if (options.cutAfterBytes > body.length) {
      fail(RangeError, "replay: options.cutAfterBytes", `at most the body's ${body.length} bytes`, options.cutAfterBytes);
    }
    limit = options.cutAfterBytes;
  }
  const cut = options.cutAfterEvents !== undefined || options.cutAfterBytes !== undefined;
  const headers = new Headers(capture.headers);
  headers.delete("content-length"); // (the body a fault makes is not the captured one's length)
  const init = { status: capture.status, headers };
  if (NULL_BODY.includes(capture.status)) return new Response(null, init);
  return new Response(replayBody(body, ends, limit, cut, capture.timing, options), init);
}

/** The delay before the bytes of event `i` (those after event i-1's end). */
function delays(pace: ReplayOptions["pace"], timing: number[] | undefined): (i: number) => number {
  if (pace === undefined) return () => 0;
  if (pace === "capture") return (i) => Math.max(0, (timing![i] ?? timing![timing!.length - 1] ?? 0) - (i === 0 ? 0 : timing![i - 1] ?? 0));
  return (i) => (i === 0 ? 0 : 1000 / pace);
}

/** The next chunk's end after `offset`, by the chunking asked for. */
function chunker(options: ReplayOptions, ends: readonly number[]): (offset: number) => number {
  const how = options.chunking ?? "events";
  if (how === "bytes") return (o) => o + 1;
  if (typeof how === "number") return (o) => (Math.floor(o / how) + 1) * how;
  if (how === "random") {
    const random = seeded(options.seed ?? 1);
    return (o) => o + 1 + Math.floor(random() * 16384);
  }
  const cuts = how === "events" ? ends : how;
  return (o) => cuts.find((c) => c > o) ?? Infinity;
}

function replayBody(
  body: Uint8Array,
  ends: readonly number[],
  limit: number,
  cut: boolean,
  timing: number[] | undefined,
  options: ReplayOptions,
): ReadableStream<Uint8Array> {
  const stop = new AbortController();
  const next = chunker(options, ends);
  const delay = delays(options.pace, timing);
  const paced = options.pace !== undefined;
  let offset = 0;
  let event = 0; // the next event whose bytes come
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= limit) {
        if (options.stallMs && !(await wait(options.stallMs, stop.signal))) return;
        if (cut) controller.error(new TypeError(`network error (replay: the connection was cut after ${limit} bytes)`));
        else controller.close();
        return;
      }
      // a paced replay waits before an event's bytes: a chunk never spans two events then
      const eventEnd = paced ? (ends[event] ?? limit) : Infinity;
      if (paced && (event === 0 ? offset === 0 : offset === ends[event - 1])) {
        const ms = delay(event);
        if (ms > 0 && !(await sleep(ms, stop.signal))) return;
      }
      const end = Math.min(next(offset), eventEnd, limit);
      controller.enqueue(body.slice(offset, end));
      offset = end;
      while (event < ends.length && ends[event]! <= offset) event++;
      // (closed with its last bytes: a reader that stops at [DONE] still finds the body ended)
      if (offset >= limit && !cut && !options.stallMs) controller.close();
    },
    cancel(reason) {
      stop.abort(reason);
    },
  }, { highWaterMark: 0 });
}

/** Waits `ms` (Infinity: until `signal` aborts); false when aborted. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms !== Infinity) return sleep(ms, signal);
  return new Promise((resolve) => {
    if (signal.aborted) resolve(false);
    else signal.addEventListener("abort", () => resolve(false), { once: true });
  });
}
