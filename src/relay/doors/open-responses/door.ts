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
// any script, its tools, its metadata) goes into no header as it is.
import { fromResponse } from "../../../from-response.js";
import { OpenResponsesEncoderStream, type OpenResponsesEvent, openResponsesSse } from "../../../encode.js";
import { isRecord } from "../../../internal/values.js";
import { streamHeaders } from "../../routing/answer.js";
import { through } from "../../../internal/through.js";
import { openResponsesAsk, openResponsesError, openResponsesRefusal } from "./request.js";
import { newStreamId, STREAM_ID } from "../../stream/resume.js";
import { parseJsonText } from "../../../internal/json.js";
import { type Finishing, finishStage, openSeals, type ResponseKeeper, sealStage, shownResource, type StateAsk, stateOf } from "./state.js";
import type { SealEnv } from "../seal.js";

import { META_HEADER } from "../../stream/headers.js";

/** (the header that carries a stream's Open Responses settings to its object and back: stream/headers.ts) */
export { META_HEADER };

/** What a response resource echoes, kept with its stream. */
interface Meta {
  model: string;
  createdAt: number;
  echo: Record<string, unknown>;
  /** The response is kept (`store`), and the previous response it follows (state.ts): its replay says the same. */
  stored?: boolean;
  previous?: string | null;
}

/** What createRelay lends these routes. */
export interface OpenResponsesHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`. */
  admit(request: Request, env: E, translate: (body: unknown, principal: string) => Promise<unknown>): Promise<Request | Response>;
  /** The MMSP answer to an admitted request: the stream object's (its Content-Location names it) or the stateless pipe's. */
  stream(request: Request, admitted: Request, env: E): Promise<Response>;
  /** GET (from the start) or DELETE of stream `id` as /v1/streams/<id> answers them; null when the relay keeps no streams. */
  existing(request: Request, id: string, env: E): Promise<Response> | null;
  /** Where responses are kept (SPEC §10 "Stored responses"); null when the relay keeps none (stateless). */
  keeper(env: E): ResponseKeeper | null;
  /** The principal a request reads for (its key, `authorize`, its address), or the refusal to answer. */
  principal(request: Request, env: E): Promise<string | Response>;
}

const ROUTE = /^\/v1\/responses(?:\/([^/]+)(\/cancel)?)?$/;
const SSE_TYPE = "text/event-stream; charset=utf-8";

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
      if (!answer.ok) return openResponsesRefusal(answer);
    }
    // (a replay from the start: no Last-Event-ID; the spec's starting_after filters the encoded events)
    const replay = hooks.existing(new Request(request.url, { headers: withoutResumeHeaders(request.headers) }), id, env);
    if (replay === null) return notKept();
    const answer = await replay;
    if (!answer.ok) return openResponsesRefusal(answer);
    const meta = metaOf(answer.headers.get(META_HEADER));
    const events = encoded(answer, `resp_${id}`, meta);
    if (cancel || url.searchParams.get("stream") !== "true") return resource(events);
    const after = url.searchParams.get("starting_after");
    if (after !== null && !/^(0|[1-9][0-9]{0,14})$/.test(after)) {
      await events.cancel();
      return openResponsesError(400, "InvalidRequestError", "starting_after must be a sequence number (0, 1, 2, …).", "starting_after");
    }
    return sse(after === null ? events : through(events, startingAfter(Number(after))));
  };

  /** A kept response's resource (SPEC §10 "Stored responses"), the principal's own; null when none is kept. */
  async function keptResource(request: Request, id: string, env: E, url: URL): Promise<Response | null> {
    const keeper = hooks.keeper(env);
    if (keeper === null) return null;
    const principal = await hooks.principal(request, env);
    if (principal instanceof Response) return openResponsesRefusal(principal);
    const kept = await keeper.get(principal, id);
    if (kept === null) return null;
    const included = url.searchParams.getAll("include[]").concat(url.searchParams.getAll("include"));
    return Response.json(shownResource(kept.resource, included.includes("reasoning.encrypted_content")));
  }

  async function create(request: Request, env: E): Promise<Response> {
    let ask: ReturnType<typeof openResponsesAsk> | undefined;
    let state: StateAsk | undefined;
    let principal = "";
    const keeper = hooks.keeper(env);
    const admitted = await hooks.admit(request, env, async (body, who) => {
      // (the state members first: include, store, previous_response_id, item_reference: state.ts)
      const resolved = await stateOf(body, principal = who, keeper, env as SealEnv);
      if (resolved instanceof Response) return ask = resolved;
      state = resolved.state;
      ask = openResponsesAsk(resolved.body);
      if (ask instanceof Response) return ask;
      const forged = await openSeals(ask.mmsp.messages, env as SealEnv);
      return forged ? (ask = forged) : ask.mmsp;
    });
    if (admitted instanceof Response) return admitted.ok ? admitted : ask instanceof Response ? ask : openResponsesRefusal(admitted);
    const { stream, echo, mmsp } = ask as Exclude<typeof ask, Response | undefined>;
    const meta: Meta = {
      model: mmsp.model,
      createdAt: Math.floor(Date.now() / 1000),
      echo,
      stored: state!.store,
      previous: state!.previous,
    };
    admitted.headers.set(META_HEADER, encodeURIComponent(JSON.stringify(meta)));
    admitted.headers.set("accept", "text/event-stream");
    const answer = await hooks.stream(request, admitted, env);
    if (!answer.ok) return openResponsesRefusal(answer);
    const location = /^\/v1\/streams\/([0-9a-f]{32})$/.exec(answer.headers.get("content-location") ?? "");
    const id = `resp_${location ? location[1] : newStreamId()}`;
    const keep = state!.store && keeper ? { keeper, principal, input: state!.input } : undefined;
    const events = encoded(answer, id, meta, env as SealEnv, {
      include: state!.encrypted,
      previous: state!.previous,
      stored: state!.store,
      keep,
    });
    const out = stream ? sse(events) : await resource(events);
    for (const name of ["x-mmsp-provider", "x-mmsp-target"]) {
      const value = answer.headers.get(name);
      if (value !== null) out.headers.set(name, value);
    }
    return out;
  }
}

/** The MMSP answer's checked UniEvents, encoded as Open Responses events of response `id` (provider data sealed or left out). */
function encoded(
  answer: Response,
  id: string,
  meta: Meta,
  env: SealEnv = {},
  finishing: Finishing = { include: false, previous: meta.previous ?? null, stored: meta.stored === true },
): ReadableStream<OpenResponsesEvent> {
  const { readable, message } = fromResponse(answer, { client: "relay" });
  message.catch(() => {}); // (the readable carries a failure to the encoder, which writes it; the message is not read)
  const { include, keep } = finishing;
  // (a kept response keeps its sealed values whatever the client asked: an item_reference brings them back)
  const sealed = through(readable, sealStage(env, include ? "include" : keep ? "keep" : "none"));
  const events = through(sealed, new OpenResponsesEncoderStream({ id, model: meta.model, createdAt: meta.createdAt, request: meta.echo }));
  return through(events, finishStage(id, finishing)) as ReadableStream<OpenResponsesEvent>;
}

function sse(events: ReadableStream<OpenResponsesEvent>): Response {
  return new Response(through(events, openResponsesSse()), { status: 200, headers: streamHeaders(SSE_TYPE) });
}

/** The events read to the end: the terminal event's response resource (a failure: the spec's error, 502). */
async function resource(events: ReadableStream<OpenResponsesEvent>): Promise<Response> {
  let last: OpenResponsesEvent | undefined;
  let error: Record<string, unknown> | undefined;
  const reader = events.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    if (r.value.type === "error" && isRecord(r.value.error)) error = r.value.error;
    last = r.value;
  }
  const response = last && isRecord(last.response) ? last.response : undefined;
  if (response && (response.status !== "failed" || !error)) return Response.json(response);
  return Response.json({
    error: error ?? { message: "The response ended without its terminal event.", type: "server_error", param: null, code: null },
  }, {
    status: 502,
  });
}

/** Drops the events up to sequence number `n` (the spec's `starting_after`). */
function startingAfter(n: number): TransformStream<OpenResponsesEvent, OpenResponsesEvent> {
  return new TransformStream({ transform: (e, c) => void (e.sequence_number > n && c.enqueue(e)) });
}

function metaOf(text: string | null): Meta {
  try {
    const m = parseJsonText(decodeURIComponent(text ?? ""));
    if (isRecord(m) && typeof m.model === "string" && Number.isInteger(m.createdAt) && isRecord(m.echo)) {
      const previous = typeof m.previous === "string" ? m.previous : null;
      return { model: m.model, createdAt: m.createdAt as number, echo: m.echo, stored: m.stored === true, previous };
    }
  } catch {
    // (a stream made by POST /v1/stream: no meta)
  }
  return { model: "", createdAt: 0, echo: {} };
}

function withoutResumeHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  out.delete("last-event-id");
  out.set("accept", "text/event-stream");
  return out;
}

const notFound = (): Response =>
  openResponsesError(404, "NotFoundError", "No such response: it never existed, or it ended and expired.", "response_id");
const notKept = (): Response =>
  openResponsesError(
    404,
    "NotFoundError",
    "This relay keeps no responses (no stream Durable Object binding): nothing to retrieve or cancel.",
  );
const methodNotAllowed = (message: string, allow: string): Response =>
  openResponsesError(405, "MethodNotAllowed", message, null, { allow });
