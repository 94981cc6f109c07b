// POST /api/chat: the relay speaks the AI SDK's `useChat` (DefaultChatTransport, or the package's
// MmspChatTransport, which also stops and reconnects).
//
//   request   the AI SDK's default chat request: { id, messages: UIMessage[], trigger, messageId?,
//             …the transport's `body` }: here `model` and `config` (MMSP's request fields)
//   → MMSP    { model, messages: toMmspMessages(messages), config }
//   ← answer  the checked MMSP stream read back (fromResponse) and turned into the UI message
//             stream (UIMessageChunkStream, toUIMessageStreamResponse); an upstream error or protocol
//             violation mid-stream is one `error` chunk, then the end
//
// With the STREAMS binding (and the request's chat `id`) an answer is kept like a /v1/stream answer:
// the MMSP stream in its own Durable Object (stream-object.ts: the same bounds, the same credential
// binding), and the chat's record (chat-record.ts, the object `chat:<HMAC of its creator's credentials and chat id>`) remembers it as the
// chat's active stream with its assistant message id. Every answer carries `ETag: "<stream id>"`.
//
//   GET    /api/chat/<chatId>/stream   the active stream's UI message stream replayed from its start
//                                      (the same chunks, the same message id: a replay rebuilds the
//                                      same message), then live; 204 when none is active (ended,
//                                      expired, unknown). With `If-Match: "<stream id>"`: that stream,
//                                      ended or not (a reconnect after a dropped connection), 412 when
//                                      a newer answer replaced it
//   DELETE /api/chat/<chatId>/stream   cancels the active stream (SPEC §8: upstream aborted, the
//                                      stream ends with StreamCancelled for every viewer); 204, also
//                                      when none is active; `If-Match` as above
//
// One active answer per chat: a new POST for a chat cancels its previous stream if that is still
// live. A chat belongs to its creator's credentials (bind.ts) and principal (the RELAY_KEYS name whose
// key it sent, as a /v1/streams stream does): its record is the object named by an
// HMAC of them and the chat id (recordName), so another client posting, resuming or cancelling the
// same chat id reaches a record of its own: to it the chat does not exist (204, no ETag), and the
// first is untouched. Without credentials a chat is kept only when its id has at least 16 characters
// (the AI SDK's are 16 random ones): the id is then what guards it; a shorter one is answered
// stateless. A client that goes away does not stop a kept answer (it stays resumable; DELETE
// stops it). Without the STREAMS binding, or without an `id`, the answer is stateless as before: a
// client that goes away cancels the upstream request, and GET / DELETE …/stream answer 204.
// CORS: the router answers preflights and adds the headers to every answer (cors.ts, one place).
import { fromResponse, toWireEvent } from "../src/index.ts";
import {
  toMmspMessages,
  toUIMessageStreamResponse,
  type UIMessage,
  UIMessageChunkStream,
  UIMessageConversionError,
} from "../src/ai-sdk/index.ts";
import { generateMessageId } from "../src/ai-sdk/ids.ts";
import { bindingOfText, credentialsOf, scopedName } from "../src/relay/admission/bind.ts";
import type { Env } from "./env.ts";
import { relay } from "../src/relay/doors/mmsp/http.ts";
import { replay } from "./replay.ts";
import { newStreamId } from "../src/relay/stream/resume.ts";
import { BINDING_HEADER } from "../src/relay/stream/stream-object.ts";
import { CLAIM_HEADER } from "../src/relay/accounting/stream-cost.ts";
import { refusal } from "../src/relay/refusal.ts";
import { ownValue } from "../src/internal/values.ts";

/** The variables chat.ts reads (a subset of the relay's Env). */
export type ChatEnv = Pick<Env, "MMSP_UPSTREAM" | "SAMPLE_PACE_MS" | "STREAMS" | "BIND_SECRET">;

const bad = (message: string): Response => refusal(400, "InvalidRequestError", message);
const noContent = (): Response => new Response(null, { status: 204 });

/** The longest chat id kept (the AI SDK's are 16 characters). */
const MAX_CHAT_ID = 256;
const CHAT_STREAM_PATH = /^\/api\/chat\/([^/]+)\/stream$/;

/** A chat id the relay keeps: 1…256 characters, no control characters. */
const isChatId = (id: unknown): id is string =>
  // deno-lint-ignore no-control-regex -- control characters are what it refuses
  typeof id === "string" && id.length > 0 && id.length <= MAX_CHAT_ID && !/[\u0000-\u001f\u007f]/.test(id);

/**
 * The chat id of a `/api/chat/<chatId>/stream` path (percent-decoded), `""` for such a path whose id
 * is not one (a 404), or null for other paths.
 */
export function chatIdOf(pathname: string): string | null {
  const m = CHAT_STREAM_PATH.exec(pathname);
  if (!m) return null;
  let id: string;
  try {
    id = decodeURIComponent(m[1]!);
  } catch {
    return "";
  }
  return isChatId(id) ? id : "";
}

/** The stream id an `If-Match` names (`"<id>"`, `W/"<id>"`; `*` or none: undefined). */
function ifMatchOf(request: Request): string | undefined {
  const raw = request.headers.get("if-match");
  if (raw === null || raw.trim() === "*") return undefined;
  const first = raw.split(",")[0]!.trim().replace(/^W\//, "");
  return first.replace(/^"|"$/g, "");
}

const etag = (streamId: string): string => `"${streamId}"`;

interface ParsedChat {
  chatId: string | undefined;
  messageId: string | undefined;
  mmspBody: string;
}

/** The AI SDK's chat request, checked and turned into the MMSP request body, or a 400. */
async function parseChat(request: Request): Promise<ParsedChat | Response> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return bad("The request body is not JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return bad("The request body must be a JSON object.");
  const { id, messages, model, config } = body as { id?: unknown; messages?: unknown; model?: unknown; config?: unknown };
  if (!Array.isArray(messages)) return bad("`messages` must be the chat's UIMessage array.");
  if (model !== undefined && typeof model !== "string") return bad("`model` must be a string.");
  if (config !== undefined && (config === null || typeof config !== "object" || Array.isArray(config))) {
    return bad("`config` must be an object.");
  }
  if (id !== undefined && !isChatId(id)) {
    return bad(`\`id\` (the chat id) must be a string of 1 to ${MAX_CHAT_ID} characters without control characters.`);
  }
  let mmspMessages;
  try {
    mmspMessages = toMmspMessages(messages as UIMessage[]);
  } catch (e) {
    if (e instanceof UIMessageConversionError || e instanceof TypeError) return bad(e.message);
    throw e;
  }
  // A conversation that ends with an assistant message (its tool outputs just added) continues that
  // message: the answer keeps its id, as the AI SDK's own servers do, so useChat extends it in place.
  const last = messages.at(-1) as { role?: unknown; id?: unknown } | undefined;
  const messageId = last?.role === "assistant" && typeof last.id === "string" && last.id !== "" ? last.id : undefined;
  // (the messages' byte fields as base64 text, as MMSP writes them: a Uint8Array would stringify as {"0":…})
  const wire = mmspMessages.map((message) => toWireEvent(message));
  const mmspBody = JSON.stringify({ ...(model === undefined ? {} : { model }), messages: wire, config: config ?? {} });
  return { chatId: id, messageId, mmspBody };
}

/**
 * POST /api/chat. `credentials`: the headers the client sent (before the relay's key was taken
 * out), which bind a kept chat and its streams (bind.ts), with `principal` (the RELAY_KEYS name of
 * the key it sent; null: none).
 */
export async function chat(
  request: Request,
  url: URL,
  env: ChatEnv,
  credentials: Headers = request.headers,
  principal: string | null = null,
): Promise<Response> {
  if (request.method !== "POST") {
    return refusal(405, "MethodNotAllowed", "POST an AI SDK chat request to /api/chat.", { allow: "POST, OPTIONS" });
  }
  const parsed = await parseChat(request);
  if (parsed instanceof Response) return parsed;
  const who = whoOf(credentials, principal);
  const record = env.STREAMS && parsed.chatId !== undefined ? await recordName(who, parsed.chatId, env) : null;
  if (env.STREAMS && record !== null) return keptChat(request, url, env, env.STREAMS, parsed, record, who);

  // Stateless: the MMSP request, sent down the /v1/stream path (relay or replay) as a request of its
  // own; it carries the client's signal, so a client that goes away also aborts the upstream fetch.
  const headers = new Headers({ "content-type": "application/json", accept: "text/event-stream" });
  const authorization = request.headers.get("authorization");
  if (authorization !== null) headers.set("authorization", authorization);
  const mmspRequest = new Request(new URL(`/v1/stream${url.search}`, url), {
    method: "POST",
    headers,
    body: parsed.mmspBody,
    signal: request.signal,
  });
  const upstream = ownValue(env, "MMSP_UPSTREAM"); // (own only: issue #34)
  const answer = upstream ? await relay(mmspRequest, upstream) : await replay(mmspRequest, new URL(mmspRequest.url), env.SAMPLE_PACE_MS);
  if (!answer.ok) return answer; // a refusal: status and body as they came
  const { readable } = fromResponse(answer, { client: "upstream", signal: request.signal });
  return toUIMessageStreamResponse(readable.pipeThrough(new UIMessageChunkStream({ messageId: parsed.messageId })));
}

/** A stream's object's answer (MMSP SSE) as the chat's UI message stream, named by its ETag. */
function uiAnswer(answer: Response, messageId: string, streamId: string): Response {
  const { readable } = fromResponse(answer, { client: "the relay's stream" });
  return toUIMessageStreamResponse(readable.pipeThrough(new UIMessageChunkStream({ messageId })), { headers: { etag: etag(streamId) } });
}

/** A call to a chat's record (chat-record.ts). */
async function recordCall(
  streams: DurableObjectNamespace,
  record: string,
  route: string,
  body: object,
  binding: string | null = null,
): Promise<Response> {
  const headers = new Headers({ "content-type": "application/json" });
  if (binding !== null) headers.set(BINDING_HEADER, binding);
  return streams.get(streams.idFromName(record)).fetch(`https://stream/chat/${route}`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
}

/**
 * Who a request is, as a chat's record and streams are bound to it: its credentials (bind.ts) and,
 * with a key, its principal — in the words of create-relay.ts's bindingFor, so a chat's stream is its
 * principal's at /v1/streams/<id> too. Null: no credentials, no key.
 */
export function whoOf(headers: Headers, principal: string | null): string | null {
  const text = credentialsOf(headers);
  return principal === null ? text : `${text ?? ""}\nprincipal: ${principal}`;
}

/** The shortest chat id kept for a client without credentials (the AI SDK's own are 16 random characters). */
const MIN_ANONYMOUS_CHAT_ID = 16;

/**
 * The name of a chat's record for the client with these credentials (bind.ts scopedName): each
 * creator reaches their own, so a stranger posting the same chat id reaches another record and can
 * neither see, cancel nor replace the first. Null for a chat that is not kept: no credentials and an
 * id shorter than 16 characters (an id is then all that guards it, and a short one can be guessed).
 */
async function recordName(who: string | null, chatId: string, env: ChatEnv): Promise<string | null> {
  if (who === null && chatId.length < MIN_ANONYMOUS_CHAT_ID) return null;
  return `chat:${await scopedName(who, chatId, env)}`;
}

/** The headers for a stream's object: the binding of who asks (whoOf) to that stream, and `extra`. */
async function toStream(who: string | null, streamId: string, env: ChatEnv, extra: Record<string, string> = {}): Promise<Headers> {
  const headers = new Headers(extra);
  const binding = await bindingOfText(who, streamId, env);
  if (binding !== null) headers.set(BINDING_HEADER, binding);
  return headers;
}

/** Cancels a stream (its object's cancel: upstream aborted, StreamCancelled), under the credentials' binding. */
async function cancelKept(streams: DurableObjectNamespace, streamId: string, who: string | null, env: ChatEnv): Promise<Response> {
  const headers = await toStream(who, streamId, env);
  return streams.get(streams.idFromName(streamId)).fetch("https://stream/cancel", { method: "DELETE", headers });
}

/** POST /api/chat with STREAMS and a chat id: the answer kept in a stream's object, the chat's active stream. */
async function keptChat(
  request: Request,
  url: URL,
  env: ChatEnv,
  streams: DurableObjectNamespace,
  parsed: ParsedChat,
  record: string,
  who: string | null,
): Promise<Response> {
  const messageId = parsed.messageId ?? generateMessageId();
  const streamId = newStreamId();
  const begun = await recordCall(streams, record, "begin", { streamId, messageId }, await bindingOfText(who, record, env));
  if (!begun.ok) return begun; // 403: another's chat
  const { previous } = (await begun.json()) as { previous: string | null };
  if (previous !== null) await (await cancelKept(streams, previous, who, env)).arrayBuffer(); // one active answer per chat

  // the MMSP request, as POST /v1/stream would make it (the upstream gets Content-Type and Authorization)
  const headers = await toStream(who, streamId, env, { "content-type": "application/json", accept: "text/event-stream" });
  const authorization = request.headers.get("authorization"); // (the relay's own key is already taken out)
  if (authorization !== null) headers.set("authorization", authorization);
  const claim = request.headers.get(CLAIM_HEADER); // (the quota's claim: the object settles it at the stream's end)
  if (claim !== null) headers.set(CLAIM_HEADER, claim);
  const answer = await streams.get(streams.idFromName(streamId)).fetch(`https://stream/create${url.search}`, {
    method: "POST",
    headers,
    body: parsed.mmspBody,
  });
  if (!answer.ok) {
    await (await recordCall(streams, record, "failed", { streamId })).arrayBuffer();
    return answer; // a refusal: status and body as they came
  }
  const started = (await (await recordCall(streams, record, "started", { streamId })).json()) as { cancelled: boolean };
  if (started.cancelled) await (await cancelKept(streams, streamId, who, env)).arrayBuffer(); // a DELETE came while it was created
  return uiAnswer(answer, messageId, streamId);
}

/** How long a GET waits for a stream that is being created (its upstream's answer not there yet). */
const PENDING_WAIT_MS = 10_000;

/** GET / DELETE /api/chat/<chatId>/stream (see the top). */
export async function chatStream(
  request: Request,
  _url: URL,
  chatId: string,
  env: ChatEnv,
  principal: string | null = null,
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "DELETE") {
    return refusal(405, "MethodNotAllowed", "GET /api/chat/<chatId>/stream resumes the chat's active answer, DELETE cancels it.", {
      allow: "GET, DELETE",
    });
  }
  if (chatId === "") {
    return refusal(404, "NotFoundError", `No such chat: a chat id is 1 to ${MAX_CHAT_ID} characters without control characters.`);
  }
  const streams = env.STREAMS;
  if (!streams) return noContent(); // a stateless relay keeps no answer: none is active
  const who = whoOf(request.headers, principal);
  const record = await recordName(who, chatId, env);
  if (record === null) return noContent(); // a chat that is not kept (see recordName): none is active
  const ifMatch = ifMatchOf(request);
  const cancel = request.method === "DELETE";
  const chatBinding = await bindingOfText(who, record, env);
  const deadline = Date.now() + PENDING_WAIT_MS;
  for (;;) {
    const active = await recordCall(streams, record, "active", { ifMatch, cancel }, chatBinding);
    if (active.status !== 200) return active; // 204 none, 403, 412
    const { streamId, messageId, state } = (await active.json()) as { streamId: string; messageId: string; state: string };
    if (cancel) {
      if (state === "cancel") return noContent(); // being created: cancelled once it exists (keptChat)
      const cancelled = await cancelKept(streams, streamId, who, env);
      return cancelled.status === 404 ? noContent() : cancelled; // 204
    }
    const headers = await toStream(who, streamId, env, { accept: "text/event-stream", "x-resume-after": "-1" });
    if (ifMatch === undefined) headers.set("x-resume-live-only", "1");
    const answer = await streams.get(streams.idFromName(streamId)).fetch("https://stream/resume", { headers });
    if (answer.status === 404 && state !== "started" && Date.now() < deadline) {
      await answer.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 200)); // not created yet: wait for it
      continue;
    }
    if (answer.status === 404 || answer.status === 204) return noContent(); // expired, or ended
    if (!answer.ok) return answer; // 429
    return uiAnswer(answer, messageId, streamId);
  }
}
