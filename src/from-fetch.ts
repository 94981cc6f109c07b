/**
 * `fromFetch`: does the fetch and reads the answer like `fromResponse`, and when the connection
 * breaks mid-stream and the answer named where to resume (`Content-Location`, as the relay Worker's
 * streams do), reconnects there with `Last-Event-ID`, so the events and the message continue as if
 * nothing happened.
 *
 * Why the stages and not `UniEventStream`: the bytes of two connections cannot be joined (a cut can
 * fall inside an event, whose start the next connection does not repeat), so each connection is
 * framed on its own (`MmspSseDecoderStream` / `MmspNdjsonDecoderStream`, whose unfinished last event is
 * dropped with the connection), and its records go, counted, into ONE decoder and assembler
 * (`UniEventDecoderStream` → `MessageAssemblerStream`) that span every reconnect: the grammar,
 * `message` and `snapshot()` see one stream.
 *
 *   connection 1 ─ framer ─┐
 *   connection 2 ─ framer ─┼─ (skip what was delivered) ─ UniEventDecoderStream ─ MessageAssemblerStream ─▶ readable
 *   …                     ─┘
 */
import { MmspError, StreamLimitError, UpstreamError } from "./errors.js";
import { follow, sleep } from "./internal/abort.js";
import { MessageAssemblerStream } from "./assemble/message-assembler-stream.js";
import { UniEventDecoderStream } from "./decode/uni-event-decoder-stream.js";
import { MmspNdjsonDecoderStream, MmspSseDecoderStream } from "./framing/mmsp.js";
import type { SseMessage } from "./framing/sse.js";
import { FormatSniffer } from "./framing/sniff.js";
import { formatFromContentType, type ResponseEvents } from "./from-response.js";
import { type LimitOptions, resolveLimits } from "./internal/limits.js";
import { checkOptions, fail as failArgument, FROM_FETCH_OPTIONS } from "./internal/options.js";
import { isRecord } from "./internal/values.js";
import { connectionError, producerOf, refusalOf, urlOf } from "./internal/http.js";
import type { WireFormat } from "./uni-event-stream.js";

/** How `fromFetch` reconnects after a cut. */
export interface ReconnectOptions {
  /** Attempts after a cut before giving up (counted again from 0 once an event arrives); default 3. */
  retries?: number;
  /** Wait before the first attempt, in ms, doubled for each further one (at most 30 s); default 250. */
  delayMs?: number;
}

/** Options of `fromFetch` (its third argument; the second is fetch's own `init`). */
export interface FromFetchOptions extends LimitOptions {
  /** The framing; default: from `Content-Type`, else the first line that is not blank tells. */
  format?: WireFormat | "auto";
  /** Names the producer in errors and in `UpstreamError.client`; default: the host asked, else `"upstream"`. */
  client?: string;
  /**
   * Leaves: ends the request, any reconnect and the reading here; the readable errors with its
   * reason. A relay that keeps the stream (its answer named a `Content-Location`) goes on reading
   * the model, and the stream stays resumable; to stop the generation itself, call `stop()`.
   */
  signal?: AbortSignal;
  /**
   * No byte for this long on a connection (not even a keep-alive): the connection is taken for
   * stalled and resumed like a cut; when it cannot be, `StreamLimitError` (`idleTimeoutMs`).
   */
  idleTimeoutMs?: number;
  /** Replaces the global `fetch` (for every request: the first and the reconnects). */
  fetch?: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** How to reconnect after a cut; `false`: never (a cut is an error, as with `fromResponse`). */
  reconnect?: false | ReconnectOptions;
}

const MAX_DELAY_MS = 30_000;
/** Answers to a reconnect that are worth another attempt (the server or a proxy was busy). */
const RETRY_STATUS = /*#__PURE__*/ new Set([408, 425, 429, 500, 502, 503, 504]);
/** Headers of the first request that a reconnect (a GET) does not repeat. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "transfer-encoding"];

/** The options checked at the boundary (options.ts), then the reconnect settings with their defaults. */
function resolveReconnect(options: FromFetchOptions): { retries: number; delayMs: number } | false {
  checkOptions("fromFetch", options, FROM_FETCH_OPTIONS);
  const { reconnect } = options;
  if (reconnect === false) return false;
  return { retries: reconnect?.retries ?? 3, delayMs: reconnect?.delayMs ?? 250 };
}

/** What `fromFetch` returns: `fromResponse`'s events, message and snapshot, and `stop()`. */
export interface FetchEvents extends ResponseEvents {
  /**
   * Stops the generation (SPEC §8): when the answer named where its stream is kept
   * (`Content-Location`), asks the server to cancel it (`DELETE` there, with the request's headers),
   * then the read ends with the server's `StreamCancelled` error (an `UpstreamError`, `errorType`
   * `"StreamCancelled"`), as every other viewer's does; without a kept stream the request is
   * aborted (a server stops when its caller goes away). `snapshot()` keeps what arrived. Resolves
   * once the read has ended; rejects with the server's refusal when it would not cancel (the read
   * here still ends). To leave without stopping, use the `signal` or cancel `readable`.
   */
  stop(): Promise<void>;
}

/** How long `stop()` waits for the server's own end of a cancelled stream before ending the read here. */
const STOP_GRACE_MS = 2_000;

/** `url` made absolute against the first base that makes it so, or undefined. */
function absolute(url: string, ...bases: (string | undefined)[]): URL | undefined {
  for (const base of bases) {
    try {
      return new URL(url, base || undefined);
    } catch {
      // not a URL against this base: the next one
    }
  }
  return undefined;
}

/**
 * Where to resume: `Content-Location` against the answer's URL (or the request's), accepted only on
 * the origin the caller asked — the request's headers (its credentials) go with every reconnect and
 * with `stop()`'s DELETE, so they must never go to another origin, whatever the answer says or
 * wherever a redirect led (fetch drops `Authorization` on a cross-origin redirect; a reconnect
 * there would put it back).
 */
function resumeTarget(header: string | null, response: Response, input: RequestInfo | URL): { url: string } | { refused: string } | null {
  if (!header) return null;
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  const asked = absolute(urlOf(input), page);
  const target = absolute(header, response.url, asked?.href, page);
  if (!asked || !target) return { refused: header };
  return target.origin === asked.origin && target.origin !== "null" ? { url: target.href } : { refused: target.href };
}

/** The format of a body, as `format: "auto"` tells it (sniff.ts); the bytes read to tell are kept. */
async function detectFormat(
  body: ReadableStream<Uint8Array>,
  maxEventBytes: number,
): Promise<{ format: WireFormat; body: ReadableStream<Uint8Array> }> {
  const reader = body.getReader();
  const seen: Uint8Array[] = [];
  const sniffer = new FormatSniffer(maxEventBytes);
  let format: WireFormat | undefined;
  while (format === undefined) {
    const { done, value } = await reader.read();
    if (done) {
      format = sniffer.end();
      break;
    }
    seen.push(value);
    format = sniffer.push(value);
  }
  const replay = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = seen.shift();
      if (next) return controller.enqueue(next);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { format, body: replay };
}

/** Marks the clean end of a connection that can be resumed (never reaches the caller). */
const CLEAN_END: unique symbol = Symbol("the connection ended");

/**
 * Pumps a connection's body into its framer (by hand, not `pipeThrough`: every promise is handled
 * here, and workerd reports the pipe of an erroring source as an unhandled rejection). When the
 * connection can be resumed, its clean end is an error (CLEAN_END), so the framer does not dispatch
 * an event the cut left unfinished, nor judge a character the cut split (the resume sends them again
 * whole), whatever a framer does at a real end. When the framer stops (it failed, or its reader
 * cancelled it), the body is cancelled.
 */
async function feed(body: ReadableStream<Uint8Array>, into: WritableStream<Uint8Array>, resumable: boolean): Promise<void> {
  const reader = body.getReader();
  const writer = into.getWriter();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        await (resumable ? writer.abort(CLEAN_END) : writer.close());
        return;
      }
      await writer.write(value);
    }
  } catch (error) {
    writer.abort(error).catch(() => {});
    reader.cancel(error).catch(() => {});
  }
}

/** What became of one connection. */
type Outcome =
  | { kind: "complete" } // [DONE], or the end of an NDJSON stream after its stop event
  | { kind: "stopped" } // the reading ended on our side (cancel, abort, or the chain failed)
  | { kind: "cut"; error: unknown } // the body failed: a network error
  | { kind: "ended" } // the body ended before the stream was complete
  | { kind: "fatal"; error: unknown }; // an error no reconnect can mend (framing, limits)

/**
 * Fetches `input` with `init` and reads the answer as checked UniEvents and the message, like
 * `fromResponse(await fetch(input, init))`; when the connection breaks mid-stream (a network error,
 * or an end before the stream is complete) and the answer carried `Content-Location`, reconnects
 * there (a GET with `Last-Event-ID`: the 0-based index of the last event received)
 * and goes on from the next event, skipping any the server sends again.
 *
 * @example
 * ```ts
 * const { readable, message } = fromFetch("/v1/stream", { method: "POST", body }, { reconnect: { retries: 5 } });
 * for await (const event of readable) render(event);
 * ```
 */
export function fromFetch(input: RequestInfo | URL, init: RequestInit = {}, options: FromFetchOptions = {}): FetchEvents {
  if (typeof init !== "object" || init === null) failArgument(TypeError, "fromFetch: init", "an object (fetch's RequestInit)", init);
  // fromFetch's own options put in fetch's init would be ignored by fetch without a word
  const misplaced = Object.keys(init).filter((k) => k !== "signal" && Object.prototype.hasOwnProperty.call(FROM_FETCH_OPTIONS, k));
  if (misplaced.length > 0) {
    throw new TypeError(
      `fromFetch: ${misplaced.map((k) => `init.${k}`).join(", ")} ${
        misplaced.length > 1 ? "are options" : "is an option"
      } of fromFetch, not of fetch: ` +
        `pass ${misplaced.length > 1 ? "them" : "it"} as the third argument, fromFetch(url, init, { ${misplaced.join(", ")} })`,
    );
  }
  const reconnect = resolveReconnect(options);
  const client = options.client ?? producerOf(urlOf(input));
  const doFetch = options.fetch ?? ((i: RequestInfo | URL, n?: RequestInit) => globalThis.fetch(i, n));

  // `aborted`: the caller's signals; `stop`: everything ends (also when the reading is over)
  const aborted = new AbortController();
  follow(aborted, options.signal);
  follow(aborted, init.signal);
  const stop = new AbortController();
  follow(stop, aborted.signal);

  const assembler = new MessageAssemblerStream({ client, maxItems: options.maxItems, maxDepth: options.maxDepth, signal: aborted.signal });
  let writer: WritableStreamDefaultWriter<unknown> | undefined;
  let format: WireFormat | undefined = options.format === "auto" ? undefined : options.format;
  /** The index of the last event delivered into the chain (-1: none yet). */
  let delivered = -1;
  /** An NDJSON stream is complete once its stop event is in (it has no [DONE]). */
  let stopSeen = false;

  /** The decoder and assembler, joined once the format is known. */
  const chain = (f: WireFormat): WritableStreamDefaultWriter<unknown> => {
    if (writer) return writer;
    const decoder = new UniEventDecoderStream({ client, format: f, maxDepth: options.maxDepth });
    decoder.readable.pipeTo(assembler.writable).catch(() => {});
    const w = decoder.writable.getWriter();
    writer = w;
    // the chain ended (the [DONE], a failure, the reader cancelled): nothing more is fetched
    w.closed.then(
      () => stop.abort(),
      () => stop.abort(),
    );
    return w;
  };
  const fail = (error: unknown): void => {
    (writer ? writer.abort(error) : assembler.writable.abort(error)).catch(() => {});
    stop.abort(error);
  };
  const finish = (): void => {
    (writer ? writer.close() : assembler.writable.close()).catch(() => {});
  };

  /** Reads one connection's body into the chain (`resumable`: a clean end is a cut, too). */
  const read = async (response: Response, resumable: boolean): Promise<Outcome> => {
    let body = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    if (format === undefined) {
      try {
        ({ format, body } = await detectFormat(body, resolveLimits(options).maxEventBytes));
      } catch (error) {
        return stop.signal.aborted ? { kind: "stopped" } : { kind: "cut", error };
      }
    }
    const f = format;
    const w = chain(f);
    // each connection framed as the MMSP reader frames a body (strict UTF-8, the diagnosis of a body
    // that is no stream, a last event without its blank line), so that an answer read here reads as
    // fromResponse reads it
    const framing = { client, maxEventBytes: options.maxEventBytes, idleTimeoutMs: options.idleTimeoutMs };
    const context = { contentType: response.headers.get("content-type"), contentEncoding: response.headers.get("content-encoding") };
    const framer = f === "sse"
      ? new MmspSseDecoderStream(framing, context)
      : new MmspNdjsonDecoderStream({ ...framing, maxDepth: options.maxDepth }, context);
    void feed(body, framer.writable, resumable);
    const reader = (framer.readable as ReadableStream<unknown>).getReader();
    const onStop = (): void => void reader.cancel(stop.signal.reason).catch(() => {});
    stop.signal.addEventListener("abort", onStop, { once: true });
    let lastId: string | undefined;
    try {
      for (;;) {
        let record: unknown;
        try {
          const r = await reader.read();
          if (r.done) return f === "ndjson" && stopSeen ? { kind: "complete" } : { kind: "ended" };
          record = r.value;
        } catch (error) {
          if (stop.signal.aborted) return { kind: "stopped" };
          if (error === CLEAN_END) return f === "ndjson" && stopSeen ? { kind: "complete" } : { kind: "ended" };
          // a connection silent for idleTimeoutMs is stalled (a proxy that dropped it quietly): a cut
          if (error instanceof StreamLimitError && error.limit === "idleTimeoutMs") return { kind: "cut", error };
          return error instanceof MmspError ? { kind: "fatal", error } : { kind: "cut", error };
        }
        if (f === "sse") {
          const { data, id } = record as SseMessage;
          if (data === "[DONE]") {
            await w.write(record).catch(() => {});
            return { kind: "complete" };
          }
          // An id line of this event (not one carried over from an earlier event) names its index:
          // an event the server sends again is skipped.
          if (id !== undefined && id !== lastId) {
            lastId = id;
            if (/^[0-9]{1,15}$/.test(id) && Number(id) <= delivered) continue;
          }
        } else if (isRecord(record) && record.event_type === "stop") stopSeen = true;
        try {
          await w.write(record);
        } catch {
          return { kind: "stopped" };
        }
        delivered++;
      }
    } finally {
      stop.signal.removeEventListener("abort", onStop);
      reader.cancel().catch(() => {});
    }
  };

  /**
   * A request to the kept stream (same origin only, see resumeTarget): the first request's headers
   * without its body's. `redirect: "manual"`: a redirect is not followed, so no header is carried
   * past it (a resume that is redirected is refused, not followed to wherever it points).
   */
  const streamInit = (method: "GET" | "DELETE", signal: AbortSignal | undefined): RequestInit => {
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    for (const name of BODY_HEADERS) headers.delete(name);
    // (no `cache` and only a given `credentials`: workerd refuses RequestInit members it does not implement)
    const rest = init.credentials !== undefined ? { credentials: init.credentials } : {};
    return { method, headers, redirect: "manual", ...(signal ? { signal } : {}), ...rest };
  };
  /** The request to resume at `location`: a GET with Last-Event-ID. */
  const resumeInit = (): RequestInit => {
    const request = streamInit("GET", stop.signal);
    const headers = request.headers as Headers;
    if (!headers.has("accept")) headers.set("accept", format === "ndjson" ? "application/x-ndjson" : "text/event-stream");
    // the index of the last event received (the relay's SSE ids are the same indexes); none yet: from the start
    if (delivered >= 0) headers.set("last-event-id", String(delivered));
    return request;
  };
  /** A refused answer to a request of ours, described (an opaque redirect has no status: named as such). */
  const refusal = (response: Response): Promise<UpstreamError> | UpstreamError =>
    response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)
      ? new UpstreamError({
        client,
        status: response.status || null,
        errorType: "HTTPError",
        error: { type: "HTTPError", message: "redirected" },
        message: `HTTP ${
          response.status || 3
        }xx: the kept stream answered with a redirect, which fromFetch does not follow (the request's headers would go with it)`,
      })
      : refusalOf(response, client);

  /** Where the stream is kept, once the first answer came (null: nowhere; undefined: no answer yet). */
  let kept: string | null | undefined;
  let answered: () => void = () => {};
  const answer = new Promise<void>((resolve) => (answered = resolve));

  const run = async (): Promise<void> => {
    let response: Response;
    try {
      response = await doFetch(input, { ...init, signal: stop.signal });
    } catch (error) {
      return fail(aborted.signal.aborted ? aborted.signal.reason : connectionError(error, urlOf(input)));
    }
    if (!response.ok) return fail(await refusalOf(response, client));
    if (format === undefined && options.format !== "auto") format = formatFromContentType(response.headers.get("content-type"));
    const target = resumeTarget(response.headers.get("content-location"), response, input);
    const location = target && "url" in target ? target.url : null;
    kept = location;
    answered();
    let attempts = 0;
    for (;;) {
      const before = delivered;
      const outcome = await read(response, location !== null && reconnect !== false);
      if (outcome.kind === "complete") return finish();
      if (outcome.kind === "stopped") return;
      if (outcome.kind === "fatal") return fail(outcome.error);
      if (delivered > before) attempts = 0;
      // a cut: reconnect, if the answer said where and attempts are left
      let problem: Outcome = outcome;
      for (;;) {
        if (stop.signal.aborted) return;
        if (target && "refused" in target && reconnect !== false) {
          return fail(
            new MmspError(
              `fromFetch: the connection broke and the answer names another origin to resume at (Content-Location: ${target.refused}); ` +
                "fromFetch resumes only on the origin it asked, so that the request's credentials never go elsewhere: the stream cannot be resumed",
              problem.kind === "cut" ? { cause: problem.error } : {},
            ),
          );
        }
        if (location === null || reconnect === false || attempts >= reconnect.retries) {
          // no way back: a broken connection is the error; an early end is for the grammar to judge
          return problem.kind === "cut" ? fail(problem.error) : finish();
        }
        if (!(await sleep(Math.min(reconnect.delayMs * 2 ** attempts, MAX_DELAY_MS), stop.signal))) return;
        attempts++;
        let next: Response;
        try {
          next = await doFetch(location, resumeInit());
        } catch (error) {
          if (stop.signal.aborted) return;
          problem = { kind: "cut", error };
          continue;
        }
        if (next.ok) {
          response = next;
          break;
        }
        const error = await refusal(next);
        if (!RETRY_STATUS.has(next.status)) return fail(error); // gone (404), not yours (403), redirected, …
        problem = { kind: "cut", error };
      }
    }
  };
  run()
    .catch(fail)
    .finally(() => answered());

  /** Ends the read here with the cancel (a no-op once it has ended). */
  const cancelled = (detail: string): void =>
    fail(
      new UpstreamError({
        client,
        status: null,
        errorType: "StreamCancelled",
        error: { type: "StreamCancelled", message: detail },
        message: detail,
      }),
    );
  // the read has ended (the chain closed or failed, or the caller left): `stop` aborts then. (Not
  // `message.then`: awaiting message drains a readable nobody reads.)
  const ended = new Promise<void>((
    resolve,
  ) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener("abort", () => resolve(), { once: true })));
  const stopGeneration = async (): Promise<void> => {
    await Promise.race([answer, ended]);
    if (!kept) {
      cancelled("the stream was stopped by the client");
      return ended;
    }
    let refused: unknown;
    try {
      // (404: the stream is gone already, ended or expired: nothing runs to cancel)
      const response = await doFetch(kept, streamInit("DELETE", undefined));
      if (response.ok || response.status === 404) await response.body?.cancel();
      else refused = await refusal(response);
    } catch (error) {
      refused = connectionError(error, kept);
    }
    if (refused === undefined) {
      // the server ends the stream for every viewer: let ours read that end, as theirs do
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([ended, new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
      clearTimeout(timer);
      cancelled("the stream was stopped by the client");
      return ended;
    }
    cancelled("the read was stopped by the client; the server did not cancel the generation");
    await ended;
    throw refused;
  };

  const { readable, message, snapshot, subscribe } = assembler;
  return {
    readable,
    message,
    snapshot,
    subscribe,
    get timings() {
      return assembler.timings;
    },
    stop: stopGeneration,
  };
}
