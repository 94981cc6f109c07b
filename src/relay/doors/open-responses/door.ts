// The Open Responses door: SPEC §10 "Doors: the APIs a client speaks" (/v1/responses, its resume and cancel).
//
// The relay speaking Open Responses (issue #41): the routes of the spec, served by the relay's MMSP
// path (create-relay.ts composes them):
//
//   POST /v1/responses                    the request mapped to MMSP's (open-responses-request.ts), admitted
//                                         as POST /v1/stream is (key, body, the models table, ceilings,
//                                         quota), streamed by the same stream object; the checked
//                                         UniEvents re-encoded (OpenResponsesEncoderStream) as SSE with
//                                         `event:` names, or one response resource when `stream` is false
//   GET  /v1/responses/<id>?stream=true&starting_after=<n>
//                                         the stream's stored UniEvents replayed and encoded again (the same
//                                         events, byte for byte: ids and timestamps come from the stream),
//                                         sent from sequence number n+1; without stream=true the resource
//   POST /v1/responses/<id>/cancel        DELETE on the stream (SPEC §8: the provider's request aborted),
//                                         then the resource as it ended (status `cancelled`)
//
// The response id is `resp_<stream id>`. What the resource echoes of the request (model, instructions,
// tools…) and its creation time ride with the stream (the object keeps the x-stream-meta header),
// percent-encoded UTF-8 JSON: a header value is Latin-1 only, and what a client sent (instructions in
// any script, its tools, its metadata) goes into no header as it is. The answers are written by the
// door's encoding (encoding.ts) where the stream's events are: in its object, or on the stateless path.
import { openResponsesAsk, openResponsesError } from "./request.js";
import { type Door, type DoorDeclaration, inDoorShape, type RelayRefusal } from "../door.js";
import { newStreamId, STREAM_ID } from "../../stream/resume.js";
import type { DoorAsk } from "../../stream/door-answer.js";
import type { DoorStreamOptions } from "../../stream/streams.js";
import { type Meta, metaText, OPEN_RESPONSES_ENCODING, openResponsesEncoding } from "./encoding.js";
import { META_HEADER } from "../../stream/headers.js";
import { openSeals, type ResponseKeeper, shownResource, type StateAsk, stateOf } from "./state.js";
import type { SealEnv } from "../seal.js";
import { WARNING_HEADER, withoutHostedTools } from "./tools.js";

/** (the header that carries a stream's Open Responses settings to its object and back: stream/headers.ts) */
export { META_HEADER };

/** What createRelay lends these routes. */
export interface OpenResponsesHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`. */
  admit(request: Request, env: E, translate: (body: unknown, principal: string) => Promise<unknown>): Promise<Request | Response>;
  /** The door's answer to an admitted request (stream/streams.ts `answer`): kept in a stream's object when the relay has them, else stateless. */
  answer(request: Request, admitted: Request, env: E, options: DoorStreamOptions): Promise<Response>;
  /** GET (from the start) or DELETE of stream `id` as /v1/streams/<id> answers them, a GET in the door's encoding; null when the relay keeps no streams. */
  existing(request: Request, id: string, env: E, door?: Omit<DoorAsk, "id">): Promise<Response> | null;
  /** Where responses are kept (SPEC §10 "Stored responses"); null when the relay keeps none (stateless). */
  keeper(env: E): ResponseKeeper | null;
  /** The principal a request reads for (its key, `authorize`, its address), or the refusal to answer. */
  principal(request: Request, env: E): Promise<string | Response>;
  /** Whether the models row of `model` drops a client's hosted tools (routing/models.ts `hostedTools`); default: refused. */
  dropsHostedTools?(model: string, env: E): boolean;
}

/**
 * What the Open Responses door declares (doors/door.ts): its clients' key is the relay's own
 * (`Authorization: Bearer`); the OpenAI SDKs' own headers (`x-stainless-*`, listed and by prefix,
 * `OpenAI-Organization`, `OpenAI-Project`) allowed to browsers; the spec's error shape; a cancel of its own.
 */
export const OPEN_RESPONSES_DECLARES: DoorDeclaration = {
  cors: {
    allow: [
      "X-Stainless-Arch",
      "X-Stainless-Lang",
      "X-Stainless-OS",
      "X-Stainless-Package-Version",
      "X-Stainless-Retry-Count",
      "X-Stainless-Runtime",
      "X-Stainless-Runtime-Version",
      "X-Stainless-Timeout",
      "OpenAI-Organization",
      "OpenAI-Project",
    ],
    allowPrefixes: ["x-stainless-"],
  },
  errorShape: (r: RelayRefusal) => openResponsesError(r.status, r.type, r.message, r.parameter, r.headers),
  cancel: true,
  encodings: { [OPEN_RESPONSES_ENCODING]: openResponsesEncoding },
};

/** The Open Responses door: its routes, and what it declares. */
export function openResponsesDoor<E>(hooks: OpenResponsesHooks<E>): Door<E> {
  return {
    ...OPEN_RESPONSES_DECLARES,
    routes: ["POST /v1/responses", "GET /v1/responses/<id>", "POST /v1/responses/<id>/cancel"],
    answer: openResponsesRoutes(hooks),
  };
}

const ROUTE = /^\/v1\/responses(?:\/([^/]+)(\/cancel)?)?$/;
const SEQUENCE = /^(0|[1-9][0-9]{0,14})$/;

/** The routes: an answer for a path of /v1/responses, null for any other path. */
export function openResponsesRoutes<E>(hooks: OpenResponsesHooks<E>) {
  return async (request: Request, env: E, url: URL): Promise<Response | null> => {
    const m = ROUTE.exec(url.pathname);
    if (!m) return null;
    const [, rawId, cancel] = m;
    if (rawId === undefined) {
      if (request.method !== "POST") return methodNotAllowed("POST an Open Responses request to /v1/responses.", "POST");
      return create(request, env);
    }
    const id = rawId.startsWith("resp_") ? rawId.slice(5) : "";
    if (cancel) {
      if (request.method !== "POST") return methodNotAllowed("POST /v1/responses/<id>/cancel stops a response.", "POST");
    } else if (request.method !== "GET") return methodNotAllowed("GET /v1/responses/<id> retrieves a response.", "GET");
    if (!STREAM_ID.test(id)) return notFound();
    if (!cancel && url.searchParams.get("stream") !== "true") {
      const kept = await keptResource(request, `resp_${id}`, env, url);
      if (kept) return kept;
    }
    const stop = cancel ? new Request(request.url, { method: "DELETE", headers: request.headers }) : null;
    if (stop) {
      const stopped = hooks.existing(stop, id, env);
      if (stopped === null) return notKept();
      const answer = await stopped;
      if (!answer.ok) return answer; // (in the door's error shape: the route table)
    }
    // (a replay from the start: no Last-Event-ID; the spec's starting_after filters the encoded events)
    const whole = cancel !== undefined || url.searchParams.get("stream") !== "true";
    const after = whole ? null : url.searchParams.get("starting_after");
    const ask = { name: OPEN_RESPONSES_ENCODING, after: after !== null && SEQUENCE.test(after) ? after : null, whole, ids: false };
    const replay = hooks.existing(new Request(request.url, { headers: withoutResumeHeaders(request.headers) }), id, env, ask);
    if (replay === null) return notKept();
    const answer = await replay;
    if (!answer.ok) return answer;
    if (after !== null && !SEQUENCE.test(after)) {
      await answer.body?.cancel();
      return orError(400, "InvalidRequestError", "starting_after must be a sequence number (0, 1, 2, …).", "starting_after");
    }
    answer.headers.delete("content-location"); // (the response is named by its id)
    return answer;
  };

  /** A kept response's resource (SPEC §10 "Stored responses"), the principal's own; null when none is kept. */
  async function keptResource(request: Request, id: string, env: E, url: URL): Promise<Response | null> {
    const keeper = hooks.keeper(env);
    if (keeper === null) return null;
    const principal = await hooks.principal(request, env);
    if (principal instanceof Response) return principal; // (in the door's shape: the route table)
    const kept = await keeper.get(principal, id);
    if (kept === null) return null;
    const included = url.searchParams.getAll("include[]").concat(url.searchParams.getAll("include"));
    return Response.json(shownResource(kept.resource, included.includes("reasoning.encrypted_content")));
  }

  async function create(request: Request, env: E): Promise<Response> {
    let ask: ReturnType<typeof openResponsesAsk> | undefined;
    let state: StateAsk | undefined;
    let principal = "";
    let warning: string | null = null;
    const keeper = hooks.keeper(env);
    const admitted = await hooks.admit(request, env, async (body, who) => {
      // (the state members first: include, store, previous_response_id, item_reference: state.ts)
      const resolved = await stateOf(body, principal = who, keeper, env as SealEnv);
      if (resolved instanceof Response) return ask = resolved;
      state = resolved.state;
      let asked = resolved.body;
      if (typeof asked.model === "string" && hooks.dropsHostedTools?.(asked.model, env)) {
        ({ body: asked, warning } = withoutHostedTools(asked));
      }
      ask = openResponsesAsk(asked);
      if (ask instanceof Response) return ask;
      const forged = await openSeals(ask.mmsp.messages, env as SealEnv);
      return forged ? (ask = forged) : ask.mmsp;
    });
    if (admitted instanceof Response) return ask instanceof Response ? inDoorShape(ask) : admitted;
    const { stream, echo, mmsp } = ask as Exclude<typeof ask, Response | undefined>;
    const { encrypted: include, previous, input } = state!;
    const keep = state!.store && keeper !== null ? principal : null;
    const meta: Meta = {
      model: mmsp.model,
      createdAt: Math.floor(Date.now() / 1000),
      echo,
      include,
      stored: keep !== null,
      previous,
      keep,
    };
    const id = newStreamId();
    // (the input kept before the answer: its encoding keeps the resource before the terminal event, sealing.ts)
    if (keep !== null) await keeper!.begin(keep, `resp_${id}`, input);
    admitted.headers.set("accept", "text/event-stream");
    const answer = await hooks.answer(request, admitted, env, {
      id,
      name: OPEN_RESPONSES_ENCODING,
      encoding: openResponsesEncoding,
      meta: metaText(meta),
      kept: true, // (its API has a cancel: POST /v1/responses/<id>/cancel)
      whole: !stream,
    });
    if (answer.ok) answer.headers.delete("content-location"); // (the response is named by its id: /v1/responses/resp_<id>)
    if (answer.ok && warning !== null) answer.headers.set(WARNING_HEADER, warning);
    return answer;
  }
}

function withoutResumeHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  out.delete("last-event-id");
  out.set("accept", "text/event-stream");
  return out;
}

/** An error of this door, written in its shape (the route table passes it on as it is). */
const orError = (...args: Parameters<typeof openResponsesError>): Response => inDoorShape(openResponsesError(...args));
const notFound = (): Response =>
  orError(404, "NotFoundError", "No such response: it never existed, or it ended and expired.", "response_id");
const notKept = (): Response =>
  orError(
    404,
    "NotFoundError",
    "This relay keeps no responses (no stream Durable Object binding): nothing to retrieve or cancel.",
  );
const methodNotAllowed = (message: string, allow: string): Response => orError(405, "MethodNotAllowed", message, null, { allow });
