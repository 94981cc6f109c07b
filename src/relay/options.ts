// The options of createRelay and what it returns (the public types of mmsp-streams/relay's entry),
// and the one check of the options at the boundary (`checkedOptions`). Every room of the relay reads
// its own part of them; createRelay (create-relay.ts) hands each its part.
import type { AddressEnv, ClientAddressFunction } from "./admission/address.js";
import { checkAddressOptions } from "./admission/address.js";
import type { RelayAction, RelayVerdict } from "./admission/admit.js";
import type { BindEnv } from "./admission/bind.js";
import type { CorsEnv } from "./admission/cors.js";
import { type AnonymousOption, checkAnonymous, type GateEnv } from "./admission/gate.js";
import type { LimitsEnv, RelayLimits } from "./admission/limits.js";
import type { PrincipalEnv } from "./admission/principal.js";
import type { QuotaEnv, RelayQuotas } from "./accounting/quota.js";
import type { RelayQuotaObject } from "./accounting/quota-object.js";
import type { RelayNamespace, RelayState } from "./platform.js";
import type { RelayModelsOption } from "./routing/models.js";
import type { SealEnv } from "./doors/seal.js";
import type { ResponsesEnv } from "./stream/responses.js";
import { isHttpUrl } from "./routing/redact.js";
import { checkChatPath } from "./doors/ui-chat/request.js";
import type { TraceTracer } from "./routing/tracing.js";
import type { UpstreamFunction } from "./routing/upstream.js";
import type { WatchdogEnv } from "./routing/watchdog.js";
import type { RelayStreamObject } from "./stream/stream-object.js";
import { ownMembers } from "../internal/values.js";

export type { RelayAction, RelayVerdict };

/**
 * The variables and bindings the relay reads (wrangler.toml `[vars]`, secrets, bindings); every one
 * is optional, and an option of `createRelay` given for the same thing wins over it.
 */
export interface RelayEnv
  extends AddressEnv, BindEnv, CorsEnv, LimitsEnv, GateEnv, PrincipalEnv, QuotaEnv, WatchdogEnv, SealEnv, ResponsesEnv {
  /** The MMSP server to relay to (e.g. `https://mmsp.internal/v1`; the relay posts to `<it>/stream`), when `upstream` is not given. */
  MMSP_UPSTREAM?: string;
  /** The Durable Object namespace of the streams (the default binding name; see `binding`). Without it: stateless. */
  STREAMS?: RelayNamespace;
  /** The Durable Object namespace of the quotas (`relay.QuotaObject`): one object per principal. Without it: held in the process. */
  QUOTAS?: RelayNamespace;
}

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
  /**
   * The path of the useChat door (the AI SDK's chat protocol: `POST <chatPath>` answered as a UI
   * message stream, `GET`/`DELETE <chatPath>/<chatId>/stream` resume and stop the chat's open answer;
   * doors/ui-chat/), or `false` for none. Default `"/api/chat"`, the AI SDK's `DefaultChatTransport`'s.
   */
  chatPath?: string | false;
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

/** `options` checked at the boundary (a TypeError naming the option), its own members only. */
export function checkedOptions<E extends object>(options: RelayOptions<E>): RelayOptions<E> {
  if (options === null || typeof options !== "object") throw new TypeError("createRelay: options must be an object.");
  // own members only, of the options and of env: what a polluted Object.prototype holds never sets
  // the upstream, a key, a bound or the anonymous gate (issue #34)
  options = ownMembers(options);
  const { upstream, authorize, credentials, routes, allowAnonymous } = options;
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
  checkChatPath(options.chatPath);
  checkAddressOptions(options.clientAddress, options.trustedAddressHeader);
  return options;
}
