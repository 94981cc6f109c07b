// The stream: SPEC §8 and §10 "A stream outlives its object" (an admitted request made a stream: in
// its own Durable Object with the namespace, resumable and cancellable; without it, the stateless
// pipe that ends with its client).
//
// `create` hands an admitted request to a new stream's object (stream-object.ts), which makes the
// one upstream request and settles the claim when the stream ends; `existing` checks a resume or a
// cancel (its principal, the stream's binding) and hands it to the object; `stateless` streams the
// answer straight back, metered (accounting/stream-cost.ts) and settled at its end. `answer` is the
// one call of a door that writes its own API (door-answer.ts): its encoding run where the events are,
// the stream kept in its object when the door's API has a cancel or the request asks to be kept
// (`x-mmsp-keep: 1`), else the stateless path (a client that leaves stops the provider at once).
import { follow } from "../../internal/abort.js";
import type { UniEvent } from "../../schema.js";
import type { QuotaStore } from "../accounting/quota.js";
import { CLAIM_HEADER, metered, StreamCost, ticketFrom } from "../accounting/stream-cost.js";
import type { Admission, Admitted } from "../admission/admit.js";
import type { Limits } from "../admission/limits.js";
import { checkedBatches, passedBytesOf, reportedUsageOf } from "./answer.js";
import { clientFormat, mmspBack } from "./client-format.js";
import type { DoorEncoding } from "./encoding.js";
import { streamHeaders } from "./headers.js";
import type { PassedBytes } from "../routing/pass-through.js";
import { type DoorAsk, doorAskText, encodedAnswer, keptMeta } from "./door-answer.js";
import type { RelayNamespace } from "../platform.js";
import { refusal } from "../refusal.js";
import { BINDING_HEADER, DOOR_HEADER, META_HEADER, PROVIDER_HEADER, TARGET_HEADER, URL_HEADER } from "./headers.js";
import { lastEventId, newStreamId, STREAM_ID, streamPath } from "./resume.js";
import { spentBefore } from "../routing/fallback.js";

/** What the stream step needs of the rest: admission's records and checks, routing's `open`, the books. */
export interface StreamParts<E extends object> {
  admission: Pick<Admission<E>, "principalOf" | "bindingFor">;
  admitted: Admitted;
  open(request: Request, env: E, signal: AbortSignal): Promise<Response>;
  clientOf(response: Response): string;
  limitsOf(env: E): Limits;
  quotaStore(env: E): QuotaStore;
  /** The namespace of the streams' objects in `env`, if bound (none: every answer is stateless). */
  namespace?(env: E): RelayNamespace | undefined;
}

/** What a door's answer is written in, and whether its stream is kept (stream/door-answer.ts). */
export interface DoorStreamOptions {
  /** The encoding's name (the stream object's config holds it by this name). */
  name: string;
  /** The door's encoding. */
  encoding: DoorEncoding;
  /** What the door keeps with the stream (its settings), or null. */
  meta?: string | null;
  /** Kept in the stream's object (resumable, cancellable) when the relay has the namespace; else the stateless path. */
  kept: boolean;
  /** The whole answer (the encoding's `whole`), not a stream. */
  whole?: boolean;
  /** A kept answer carries event ids (`id: <n>`: resumed with Last-Event-ID). */
  ids?: boolean;
  /** A kept stream's id, named before it is made (a chat's record names it first: doors/ui-chat/); default a new one. */
  id?: string;
}

/** The request header a client sends to have a stream kept by a door whose API has no cancel of its own. */
export const KEEP_HEADER = "x-mmsp-keep";

/** Whether a request asks its stream to be kept (`x-mmsp-keep: 1`). */
export const asksKept = (request: Request): boolean => request.headers.get(KEEP_HEADER)?.trim() === "1";

const noStream = (): Response => refusal(404, "NotFoundError", "No such stream: a stream id is 32 hex digits.");

/** The stream step of a relay: a new stream, an existing one (resume, cancel), or the stateless pipe. */
export function streams<E extends object>(parts: StreamParts<E>) {
  const { admission, admitted, open, clientOf, limitsOf, quotaStore } = parts;

  /** POST /v1/stream with the namespace: a new stream in its own object; the answer names it (`door`: a door's answer). */
  async function create(
    request: Request,
    admittedRequest: Request,
    url: URL,
    env: E,
    namespace: RelayNamespace,
    door?: Omit<DoorAsk, "id"> & { id?: string },
  ): Promise<Response> {
    const id = door?.id ?? newStreamId(); // (a chat's record names its stream before it is made: doors/ui-chat/)
    const headers = new Headers(admittedRequest.headers);
    if (door) {
      headers.set(DOOR_HEADER, doorAskText({ ...door, id }));
      const meta = keptMeta({ ...door, id }, headers.get(META_HEADER));
      if (meta !== null) headers.set(META_HEADER, meta);
    }
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

  /** POST /v1/stream without the namespace: the upstream's answer streamed back, ending with the client (`door`: in its encoding). */
  async function stateless(admittedRequest: Request, env: E, door?: DoorStreamOptions): Promise<Response> {
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
    if (!answer.ok) {
      // (a refusal after a fallback moved past a request its provider took: settled here, charging it)
      const spent = spentBefore(answer);
      if (spent && cost && held) {
        held.taken = true;
        settle(cost.refused(spent));
      }
      return answer;
    }
    cost?.follow(reportedUsageOf(answer));
    const { eventBytes } = limitsOf(env);
    const client = clientOf(answer);
    const served = answer.headers.get(PROVIDER_HEADER); // (the target that served: routing/fallback.ts)
    const servedTarget = answer.headers.get(TARGET_HEADER);
    // (one array of events per provider chunk, to the door's encoder in one loop: encoded-body.ts encodedBody)
    const checked = checkedBatches(answer, { client, signal: controller.signal, maxEventBytes: eventBytes });
    const events = cost ? metered(checked, cost, client, settle) : checked;
    if (held) held.taken = true; // (settled by `metered` at the stream's end)
    const bytes = door && !door.whole ? passedBytesOf(answer) : undefined;
    const back = bytes
      ? passedBack(bytes, events)
      : door
      ? await doorBack(events, door, env)
      : mmspOf(events, admittedRequest.headers.get("accept"));
    if (served !== null) back.headers.set(PROVIDER_HEADER, served);
    if (servedTarget !== null) back.headers.set(TARGET_HEADER, servedTarget);
    return back;
  }

  const step = { parts, create, stateless };
  return {
    create,
    stateless,
    existing: (request: Request, url: URL, id: string, env: E, namespace: RelayNamespace, door?: Omit<DoorAsk, "id">) =>
      existing(parts, request, url, id, env, namespace, door),
    answer: (request: Request, admittedRequest: Request, env: E, door: DoorStreamOptions) =>
      doorAnswer(step, request, admittedRequest, env, door),
  };
}

/** GET (resume) or DELETE (cancel) /v1/streams/<id>, checked here, served by the stream's object (`door`: in a door's encoding). */
async function existing<E extends object>(
  parts: StreamParts<E>,
  request: Request,
  url: URL,
  id: string,
  env: E,
  namespace: RelayNamespace,
  door?: Omit<DoorAsk, "id">,
): Promise<Response> {
  const { admission } = parts;
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
  if (door) {
    headers.set(DOOR_HEADER, doorAskText({ ...door, id }));
    const meta = keptMeta({ ...door, id }, headers.get(META_HEADER));
    if (meta !== null) headers.set(META_HEADER, meta);
  }
  const answer = await stub.fetch("https://stream/resume", { headers });
  if (!answer.ok) return answer;
  const out = new Response(answer.body, answer);
  out.headers.set("content-location", streamPath(id));
  return out;
}

/** The checked events in MMSP's format the client asked for (client-format.ts `mmspBack`: each read's events written as one chunk). */
function mmspOf(events: ReadableStream<UniEvent[]>, accept: string | null): Response {
  const { format, contentType } = clientFormat(accept);
  return mmspBack(events, format, contentType);
}

/** A passed-through answer (routing/pass-through.ts): the provider's own bytes to the client, read as its events (checked, metered) are. */
function passedBack(bytes: PassedBytes, events: ReadableStream<UniEvent[]>): Response {
  return new Response(bytes.body(events), { status: 200, headers: streamHeaders("text/event-stream; charset=utf-8") });
}

/** The checked events of a stream that is not kept, in a door's encoding (a new id: nothing names it). */
function doorBack(events: ReadableStream<UniEvent[]>, door: DoorStreamOptions, env: unknown): Promise<Response> {
  const context = { id: door.id ?? newStreamId(), meta: door.meta ?? null, after: null, env, keeper: null };
  return encodedAnswer(events, door.encoding, context, door.whole === true);
}

/**
 * A door's answer to a request it admitted (the one call of a door that writes its own API): kept
 * in a stream's object when `kept` and the relay has the namespace (Content-Location names it),
 * else the stateless path; written in the door's encoding where the events are.
 */
async function doorAnswer<E extends object>(
  step: { parts: StreamParts<E>; create: Streams<E>["create"]; stateless: Streams<E>["stateless"] },
  request: Request,
  admittedRequest: Request,
  env: E,
  door: DoorStreamOptions,
): Promise<Response> {
  const { parts, create, stateless } = step;
  const ns = parts.namespace?.(env);
  admittedRequest.headers.delete(META_HEADER); // (the door's meta goes in its ask: never upstream)
  if (!ns || !door.kept) return stateless(admittedRequest, env, door);
  if (door.meta != null) admittedRequest.headers.set(META_HEADER, door.meta);
  const ask = { name: door.name, after: null, whole: door.whole === true, ids: door.ids === true, id: door.id };
  return create(request, admittedRequest, new URL(request.url), env, ns, ask);
}

/** A relay's stream step (what {@link streams} makes). */
export type Streams<E extends object> = ReturnType<typeof streams<E>>;
