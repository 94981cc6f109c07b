// A tiny, framework-free test harness: the same cases run under vitest (Node, workerd, Chromium),
// bun test, Deno.test, inside a Worker and in a plain browser page. Only web-standard APIs here.

export type Case = [name: string, fn: () => Promise<void> | void];

export class AssertionError extends Error {
  override name = "AssertionError";
}

/** Structural equality that understands Uint8Array, arrays, plain objects and NaN. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  // Errors keep their message and name off the enumerable keys: compare them, and the class, too
  // (else any two plain Errors are "equal"). A case that means "the very same error" compares by identity.
  if (a instanceof Error || b instanceof Error) {
    if (!(a instanceof Error && b instanceof Error) || a.constructor !== b.constructor) return false;
    if (a.name !== b.name || a.message !== b.message || !deepEqual(a.cause, b.cause)) return false;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

export function show(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? `<bytes ${Array.from(x).join(",")}>` : x));
  } catch {
    return String(v);
  }
}

/** The very same object (an error that must be the readable's own, not an equal one). */
export function assertSame(actual: unknown, expected: unknown, msg = "the same object"): void {
  if (actual !== expected) throw new AssertionError(`${msg}: expected the same object as ${show(expected)} (${String(expected)}), got ${show(actual)} (${String(actual)})`);
}

export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new AssertionError(msg);
}

export function assertEqual(actual: unknown, expected: unknown, msg = ""): void {
  if (!deepEqual(actual, expected)) {
    throw new AssertionError(`${msg ? msg + ": " : ""}expected ${show(expected)} but got ${show(actual)}`);
  }
}

/** Awaits `p` (or calls it) and returns the error it throws; fails if it does not throw. */
export async function rejects(p: Promise<unknown> | (() => unknown), msg = ""): Promise<any> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    return e;
  }
  throw new AssertionError(`${msg ? msg + ": " : ""}expected an error, but none was thrown`);
}

/** Checks an error's class and selected fields. */
export function assertError(e: unknown, cls: new (...args: any[]) => Error, fields: Record<string, unknown> = {}): void {
  if (!(e instanceof cls)) {
    throw new AssertionError(`expected ${cls.name} but got ${(e as Error)?.name ?? typeof e}: ${(e as Error)?.message ?? show(e)}`);
  }
  for (const [k, v] of Object.entries(fields)) {
    const actual = (e as unknown as Record<string, unknown>)[k];
    if (v instanceof RegExp ? !(typeof actual === "string" && v.test(actual)) : !deepEqual(actual, v)) {
      throw new AssertionError(`${cls.name}.${k}: expected ${v instanceof RegExp ? v : show(v)} but got ${show(actual)} (message: ${(e as Error).message})`);
    }
  }
}

const enc = new TextEncoder();
export const utf8 = (s: string): Uint8Array => enc.encode(s);

/** A byte stream that delivers the given chunks (strings are UTF-8 encoded). */
export function byteStream(chunks: (Uint8Array | string)[]): ReadableStream<Uint8Array> {
  const list = chunks.map((c) => (typeof c === "string" ? utf8(c) : c));
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < list.length) c.enqueue(list[i++]!);
      else c.close();
    },
  });
}

/** Splits bytes at the given cut points. */
export function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let last = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c > last && c < bytes.length) {
      out.push(bytes.subarray(last, c));
      last = c;
    }
  }
  out.push(bytes.subarray(last));
  return out;
}

export function valuesStream<T>(values: T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(c) {
      if (i < values.length) c.enqueue(values[i++]!);
      else c.close();
    },
  });
}

export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

/** Reads a stream to its end; returns what arrived and the error it ended with, if any. */
export async function collectSettled<T>(stream: ReadableStream<T>): Promise<{ values: T[]; error: unknown }> {
  const values: T[] = [];
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { values, error: undefined };
      values.push(value);
    }
  } catch (error) {
    return { values, error };
  }
}

export interface CaseResult {
  name: string;
  ok: boolean;
  error?: string;
}

export async function runCases(cases: Case[]): Promise<{ passed: number; failed: number; results: CaseResult[] }> {
  const results: CaseResult[] = [];
  // The runs without a test runner (a browser page, the Workers self-test) fail a case whose promises
  // rejected unhandled, as vitest and Deno do: each case gets a task turn for them to be reported.
  const target = globalThis as unknown as { addEventListener?: (type: string, fn: (e: { reason?: unknown; preventDefault?: () => void }) => void) => void; removeEventListener?: (type: string, fn: (e: { reason?: unknown; preventDefault?: () => void }) => void) => void };
  let unhandled: unknown[] = [];
  const onUnhandled = (e: { reason?: unknown; preventDefault?: () => void }): void => {
    unhandled.push(e.reason);
    e.preventDefault?.(); // reported as the case's failure, not (also) as the page's or the isolate's
  };
  target.addEventListener?.("unhandledrejection", onUnhandled);
  try {
    for (const [name, fn] of cases) {
      unhandled = [];
      try {
        await fn();
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (unhandled.length > 0) throw new AssertionError(`unhandled rejection(s) during the case: ${unhandled.map((r) => String((r as Error)?.stack ?? r)).join("; ")}`);
        results.push({ name, ok: true });
      } catch (e) {
        results.push({ name, ok: false, error: String((e as Error)?.stack ?? e) });
      }
    }
  } finally {
    target.removeEventListener?.("unhandledrejection", onUnhandled);
  }
  const passed = results.filter((r) => r.ok).length;
  return { passed, failed: results.length - passed, results };
}

/** Reads `readable` to its end and awaits `message`: what came out, and how each ended. */
export async function settle<T>(readable: ReadableStream<T>, message: PromiseLike<unknown>): Promise<{ events: T[]; error: any; message: any; messageError: any }> {
  const { values, error } = await collectSettled(readable);
  let m: any;
  let messageError: any;
  try {
    m = await message;
  } catch (e) {
    messageError = e;
  }
  return { events: values, error, message: m, messageError };
}

/**
 * Pipes `from` into `to` by hand, every outcome handled: an error of either side ends it (the other
 * side aborted or cancelled with it). Why not `pipeTo`: workerd reports the internal promises of a
 * pipe whose source errors as unhandled rejections, even when the pipe's own promise is handled.
 */
export function pump<T>(from: ReadableStream<T>, to: WritableStream<T>): void {
  const reader = from.getReader();
  const writer = to.getWriter();
  writer.closed.catch(() => {});
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await writer.write(value);
      }
      await writer.close();
    } catch (e) {
      await writer.abort(e).catch(() => {});
      await reader.cancel(e).catch(() => {});
    }
  })();
}

/** A byte source that records how often it was pulled and whether (and why) it was cancelled. */
export function trackedSource(chunks: Uint8Array[], opts: { stallAfter?: number } = {}) {
  const state = { pulls: 0, cancelled: false, reason: undefined as unknown };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      state.pulls++;
      if (opts.stallAfter !== undefined && i >= opts.stallAfter) return new Promise(() => {}); // never answers
      if (i < chunks.length) c.enqueue(chunks[i++]!);
      else c.close();
    },
    cancel(reason) {
      state.cancelled = true;
      state.reason = reason;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}
