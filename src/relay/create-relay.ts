// createRelay(): the relay as a library. A Worker's fetch handler for the public routes and the
// Durable Object class that keeps each stream (stream-object.ts), both made from one set of options:
//
//   POST   /v1/stream          creates a stream: admitted (key, 415, 413; the `authorize` hook), then a
//                              new object makes the one upstream request and answers the stream from
//                              event 0; `Content-Location: /v1/streams/<id>` names it
//   GET    /v1/streams/<id>    resumes it (`Last-Event-ID: <n>` or `?last_event_id=<n>`)
//   DELETE /v1/streams/<id>    cancels it (SPEC §8): the upstream request aborted, StreamCancelled (204)
//   POST /v1/responses …       the same, spoken as Open Responses (open-responses.ts): resume, cancel
//   POST /api/chat …           the same, spoken as the AI SDK's useChat (doors/ui-chat/): resume, Stop (`chatPath`)
//   GET    /v1/models          with a models table (models.ts): the models it serves (SPEC §1)
//   GET    /v1/usage           the caller's principal's ledger; `?all=1` with ADMIN_KEY every one's (ledger.ts)
//   OPTIONS *                  CORS preflights; every answer carries the CORS headers and nosniff
//
// Without the namespace binding (STREAMS) the relay is stateless: each POST streamed back as it comes,
// no resume, and a client that goes away cancels the upstream request. A request that makes the relay
// throw is a 500 refusal without a stack (the error goes to the log).
//
// A request's walk (SPEC §10), each step a room of src/relay/ that imports none above it:
//   1. its door (doors/<api>/): MMSP's routes, or Open Responses' translated onto MMSP's request
//   2. admission (admission/): its principal (a key, `authorize`, or anonymous by its address), its
//      body within the bounds, the anonymous gate, then its claim on the principal's quota
//   3. routing (routing/): its row's targets in order (fallback, continuation), watched and traced,
//      or the upstream MMSP server
//   4. the stream (stream/): its Durable Object (event log, resume, viewers), or the stateless pipe
//   5. accounting (accounting/): the claim settled at the stream's end, in the ledger (GET /v1/usage)
// createRelay only composes them: the options checked (options.ts), each room given its part, the
// route table (a door is a folder and a line there), and the fetch every answer leaves by (CORS,
// nosniff, a 500 without a stack, a claim no stream took released).
import { admission, Admitted } from "./admission/admit.js";
import { type CorsEnv, corsPolicy, preflight, withCors } from "./admission/cors.js";
import { keyHeadersWith } from "./admission/bind.js";
import { limits } from "./admission/limits.js";
import { checkPrincipalEnv, type PrincipalEnv, RelayConfigError } from "./admission/principal.js";
import { checkQuotas, ProcessQuotas, quotasOfVariable, type QuotaStore, type RelayQuotas } from "./accounting/quota.js";
import { DurableQuotas, RelayQuotaObject } from "./accounting/quota-object.js";
import { usageRoute } from "./doors/mmsp/usage.js";
import { type Door, encodingsOf, shapedAnswer } from "./doors/door.js";
import { mmspDoor, modelsRoute } from "./doors/mmsp/door.js";
import { openResponsesDoor } from "./doors/open-responses/door.js";
import { chatCompletionsDoor } from "./doors/chat-completions/door.js";
import { geminiDoor } from "./doors/gemini/door.js";
import { messagesDoor } from "./doors/anthropic-messages/door.js";
import { uiChatDoor } from "./doors/ui-chat/door.js";
import { checkedOptions, type Relay, type RelayConnection, type RelayContext, type RelayEnv, type RelayOptions } from "./options.js";
import type { RelayNamespace, RelayState } from "./platform.js";
import { refusal } from "./refusal.js";
import { dropsHostedTools, modelOf, modelTable, rowOf, targetsOf } from "./routing/models.js";
import { reserveOf, routing } from "./routing/serve.js";
import { RelayStreamObject, type StreamObjectConfig } from "./stream/stream-object.js";
import { streams } from "./stream/streams.js";
import { durableResponses, type ResponsesEnv, responsesTtlMs } from "./stream/responses.js";
import { ownMembers, ownValue } from "../internal/values.js";

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

/** Where the quotas of a relay are held for `env`: the QUOTAS namespace, else this process. */
function quotaStores<E>(): (env: E) => QuotaStore {
  const inProcess = new ProcessQuotas();
  const durable = new WeakMap<RelayNamespace, DurableQuotas>();
  return (env) => {
    const ns = ownValue(env as RelayEnv, "QUOTAS");
    if (!ns) return inProcess;
    let store = durable.get(ns);
    if (store === undefined) durable.set(ns, store = new DurableQuotas(ns));
    return store;
  };
}

/** What the relay reads of its options and of `env` for each request (an option given wins over its variable). */
function readersOf<E extends object>(options: RelayOptions<E>) {
  const { binding = "STREAMS", cors } = options;
  const given = options.quotas === undefined ? undefined : checkQuotas(options.quotas);
  const quotasFromEnv = (text: string | undefined): RelayQuotas => (text ? quotasOfVariable(text) : {});
  const corsOrigins = cors === undefined ? undefined : cors.origins === "*" ? "*" : cors.origins.join(", ");
  return {
    binding,
    quotasOf: (env: E): RelayQuotas => given ?? quotasFromEnv(ownValue(env as RelayEnv, "RELAY_QUOTAS")),
    tableOf: options.models === undefined ? undefined : modelTable(options.models),
    corsEnv: (env: E): CorsEnv => (corsOrigins === undefined ? env : { CORS_ORIGINS: corsOrigins }),
    limitsOf: (env: E) => limits(env, options.limits),
    namespace: (env: E): RelayNamespace | undefined => ownValue(env as Record<string, unknown>, binding) as RelayNamespace | undefined,
  };
}

/**
 * The doors tried in order: the first answer (a non-2xx one, or a throw on its routes, in the door's
 * error shape: doors/door.ts), else the 404 that names every door's routes.
 */
function routeTable<E>(
  doors: readonly Door<E>[],
  listed: readonly Door<E>[],
  thrown: (e: unknown) => Response,
): (request: Request, env: E, url: URL) => Promise<Response> {
  const routes = listed.flatMap((door) => door.routes).join(", ");
  return async (request, env, url) => {
    for (const door of doors) {
      let answered: Response | null;
      try {
        answered = await door.answer(request, env, url);
      } catch (e) {
        if (door.errorShape === undefined) throw e;
        answered = thrown(e);
      }
      if (answered) return shapedAnswer(answered, door.errorShape);
    }
    return refusal(404, "NotFoundError", `No route for ${request.method} ${url.pathname}: ${routes}.`);
  };
}

/** The fetch's third argument: the client's address it gives (kept for admission), and the Worker's ctx when it is one. */
function connectionOf(request: Request, ctx: RelayContext | RelayConnection | undefined, admitted: Admitted): RelayContext | undefined {
  const given = ctx?.clientAddress;
  if (given !== undefined && given !== null) {
    if (typeof given !== "string") {
      throw new TypeError("relay.fetch: `clientAddress` must be a string (the client's IP address), null or undefined.");
    }
    admitted.addresses.set(request, given);
  }
  return ctx !== undefined && typeof (ctx as Partial<RelayContext>).waitUntil === "function" ? ctx as RelayContext : undefined;
}

/** What a request that made the relay throw is answered: a 500 without a stack (the error in the log). */
function thrownAnswer(e: unknown): Response {
  if (e instanceof RelayConfigError) {
    // the operator's to fix: the rule in the log; the client is told the relay is misconfigured, and where (never a value)
    console.error(`relay: configuration error: ${e.message}`);
    return refusal(500, "InternalError", `The relay is misconfigured (${e.setting}): its operator must fix it (the relay's log says how).`);
  }
  // logged for the operator; the client gets no stack (it may name files, variables, the upstream)
  console.error("relay: unexpected error", e);
  return refusal(500, "InternalError", "The relay failed on this request (the error is in its log).");
}

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
  // the options checked (options.ts), then what each room reads of them and of env
  options = checkedOptions(options);
  const { binding, quotasOf, tableOf, corsEnv, limitsOf, namespace } = readersOf(options);
  const quotaStore = quotaStores<E>();
  let startedAt = 0; // (read at the first request: a Worker's clock stands still outside one)

  // the pipeline: door → admission → routing → the stream → accounting
  const admitted = new Admitted();
  const admit = admission<E>({
    ...options,
    quotasOf,
    keyHeaders: () => keyHeaders, // (every door's, composed below)
    quotaStore,
    limitsOf,
    rowOfBody: (body, env) => {
      const model = tableOf ? modelOf(body) : undefined;
      const row = model === undefined ? undefined : rowOf(tableOf!(env), model);
      return row === undefined ? undefined : { model: model!, row };
    },
    reserveOf: (config, row, env) => reserveOf(config, row, limitsOf(env)),
  }, admitted);
  const { open, clientOf, takeUp, count } = routing<E>({ upstream: options.upstream, tableOf, tracer: options.tracer, limitsOf });
  const stream = streams<E>({ admission: admit, admitted, open, clientOf, limitsOf, quotaStore, namespace });
  /** Where responses are kept (stream/responses.ts): each principal's in an object of the streams' namespace; none when stateless. */
  const keeperOf = (env: E) => {
    const ns = namespace(env);
    return ns ? durableResponses(ns, responsesTtlMs(env as ResponsesEnv)) : null;
  };
  const config: StreamObjectConfig<E> = {
    open,
    clientOf,
    takeUp,
    limits: limitsOf,
    settle: (env, s) => quotaStore(env).settle(s),
    keeper: keeperOf,
  };

  // the route table: a door per API a client speaks, then the relay's own routes
  const openResponses = openResponsesDoor<E>({
    admit: admit.admit,
    answer: stream.answer,
    existing: (request, id, env, door) => {
      const ns = namespace(env);
      return ns ? stream.existing(request, new URL(request.url), id, env, ns, door) : null;
    },
    keeper: keeperOf,
    dropsHostedTools: (model, env) => tableOf !== undefined && dropsHostedTools(rowOf(tableOf(env), model)),
    principal: async (request, env) => {
      const who = await admit.principalOf(request, "resume", env);
      return who instanceof Response ? who : who.principal;
    },
  });
  /** A claim released now, its settlement awaited (a count of tokens holds a request's place only). */
  const releaseNow = async (request: Request, env: E): Promise<void> => {
    let settling: Promise<unknown> | undefined;
    admit.release(request, env, (promise) => (settling = promise));
    await settling;
  };
  /** The provider of the first target of the row named `model`: a door passes a request through to its own API's (routing/pass-through.ts). */
  const speaks = (model: string, env: E): string | undefined => {
    const row = tableOf && rowOf(tableOf(env), model);
    return row ? targetsOf(row)[0]!.provider.name : undefined;
  };
  const gemini = geminiDoor<E>({
    admit: admit.admit,
    answer: stream.answer,
    release: releaseNow,
    count,
    speaks,
  });
  const messages = messagesDoor<E>({
    admit: admit.admit,
    answer: stream.answer,
    speaks,
    serves: (admittedRequest) => tableOf === undefined || admitted.rows.has(admittedRequest),
    settle: releaseNow,
    count,
    existing: (request, id, env, door) => {
      const ns = namespace(env);
      return ns ? stream.existing(request, new URL(request.url), id, env, ns, door) : null;
    },
  });
  const chatCompletions = chatCompletionsDoor<E>({ admit: admit.admit, answer: stream.answer, speaks });
  const mmsp = mmspDoor<E>({ admission: admit, admitted, streams: stream, namespace, binding });
  const models = modelsRoute<E>({ tableOf, startedAt: () => startedAt, keyOf: admit.keyOf });
  const usage = usageRoute<E>({ admission: admit, quotaStore });
  const { chatPath = "/api/chat" } = options;
  const uiChat = chatPath === false ? [] : [uiChatDoor<E>({ admission: admit, admitted, streams: stream, namespace, path: chatPath })];
  const doors = [openResponses, chatCompletions, messages, gemini, ...uiChat, mmsp, models, usage];
  const route = routeTable<E>(doors, [mmsp, openResponses, chatCompletions, messages, gemini, ...uiChat, models, usage], thrownAnswer);
  // what the doors declare, composed once: the headers a key is read from, CORS's headers
  const keyHeaders = keyHeadersWith(doors);
  const cors = corsPolicy(doors);
  config.encodings = encodingsOf(doors); // (the stream's object writes a door's answers in its encoding)

  class StreamObject extends RelayStreamObject<E> {
    constructor(state: RelayState, env: E) {
      super(state, env, config);
    }
  }

  return {
    async fetch(request: Request, env: E, ctx?: RelayContext | RelayConnection): Promise<Response> {
      if (request.method === "OPTIONS") return nosniff(preflight(request, corsEnv(env), undefined, cors));
      startedAt ||= Math.floor(Date.now() / 1000);
      const workerCtx = connectionOf(request, ctx, admitted);
      let answer: Response;
      try {
        answer = (await options.routes?.(request, env, workerCtx)) ?? (await route(request, env, new URL(request.url)));
      } catch (e) {
        answer = thrownAnswer(e);
      }
      // every path out after a claim but a stream that took it (a refusal, a throw) settles it as refused
      if (!answer.ok) admit.release(request, env, workerCtx && ((promise) => workerCtx.waitUntil(promise)));
      return nosniff(withCors(answer, request, corsEnv(env), cors));
    },
    StreamObject,
    QuotaObject: RelayQuotaObject,
    admit: admit.admit,
    checkEnv: (env: E) => checkPrincipalEnv(ownMembers(env) as PrincipalEnv),
  };
}
