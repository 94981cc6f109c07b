// POST /api/chat: the relay speaks the AI SDK's `useChat` (DefaultChatTransport).
//
//   request   the AI SDK's default chat request: { id, messages: UIMessage[], trigger, messageId?,
//             …the transport's `body` }: here `model` and `config` (MMSP's request fields)
//   → MMSP    { model, messages: toMmspMessages(messages), config } through the same path as
//             POST /v1/stream: relayed to MMSP_UPSTREAM (relay.ts: Authorization forwarded, a
//             refusal passed on) or, without it, a built-in sample chosen by `model` (replay.ts,
//             `?pace=` as there)
//   ← answer  the checked MMSP stream read back (fromResponse) and turned into the UI message
//             stream (UIMessageChunkStream, toUIMessageStreamResponse); an upstream error or protocol
//             violation mid-stream is one `error` chunk, then the end
//
// Cancel runs back through the pipes: a client that stops (useChat's stop(), a closed tab) cancels
// the answer's body, which cancels the MMSP stream and so the upstream request (relay.ts also aborts
// the upstream fetch on the request's signal). CORS: any origin may call it (preflights answered).
import { fromResponse } from "../src/index.ts";
import { toMmspMessages, toUIMessageStreamResponse, UIMessageChunkStream, UIMessageConversionError, type UIMessage } from "../src/ai-sdk/index.ts";
import { relay } from "./relay.ts";
import { replay } from "./replay.ts";
import { refusal } from "./stream.ts";

export interface ChatEnv {
  MMSP_UPSTREAM?: string;
  SAMPLE_PACE_MS?: string;
}

// CORS: the router answers preflights and adds the headers to every answer (cors.ts, one place).

const bad = (message: string): Response => refusal(400, "InvalidRequestError", message);

export async function chat(request: Request, url: URL, env: ChatEnv): Promise<Response> {
  if (request.method !== "POST") return refusal(405, "MethodNotAllowed", "POST an AI SDK chat request to /api/chat.", { allow: "POST, OPTIONS" });

  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return bad("The request body is not JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return bad("The request body must be a JSON object.");
  const { messages, model, config } = body as { messages?: unknown; model?: unknown; config?: unknown };
  if (!Array.isArray(messages)) return bad("`messages` must be the chat's UIMessage array.");
  if (model !== undefined && typeof model !== "string") return bad("`model` must be a string.");
  if (config !== undefined && (config === null || typeof config !== "object" || Array.isArray(config)))
    return bad("`config` must be an object.");
  let mmspMessages;
  try {
    mmspMessages = toMmspMessages(messages as UIMessage[]);
  } catch (e) {
    if (e instanceof UIMessageConversionError || e instanceof TypeError) return bad(e.message);
    throw e;
  }

  // The MMSP request, sent down the /v1/stream path (relay or replay) as a request of its own; it
  // carries the client's signal, so a client that goes away also aborts the upstream fetch.
  const headers = new Headers({ "content-type": "application/json", accept: "text/event-stream" });
  const authorization = request.headers.get("authorization");
  if (authorization !== null) headers.set("authorization", authorization);
  const mmspRequest = new Request(new URL(`/v1/stream${url.search}`, url), {
    method: "POST",
    headers,
    body: JSON.stringify({ ...(model === undefined ? {} : { model }), messages: mmspMessages, config: config ?? {} }),
    signal: request.signal,
  });
  const answer = env.MMSP_UPSTREAM
    ? await relay(mmspRequest, env.MMSP_UPSTREAM)
    : await replay(mmspRequest, new URL(mmspRequest.url), env.SAMPLE_PACE_MS);
  if (!answer.ok) return answer; // a refusal: status and body as they came

  // A conversation that ends with an assistant message (its tool outputs just added) continues that
  // message: the answer keeps its id, as the AI SDK's own servers do, so useChat extends it in place.
  const last = messages.at(-1) as { role?: unknown; id?: unknown } | undefined;
  const messageId = last?.role === "assistant" && typeof last.id === "string" && last.id !== "" ? last.id : undefined;
  const { readable } = fromResponse(answer, { client: "upstream", signal: request.signal });
  return toUIMessageStreamResponse(readable.pipeThrough(new UIMessageChunkStream({ messageId })));
}
