// The Anthropic Messages door: SPEC §10 "Doors: the APIs a client speaks" (/v1/messages, count_tokens, the HEAD / probe).
//
// The relay speaking Anthropic's Messages API (issue #47), for `@anthropic-ai/sdk`, `@ai-sdk/anthropic`
// and Claude Code through ANTHROPIC_BASE_URL, served by the relay's MMSP path (create-relay.ts composes it):
//
//   POST /v1/messages[?beta=true]     the request mapped to MMSP's (request.ts), admitted as POST
//                                     /v1/stream is (key — `x-api-key` too —, body, the models table,
//                                     ceilings, quota), streamed by the same stream object; the checked
//                                     UniEvents encoded (AnthropicMessagesEncoderStream) as Messages SSE
//                                     (message_start with usage, ping, content blocks, message_delta with
//                                     stop_reason and usage, message_stop), or one message object when
//                                     `stream` is not true
//   POST /v1/messages/count_tokens    `{input_tokens}`: the row's target's own counter's figure where it
//                                     has one (routing/count.ts: Anthropic's, Gemini's, the Responses
//                                     API's), else — or when it fails — the relay's estimate, said to be
//                                     one by `x-mmsp-tokens-estimated: true` (doors/count.ts); admitted as
//                                     a count (it counts against `requestsPerMinute`, never the tokens),
//                                     the claim settled at once with nothing spent
//   HEAD /                            200: the probe Claude Code sends before its first request
//
// Refusals are Messages' `{type: "error", error: {type, message}}` with `x-should-retry` (request.ts):
// the door's error shape, which the route table applies to every refusal of its routes. Messages has
// no cancel of its own: a stream is kept (resumable, stoppable by DELETE /v1/streams/<id>) only when the
// request asks with `x-mmsp-keep: 1`; else the client going away aborts the provider. The answer is
// written by the door's encoding (encoding.ts) where the stream's events are; another provider's
// thinking proof in it sealed by the door, and opened again when a client sends it back (seal.ts).
import { type Door, type DoorDeclaration, inDoorShape, type RelayRefusal } from "../door.js";
import { inputEstimate } from "../../accounting/usage-estimate.js";
import type { DoorAsk } from "../../stream/door-answer.js";
import { STREAM_ID } from "../../stream/resume.js";
import type { DoorStreamOptions } from "../../stream/streams.js";
import { asksKept } from "../../stream/streams.js";
import { MESSAGES_ENCODING, messagesEncoding, messagesMetaText } from "./encoding.js";
import { type MessagesAsk, messagesAsk, messagesError } from "./request.js";
import { hasSeals, openSeals, sealEnv, SealRefused } from "../sealing.js";
import { countAnswer } from "../count.js";
import { builderDecides, passThrough } from "../../routing/pass-through.js";
import { isRecord } from "../../../internal/values.js";

/** What createRelay lends these routes. */
export interface MessagesHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`. */
  admit(request: Request, env: E, translate: (body: unknown) => unknown | Response, counting?: boolean): Promise<Request | Response>;
  /** The door's answer to an admitted request (stream/streams.ts `answer`): kept in a stream's object when asked and the relay has them, else stateless. */
  answer(request: Request, admitted: Request, env: E, options: DoorStreamOptions): Promise<Response>;
  /** Whether the relay serves the admitted request's model (a row of its table, or any model without one). */
  serves(admitted: Request): boolean;
  /** The provider (`Provider.name`) of the first target of the row named `model`, if any: a request is passed through to its door's own API's. */
  speaks?(model: string, env: E): string | undefined;
  /** Settles the claim of a request that asked no provider (count_tokens) as one with nothing spent. */
  settle(request: Request, env: E): Promise<void>;
  /** An admitted count's input tokens as its row's target counts them, or null: the relay's estimate (routing/count.ts). */
  count(admitted: Request, env: E): Promise<number | null>;
  /** GET (a resume, Last-Event-ID) or DELETE of kept stream `id`, a GET in the door's encoding; null when the relay keeps no streams. */
  existing(request: Request, id: string, env: E, door?: Omit<DoorAsk, "id">): Promise<Response> | null;
}

/**
 * What the Messages door declares (doors/door.ts): its clients' key in `x-api-key` (besides the
 * relay's own headers: Claude Code's ANTHROPIC_AUTH_TOKEN is `Authorization: Bearer`); the headers of
 * Anthropic's SDKs allowed to browsers; Messages' error shape; no cancel of its own.
 */
export const MESSAGES_DECLARES: DoorDeclaration = {
  keyHeaders: [{ name: "x-api-key" }],
  cors: {
    allow: ["X-Api-Key", "Anthropic-Version", "Anthropic-Beta", "Anthropic-Dangerous-Direct-Browser-Access", "X-Mmsp-Keep"],
    allowPrefixes: ["x-stainless-"],
    expose: ["Request-Id", "X-Mmsp-Tokens-Estimated"],
  },
  errorShape: (r: RelayRefusal) => messagesError(r.status, r.type, r.message, r.headers),
  cancel: false,
  encodings: { [MESSAGES_ENCODING]: messagesEncoding },
};

/** The client's headers that go to Anthropic itself only (on a passed-through request). */
const ANTHROPIC_HEADERS = ["anthropic-version", "anthropic-beta"];
const ownHeaders = (request: Request): [string, string][] =>
  ANTHROPIC_HEADERS.flatMap((name) => {
    const value = request.headers.get(name);
    return value === null ? [] : [[name, value] as [string, string]];
  });

/** The members of a passed-through request the relay decides (the row's model, the reserved output, a stream). */
const DECIDES = builderDecides(["model", "max_tokens", "stream"]);

/** The door's routes, as the 404 of an unknown path names them. */
export const MESSAGES_ROUTES = ["POST /v1/messages", "POST /v1/messages/count_tokens", "GET or DELETE /v1/messages/<id>", "HEAD /"];

const KEPT = /^\/v1\/messages\/msg_([^/]+)$/;

/** The Messages door: its routes, and what it declares. */
export function messagesDoor<E>(hooks: MessagesHooks<E>): Door<E> {
  return { ...MESSAGES_DECLARES, routes: MESSAGES_ROUTES, answer: messagesRoutes(hooks) };
}

/** The routes: an answer for /v1/messages, its count_tokens and HEAD /; null for any other path or method. */
export function messagesRoutes<E>(hooks: MessagesHooks<E>) {
  return async (request: Request, env: E, url: URL): Promise<Response | null> => {
    if (url.pathname === "/") return request.method === "HEAD" ? new Response(null, { status: 200 }) : null;
    const kept = KEPT.exec(url.pathname);
    if (kept) return existing(request, env, kept[1]!);
    const count = url.pathname === "/v1/messages/count_tokens";
    if (!count && url.pathname !== "/v1/messages") return null;
    if (request.method !== "POST") {
      return inDoorShape(messagesError(405, "invalid_request_error", `POST a Messages request to ${url.pathname}.`, { allow: "POST" }));
    }
    return count ? countTokens(request, env) : create(request, env);
  };

  /**
   * Admits the request, its body translated by `messagesAsk`: the admitted request, the ask and the
   * body when it is passed through (pass-through.ts), or the refusal to answer. A body that carries a
   * sealed value goes encoded (its value opened for its maker by the builder: the client's text of it
   * is the relay's seal, which Anthropic would refuse), its members checked as at any door.
   */
  async function admitted(request: Request, env: E, count: boolean): Promise<[Request, MessagesAsk, Record<string, unknown>?] | Response> {
    let ask: MessagesAsk | Response | undefined;
    let passed: Record<string, unknown> | undefined;
    const admitted = await hooks.admit(request, env, (body) => {
      passed = !count && passes(request, body, env) ? body : undefined;
      ask = messagesAsk(body, count, passed !== undefined);
      if (passed !== undefined && !(ask instanceof Response) && hasSeals(ask.mmsp)) {
        passed = undefined;
        ask = messagesAsk(body, count);
      }
      if (ask instanceof Response) return ask;
      // (a sealed signature opened to its maker's own value, or refused naming its member: doors/sealing.ts)
      return openSeals(ask.mmsp, sealEnv(env)).catch((e) => {
        if (!(e instanceof SealRefused)) throw e;
        return (ask = messagesError(400, "invalid_request_error", e.message));
      });
    }, count); // (a count claims a place in requestsPerMinute only: admission's `counting`)
    if (admitted instanceof Response) return admitted === ask ? inDoorShape(admitted) : admitted; // (a refusal: the route table shapes it)
    return passed === undefined ? [admitted, ask as MessagesAsk] : [admitted, ask as MessagesAsk, passed];
  }

  /** Whether a request is passed through (pass-through.ts): streamed, not kept, its row's first target Anthropic's. */
  function passes(request: Request, body: unknown, env: E): body is Record<string, unknown> {
    if (!isRecord(body) || body.stream !== true || asksKept(request) || typeof body.model !== "string") return false;
    return hooks.speaks?.(body.model, env) === "anthropic";
  }

  async function create(request: Request, env: E): Promise<Response> {
    const made = await admitted(request, env, false);
    if (made instanceof Response) return made;
    const [admittedRequest, ask, passed] = made;
    admittedRequest.headers.set("accept", "text/event-stream");
    const meta = { model: ask.mmsp.model, inputTokens: inputEstimate(ask.mmsp.messages, ask.mmsp.config) };
    const kept = asksKept(request);
    // same API in, same provider out: a streamed request not kept goes to an Anthropic target as written
    if (passed !== undefined) {
      passThrough(admittedRequest, { provider: "anthropic", body: passed, headers: ownHeaders(request), decide: DECIDES });
    }
    const answer = await hooks.answer(request, admittedRequest, env, {
      name: MESSAGES_ENCODING,
      encoding: messagesEncoding,
      meta: messagesMetaText(meta),
      kept, // (Messages has no cancel: kept only when asked, x-mmsp-keep: 1)
      whole: !ask.stream,
      ids: kept,
    });
    const location = /^\/v1\/streams\/([0-9a-f]{32})$/.exec(answer.headers.get("content-location") ?? "");
    if (answer.ok && location) answer.headers.set("content-location", `/v1/messages/msg_${location[1]}`); // (resumed and stopped there)
    return answer;
  }

  /** A kept message's stream: GET resumes it (Last-Event-ID) in Messages' encoding, DELETE stops it (SPEC §8). */
  async function existing(request: Request, env: E, id: string): Promise<Response> {
    if (request.method !== "GET" && request.method !== "DELETE") {
      return inDoorShape(
        messagesError(405, "invalid_request_error", "GET resumes a kept message's stream, DELETE stops it.", { allow: "GET, DELETE" }),
      );
    }
    if (!STREAM_ID.test(id)) {
      return inDoorShape(messagesError(404, "not_found_error", "No such message stream: its id is msg_ and 32 hex digits."));
    }
    const door = request.method === "GET" ? { name: MESSAGES_ENCODING, after: null, whole: false, ids: true } : undefined;
    const answer = hooks.existing(request, id, env, door);
    if (answer === null) {
      return inDoorShape(
        messagesError(404, "not_found_error", "This relay keeps no streams (no stream Durable Object binding): nothing to resume or stop."),
      );
    }
    const out = await answer;
    if (!out.ok || door === undefined) return out;
    const resumed = new Response(out.body, out); // (a new Response: a stream object's headers are immutable)
    resumed.headers.delete("content-location");
    return resumed;
  }

  async function countTokens(request: Request, env: E): Promise<Response> {
    const made = await admitted(request, env, true);
    if (made instanceof Response) return made;
    const [admittedRequest, ask] = made;
    await hooks.settle(request, env);
    if (!hooks.serves(admittedRequest)) {
      const model = ask.mmsp.model.slice(0, 128);
      return inDoorShape(
        messagesError(404, "not_found_error", `model: ${model} is not a model this relay serves (GET /v1/models lists them).`),
      );
    }
    const counted = await hooks.count(admittedRequest, env);
    return countAnswer(counted, () => inputEstimate(ask.mmsp.messages, ask.mmsp.config), (input_tokens) => ({ input_tokens }));
  }
}
