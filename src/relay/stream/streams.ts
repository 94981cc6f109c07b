// The stream: SPEC §8 and §10 "A stream outlives its object" (an admitted request made a stream: in
// its own Durable Object with the namespace, resumable and cancellable; without it, the stateless
// pipe that ends with its client).
//
// `create` hands an admitted request to a new stream's object (stream-object.ts), which makes the
// one upstream request and settles the claim when the stream ends; `existing` checks a resume or a
// cancel (its principal, the stream's binding) and hands it to the object; `stateless` streams the
// answer straight back, metered (accounting/stream-cost.ts) and settled at its end.
import { follow } from "../../internal/abort.js";
import type { UniEvent } from "../../schema.js";
import type { QuotaStore } from "../accounting/quota.js";
import { CLAIM_HEADER, metered, StreamCost, ticketFrom } from "../accounting/stream-cost.js";
import type { Admission, Admitted } from "../admission/admit.js";
import type { Limits } from "../admission/limits.js";
import { streamBack } from "../doors/mmsp/http.js";
import type { RelayNamespace } from "../platform.js";
import { refusal } from "../refusal.js";
import { reportedUsageOf } from "../routing/answer.js";
import { PROVIDER_HEADER, TARGET_HEADER } from "../routing/models.js";
import { BINDING_HEADER, URL_HEADER } from "./headers.js";
import { lastEventId, newStreamId, STREAM_ID, streamPath } from "./resume.js";

/** What the stream step needs of the rest: admission's records and checks, routing's `open`, the books. */
export interface StreamParts<E extends object> {
  admission: Pick<Admission<E>, "principalOf" | "bindingFor">;
  admitted: Admitted;
  open(request: Request, env: E, signal: AbortSignal): Promise<Response>;
  clientOf(response: Response): string;
  limitsOf(env: E): Limits;
  quotaStore(env: E): QuotaStore;
}

const noStream = (): Response => refusal(404, "NotFoundError", "No such stream: a stream id is 32 hex digits.");

/** The stream step of a relay: a new stream, an existing one (resume, cancel), or the stateless pipe. */
export function streams<E extends object>(parts: StreamParts<E>) {
  const { admission, admitted, open, clientOf, limitsOf, quotaStore } = parts;

  /** POST /v1/stream with the namespace: a new stream in its own object; the answer names it. */
  async function create(
    request: Request,
    admittedRequest: Request,
    url: URL,
    env: E,
    namespace: RelayNamespace,
    id: string = newStreamId(), // (a chat's record names its stream before it is made: doors/ui-chat/)
  ): Promise<Response> {
    const headers = new Headers(admittedRequest.headers);
    const bound = await admission.bindingFor(request, id, env, admitted.principals.get(admittedRequest)!);
    if (bound !== null) headers.set(BINDING_HEADER, bound);
    headers.set(URL_HEADER, request.url);
    const stub = namespace.get(namespace.idFromName(id));
    const answer = await stub.fetch(`https://stream/create${url.search}`, {
      method: "POST",
      headers,
      body: admittedRequest.body,
    });
    // (not ok: the route settles the claim as refused; the store takes a claim's settlement once)
    if (!answer.ok) return answer;
    const held = admitted.claims.get(admittedRequest);
    if (held) held.taken = true; // (the stream's object settles it when the stream ends)
    const out = new Response(answer.body, answer);
    out.headers.set("content-location", streamPath(id));
    return out;
  }

  /** POST /v1/stream without the namespace: the upstream's answer streamed back, ending with the client. */
  async function stateless(admittedRequest: Request, env: E): Promise<Response> {
    const controller = new AbortController();
    follow(controller, (admittedRequest as { signal?: AbortSignal }).signal);
    const held = admitted.claims.get(admittedRequest);
    const cost = held && !held.taken ? new StreamCost(ticketFrom(held.claim)) : null;
    if (held) admittedRequest.headers.delete(CLAIM_HEADER); // (settled here: it goes no further)
    const settle = (s: Parameters<QuotaStore["settle"]>[0]): void => {
      quotaStore(env).settle(s).catch((e) => console.error("relay: a stream's usage could not be settled", e));
    };
    // (a refusal or a throw before the stream: the route settles the claim as refused)
    const answer = await open(admittedRequest, env, controller.signal);
    if (!answer.ok) return answer;
    cost?.follow(reportedUsageOf(answer));
    const { eventBytes } = limitsOf(env);
    const client = clientOf(answer);
    const served = answer.headers.get(PROVIDER_HEADER); // (the target that served: routing/fallback.ts)
    const servedTarget = answer.headers.get(TARGET_HEADER);
    const back = streamBack(answer, admittedRequest.headers.get("accept"), {
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
  async function existing(request: Request, url: URL, id: string, env: E, namespace: RelayNamespace): Promise<Response> {
    const cancel = request.method === "DELETE";
    const who = await admission.principalOf(request, cancel ? "cancel" : "resume", env);
    if (who instanceof Response) return who;
    if (!STREAM_ID.test(id)) return noStream();
    const headers = new Headers();
    const bound = await admission.bindingFor(request, id, env, who);
    if (bound !== null) headers.set(BINDING_HEADER, bound);
    const stub = namespace.get(namespace.idFromName(id));
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

  return { create, stateless, existing };
}

/** A relay's stream step (what {@link streams} makes). */
export type Streams<E extends object> = ReturnType<typeof streams<E>>;
