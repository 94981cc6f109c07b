/**
 * `fromFetch`: does the fetch and reads the answer like `fromResponse`, and when the connection
 * breaks mid-stream and the answer named where to resume (`Content-Location`, as the relay Worker's
 * streams do), reconnects there with `Last-Event-ID`, so the events and the message continue as if
 * nothing happened.
 *
 * It is a reconnecting source in front of the one fused reader (`ReconnectingCore`, uni-event-stream.ts:
 * the core of `UniEventStream` and `fromResponse`, framed as `fromResponse` frames the first answer):
 * every connection's bytes go, in order, into it, and before a reconnect's body `NEXT_CONNECTION`.
 * The bytes of two connections are never joined (a cut can fall inside an event, whose start the
 * next connection does not repeat): the core drops what the old body left unfinished and skips an
 * SSE event sent again; the decoding, the grammar, `message`, `snapshot()` and the timings see one
 * stream. In an error after a reconnect, `eventIndex` is the stream's (the index `Last-Event-ID`
 * names), `byteOffset` (and an NDJSON `line`) a position in the body the event came in.
 *
 *   connection 1 ─┐
 *   connection 2 ─┼─ bytes, NEXT_CONNECTION before each resumed body ─▶ ReconnectingCore (framer ─ decode ─ grammar) ─▶ readable, message
 *   …            ─┘
 *
 * What is fromFetch's own: the fetch, the refusal and connection errors (internal/http.ts), the
 * reconnect loop (Content-Location on the origin asked, Last-Event-ID, backoff, the statuses worth
 * another attempt, no redirects followed), the idle timeout per connection, and `stop()`.
 */
import { MmspError, UpstreamError } from "./errors.js";
import { follow, sleep, within } from "./internal/abort.js";
import { ReaderStream } from "./internal/reader-stream.js";
import { idleError } from "./internal/core-stream.js";
import { formatFromContentType, type ResponseEvents } from "./from-response.js";
import type { LimitOptions } from "./internal/limits.js";
import { checkOptions, fail as failArgument, FROM_FETCH_OPTIONS } from "./internal/options.js";
import { cancelledError, connectionError, cutError, producerOf, refusalOf, urlOf } from "./internal/http.js";
import type { UniEvent } from "./schema.js";
import { NEXT_CONNECTION, ReconnectingCore, type WireFormat } from "./uni-event-stream.js";

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
  /**
   * Replaces the global `fetch` (for every request: the first and the reconnects). The answer's
   * `response.url` says which origin answered (after redirects): a `Content-Location` is trusted only
   * from the origin asked. A fetch that re-wraps responses (`new Response(body, response)`) loses
   * `url`; the answer is then taken as the URL asked's, since nothing shows a redirect: keep the url
   * (`Object.defineProperty(wrapped, "url", { value: response.url })`), or follow no redirect to
   * another origin in it.
   */
  fetch?: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** How to reconnect after a cut; `false`: never (a cut is an error, as with `fromResponse`). */
  reconnect?: false | ReconnectOptions;
}

const MAX_DELAY_MS = 30_000;
/** Answers to a reconnect that are worth another attempt (the server or a proxy was busy). */
const RETRY_STATUS = /*#__PURE__*/ new Set([408, 425, 429, 500, 502, 503, 504]);
/** Headers of the first request that a reconnect (a GET) does not repeat. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "transfer-encoding"];

/** What `fromFetch` returns: `fromResponse`'s events, message and snapshot, `stop()`, and where the stream is kept. */
export interface FetchEvents extends ResponseEvents {
  /**
   * Where the server keeps the stream (its `Content-Location`, absolute), once the first answer came;
   * null when it keeps none, the answer was refused or failed, or the place is not trusted (another
   * origin, or an answer a redirect brought from another origin). Save it to come back after a page
   * reload: `fromFetch(location, { headers })` (a GET with the same credentials) reads the stream again
   * from its first event, and its `stop()` stops it.
   */
  readonly location: Promise<string | null>;
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

/** A `Content-Location` not trusted: where it pointed, and why. */
interface Refused {
  refused: string;
  why: string;
}

/**
 * Where to resume: `Content-Location`, trusted only from the origin the caller asked, and only on it.
 * The request's headers (its credentials) go with every reconnect and with `stop()`'s DELETE, so they
 * must never go to another origin, whatever the answer says; and an answer from another origin (a
 * redirect led there: fetch dropped `Authorization` on the way) may not name a URL on the origin
 * asked either, or it would choose where the credentials go. The origin that answered is the
 * response's URL after redirects; a response without one (a fetch of the caller's own that re-wraps
 * responses) is taken as the URL asked's, since nothing tells a redirect then.
 */
function resumeTarget(header: string | null, response: Response, input: RequestInfo | URL): { url: string } | Refused | null {
  if (!header) return null;
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  const asked = absolute(urlOf(input), page);
  const answeredBy = response.url ? absolute(response.url, page) : asked;
  const target = absolute(header, answeredBy?.href, page);
  if (!asked || !answeredBy || !target) return { refused: header, why: "it is no URL" };
  if (answeredBy.origin !== asked.origin) {
    return { refused: target.href, why: `the answer came from ${answeredBy.origin}, not from the origin asked (a redirect led there)` };
  }
  return target.origin === asked.origin && target.origin !== "null"
    ? { url: target.href }
    : { refused: target.href, why: "it names another origin" };
}

/** What became of one connection. */
type Outcome =
  | { kind: "complete" } // [DONE]: the reader wants no more
  | { kind: "stopped" } // the reading ended on our side (the reader failed, was cancelled or aborted)
  | { kind: "cut"; error: unknown } // the body failed (a network error), or stalled for idleTimeoutMs
  | { kind: "ended" }; // the body ended: for the loop to judge (an NDJSON stream after its stop event is complete)

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
    const many = misplaced.length > 1;
    throw new TypeError(
      `fromFetch: ${misplaced.map((k) => `init.${k}`).join(", ")} ${many ? "are options" : "is an option"} of fromFetch, not of fetch: ` +
        `pass ${many ? "them" : "it"} as the third argument, fromFetch(url, init, { ${misplaced.join(", ")} })`,
    );
  }
  checkOptions("fromFetch", options, FROM_FETCH_OPTIONS);
  const asked = options.reconnect;
  const reconnect = asked === false ? false : { retries: asked?.retries ?? 3, delayMs: asked?.delayMs ?? 250 };
  const client = options.client ?? producerOf(urlOf(input));
  const doFetch = options.fetch ?? ((i: RequestInfo | URL, n?: RequestInit) => globalThis.fetch(i, n));

  // `aborted`: the caller's signals; `stop`: everything ends (also when the reading is over)
  const aborted = new AbortController();
  follow(aborted, options.signal);
  follow(aborted, init.signal);
  const stop = new AbortController();
  follow(stop, aborted.signal);

  // ONE reader for every connection: the fused core, framed as fromResponse frames a body once the
  // first answer came (its format and headers are known only then)
  const core = new ReconnectingCore({
    client,
    maxEventBytes: options.maxEventBytes,
    maxDepth: options.maxDepth,
    maxItems: options.maxItems,
  });
  // (no idleTimeoutMs here: it is per connection, below; the reader's own would count the waits between them)
  const reader = new ReaderStream<Uint8Array | typeof NEXT_CONNECTION, UniEvent>(core, core, { signal: aborted.signal });
  const writer = reader.writable.getWriter();
  // the read ended (the [DONE], a failure, the caller cancelled or left): nothing more is fetched
  writer.closed.then(
    () => stop.abort(),
    () => stop.abort(),
  );
  const fail = (error: unknown): void => {
    writer.abort(error).catch(() => {});
    stop.abort(error);
  };
  const finish = (): void => void writer.close().catch(() => {});

  const idleMs = options.idleTimeoutMs;
  /** A read of a body, failing with the idle error when no byte came for idleTimeoutMs (a wait for the reader does not count). */
  const nextChunk = (body: ReadableStreamDefaultReader<Uint8Array>): Promise<ReadableStreamReadResult<Uint8Array>> => {
    if (idleMs === undefined) return body.read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(idleError(idleMs)), idleMs);
    });
    return Promise.race([body.read(), stalled]).finally(() => clearTimeout(timer));
  };

  /**
   * Pumps one connection's body into the reader, by hand (not `pipeTo`: every promise is handled
   * here, and workerd reports the pipe of an erroring source as an unhandled rejection; and the
   * reader stays open across bodies). `resumed`: a reconnect's body, after the boundary.
   */
  const read = async (response: Response, resumed: boolean): Promise<Outcome> => {
    if (stop.signal.aborted) return { kind: "stopped" };
    const body = (response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() })).getReader();
    const onStop = (): void => void body.cancel(stop.signal.reason).catch(() => {});
    stop.signal.addEventListener("abort", onStop, { once: true });
    let bytes = 0;
    try {
      if (resumed) await writer.write(NEXT_CONNECTION);
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await nextChunk(body);
        } catch (error) {
          // a network error (a ConnectionError, as fromResponse's), or a connection silent for idleTimeoutMs (a proxy that dropped it quietly): a cut
          if (stop.signal.aborted) return { kind: "stopped" };
          return { kind: "cut", error: cutError(error, response.url || urlOf(input), bytes, reader.outputs) };
        }
        if (chunk.done) return { kind: "ended" };
        bytes += chunk.value?.byteLength ?? 0;
        await writer.write(chunk.value);
        if (core.finished) return { kind: "complete" };
      }
    } catch {
      return { kind: "stopped" }; // a write refused: the reader failed, or its reader cancelled it
    } finally {
      stop.signal.removeEventListener("abort", onStop);
      body.cancel().catch(() => {});
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
    if (!headers.has("accept")) headers.set("accept", core.format === "ndjson" ? "application/x-ndjson" : "text/event-stream");
    // the index of the last event received (the relay's SSE ids are the same indexes); none yet: from the start
    if (core.records > 0) headers.set("last-event-id", String(core.records - 1));
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
        message: `HTTP ${response.status || 3}xx: the kept stream answered with a redirect, ` +
          "which fromFetch does not follow (the request's headers would go with it)",
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
    // read as fromResponse reads it: the format asked, else the one Content-Type names, else the bytes tell ("auto")
    const contentType = response.headers.get("content-type");
    core.answer(options.format ?? formatFromContentType(contentType) ?? "auto", {
      contentType,
      contentEncoding: response.headers.get("content-encoding"),
      status: response.status,
    });
    const target = resumeTarget(response.headers.get("content-location"), response, input);
    const location = target && "url" in target ? target.url : null;
    kept = location;
    answered();
    let attempts = 0;
    for (let resumed = false;; resumed = true) {
      const before = core.records;
      const outcome = await read(response, resumed);
      if (outcome.kind === "stopped" || outcome.kind === "complete") return; // (at [DONE] the reader closed itself)
      // an NDJSON stream has no [DONE]: the end of a body after its stop event completes it
      if (outcome.kind === "ended" && core.format === "ndjson" && core.message() !== undefined) return finish();
      if (core.records > before) attempts = 0;
      // a cut: reconnect, if the answer said where and attempts are left
      let problem: Outcome = outcome;
      for (;;) {
        if (stop.signal.aborted) return;
        if (target && "refused" in target && reconnect !== false) {
          return fail(
            new MmspError(
              `fromFetch: the connection broke and the answer's place to resume at is not trusted (Content-Location: ${target.refused}): ${target.why}; ` +
                "fromFetch resumes only on the origin it asked, from an answer of that origin, so that the request's credentials never go elsewhere: the stream cannot be resumed",
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
  const cancelled = (detail: string): void => fail(cancelledError(client, detail));
  // the read has ended (the reader closed or failed, or the caller left): `stop` aborts then. (Not
  // `message.then`: awaiting message drains a readable nobody reads.)
  const ended = new Promise<void>((
    resolve,
  ) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener("abort", () => resolve(), { once: true })));
  const stopGeneration = async (): Promise<void> => {
    await Promise.race([answer, ended]);
    if (kept) {
      let refused: unknown;
      try {
        // (404: the stream is gone already, ended or expired: nothing runs to cancel)
        const response = await doFetch(kept, streamInit("DELETE", undefined));
        if (response.ok || response.status === 404) await response.body?.cancel();
        else refused = await refusal(response);
      } catch (error) {
        refused = connectionError(error, kept);
      }
      if (refused !== undefined) {
        cancelled("the read was stopped by the client; the server did not cancel the generation");
        await ended;
        throw refused;
      }
      // the server ends the stream for every viewer: let ours read that end, as theirs do
      await within(ended, STOP_GRACE_MS);
    }
    cancelled("the stream was stopped by the client");
    return ended;
  };

  const { readable, message, snapshot, subscribe } = reader;
  return {
    readable,
    message,
    snapshot,
    subscribe,
    location: answer.then(() => kept ?? null),
    get timings() {
      return reader.timings;
    },
    stop: stopGeneration,
  };
}
