// Routing: SPEC §10 "A row's settings are the operator's" and "The provider's problems stay the operator's" (the models table: a row,
// its targets, its provider's call).
//
// The relay as an MMSP server (createRelay's `models`): a table from the model names clients send to
// a provider made by mmsp-streams/providers, the provider's own model id and per-model defaults.
//
//   POST /v1/stream {model, messages, config}
//     → the table's own entry (unknown: 404 naming the known ones) → the client's config within the
//     row's (ceilings.ts, SPEC §10: over a ceiling or costlier than allowed, a 400)
//     → provider.request() (the client's request or an UnsupportedParameterError: 400; else the
//       operator's: 502) → provider.stream(request, { signal, the relay's bounds })
//     → a refusal before any event: the relay's refusal (the provider's status, MMSP's type), except
//       what is the operator's (401/403, a redirect, no connection: 502 UpstreamUnavailable, logged)
//     → else the UniEvents written as MMSP SSE: an upstream Response like an MMSP server's
//
// A row may be a list of targets: fallback.ts tries them in order (SPEC §10 "Fallbacks"), each asked
// here (startTarget); continuation.ts goes on with the next after a failure mid-answer.
//
// `modelsUpstream` is that path as an upstream of the kind createRelay already calls (upstream.ts),
// so the Durable Object path stays as it is: one provider request per stream, resume, DELETE
// aborting it (the signal), every bound. A request for a model the table does not name goes on to
// the relay's `upstream` when it has one. `GET /v1/models` lists the table as MMSP's server does.
import { UnsupportedParameterError, UpstreamError } from "../../errors.js";
import { fail } from "../../internal/describe.js";
import { BOOLEAN, checkOptions } from "../../internal/options.js";
import { isRecord } from "../../internal/values.js";
import type { Provider, ProviderEvents } from "../../providers/provider.js";
import { isRequestError } from "../../providers/request-error.js";
import { FOREIGN_THINKING, type ForeignThinking } from "../../providers/history.js";
import type { UniConfig } from "../../providers/request.js";
import type { UniEvent, UniMessage } from "../../schema.js";
import { checkRowSettings, configWithin, type RelayAllow } from "./ceilings.js";
import { refusal } from "../refusal.js";
import type { Limits } from "../admission/limits.js";
import { withoutAddresses } from "./redact.js";
import { secretsOf, UpstreamUnavailable, withoutSecrets } from "./secrets.js";
import { parseJsonText } from "../../internal/json.js";

/** One row of the models table: who answers a model name, as which of its models, with which defaults. */
export interface RelayModel {
  /**
   * The target's name in `x-mmsp-target` and the relay's log (`"claude-eu"`): 1 to 100 letters,
   * digits and `_ . : -`; default its index in the row (`"0"`, `"1"`…).
   */
  name?: string;
  /** The provider (`anthropic({ apiKey: env.ANTHROPIC_API_KEY })`, `openaiChat(…)`…). */
  provider: Provider;
  /** The provider's own model id (`"claude-haiku-4-5"`): what the provider is asked for. */
  model: string;
  /**
   * The operator's settings (SPEC §10, ceilings.ts): a client's `config` may lower a number here,
   * never raise it, and may not ask for what costs more than the row (`fast_mode`, a higher
   * `thinking_level`, tools it does not list…) unless `allow` names it; other keys are defaults.
   */
  config?: UniConfig;
  /** The costlier settings a client may ask for past `config` (`{ fast_mode: true, tools: true }`); none by default. */
  allow?: RelayAllow;
  /**
   * Another provider's thinking in the chat's history (a chat whose row changed provider): left out
   * (`"drop"`) or sent as plain text (`"text"`); default the provider factory's (SPEC §9).
   */
  foreignThinking?: ForeignThinking;
  /**
   * When this target fails after its first event (a cut, an overloaded or server error, a stall)
   * while the answer so far is text only, the next target of the row that can continue an assistant
   * prefix goes on with it in the same text (continuation.ts, SPEC §10); default false: the stream
   * ends with the error.
   */
  continueOnFailure?: boolean;
}

/** A row of the table: one target, or a list of targets tried in order (fallback.ts, SPEC §10 "Fallbacks"). */
export type RelayRow = RelayModel | readonly RelayModel[];

/** The models table: client-facing model names (in the order `GET /v1/models` lists them) → their rows. */
export type RelayModels = Readonly<Record<string, RelayRow>>;

/** The targets of a row, in the order they are tried. */
export const targetsOf = (row: RelayRow): readonly RelayModel[] => (Array.isArray(row) ? row : [row as RelayModel]);

/** createRelay's `models`: a table, or a function of the Worker's `env` that makes one (keys live there). */
export type RelayModelsOption<E> = RelayModels | ((env: E) => RelayModels);

/** The header that names the provider of an answer (`x-mmsp-provider: anthropic`), for the client and its logs. */
export const PROVIDER_HEADER = "x-mmsp-provider";
/** The header that names the row's target that served an answer (`x-mmsp-target: 1`, or the target's `name`). */
export const TARGET_HEADER = "x-mmsp-target";
/** What a target's `name` may be (it goes into a header and the log as it is). */
const TARGET_NAME = /^[\w.:-]{1,100}$/;

/** The name of the target at `index` of `row`: its `name`, else its index. */
export const targetName = (row: RelayRow, index: number): string => targetsOf(row)[index]?.name ?? String(index);

/** A table checked at the boundary: each row a provider, a model id, a config object (a `TypeError` naming the row otherwise). */
export function checkModels(table: unknown, where = "createRelay: `models`"): RelayModels {
  if (!isRecord(table)) fail(TypeError, where, "an object of model names to { provider, model, config? }", table);
  for (const [name, value] of Object.entries(table as Record<string, unknown>)) {
    if (name === "") throw new TypeError(`${where}: a model name must not be empty`);
    const list = Array.isArray(value);
    if (list && value.length === 0) throw new TypeError(`${where}[${JSON.stringify(name)}]: a list of targets must not be empty`);
    for (const [i, one] of (list ? value : [value]).entries()) checkTarget(one, `${where}[${JSON.stringify(name)}]${list ? `[${i}]` : ""}`);
  }
  return table as RelayModels;
}

/** One target of a row, checked (a `TypeError` naming it otherwise). */
function checkTarget(value: unknown, at: string): void {
  const row = value as Record<string, unknown>;
  if (!isRecord(row)) fail(TypeError, at, "an object { provider, model, config? }", row);
  const provider = row.provider as Partial<Provider> | undefined;
  if (!isRecord(provider) || typeof provider.request !== "function" || typeof provider.stream !== "function") {
    fail(TypeError, `${at}.provider`, "a provider made by mmsp-streams/providers (anthropic(), openaiChat()…)", provider);
  }
  if (typeof row.model !== "string" || row.model === "") {
    fail(TypeError, `${at}.model`, "the provider's model id, a non-empty string", row.model);
  }
  if (row.name !== undefined && (typeof row.name !== "string" || !TARGET_NAME.test(row.name))) {
    fail(TypeError, `${at}.name`, "1 to 100 letters, digits, _ . : or - (or left out: its index names it)", row.name);
  }
  if (row.config !== undefined && !isRecord(row.config)) {
    fail(TypeError, `${at}.config`, "an object of MMSP config defaults (or left out)", row.config);
  }
  checkRowSettings(row.config as UniConfig | undefined, row.allow, at);
  checkOptions(at, { foreignThinking: row.foreignThinking, continueOnFailure: row.continueOnFailure }, {
    foreignThinking: FOREIGN_THINKING,
    continueOnFailure: BOOLEAN,
  }, at);
}

/**
 * The table in effect for `env`: the option itself, or what its function makes of `env` — made and
 * checked once per `env` object (a Worker's env lives as long as its isolate), not per request.
 */
export function modelTable<E>(option: RelayModelsOption<E>): (env: E) => RelayModels {
  if (typeof option !== "function") {
    const table = checkModels(option);
    return () => table;
  }
  const made = new WeakMap<object, RelayModels>();
  return (env: E) => {
    const key = (env ?? made) as object;
    let table = made.get(key);
    if (table === undefined) made.set(key, table = checkModels(option(env), "createRelay: what `models(env)` returned"));
    return table;
  };
}

/**
 * The row of model `name`: the table's own enumerable entry (what checkModels checked and `GET
 * /v1/models` lists), never a member of Object.prototype (`constructor`, `__proto__`, `toString`).
 */
export function rowOf(table: RelayModels, name: string): RelayRow | undefined {
  return Object.prototype.propertyIsEnumerable.call(table, name) ? table[name] : undefined;
}

/** `GET /v1/models` (SPEC §1): the table's names in order, `created` the relay's start (Unix seconds). */
export function modelsList(table: RelayModels, created: number): Response {
  const data = Object.keys(table).map((id) => ({ id, object: "model", created, owned_by: "mmsp" }));
  return Response.json({ object: "list", data });
}

/** The 404 of a model the table does not name (SPEC §1's words, then the names it serves). */
export function unknownModel(model: string, table: RelayModels): Response {
  const known = Object.keys(table).map((name) => JSON.stringify(name)).join(", ") || "none";
  return refusal(
    404,
    "NotFoundError",
    `The model '${model.slice(0, 200)}' does not exist; GET /v1/models lists the models this server serves (${known}).`,
  );
}

/** An MMSP request body as the relay reads it: its model name, messages and config. */
export interface MmspBody {
  model: string;
  messages: UniMessage[];
  config: UniConfig;
}

/** The body parsed, or undefined when it is no JSON (the caller says what that means). */
function parsed(bytes: Uint8Array): unknown {
  try {
    return parseJsonText(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The `model` a body names, when it is a JSON object with a string `model` (what the table is asked about). */
export function modelOf(bytes: Uint8Array): string | undefined {
  const body = parsed(bytes);
  return isRecord(body) && typeof body.model === "string" ? body.model : undefined;
}

/** The body checked as MMSP's server checks it (SPEC §1: each refusal a 400 with its words), or that refusal. */
export function mmspBody(bytes: Uint8Array): MmspBody | Response {
  const body = parsed(bytes);
  const bad = (message: string): Response => refusal(400, "InvalidRequestError", message);
  if (!isRecord(body)) return bad("Request body must be a JSON object.");
  if (typeof body.model !== "string" || body.model === "") return bad("model must be a non-empty string.");
  if (!Array.isArray(body.messages)) return bad("messages must be a list of messages.");
  if (body.config !== undefined && body.config !== null && !isRecord(body.config)) return bad("config must be an object.");
  return { model: body.model, messages: body.messages as UniMessage[], config: (body.config ?? {}) as UniConfig };
}

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

/** A target's stream once asked: its provider's events and the first read (an event, the end, or an error). */
export interface StartedTarget {
  provider: Provider;
  events: ProviderEvents;
  reader: ReadableStreamDefaultReader<UniEvent>;
  /** The request's secrets (its key), cut out of every error the stream carries. */
  secrets: readonly string[];
  first: ReadableStreamReadResult<UniEvent> | { error: unknown };
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
    read: Promise<ReadableStreamReadResult<UniEvent>>,
  ) => Promise<ReadableStreamReadResult<UniEvent> | { error: unknown }>;
  /** The answer so far, asked to be continued: sent as the final assistant message. */
  prefix?: string;
  /**
   * The output the provider is asked for at most (`max_tokens`): what the request's claim reserved
   * (what is left of it, for a continuation), or the client's / the row's when lower.
   */
  maxTokens?: number;
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
  let request: Request;
  try {
    // (the row's foreignThinking passes to the builder as is: the provider's rule, history.ts)
    const history = target.foreignThinking === undefined ? undefined : { foreignThinking: target.foreignThinking };
    request = provider.request(
      { model: target.model, messages, config },
      history,
    );
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
  const stallMs = ask.stallMs === undefined ? {} : { stallMs: ask.stallMs };
  const events = provider.stream(request, {
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
  return { started: { provider, events, reader, secrets, first } };
}

/** A started target's events from its first read on; its errors without its secrets (see secrets.ts). */
export function targetEvents(
  { provider, reader, secrets, first }: StartedTarget,
): ReadableStream<UniEvent> {
  return new ReadableStream<UniEvent>({
    start(controller) {
      if ("error" in first) controller.error(first.error);
      else if (first.done) controller.close();
      else controller.enqueue(first.value);
    },
    async pull(controller) {
      let r: ReadableStreamReadResult<UniEvent>;
      try {
        r = await reader.read();
      } catch (e) {
        throw seen(e, secrets, provider.name); // (stored as the stream's last event: see secrets.ts)
      }
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    // (a cancel after the provider's stream failed rejects with that failure: already told, not thrown again)
    cancel: (reason) => reader.cancel(reason).catch(() => {}),
  }, { highWaterMark: 0 });
}
