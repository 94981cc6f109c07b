// Routing: SPEC §10 "The provider's problems stay the operator's" (one target of a row asked: its
// provider's request and stream, its refusals the client's or the operator's, the relay's bounds).
//
// A row's target (models.ts) asked for an MMSP request: the client's config within the row's
// (ceilings.ts) → provider.request() (the client's request or an UnsupportedParameterError: 400; else
// the operator's: 502) → provider.stream(request, { signal, the relay's bounds }) → a refusal before
// any event: the relay's refusal (the provider's status, MMSP's type), except what is the operator's
// (401/403, a redirect, no connection: 502 UpstreamUnavailable, logged). fallback.ts and
// continuation.ts ask each target here.
import { passing } from "../reads.js";
import { UnsupportedParameterError, UpstreamError } from "../../errors.js";
import type { Provider } from "../../providers/provider.js";
import type { UniConfig } from "../../providers/request.js";
import { jsonEqual } from "../../internal/values.js";
import { batchesOf, type ProviderBatches } from "../../providers/batches.js";
import { isRequestError } from "../../providers/request-error.js";
import type { UniEvent, UniMessage } from "../../schema.js";
import { configWithin } from "./ceilings.js";
import { refusal } from "../refusal.js";
import type { Limits } from "../admission/limits.js";
import { withoutAddresses } from "./redact.js";
import { secretsOf, UpstreamUnavailable, withoutSecrets } from "./secrets.js";
import { type MmspBody, type RelayModel } from "./models.js";
import { PassedBytes, passedRequest, type PassThrough } from "./pass-through.js";

/**
 * A provider's problem that is the operator's (SPEC §10: its refusal of the operator's key, its
 * redirect, a request the provider's options could not make): the client gets a 502 that quotes
 * none of it, the log has it (secrets already cut out; addresses cut out of what is no refusal).
 */
function operatorsProblem(error: unknown, provider: string, what: string): Response {
  const detail = error instanceof UpstreamError
    ? `HTTP ${error.status ?? "3xx"} ${error.errorType}: ${error.message} ${JSON.stringify(error.error) ?? ""}`
    : withoutAddresses(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  console.error(`relay: the provider (${provider}) ${what}: ${detail}`);
  return refusal(
    502,
    "UpstreamUnavailable",
    `The provider (${provider}) ${what}: the relay's operator must fix it (its log has the details).`,
  );
}

/**
 * The refusal the relay answers for an error raised before any event (or null: not a refusal, the
 * stream says it). What a client reads is the package's words or the provider's about the client's
 * request (its status and type, the provider's message without keys or addresses); never the
 * provider's refusal of the operator's key, its redirect, nor a text the package did not write
 * (withoutSecrets made those an UpstreamUnavailable).
 */
function refusalOf(error: unknown, provider: string): Response | null {
  if (error instanceof UnsupportedParameterError) {
    return Response.json({ error: { type: "UnsupportedParameterError", message: error.message, parameter: error.parameter } }, {
      status: 400,
    });
  }
  if (error instanceof UpstreamUnavailable) return refusal(502, "UpstreamUnavailable", error.message);
  if (!(error instanceof UpstreamError)) return null;
  const { status } = error;
  // (a status of null with HTTPError: an opaque redirect, whose status a browser's fetch hides)
  const redirect = status === null ? error.errorType === "HTTPError" : status >= 300 && status < 400;
  if (redirect) return operatorsProblem(error, provider, "answered with a redirect, which the relay does not follow");
  if (status === 401 || status === 403) return operatorsProblem(error, provider, `refused the relay's credentials (HTTP ${status})`);
  if (status === null) return null; // an error event of the provider's stream: the stream carries it
  const message = withoutAddresses(error.message);
  return status >= 400 && status <= 599
    ? refusal(status, error.errorType ?? "HTTPError", message)
    : refusal(502, "UpstreamUnavailable", message);
}

/**
 * A provider chunk spells about twice the bytes of the event it becomes (ids, model, nulls on every
 * token); a provider's body may be this many times MAX_STREAM_BYTES, so the object's own bound on
 * what it stores comes first for an ordinary answer, and bytes that make no event stop here.
 */
const READ_PER_STORED = 4;

/** What the relay's bounds allow a provider's reader (SPEC §9: what it holds counts as it arrives). */
export function providerLimits(
  bounds: Pick<Limits, "eventBytes" | "events" | "streamBytes">,
): { maxEventBytes: number; maxItems: number; maxResponseBytes: number } {
  return { maxEventBytes: bounds.eventBytes, maxItems: bounds.events, maxResponseBytes: READ_PER_STORED * bounds.streamBytes };
}

/** The provider's own error behind one a client may see (withoutSecrets' UpstreamUnavailable): what fallback.ts judges. */
const causes = new WeakMap<object, unknown>();
/** The provider's own error behind `error` (the error itself when it was passed on as it was). */
export const causeOf = (error: unknown): unknown => (typeof error === "object" && error !== null ? causes.get(error) ?? error : error);
/** `error` as a client may see it, its cause kept for causeOf. */
function seen(error: unknown, secrets: readonly string[], provider: string): unknown {
  const out = withoutSecrets(error, secrets, provider);
  if (out !== error && typeof out === "object" && out !== null) causes.set(out, error);
  return out;
}

/**
 * A target's stream once asked: its provider's events, read one array per provider chunk
 * (providers/batches.ts: no read per event), and the first read (the first chunk's events, the end, or an error).
 */
export interface StartedTarget {
  provider: Provider;
  events: ProviderBatches;
  reader: ReadableStreamDefaultReader<UniEvent[]>;
  /** The request's secrets (its key), cut out of every error the stream carries. */
  secrets: readonly string[];
  first: ReadableStreamReadResult<UniEvent[]> | { error: unknown };
  /** The provider's own bytes, when the client's request was passed through (pass-through.ts) and a first event came. */
  bytes?: PassedBytes;
}

/** What asking a target came to: its stream, or a refusal before any event (with the error that made it, when one did). */
export type TargetStart = { started: StartedTarget } | {
  refused: Response;
  error?: unknown;
};

/** How a target is asked: the watchdog's deadlines, and the assistant text it continues (continuation.ts). */
export interface AskOptions {
  stallMs?: number;
  /** The first read's wait: resolves to the read, or to `late()`'s error when the deadline passed (watchdog.ts). */
  firstRead?: (
    read: Promise<ReadableStreamReadResult<UniEvent[]>>,
  ) => Promise<ReadableStreamReadResult<UniEvent[]> | { error: unknown }>;
  /** The answer so far, asked to be continued: sent as the final assistant message. */
  prefix?: string;
  /**
   * The output the provider is asked for at most (`max_tokens`): what the request's claim reserved
   * (what is left of it, for a continuation), or the client's / the row's when lower.
   */
  maxTokens?: number;
  /** The client's own request, asked of a target of its API as written (pass-through.ts); not with a prefix. */
  passThrough?: PassThrough;
}

/**
 * Asks one target for `body` (model id and defaults from the target): its stream and first read, or
 * the refusal to answer. `signal` aborts the provider's request (a DELETE, a bound, a fallback);
 * `bounds` are the relay's, passed to the provider's reader, so that what it holds back (tool calls
 * waiting for their turn, an event with no line end) and what it reads stop at them.
 */
export async function startTarget(
  target: RelayModel,
  body: MmspBody,
  signal: AbortSignal,
  bounds: Pick<Limits, "eventBytes" | "events" | "streamBytes">,
  ask: AskOptions = {},
): Promise<TargetStart> {
  const { provider } = target;
  const config = configWithin(target.config, target.allow, body.config);
  if (config instanceof Response) return { refused: config };
  // (every provider is asked for a limit, never more than the claim reserved: usage-estimate.ts)
  if (ask.maxTokens !== undefined) {
    const own = config.max_tokens;
    config.max_tokens = typeof own === "number" && own < ask.maxTokens ? own : ask.maxTokens;
  }
  const messages = ask.prefix === undefined ? body.messages : [
    ...body.messages,
    {
      role: "assistant",
      content_items: [{ type: "text.done", text: ask.prefix }],
    } as UniMessage,
  ];
  const pass = ask.passThrough !== undefined && ask.passThrough.provider === provider.name && ask.prefix === undefined
    ? ask.passThrough
    : undefined;
  let request: Request;
  let alone: Request | undefined; // (passed through with a row's config: the builder's request from the client's config alone)
  try {
    // (the row's foreignThinking passes to the builder as is: the provider's rule, history.ts)
    const history = target.foreignThinking === undefined ? undefined : { foreignThinking: target.foreignThinking };
    request = provider.request(
      { model: target.model, messages, config },
      history,
    );
    if (pass !== undefined && target.config !== undefined) {
      // (built again only when the row's config adds to the client's: a row of a max_tokens ceiling alone never does)
      const own = Object.assign(Object.create(null) as UniConfig, body.config, { max_tokens: config.max_tokens });
      if (!jsonEqual(own, config)) alone = provider.request({ model: target.model, messages, config: own }, history);
    }
  } catch (e) {
    // the client's own request (its shape, its content): the package's words, naming the client's fields
    if (isRequestError(e)) {
      return { refused: refusal(400, "InvalidRequestError", e.message) };
    }
    // anything else but an UnsupportedParameterError is the operator's (a row, the provider's options)
    return {
      refused: refusalOf(e, provider.name) ??
        operatorsProblem(
          e,
          provider.name,
          "could not be asked: the relay could not make its request",
        ),
    };
  }
  let bytes: PassedBytes | undefined;
  if (pass !== undefined) {
    const built = await request.clone().json() as Record<string, unknown>;
    request = passedRequest(request, built, pass, alone === undefined ? built : await alone.json() as Record<string, unknown>);
    bytes = new PassedBytes(request, pass);
  }
  const stallMs = ask.stallMs === undefined ? {} : { stallMs: ask.stallMs };
  const events = batchesOf(provider, request, {
    signal,
    ...providerLimits(bounds),
    ...stallMs,
  });
  events.message.catch(() => {}); // (the readable carries its failure; the message is not read here)
  const reader = events.readable.getReader();
  // the first event (or the refusal) decides the status: a refusal comes before any stream byte
  const secrets = secretsOf(request);
  let first: StartedTarget["first"];
  try {
    first = await (ask.firstRead ? ask.firstRead(reader.read()) : reader.read());
  } catch (e) {
    first = { error: e };
  }
  if ("error" in first) {
    const error = seen(first.error, secrets, provider.name);
    const refused = refusalOf(error, provider.name);
    if (refused) return { refused, error };
    first = { error };
  }
  const passed = bytes !== undefined && !("error" in first) && !first.done ? { bytes } : {};
  return { started: { provider, events, reader, secrets, first, ...passed } };
}

/**
 * A started target's events (one array per provider chunk) from its first read on; its errors without
 * its secrets (see secrets.ts). Its reads may be taken directly (reads.ts: no stream hop per read).
 */
export function targetEvents(
  { provider, reader, secrets, first }: StartedTarget,
): ReadableStream<UniEvent[]> {
  let head: StartedTarget["first"] | null = first;
  const unseen = (e: unknown): never => {
    throw seen(e, secrets, provider.name); // (stored as the stream's last event: see secrets.ts)
  };
  const read = (): Promise<ReadableStreamReadResult<UniEvent[]>> => {
    if (head === null) return reader.read().catch(unseen);
    const given = head;
    head = null;
    return "error" in given ? Promise.reject(given.error) : Promise.resolve(given);
  };
  // (a cancel after the provider's stream failed rejects with that failure: already told, not thrown again)
  return passing(read, (reason) => reader.cancel(reason).catch(() => {}));
}
