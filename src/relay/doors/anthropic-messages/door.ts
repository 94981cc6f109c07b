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
//   POST /v1/messages/count_tokens    `{input_tokens}`: the relay's estimate of the request's input (its
//                                     quota's own, accounting/usage-estimate.ts), said to be one by
//                                     `x-mmsp-tokens-estimated: true`; admitted and claimed as a request
//                                     (it counts against `requestsPerMinute`), the claim settled at once
//                                     with nothing spent
//   HEAD /                            200: the probe Claude Code sends before its first request
//
// Refusals are Messages' `{type: "error", error: {type, message}}` with `x-should-retry` (request.ts).
// The message id is `msg_<stream id>` (the stream's, when a stream object keeps it).
import { anthropicMessage, AnthropicMessagesEncoderStream, anthropicMessagesError } from "../../../encode.js";
import { fromResponse } from "../../../from-response.js";
import { through } from "../../../internal/through.js";
import type { UniEvent } from "../../../schema.js";
import { inputEstimate } from "../../accounting/usage-estimate.js";
import { streamHeaders } from "../../routing/answer.js";
import { newStreamId } from "../../stream/resume.js";
import { type MessagesAsk, messagesAsk, messagesError, messagesRefusal } from "./request.js";
import { sealStage } from "./seal.js";

/** What createRelay lends these routes. */
export interface MessagesHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`. */
  admit(request: Request, env: E, translate: (body: unknown) => unknown | Response): Promise<Request | Response>;
  /** The MMSP answer to an admitted request: the stream object's (its Content-Location names it) or the stateless pipe's. */
  stream(request: Request, admitted: Request, env: E): Promise<Response>;
  /** Whether the relay serves the admitted request's model (a row of its table, or any model without one). */
  serves(admitted: Request): boolean;
  /** Settles the claim of a request that asked no provider (count_tokens) as one with nothing spent. */
  settle(request: Request, env: E): Promise<void>;
}

/** The door's routes, as the 404 of an unknown path names them. */
export const MESSAGES_ROUTES = ["POST /v1/messages", "POST /v1/messages/count_tokens", "HEAD /"];

const SSE_TYPE = "text/event-stream; charset=utf-8";

/** The routes: an answer for /v1/messages, its count_tokens and HEAD /; null for any other path or method. */
export function messagesRoutes<E>(hooks: MessagesHooks<E>) {
  return async (request: Request, env: E, url: URL): Promise<Response | null> => {
    if (url.pathname === "/") return request.method === "HEAD" ? new Response(null, { status: 200 }) : null;
    const count = url.pathname === "/v1/messages/count_tokens";
    if (!count && url.pathname !== "/v1/messages") return null;
    if (request.method !== "POST") {
      return messagesError(405, "invalid_request_error", `POST a Messages request to ${url.pathname}.`, { allow: "POST" });
    }
    return count ? countTokens(request, env) : create(request, env);
  };

  /** Admits the request, its body translated by `messagesAsk`: the admitted request and the ask, or the refusal to answer. */
  async function admitted(request: Request, env: E, count: boolean): Promise<[Request, MessagesAsk] | Response> {
    let ask: MessagesAsk | Response | undefined;
    const admitted = await hooks.admit(request, env, (body) => {
      ask = messagesAsk(body, count);
      return ask instanceof Response ? ask : ask.mmsp;
    });
    if (admitted instanceof Response) return admitted === ask ? admitted : messagesRefusal(admitted);
    return [admitted, ask as MessagesAsk];
  }

  async function create(request: Request, env: E): Promise<Response> {
    const made = await admitted(request, env, false);
    if (made instanceof Response) return made;
    const [admittedRequest, ask] = made;
    admittedRequest.headers.set("accept", "text/event-stream");
    const answer = await hooks.stream(request, admittedRequest, env);
    if (!answer.ok) return messagesRefusal(answer);
    const location = /^\/v1\/streams\/([0-9a-f]{32})$/.exec(answer.headers.get("content-location") ?? "");
    const options = {
      id: `msg_${location ? location[1] : newStreamId()}`,
      model: ask.mmsp.model,
      inputTokens: inputEstimate(ask.mmsp.messages, ask.mmsp.config),
    };
    const { readable, message } = fromResponse(answer, { client: "relay" });
    message.catch(() => {}); // (the readable carries a failure to the encoder, which writes it; the message is not read)
    const events = through(readable, sealStage()); // (another provider's signatures sealed with their provenance: seal.ts)
    const out = ask.stream ? sse(through(events, new AnthropicMessagesEncoderStream(options))) : await whole(events, options);
    for (const name of ["x-mmsp-provider", "x-mmsp-target"]) {
      const value = answer.headers.get(name);
      if (value !== null) out.headers.set(name, value);
    }
    return out;
  }

  async function countTokens(request: Request, env: E): Promise<Response> {
    const made = await admitted(request, env, true);
    if (made instanceof Response) return made;
    const [admittedRequest, ask] = made;
    await hooks.settle(request, env);
    if (!hooks.serves(admittedRequest)) {
      return messagesError(
        404,
        "not_found_error",
        `model: ${ask.mmsp.model.slice(0, 128)} is not a model this relay serves (GET /v1/models lists them).`,
      );
    }
    const input_tokens = inputEstimate(ask.mmsp.messages, ask.mmsp.config);
    return Response.json({ input_tokens }, { headers: { "x-mmsp-tokens-estimated": "true" } });
  }
}

function sse(bytes: ReadableStream<Uint8Array>): Response {
  return new Response(through(bytes, pingAfterStart()), { status: 200, headers: streamHeaders(SSE_TYPE) });
}

/** The events read to the end: one message object, or the error they ended with in Messages' shape. */
async function whole(events: ReadableStream<UniEvent>, options: { id: string; model: string; inputTokens: number }): Promise<Response> {
  const all: UniEvent[] = [];
  const reader = events.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) all.push(r.value);
  } catch (e) {
    const { status, body } = anthropicMessagesError(e);
    return messagesError(status, body.error.type, body.error.message);
  }
  return Response.json(anthropicMessage(all, options));
}

const PING = new TextEncoder().encode('event: ping\ndata: {"type":"ping"}\n\n');

/** A `ping` event after `message_start`, as the API sends one (clients expect it there; it says nothing). */
function pingAfterStart(): TransformStream<Uint8Array, Uint8Array> {
  let seen = new Uint8Array(0);
  let done = false;
  return new TransformStream({
    transform(chunk, controller) {
      if (done) return controller.enqueue(chunk);
      const joined = new Uint8Array(seen.length + chunk.length);
      joined.set(seen);
      joined.set(chunk, seen.length);
      const end = endOfFirstRecord(joined);
      if (end < 0) {
        seen = joined;
        return;
      }
      done = true;
      controller.enqueue(joined.subarray(0, end));
      if (new TextDecoder().decode(joined.subarray(0, 20)).startsWith("event: message_start")) controller.enqueue(PING);
      if (end < joined.length) controller.enqueue(joined.subarray(end));
    },
    flush(controller) {
      if (!done && seen.length > 0) controller.enqueue(seen);
    },
  });
}

/** The index just past the first `\n\n` of `bytes`, or -1. */
function endOfFirstRecord(bytes: Uint8Array): number {
  for (let i = 1; i < bytes.length; i++) if (bytes[i] === 10 && bytes[i - 1] === 10) return i + 1;
  return -1;
}
