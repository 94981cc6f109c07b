// createRelay(): the relay as a library. A Worker's fetch handler for the public routes and the
// Durable Object class that keeps each stream (stream-object.ts), both made from one set of options:
//
//   POST   /v1/stream          creates a stream: admitted (key, 415, 413; the `authorize` hook), then a
//                              new object makes the one upstream request and answers the stream from
//                              event 0; `Content-Location: /v1/streams/<id>` names it
//   GET    /v1/streams/<id>    resumes it (`Last-Event-ID: <n>` or `?last_event_id=<n>`)
//   DELETE /v1/streams/<id>    cancels it (SPEC §8): the upstream request aborted, StreamCancelled (204)
//   POST /v1/responses …       the same, spoken as Open Responses (open-responses.ts): resume, cancel
//   GET    /v1/models          with a models table (models.ts): the models it serves (SPEC §1)
//   GET    /v1/usage           the caller's principal's ledger; `?all=1` with ADMIN_KEY every one's (ledger.ts)
//   OPTIONS *                  CORS preflights; every answer carries the CORS headers and nosniff
//
// Without the namespace binding (STREAMS) the relay is stateless: each POST streamed back as it comes,
// no resume, and a client that goes away cancels the upstream request. A request that makes the relay
// throw is a 500 refusal without a stack (the error goes to the log).
//
// A request's walk (SPEC §10): its principal (principal.ts: a key, `authorize`, or anonymous) → the
// body → for a model of the table: closed to anonymous callers unless opened (gate.ts), its claim
// on the principal's quota (quota.ts; the Durable Object of quota-object.ts, or this process) → the
// stream, whose object (or the stateless pipe) settles the claim when it ends (stream-cost.ts).
import { type BindEnv, bindingOfText, credentialsOf } from "./admission/bind.js";
import { type AnonymousOption, anonymousRate, checkAnonymous, closedRefusal, type GateEnv } from "./admission/gate.js";
import { type AddressEnv, checkAddressOptions, type ClientAddressFunction, clientAddressOf, noAddressRefusal } from "./admission/address.js";
import { usageList } from "./accounting/ledger.js";
import {
  adminRefusal,
  anonymousPrincipal,
  authorizationIsKey,
  checkPrincipalEnv,
  keyPrincipal,
  type PrincipalEnv,
  principalOfVerdict,
  RelayConfigError,
  type RelayPrincipal,
  type Resolved,
} from "./admission/principal.js";
import {
  checkQuotas,
  type Claim,
  ProcessQuotas,
  type Quota,
  type QuotaEnv,
  quotasOfVariable,
  type QuotaStore,
  refusedAnswer,
  type RelayQuotas,
} from "./accounting/quota.js";
import { DurableQuotas, RelayQuotaObject } from "./accounting/quota-object.js";
import { CLAIM_HEADER, metered, StreamCost, ticketFrom, ticketHeader } from "./accounting/stream-cost.js";
import { inputEstimate, outputReserve } from "./accounting/usage-estimate.js";
import {
  type MmspBody,
  mmspBody,
  modelOf,
  modelsList,
  modelTable,
  PROVIDER_HEADER,
  type RelayModelsOption,
  type RelayRow,
  rowOf,
  TARGET_HEADER,
  targetName,
  targetsOf,
  unknownModel,
} from "./routing/models.js";
import { servedAnswer } from "./routing/fallback.js";
import { reportedUsageOf } from "./routing/answer.js";
import { StreamTrace, type TraceTracer } from "./routing/tracing.js";
import { type WatchdogEnv, watchdogOf } from "./routing/watchdog.js";
import { type CorsEnv, preflight, withCors } from "./admission/cors.js";
import { follow } from "../internal/abort.js";
import type { UniEvent } from "../schema.js";
import { streamBack } from "./doors/mmsp/http.js";
import { refusal } from "./refusal.js";
import { limits, type LimitsEnv, readJsonBody, type RelayLimits } from "./admission/limits.js";
import type { RelayNamespace, RelayState } from "./platform.js";
import { lastEventId, newStreamId, STREAM_ID, streamIdOf, streamPath } from "./stream/resume.js";
import { BINDING_HEADER, RelayStreamObject, type StreamObjectConfig, URL_HEADER } from "./stream/stream-object.js";
import { callUpstream, openUpstream, type UpstreamFunction } from "./routing/upstream.js";
import { isHttpUrl } from "./routing/redact.js";
import { ownMembers, ownValue } from "../internal/values.js";
import { META_HEADER, openResponsesRoutes } from "./doors/open-responses/door.js";
import { parseJsonText } from "../internal/json.js";

/** A JSON body's value (admit read it within the bounds; not JSON: undefined, refused by the translation). */
function parsedJson(bytes: Uint8Array): unknown {
  try {
    return parseJsonText(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * The variables and bindings the relay reads (wrangler.toml `[vars]`, secrets, bindings); every one
 * is optional, and an option of `createRelay` given for the same thing wins over it.
 */
export interface RelayEnv extends AddressEnv, BindEnv, CorsEnv, LimitsEnv, GateEnv, PrincipalEnv, QuotaEnv, WatchdogEnv {
  /** The MMSP server to relay to (e.g. `https://mmsp.internal/v1`; the relay posts to `<it>/stream`), when `upstream` is not given. */
  MMSP_UPSTREAM?: string;
  /** The Durable Object namespace of the streams (the default binding name; see `binding`). Without it: stateless. */
  STREAMS?: RelayNamespace;
  /** The Durable Object namespace of the quotas (`relay.QuotaObject`): one object per principal. Without it: held in the process. */
  QUOTAS?: RelayNamespace;
}

/** What a request asks of the relay, as the `authorize` hook is told (`"usage"`: GET /v1/usage). */
export type RelayAction = "create" | "resume" | "cancel" | "usage";

/**
 * What an `authorize` hook answers: a refusal to send instead, `{ principal, quota? }` to let the
 * request through spending for that principal (SPEC §10), or nothing to let it through as the
 * relay's key (or anonymous caller) it is.
 */
export type RelayVerdict = Response | RelayPrincipal | null | undefined | void;

/** The Worker's execution context (`ctx` of a fetch handler); the relay passes it to `routes`. */
export interface RelayContext {
  /** Keeps the Worker alive until `promise` settles. */
  waitUntil(promise: Promise<unknown>): void;
  /** The client's address as the runtime saw it (see {@link RelayConnection}). */
  clientAddress?: string | null | undefined;
}

/**
 * What a server outside Cloudflare tells the relay's fetch of the connection (its third argument,
 * where a Worker's `ctx` goes): `relay.fetch(request, env, { clientAddress })`. The kit's `serve`
 * gives the socket's address; `Deno.serve((req, info) => relay.fetch(req, env, { clientAddress:
 * info.remoteAddr.hostname }))`; Bun: `server.requestIP(req)?.address`.
 */
export interface RelayConnection {
  /** The client's IP address as the runtime saw it (an anonymous client's principal is `anon:<it>`, an IPv6 one's /64). */
  clientAddress: string | null | undefined;
}

/** The options of {@link createRelay}. Every one is optional; the defaults are the repository relay's. */
export interface RelayOptions<E extends object = RelayEnv> {
  /**
   * The upstream: an MMSP server's base URL (the relay posts to `<url>/stream` with the body, its
   * Content-Type and Authorization), or a function that makes the upstream `Response` (it gets the
   * admitted request and `{ signal }`, which aborts on a cancel: pass it to `fetch`). Default: the
   * variable `MMSP_UPSTREAM`. Its refusals are passed on as JSON only (anything else wrapped), an
   * upstream that cannot be reached is a 502 that names no URL.
   */
  upstream?: string | UpstreamFunction<E>;
  /**
   * The relay as an MMSP server (models.ts): model names → `{ provider, model, config? }`, a provider
   * made by mmsp-streams/providers answering them (or a function of `env` that makes the table:
   * keys live there). A model the table does not name goes to `upstream` when there is one, else a
   * 404 naming the known ones; `GET /v1/models` lists the table. Closed by default: without
   * `RELAY_KEY`, `authorize` or `allowAnonymous`, a request for a model of the table is a 401.
   */
  models?: RelayModelsOption<E>;
  /**
   * Lets anyone create streams of the models table (a public demo): `true`, or `{ perMinute }`
   * streams per client per minute (default 10, or the variable ANONYMOUS_PER_MINUTE): the
   * `requestsPerMinute` of `quotas.anonymous` when it sets none, held like every quota (QUOTAS).
   * Default: the variable ALLOW_ANONYMOUS (`"true"`), else closed.
   */
  allowAnonymous?: AnonymousOption;
  /**
   * The quotas of the principals (SPEC §10) for models of the table: `default` for a principal with
   * a key (RELAY_KEYS, RELAY_KEY, `authorize` without a quota of its own), `anonymous` for each
   * anonymous client. Each `{ requestsPerMinute?, concurrentStreams?, tokensPerDay? }`, held for the
   * whole deployment in the QUOTAS Durable Object namespace (`relay.QuotaObject`), else in the
   * process. Over one: a 429 `RateLimitError` or `BudgetExceeded` with `Retry-After`, before the
   * provider is asked. Default: the variable RELAY_QUOTAS (the same as JSON), else none.
   */
  quotas?: RelayQuotas;
  /**
   * An OpenTelemetry tracer (`trace.getTracer("my-relay")` of `@opentelemetry/api`): one span per
   * stream of the models table, `chat <model>`, with the GenAI semantic conventions' attributes
   * (tracing.ts, SPEC §10). Default: none, and nothing of OpenTelemetry is loaded.
   */
  tracer?: TraceTracer;
  /** The name of the Durable Object namespace binding (default `"STREAMS"`). */
  binding?: string;
  /**
   * Who may create, resume or cancel a stream (or read GET /v1/usage): return a `Response` (e.g. a
   * 401 or 429 refusal) to refuse, `{ principal, quota? }` to allow spending for that principal,
   * nothing to allow. Runs after the relay's own key check (`RELAY_KEYS`, `RELAY_KEY` when set) and
   * before the body is read. Default: allow (the credential binding still decides who may resume).
   */
  authorize?: (request: Request, action: RelayAction, env: E) => RelayVerdict | Promise<RelayVerdict>;
  /**
   * The credentials that bind a stream to its creator: a resume or a cancel must bring the same
   * (otherwise the stream is a 404 to it, as one that does not exist); null: none (anyone with the
   * stream's 128-bit id may). Kept as an HMAC under
   * `BIND_SECRET`. Default: the request's Authorization, Cookie, X-Api-Key and
   * Cf-Access-Jwt-Assertion headers.
   */
  credentials?: (request: Request, env: E) => string | null | Promise<string | null>;
  /** Bounds and lifetimes; each one given wins over its variable (see {@link RelayLimits}). */
  limits?: RelayLimits;
  /**
   * The client's address as the runtime saw it, for a relay outside Cloudflare (Node, Deno, Bun): an
   * anonymous client's principal is `anon:<address>` (an IPv6 client's /64), its quota its own.
   * Default: the address the relay's fetch is given (`{ clientAddress }`, see {@link RelayConnection}),
   * on Cloudflare CF-Connecting-IP, else `trustedAddressHeader`'s; with none of these an anonymous
   * request that needs its address (a model of the table under a quota, GET /v1/usage) is a 403
   * saying how to give it. A header a client sends is never read unless named here.
   */
  clientAddress?: ClientAddressFunction<E>;
  /**
   * The header a proxy in front of the relay sets to the client's address (`"x-forwarded-for"`: its
   * last entry, the one that proxy added), read outside Cloudflare when no address is given. Only
   * behind a proxy that sets it: a client sets any header it likes. Default: the variable TRUSTED_ADDRESS_HEADER.
   */
  trustedAddressHeader?: string;
  /** The origins whose pages may call the relay: `"*"` or a list of exact origins. Default: the variable `CORS_ORIGINS`, else `"*"`. */
  cors?: { origins: "*" | readonly string[] };
  /**
   * Routes of one's own, tried first: return a `Response` to answer, nothing to go on to the relay's
   * routes. Their answers get the relay's CORS headers, nosniff and its 500 without a stack.
   */
  routes?: (request: Request, env: E, ctx: RelayContext | undefined) => Response | null | undefined | Promise<Response | null | undefined>;
}

/** The class of the stream Durable Object that {@link createRelay} makes: export it from the Worker. */
export type RelayStreamObjectClass<E> = new (state: RelayState, env: E) => RelayStreamObject<E>;

/** What {@link createRelay} returns: the Worker's handler (`export default relay`) and its Durable Object class. */
export interface Relay<E extends object = RelayEnv> {
  /**
   * The Worker's fetch handler. Outside Cloudflare its third argument may carry the client's address
   * (`{ clientAddress }`, {@link RelayConnection}): the kit's `serve` passes the socket's.
   */
  fetch(request: Request, env: E, ctx?: RelayContext | RelayConnection): Promise<Response>;
  /** The Durable Object class: `export const RelayStream = relay.StreamObject` (wrangler.toml names it, binding STREAMS). */
  readonly StreamObject: RelayStreamObjectClass<E>;
  /** The Durable Object class of the quotas: `export const QuotaObject = relay.QuotaObject` (wrangler.toml: binding QUOTAS, a `new_sqlite_classes` migration). */
  readonly QuotaObject: typeof RelayQuotaObject;
  /**
   * Admits a POST as the relay admits one that creates a stream (for routes of one's own): the
   * relay's key (401), the `authorize` hook, a JSON body (415) of at most the body limit (413).
   * Resolves to the request as it goes on (body read; the relay's own key and internal headers
   * removed), or the refusal to answer. A request for a model of the table has claimed its
   * principal's quota: its `x-relay-claim` header hands the claim to the stream's object that
   * serves it (which settles it when the stream ends); remove it before sending the request elsewhere.
   */
  admit(request: Request, env: E): Promise<Request | Response>;
  /**
   * Checks the settings of `env` that can be wrong before any request (`RELAY_KEYS`: keys of 8
   * characters or more, no `anon:` names): throws a `RelayConfigError` naming the setting and the
   * rule (never a value). For a server with a start of its own (Node, Deno, Bun): call it there; a
   * Worker's relay says the same at its first request (a 500, the rule in the log).
   */
  checkEnv(env: E): void;
}

/** `response` with `X-Content-Type-Options: nosniff` (a copy when its headers are immutable). */
function nosniff(response: Response): Response {
  try {
    response.headers.set("x-content-type-options", "nosniff");
    return response;
  } catch {
    const out = new Response(response.body, response);
    out.headers.set("x-content-type-options", "nosniff");
    return out;
  }
}

const noStream = (): Response => refusal(404, "NotFoundError", "No such stream: a stream id is 32 hex digits.");

/**
 * The relay as a Worker: a fetch handler and the Durable Object class that keeps each stream
 * resumable, made from one set of options. Safe by default as the repository's relay: a key to
 * create streams when `RELAY_KEY` is set, JSON bodies only (415), a body limit (413), bounds on a
 * stream's life, events, bytes and clients, streams bound to their creator's credentials (HMAC),
 * upstream refusals passed on as JSON only, nosniff on every answer.
 *
 * @example A whole Worker (wrangler.toml binds `STREAMS` to the class `RelayStream`, a `new_sqlite_classes` migration)
 * ```ts ignore
 * import { createRelay } from "mmsp-streams/relay";
 *
 * const relay = createRelay({ upstream: "https://mmsp.internal/v1" });
 * export const RelayStream = relay.StreamObject;
 * export default relay;
 * ```
 */
export function createRelay<E extends object = RelayEnv>(options: RelayOptions<E> = {}): Relay<E> {
  if (options === null || typeof options !== "object") throw new TypeError("createRelay: options must be an object.");
  // own members only, of the options and of env: what a polluted Object.prototype holds never sets
  // the upstream, a key, a bound or the anonymous gate (issue #34)
  options = ownMembers(options);
  const { upstream, binding = "STREAMS", authorize, credentials, routes, cors, allowAnonymous } = options;
  if (upstream !== undefined && typeof upstream !== "string" && typeof upstream !== "function") {
    throw new TypeError("createRelay: `upstream` must be a URL string or a function that returns the upstream Response.");
  }
  if (typeof upstream === "string" && !isHttpUrl(upstream)) {
    throw new TypeError("createRelay: `upstream` must be an http:// or https:// URL (or a function).");
  }
  for (const [name, fn] of Object.entries({ authorize, credentials, routes })) {
    if (fn !== undefined && typeof fn !== "function") throw new TypeError(`createRelay: \`${name}\` must be a function.`);
  }
  checkAnonymous(allowAnonymous);
  const { clientAddress, trustedAddressHeader } = options;
  checkAddressOptions(clientAddress, trustedAddressHeader);
  /** The address the relay's fetch was given for a request (its third argument's `clientAddress`). */
  const givenAddresses = new WeakMap<Request, string>();
  const given = options.quotas === undefined ? undefined : checkQuotas(options.quotas);
  const quotasFromEnv = (text: string | undefined): RelayQuotas => (text ? quotasOfVariable(text) : {});
  const quotasOf = (env: E): RelayQuotas => given ?? quotasFromEnv(ownValue(env as RelayEnv, "RELAY_QUOTAS"));
  const tableOf = options.models === undefined ? undefined : modelTable(options.models);
  /** The row an admitted request's model has in the table (set by admit: the answer names its provider). */
  const admittedRows = new WeakMap<Request, RelayRow>();
  /**
   * The claim an admitted request made on its principal's quota (set by admit for the request and
   * its admitted copy; `taken` once the stream that settles it at its end has it). Every other path
   * out settles it as refused (`release`): a claim is never left to expire.
   */
  const admittedClaims = new WeakMap<Request, { claim: Claim; taken: boolean }>();
  /** The principal of an admitted request (its stream's binding). */
  const admittedPrincipals = new WeakMap<Request, Resolved>();
  const inProcess = new ProcessQuotas();
  const durable = new WeakMap<RelayNamespace, DurableQuotas>();
  /** Where the quotas are held for `env`: the QUOTAS namespace, else this process. */
  const quotaStore = (env: E): QuotaStore => {
    const ns = ownValue(env as RelayEnv, "QUOTAS");
    if (!ns) return inProcess;
    let store = durable.get(ns);
    if (store === undefined) durable.set(ns, store = new DurableQuotas(ns));
    return store;
  };
  let startedAt = 0; // (read at the first request: a Worker's clock stands still outside one)
  const corsOrigins = cors === undefined ? undefined : cors.origins === "*" ? "*" : cors.origins.join(", ");
  const corsEnv = (env: E): CorsEnv => (corsOrigins === undefined ? env : { CORS_ORIGINS: corsOrigins });
  const limitsOf = (env: E) => limits(env, options.limits);
  const namespace = (env: E): RelayNamespace | undefined => ownValue(env as Record<string, unknown>, binding) as RelayNamespace | undefined;
  /** The output a request of `row` reserves and asks every target for (usage-estimate.ts: one rule for the claim and the provider). */
  const reserveOf = (config: MmspBody["config"], row: RelayRow, env: E): number =>
    outputReserve(config.max_tokens, targetsOf(row)[0]!.config?.max_tokens, limitsOf(env).defaultMaxTokens);
  /** Settles the claim of `request` (the client's or its admitted copy) as refused, unless its stream took it. */
  const release = (request: Request, env: E, ctx: RelayContext | undefined): void => {
    const held = admittedClaims.get(request);
    if (held === undefined || held.taken) return;
    held.taken = true;
    const settling = quotaStore(env).settle(new StreamCost(ticketFrom(held.claim)).refused())
      .catch((e) => console.error("relay: a refused request's claim could not be settled", e));
    ctx?.waitUntil(settling);
  };

  const open = async (request: Request, env: E, signal: AbortSignal): Promise<Response> => {
    const target = upstream ?? ownValue(env as RelayEnv, "MMSP_UPSTREAM");
    if (tableOf) {
      // a model of the table: its provider answers (models.ts); any other goes on to the upstream
      const table = tableOf(env);
      const bytes = new Uint8Array(await request.arrayBuffer());
      const name = modelOf(bytes);
      const row = name === undefined ? undefined : rowOf(table, name);
      if (row !== undefined || !target) {
        const body = mmspBody(bytes);
        if (body instanceof Response) return body;
        if (!row) return unknownModel(body.model, table);
        // the row's targets in order (fallback.ts), watched (watchdog.ts), traced (tracing.ts)
        const { tracer } = options;
        const trace = tracer && new StreamTrace(tracer, body.model, targetsOf(row)[0]!, body.config.max_tokens);
        const maxTokens = reserveOf(body.config, row, env); // (what admit reserved: each target is asked for it)
        return servedAnswer(row, body, signal, { bounds: limitsOf(env), watchdog: watchdogOf(env), trace, maxTokens });
      }
      request = new Request(request, { body: bytes });
    }
    if (typeof target === "function") return callUpstream(target, request, env, signal);
    if (!target) {
      return Promise.resolve(
        refusal(502, "UpstreamUnavailable", "This relay has no upstream (set MMSP_UPSTREAM, or createRelay's `upstream`)."),
      );
    }
    return openUpstream(request, target, signal);
  };
  // (an upstream function may name itself in protocol errors through this header; a URL upstream is "upstream")
  const clientOf = (response: Response): string =>
    typeof upstream === "function" || tableOf ? response.headers.get("x-mmsp-client") ?? "upstream" : "upstream";
  const config: StreamObjectConfig<E> = { open, clientOf, limits: limitsOf, settle: (env, s) => quotaStore(env).settle(s) };

  /**
   * The binding of a request's credentials to stream `id` (an HMAC), or null: the credentials and,
   * for a principal of a key or of `authorize`, the principal (a stream is its principal's).
   */
  const bindingFor = async (request: Request, id: string, env: E, who: Resolved): Promise<string | null> => {
    const text = credentials ? await credentials(request, env) : credentialsOf(request.headers);
    return bindingOfText(who.anonymous ? text : `${text ?? ""}\nprincipal: ${who.principal}`, id, env);
  };

  /** The principal a request spends for (principal.ts), or the refusal to answer. */
  async function principalOf(request: Request, action: RelayAction, env: E): Promise<Resolved | Response> {
    const key = await keyPrincipal(request, env);
    if (key instanceof Response) return key;
    const verdict = authorize ? await authorize(request, action, env) : null;
    if (verdict instanceof Response) return verdict;
    const named = principalOfVerdict(verdict);
    const keyInAuthorization = await authorizationIsKey(request, env);
    const quotas = quotasOf(env);
    // (a principal's own quota: the hook's, else `quotas.principals`' entry, else the default)
    const quotaOf = (name: string): Quota | undefined =>
      (quotas.principals ? ownValue(quotas.principals, name) : undefined) ?? quotas.default;
    if (named) return { principal: named.principal, quota: named.quota ?? quotaOf(named.principal), anonymous: false, keyInAuthorization };
    if (key !== null) return { principal: key, quota: quotaOf(key), anonymous: false, keyInAuthorization };
    const address = clientAddressOf(request, env, { given: givenAddresses.get(request), clientAddress, trustedAddressHeader });
    const quota = anonymousQuota(env);
    return { principal: anonymousPrincipal(address), quota, anonymous: true, addressless: address === null, keyInAuthorization };
  }

  /** The anonymous quota: `quotas.anonymous`, its `requestsPerMinute` `allowAnonymous`'s rate when it sets none. */
  function anonymousQuota(env: E): Quota | undefined {
    const { anonymous } = quotasOf(env);
    const perMinute = anonymous?.requestsPerMinute ?? anonymousRate(allowAnonymous, env) ?? undefined;
    return perMinute === undefined ? anonymous : { ...anonymous, requestsPerMinute: perMinute };
  }

  async function admit(request: Request, env: E, translate?: (body: unknown) => unknown): Promise<Request | Response> {
    const who = await principalOf(request, "create", env);
    if (who instanceof Response) return who;
    const limits = limitsOf(env);
    let body = await readJsonBody(request, limits);
    if (body instanceof Response) return body;
    if (translate) {
      // another API's request (open-responses.ts) as the MMSP body it asks for, or its refusal
      const asked = translate(parsedJson(body));
      if (asked instanceof Response) return asked;
      body = new TextEncoder().encode(JSON.stringify(asked));
    }
    const model = tableOf ? modelOf(body) : undefined;
    const row = model === undefined ? undefined : rowOf(tableOf!(env), model);
    let claim: Claim | undefined;
    if (row) {
      // closed to anonymous callers unless opened (gate.ts), then the claim on the principal's quota
      if (who.anonymous && !authorize && anonymousRate(allowAnonymous, env) === null) return closedRefusal(model!);
      // (a quota per anonymous client needs to know the client: never one shared by every caller)
      if (who.addressless && who.quota !== undefined) return noAddressRefusal();
      const asked = mmspBody(body);
      if (asked instanceof Response) return asked;
      const input = inputEstimate(asked.messages, asked.config);
      // (one claim for the request, whichever target serves it: a fallback spends from it too; the
      // provider is asked for this output, no more: `open` passes the same reserve to every target)
      const tokens = input + reserveOf(asked.config, row, env);
      claim = {
        id: crypto.randomUUID(),
        principal: who.principal,
        model: model!,
        tokens,
        input,
        until: Date.now() + limits.streamMs + 60_000,
        quota: who.quota ?? {},
      };
      const refused = await quotaStore(env).claim(claim);
      if (refused) return refusedAnswer(refused);
    }
    const headers = new Headers(request.headers);
    for (const name of ["x-relay-key", BINDING_HEADER, URL_HEADER, CLAIM_HEADER, META_HEADER, "content-length"]) headers.delete(name);
    if (who.keyInAuthorization) headers.delete("authorization");
    // (for a stream's object made elsewhere, e.g. /api/chat's: it settles the claim when the stream ends)
    if (claim) headers.set(CLAIM_HEADER, ticketHeader(claim));
    const admitted = new Request(request.url, { method: "POST", headers, body, signal: request.signal });
    if (row) admittedRows.set(admitted, row);
    if (claim) {
      const held = { claim, taken: false };
      admittedClaims.set(admitted, held);
      admittedClaims.set(request, held);
    }
    admittedPrincipals.set(admitted, who);
    return admitted;
  }

  /** POST /v1/stream with the namespace: a new stream in its own object; the answer names it. */
  async function create(request: Request, admitted: Request, url: URL, env: E, streams: RelayNamespace): Promise<Response> {
    const id = newStreamId();
    const headers = new Headers(admitted.headers);
    const bound = await bindingFor(request, id, env, admittedPrincipals.get(admitted)!);
    if (bound !== null) headers.set(BINDING_HEADER, bound);
    headers.set(URL_HEADER, request.url);
    const stub = streams.get(streams.idFromName(id));
    const answer = await stub.fetch(`https://stream/create${url.search}`, {
      method: "POST",
      headers,
      body: admitted.body,
    });
    // (not ok: the route settles the claim as refused; the store takes a claim's settlement once)
    if (!answer.ok) return answer;
    const held = admittedClaims.get(admitted);
    if (held) held.taken = true; // (the stream's object settles it when the stream ends)
    const out = new Response(answer.body, answer);
    out.headers.set("content-location", streamPath(id));
    return out;
  }

  /** POST /v1/stream without the namespace: the upstream's answer streamed back, ending with the client. */
  async function stateless(admitted: Request, env: E): Promise<Response> {
    const controller = new AbortController();
    follow(controller, (admitted as { signal?: AbortSignal }).signal);
    const held = admittedClaims.get(admitted);
    const cost = held && !held.taken ? new StreamCost(ticketFrom(held.claim)) : null;
    if (held) admitted.headers.delete(CLAIM_HEADER); // (settled here: it goes no further)
    const settle = (s: Parameters<QuotaStore["settle"]>[0]): void => {
      quotaStore(env).settle(s).catch((e) => console.error("relay: a stream's usage could not be settled", e));
    };
    // (a refusal or a throw before the stream: the route settles the claim as refused)
    const answer = await open(admitted, env, controller.signal);
    if (!answer.ok) return answer;
    cost?.follow(reportedUsageOf(answer));
    const { eventBytes } = limitsOf(env);
    const client = clientOf(answer);
    const served = answer.headers.get(PROVIDER_HEADER); // (the target that served: fallback.ts)
    const servedTarget = answer.headers.get(TARGET_HEADER);
    const back = streamBack(answer, admitted.headers.get("accept"), {
      client,
      signal: controller.signal,
      maxEventBytes: eventBytes,
      ...(cost ? { tap: (events: ReadableStream<UniEvent>) => metered(events, cost, client, settle) } : {}),
    });
    if (served !== null) back.headers.set(PROVIDER_HEADER, served);
    if (servedTarget !== null) back.headers.set(TARGET_HEADER, servedTarget);
    if (held) held.taken = true; // (settled by `metered` at the stream's end)
    return back;
  }

  /** GET (resume) or DELETE (cancel) /v1/streams/<id>, checked here, served by the stream's object. */
  async function existing(request: Request, url: URL, id: string, env: E, streams: RelayNamespace): Promise<Response> {
    const cancel = request.method === "DELETE";
    const who = await principalOf(request, cancel ? "cancel" : "resume", env);
    if (who instanceof Response) return who;
    if (!STREAM_ID.test(id)) return noStream();
    const headers = new Headers();
    const bound = await bindingFor(request, id, env, who);
    if (bound !== null) headers.set(BINDING_HEADER, bound);
    const stub = streams.get(streams.idFromName(id));
    if (cancel) return stub.fetch("https://stream/cancel", { method: "DELETE", headers });
    const after = lastEventId(request, url);
    if (after instanceof Error) return refusal(400, "InvalidRequestError", after.message);
    const accept = request.headers.get("accept");
    if (accept !== null) headers.set("accept", accept);
    headers.set("x-resume-after", String(after));
    const answer = await stub.fetch("https://stream/resume", { headers });
    if (!answer.ok) return answer;
    const out = new Response(answer.body, answer);
    out.headers.set("content-location", streamPath(id));
    return out;
  }

  /** POST /v1/responses and its resume and cancel (open-responses.ts), through the routes above. */
  const openResponses = openResponsesRoutes<E>({
    admit,
    stream: async (request, admitted, env) => {
      const streams = namespace(env);
      if (streams) return create(request, admitted, new URL(request.url), env, streams);
      admitted.headers.delete(META_HEADER); // (kept by a stream object only: never sent upstream)
      return stateless(admitted, env);
    },
    existing: (request, id, env) => {
      const streams = namespace(env);
      return streams ? existing(request, new URL(request.url), id, env, streams) : null;
    },
  });

  async function route(request: Request, env: E, url: URL): Promise<Response> {
    const { pathname } = url;
    const answered = await openResponses(request, env, url);
    if (answered) return answered;
    if (pathname === "/v1/stream") {
      if (request.method !== "POST") return refusal(405, "MethodNotAllowed", "POST an MMSP request to /v1/stream.", { allow: "POST" });
      const admitted = await admit(request, env);
      if (admitted instanceof Response) return admitted;
      const streams = namespace(env);
      const answer = streams ? await create(request, admitted, url, env, streams) : await stateless(admitted, env);
      const row = admittedRows.get(admitted);
      if (!row || !answer.ok) return answer;
      const out = new Response(answer.body, answer); // (the answer says which provider answered)
      out.headers.set(PROVIDER_HEADER, answer.headers.get(PROVIDER_HEADER) ?? targetsOf(row)[0]!.provider.name);
      out.headers.set(TARGET_HEADER, answer.headers.get(TARGET_HEADER) ?? targetName(row, 0));
      return out;
    }
    if (pathname === "/v1/models" && tableOf) {
      if (request.method !== "GET") return refusal(405, "MethodNotAllowed", "GET /v1/models lists the models.", { allow: "GET" });
      const refused = await keyPrincipal(request, env);
      return refused instanceof Response ? refused : modelsList(tableOf(env), startedAt);
    }
    if (pathname === "/v1/usage") {
      if (request.method !== "GET") return refusal(405, "MethodNotAllowed", "GET /v1/usage lists the usage.", { allow: "GET" });
      return usage(request, url, env);
    }
    const id = streamIdOf(pathname);
    if (id !== null) {
      if (request.method !== "GET" && request.method !== "DELETE") {
        return refusal(405, "MethodNotAllowed", "GET /v1/streams/<id> resumes a stream, DELETE cancels it.", { allow: "GET, DELETE" });
      }
      const streams = namespace(env);
      if (!streams) {
        return refusal(404, "NotFoundError", `This relay keeps no streams (no ${binding} Durable Object binding): nothing to resume.`);
      }
      return existing(request, url, id, env, streams);
    }
    return refusal(
      404,
      "NotFoundError",
      `No route for ${request.method} ${pathname}: POST /v1/stream, GET or DELETE /v1/streams/<id>, POST /v1/responses, ` +
        "GET /v1/responses/<id>, POST /v1/responses/<id>/cancel, GET /v1/models, GET /v1/usage.",
    );
  }

  /** GET /v1/usage: the caller's principal's ledger, or with ?all=1 and ADMIN_KEY every principal's (ledger.ts). */
  async function usage(request: Request, url: URL, env: E): Promise<Response> {
    if (url.searchParams.get("all") === "1") return (await adminRefusal(request, env)) ?? usageList(await quotaStore(env).usage(null));
    const who = await principalOf(request, "usage", env);
    if (who instanceof Response) return who;
    if (who.addressless) return noAddressRefusal(); // (anon:unknown is every address-less caller's: no one's own)
    return usageList(await quotaStore(env).usage(who.principal));
  }

  class StreamObject extends RelayStreamObject<E> {
    constructor(state: RelayState, env: E) {
      super(state, env, config);
    }
  }

  return {
    async fetch(request: Request, env: E, ctx?: RelayContext | RelayConnection): Promise<Response> {
      if (request.method === "OPTIONS") return nosniff(preflight(request, corsEnv(env)));
      startedAt ||= Math.floor(Date.now() / 1000);
      const given = ctx?.clientAddress;
      if (given !== undefined && given !== null) {
        if (typeof given !== "string") {
          throw new TypeError("relay.fetch: `clientAddress` must be a string (the client's IP address), null or undefined.");
        }
        givenAddresses.set(request, given);
      }
      const workerCtx = ctx !== undefined && typeof (ctx as Partial<RelayContext>).waitUntil === "function"
        ? ctx as RelayContext
        : undefined;
      let answer: Response;
      try {
        answer = (await routes?.(request, env, workerCtx)) ?? (await route(request, env, new URL(request.url)));
      } catch (e) {
        if (e instanceof RelayConfigError) {
          // the operator's to fix: the rule in the log; the client is told the relay is misconfigured, and where (never a value)
          console.error(`relay: configuration error: ${e.message}`);
          answer = refusal(
            500,
            "InternalError",
            `The relay is misconfigured (${e.setting}): its operator must fix it (the relay's log says how).`,
          );
        } else {
          // logged for the operator; the client gets no stack (it may name files, variables, the upstream)
          console.error("relay: unexpected error", e);
          answer = refusal(500, "InternalError", "The relay failed on this request (the error is in its log).");
        }
      }
      // every path out after a claim but a stream that took it (a refusal, a throw) settles it as refused
      if (!answer.ok) release(request, env, workerCtx);
      return nosniff(withCors(answer, request, corsEnv(env)));
    },
    StreamObject,
    QuotaObject: RelayQuotaObject,
    admit,
    checkEnv: (env: E) => checkPrincipalEnv(ownMembers(env) as PrincipalEnv),
  };
}
