/**
 * A provider made by its factory (`openaiChat({ apiKey })`, `anthropic({ apiKey })`): it builds the
 * provider's request from MMSP's request shape and streams it — web `fetch`, the answer read by the
 * provider's reader (read.ts), `stop()` to end the generation. What every factory shares lives here:
 * the options checked at the boundary, the key sent only to the base URL's origin (no redirect
 * followed, another origin's request refused, the key cut out of a refusal: internal/secrets.ts), the fetch and
 * its errors.
 */
import { UpstreamError } from "../errors.js";
import type { ResponseEvents } from "../from-response.js";
import type { UsageMetadata } from "../schema.js";
import { follow } from "../internal/abort.js";
import { type EventsOf, streamedEvents } from "../internal/answer-events.js";
import type { ReaderStream } from "../internal/reader-stream.js";
import { registerBatches } from "./batches.js";
import { tappedBody } from "./byte-tap.js";
import { fail } from "../internal/describe.js";
import { cancelledError, connectionError } from "../internal/http.js";
import { checkOptions, FUNCTION, type OptionSpec, PROVIDER_STREAM_OPTIONS, type Rule } from "../internal/options.js";
import { cutSecrets, errorWithoutSecrets, secretsOf } from "../internal/secrets.js";
import { isRecord, ownMembers, ownValue } from "../internal/values.js";
import type { BodyContext } from "../framing/framer.js";
import { bodyContext, ProviderBatchStream, providerStream, type ProviderStreamOptions } from "./read.js";
import { providerRefusal } from "./refusal.js";
import { FOREIGN_THINKING, type HistoryOptions } from "./history.js";
import { checkRequest, type MmspRequest, type UniConfig } from "./request.js";
import { requestError } from "./request-error.js";
import type { ProviderSpec } from "./spec.js";
import { ChatSpan, TRACER, type TraceTracer } from "./tracing.js";
import { countWith, type TokenCounter } from "./count.js";

/** What every provider's factory takes. */
export interface ProviderOptions {
  /** The provider's API key: sent only to `baseURL`'s origin, in the provider's own header. */
  apiKey: string;
  /** The API's base URL (an OpenAI- or Anthropic-compatible server, a gateway); default the provider's own. */
  baseURL?: string;
  /** Replaces the global `fetch`. */
  fetch?: typeof fetch;
  /** Extra request headers (the key's header and `content-type` are the provider's and cannot be replaced). */
  headers?: Record<string, string>;
  /**
   * Another provider's thinking in the history (SPEC §9 "Where each item came from"): left out of the
   * request (`"drop"`, default) or sent as plain text (`"text"`); a `request()` may say otherwise.
   */
  foreignThinking?: HistoryOptions["foreignThinking"];
  /**
   * An OpenTelemetry tracer (`trace.getTracer("my-app")` of `@opentelemetry/api`): one span per
   * `stream()`, `chat <model>`, with the GenAI semantic conventions' attributes, as the relay's
   * (SPEC §10 "Traces"; never content or a key). Default: none, and nothing of OpenTelemetry is loaded.
   */
  tracer?: TraceTracer;
}

/** What `stream()` returns: `fromProviderResponse`'s events, and `stop()`. */
export interface ProviderEvents extends ResponseEvents {
  /**
   * Ends the generation: aborts the request (the provider stops when its caller goes away) and ends
   * the readable and `message` with the `StreamCancelled` error, as `fromFetch`'s `stop()` does (an
   * `UpstreamError`, `errorType` `"StreamCancelled"`: a Stop, not a failure); `snapshot()` keeps what
   * arrived. Resolves once the read has ended (at once: nothing is asked of the provider).
   */
  stop(): Promise<void>;
  /**
   * The counts the provider reported so far, merged (null before any): Anthropic's input at
   * `message_start`, Gemini's on each chunk, the whole usage once the stop event came. What an answer
   * stopped or cut before its end cost, as far as the provider said (a getter; a copy).
   */
  readonly reportedUsage: UsageMetadata | null;
}

/** A provider: its name, its request builder and its stream. */
export interface Provider {
  /** The provider's name (`"openai-chat"`, `"anthropic"`): the `client` of its errors. */
  readonly name: string;
  /**
   * MMSP's request → the provider's streaming HTTP request (URL, headers with the key, JSON body).
   * Throws `UnsupportedParameterError` for a setting or content the provider has no such thing for,
   * a `TypeError` for a request that is not MMSP's shape. `options.foreignThinking` replaces the factory's.
   */
  request(request: MmspRequest, options?: HistoryOptions): Request;
  /**
   * Fetches the request (MMSP's shape, built by `request()`, or a `Request` it built) and reads the
   * answer; a refusal is the readable's and `message`'s `UpstreamError`, a failed connection a
   * `ConnectionError`.
   */
  stream(request: Request | MmspRequest, options?: ProviderStreamOptions): ProviderEvents;
  /**
   * Whether it continues a request's final assistant message instead of starting a new one (SPEC §10
   * "Fallbacks": a relay may continue a cut answer with it): Anthropic Messages (prefill), an
   * OpenAI-compatible server made with `continueFinalMessage: true`.
   */
  readonly continuesPrefix?: boolean;
  /**
   * The provider's own count of a request's input tokens: the request `request()` builds (its key,
   * its body) sent to the API's counter — Anthropic's `/v1/messages/count_tokens`, Gemini's
   * `:countTokens`, the Responses API's `/responses/input_tokens` (count.ts). Absent for a provider
   * without one (an OpenAI-compatible Chat server). A refusal rejects with the provider's `UpstreamError`,
   * a failed connection with a `ConnectionError`, as `stream()` would.
   */
  countTokens?(request: MmspRequest, options?: HistoryOptions & { signal?: AbortSignal }): Promise<number>;
}

/** What a provider's own module gives the shared factory. */
export interface ProviderParts {
  spec: ProviderSpec;
  /** The default base URL and the path the streaming endpoint has below it (Gemini's names the model). */
  baseURL: string;
  path: string | ((model: string) => string);
  /** Whether the API continues a final assistant message (see `Provider.continuesPrefix`). */
  continuesPrefix?: boolean;
  /** The API's counter of input tokens, if it has one (count.ts). */
  counter?: TokenCounter;
  /** The headers carrying the key (and the provider's version headers). */
  auth(apiKey: string): Record<string, string>;
  /** The JSON body (and extra headers) of MMSP's request; `history` says what to do with another provider's items. */
  body(
    model: string,
    request: MmspRequest,
    config: UniConfig,
    history: HistoryOptions,
  ): { body: Record<string, unknown>; headers?: Record<string, string> };
}

/** The base URL's type only: its value is checked in `checkBaseURL`, whose message never shows it. */
const HTTP_URL: Rule = { must: "an http(s) URL", type: (v) => typeof v === "string" };

/**
 * The base URL: http(s), without `user:password@` (a fetch refuses such a URL and its message quotes
 * it; a credential goes in `apiKey` or `headers`). A refused URL is not shown: it may hold a password.
 */
function checkBaseURL(name: string, base: string | undefined): void {
  let url: URL | undefined;
  try {
    url = base === undefined ? undefined : new URL(base);
  } catch {
    // (refused below)
  }
  if (base !== undefined && (!url || !/^https?:$/.test(url.protocol) || url.username !== "" || url.password !== "")) {
    throw new RangeError(
      `${name}: options.baseURL must be an http(s) URL without user:password@ (a credential goes in apiKey or headers); received a string (not shown)`,
    );
  }
}
const HEADERS: Rule = {
  must: "an object of header names to strings",
  type: (v) => isRecord(v) && Object.values(v).every((x) => typeof x === "string"),
};
/** The key's type only: its value is checked in `checkKey`, whose messages never show it. */
const API_KEY: Rule = { must: "a string", type: (v) => typeof v === "string" };

/** A key goes in a header: printable ASCII only (a pasted "…" or a line break fails here, not in fetch), never echoed. */
function checkKey(name: string, key: unknown): asserts key is string {
  if (key === undefined) throw new TypeError(`${name}: options.apiKey is required (the provider's API key)`);
  const bad = (key as string).search(/[^\x21-\x7e]/);
  if (key === "") throw new RangeError(`${name}: options.apiKey must be a non-empty string`);
  if (bad >= 0) {
    throw new RangeError(`${name}: options.apiKey holds a character a header cannot carry at index ${bad} (the key is not shown)`);
  }
}
/** The factories' options (each provider adds its own). */
export const PROVIDER_OPTIONS: OptionSpec = {
  apiKey: API_KEY,
  baseURL: HTTP_URL,
  fetch: FUNCTION,
  headers: HEADERS,
  foreignThinking: FOREIGN_THINKING,
  tracer: TRACER,
};

/** A direct stream()'s span (providers/tracing.ts, the relay's too), fed by the stream's own snapshot and message: its readable is not touched. */
function traced(chat: ChatSpan, events: Omit<ResponseEvents, "readable">): void {
  const off = events.subscribe(() => {
    chat.chunk();
    off();
  });
  events.message.then((m) => {
    chat.stop(m);
    chat.end();
  }, (e) => chat.fail(e)).finally(off);
}

/** The provider a factory makes: `name` is the factory's (for the messages), `options` checked here. */
export function makeProvider(name: string, parts: ProviderParts, options: ProviderOptions, extra: OptionSpec = {}): Provider {
  if (!isRecord(options)) fail(TypeError, `${name}: options`, "an object { apiKey, baseURL?, fetch?, headers? }", options);
  checkOptions(name, options, { ...PROVIDER_OPTIONS, ...extra });
  // own members only: a polluted Object.prototype never sets the key's destination or headers (issue #34)
  options = ownMembers(options);
  checkKey(name, options.apiKey);
  checkBaseURL(name, options.baseURL);
  const { spec } = parts;
  const base = (options.baseURL ?? parts.baseURL).replace(/\/+$/, "");
  const urlOf = (model: string): string => base + (typeof parts.path === "string" ? parts.path : parts.path(model));
  const origin = new URL(base).origin;
  const apiKey = options.apiKey;
  const doFetch = options.fetch ?? ((input: Request, init?: RequestInit) => fetch(input, init));

  /** What a span needs of the requests this provider built (a Request given to stream() names no model otherwise). */
  const asked = new WeakMap<Request, { model: string; maxTokens: unknown }>();

  const request = (mmsp: MmspRequest, history: HistoryOptions = {}): Request => {
    checkOptions(`${name}().request`, history, { foreignThinking: FOREIGN_THINKING });
    const foreignThinking = history.foreignThinking ?? options.foreignThinking;
    let built: ReturnType<ProviderParts["body"]>;
    try {
      built = parts.body(mmsp.model, mmsp, checkRequest(`${name}().request`, mmsp), { foreignThinking });
    } catch (e) {
      throw requestError(e); // (about the request given: a relay may tell its client, request-error.ts)
    }
    const body = built.body;
    const headers = ownValue(built, "headers"); // (a builder that adds none: not what Object.prototype may hold)
    // set one by one, so that a header given in another case is replaced, not joined to the key's
    const all = new Headers(options.headers);
    for (const [k, v] of Object.entries({ ...headers, ...parts.auth(apiKey), "content-type": "application/json" })) all.set(k, v);
    const made = new Request(urlOf(mmsp.model), {
      method: "POST",
      headers: all,
      body: JSON.stringify(body),
      // a redirect is not followed: the key's header would go wherever it points
      redirect: "manual",
    });
    if (options.tracer) asked.set(made, { model: mmsp.model, maxTokens: mmsp.config?.max_tokens });
    return made;
  };

  /** Fetches `input` and reads its answer with the reader `reader` makes (per event, or per chunk: batches.ts). */
  const opened = <O>(
    input: Request | MmspRequest,
    streamOptions: ProviderStreamOptions,
    reader: (
      options: ProviderStreamOptions,
      context: BodyContext,
    ) => ReaderStream<Uint8Array, O> & { readonly reportedUsage: UsageMetadata | null },
  ): EventsOf<O> & Pick<ProviderEvents, "stop" | "reportedUsage"> => {
    checkOptions(`${name}().stream`, streamOptions, PROVIDER_STREAM_OPTIONS);
    const req = input instanceof Request ? input : request(input);
    if (new URL(req.url).origin !== origin) {
      throw new TypeError(`${name}().stream: the request goes to ${new URL(req.url).origin}, not ${origin} (the provider's base URL)`);
    }
    const client = streamOptions.client ?? spec.name;
    const abort = new AbortController();
    follow(abort, streamOptions.signal);
    /** What the answer said of its body, filled in when it comes (the reader reads it at the end). */
    const context: BodyContext = {};
    /** Fetches; the answer's body (null: an answer without one). */
    const open = async (): Promise<ReadableStream<Uint8Array> | null> => {
      let response: Response;
      try {
        // (a Request given to stream() follows no redirect either: the key's header would go along)
        response = await doFetch(req, { signal: abort.signal, redirect: "manual" });
      } catch (e) {
        throw abort.signal.aborted ? abort.signal.reason : connectionError(e, req.url, true); // (any throw before headers: no answer)
      }
      if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
        response.body?.cancel().catch(() => {});
        const message = `HTTP ${
          response.status || "3xx"
        }: ${client} answered with a redirect, which is not followed (the API key goes to ${origin} only)`;
        throw new UpstreamError({
          client,
          status: response.status || null,
          errorType: "HTTPError",
          error: { type: "HTTPError", message },
          message,
        });
      }
      if (!response.ok) {
        // the key cut out of the body's text before its preview is cut, then out of what was parsed
        // (a JSON string may spell the key with escapes), as internal/secrets.ts says
        const secrets = secretsOf(req);
        throw errorWithoutSecrets(await providerRefusal(response, spec, client, (text) => cutSecrets(text, secrets)), secrets);
      }
      bodyContext(response, context);
      return tappedBody(req, response.body); // (a pass-through's bytes, when the relay asked: byte-tap.ts)
    };
    const reading = reader({ ...streamOptions, signal: abort.signal }, context);
    // The fetch is made at the first pull (a pipe pulls at once), not in an async start(): with it
    // there, workerd's pipe read the source as ended before the answer came (the workers project).
    const events = streamedEvents(open, req.url, reading, (reason) => abort.abort(reason));
    if (options.tracer) {
      traced(new ChatSpan(options.tracer, asked.get(req)?.model ?? "unknown", spec.name, asked.get(req)?.maxTokens), events);
    }
    return {
      readable: events.readable,
      message: events.message,
      snapshot: events.snapshot,
      subscribe: events.subscribe,
      get timings() {
        return events.timings;
      },
      get reportedUsage() {
        return reading.reportedUsage;
      },
      stop: () => {
        abort.abort(cancelledError(client, `the stream was stopped by the client: the request to ${client} was aborted`));
        return Promise.resolve(); // (the abort ended the reading synchronously: its signal is the reader's)
      },
    };
  };

  const stream = (input: Request | MmspRequest, streamOptions: ProviderStreamOptions = {}): ProviderEvents =>
    opened(input, streamOptions, (o, context) => providerStream(spec, o, context));
  const { counter } = parts;
  const countTokens = counter &&
    ((mmsp: MmspRequest, { signal, ...history }: HistoryOptions & { signal?: AbortSignal } = {}): Promise<number> => {
      const built = request(mmsp, history);
      const url = base + (typeof counter.path === "string" ? counter.path : counter.path(mmsp.model));
      return countWith(counter, { built, url, model: mmsp.model, fetch: doFetch, spec, client: spec.name, signal });
    });
  const provider: Provider = {
    name: spec.name,
    request,
    stream,
    continuesPrefix: parts.continuesPrefix === true,
    ...(countTokens ? { countTokens } : {}),
  };
  // (the same request and reader, its events read one array per provider chunk: a relay's stateless path)
  registerBatches(
    provider,
    (input, streamOptions = {}) => opened(input, streamOptions, (o, context) => new ProviderBatchStream(spec, o, context)),
  );
  return provider;
}
