// mmsp-streams-relay: a Cloudflare Worker in front of an MMSP server, and a demo page.
//
//   POST /v1/stream        creates a stream: a Durable Object (stream-object.ts, binding STREAMS) makes
//                          the one request to `${MMSP_UPSTREAM}/stream` (relay.ts), or, without
//                          MMSP_UPSTREAM, replays the built-in sample chosen by the body's `model`
//                          (replay.ts); the stream is checked by the package, stored event by event and
//                          written back as SSE (`id: <n>` on every event), or as NDJSON when `Accept`
//                          asks for it; `Content-Location: /v1/streams/<id>` names it
//   GET /v1/streams/<id>   resumes it: `Last-Event-ID: <n>` (or `?last_event_id=<n>`) → events n+1…,
//                          then live to the end (resume.ts)
//   DELETE /v1/streams/<id> cancels it (SPEC §8): the upstream request aborted, the stream ended with
//                          a StreamCancelled error event for every viewer and resume (204)
//   POST /api/chat         the AI SDK's useChat: a UI message stream (chat.ts), kept like a /v1/stream
//                          answer; GET / DELETE /api/chat/<chatId>/stream resume / cancel it
//   OPTIONS *              CORS preflights (cors.ts; every answer carries the CORS headers)
//   GET /                  the demo page (page/index.html); GET /demo.js its script (page/demo.ts + src/)
//
// Without the STREAMS binding the relay is stateless (stream.ts): no resume, and a client that goes
// away cancels the upstream request.
// Safe by default: a POST must be application/json (415) and at most MAX_BODY_BYTES (413), and carry
// RELAY_KEY when one is set (401); the stream's bounds (limits.ts); credentials bind a stream to its
// creator (bind.ts); every answer carries nosniff, the page a Content-Security-Policy; a request
// that makes the relay throw is a 500 refusal without a stack.
// Variables (env.ts): MMSP_UPSTREAM, SAMPLE_PACE_MS, STREAM_TTL_S, ABANDON_S, CORS_ORIGINS, RELAY_KEY,
// BIND_SECRET, MAX_BODY_BYTES, MAX_STREAM_S, MAX_EVENTS, MAX_STREAM_BYTES, MAX_CLIENTS.
// worker/generated/assets.ts is made by `node worker/build.mjs` (wrangler's [build] command).
import { chat, chatIdOf, chatStream } from "./chat.ts";
import { DEMO_HTML, DEMO_JS } from "./generated/assets.ts";
import { relay } from "./relay.ts";
import { DEFAULT_MODEL, replay, sampleModels } from "./replay.ts";
import { authorizationIsRelayKey, bindingOf, keyRefusal } from "./bind.ts";
import { preflight, withCors } from "./cors.ts";
import type { Env } from "./env.ts";
import { limits, readJsonBody } from "./limits.ts";
import { lastEventId, newStreamId, STREAM_ID, streamIdOf, streamPath } from "./resume.ts";
import { BINDING_HEADER } from "./stream-object.ts";
import { refusal } from "./stream.ts";

export { StreamObject } from "./stream-object.ts";
export type { Env } from "./env.ts";

/** What the page needs to know, written into it as JSON. */
function pageConfig(env: Env): string {
  const config = {
    mode: env.MMSP_UPSTREAM ? "relay" : "replay",
    resumable: env.STREAMS !== undefined,
    samples: sampleModels(),
    defaultModel: DEFAULT_MODEL,
  };
  return JSON.stringify(config).replace(/</g, "\\u003c");
}

/**
 * The Content-Security-Policy of the demo page: its own script and connections only; images and
 * audio from the Blob URLs it makes (inline styles: the page's one <style>; the config is a JSON
 * <script>, which is not run).
 */
const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' blob: data:; media-src blob:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * A POST that creates a stream (or a chat answer), admitted: the relay's key (401), a JSON body
 * (415) of at most MAX_BODY_BYTES (413). Resolves to the request as it goes on (the body read, the
 * relay's own key and any x-stream-binding removed), or the refusal.
 */
async function admit(request: Request, env: Env): Promise<Request | Response> {
  const refused = await keyRefusal(request, env);
  if (refused) return refused;
  const body = await readJsonBody(request, limits(env).bodyBytes);
  if (body instanceof Response) return body;
  const headers = new Headers(request.headers);
  headers.delete("x-relay-key");
  headers.delete(BINDING_HEADER);
  headers.delete("content-length");
  if (await authorizationIsRelayKey(request.headers, env)) headers.delete("authorization");
  return new Request(request.url, { method: "POST", headers, body, signal: request.signal });
}

/** POST /v1/stream with a STREAMS binding: a new stream in its own object; the answer names it. */
async function createStream(request: Request, admitted: Request, url: URL, env: Env, streams: DurableObjectNamespace): Promise<Response> {
  const id = newStreamId();
  const stub = streams.get(streams.idFromName(id));
  // bound to the credentials the client sent (the relay's key included, when it came as Authorization)
  const headers = new Headers(admitted.headers);
  const binding = await bindingOf(request.headers, id, env);
  if (binding !== null) headers.set(BINDING_HEADER, binding);
  const answer = await stub.fetch(`https://stream/create${url.search}`, { method: "POST", headers, body: admitted.body });
  if (!answer.ok) return answer;
  const out = new Response(answer.body, answer);
  out.headers.set("content-location", streamPath(id));
  return out;
}

/** GET /v1/streams/<id>: a resume, checked here (id, Last-Event-ID), served by the stream's object. */
async function resumeStream(request: Request, url: URL, id: string, env: Env, streams: DurableObjectNamespace): Promise<Response> {
  if (!STREAM_ID.test(id)) return refusal(404, "NotFoundError", "No such stream: a stream id is 32 hex digits.");
  const after = lastEventId(request, url);
  if (after instanceof Error) return refusal(400, "InvalidRequestError", after.message);
  const headers = await toObject(request, id, env, ["accept"]);
  headers.set("x-resume-after", String(after));
  const answer = await streams.get(streams.idFromName(id)).fetch("https://stream/resume", { headers });
  if (!answer.ok) return answer;
  const out = new Response(answer.body, answer);
  out.headers.set("content-location", streamPath(id));
  return out;
}

/** DELETE /v1/streams/<id>: the stream's object stops it (204), under the resume's Authorization rule. */
async function cancelStream(request: Request, id: string, env: Env, streams: DurableObjectNamespace): Promise<Response> {
  if (!STREAM_ID.test(id)) return refusal(404, "NotFoundError", "No such stream: a stream id is 32 hex digits.");
  const headers = await toObject(request, id, env, []);
  return streams.get(streams.idFromName(id)).fetch("https://stream/cancel", { method: "DELETE", headers });
}

/** The headers a stream's object gets: these of the request's, and its credentials' binding (bind.ts). */
async function toObject(request: Request, id: string, env: Env, names: string[]): Promise<Headers> {
  const headers = new Headers();
  for (const name of names) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  const binding = await bindingOf(request.headers, id, env);
  if (binding !== null) headers.set(BINDING_HEADER, binding);
  return headers;
}

async function route(request: Request, env: Env, url: URL): Promise<Response> {
  const { pathname } = url;
  if (pathname === "/api/chat") {
    // the AI SDK's useChat (chat.ts)
    if (request.method !== "POST") return chat(request, url, env);
    const admitted = await admit(request, env);
    return admitted instanceof Response ? admitted : chat(admitted, url, env, request.headers);
  }
  const chatId = chatIdOf(pathname);
  if (chatId !== null) return chatStream(request, url, chatId, env); // GET / DELETE /api/chat/<chatId>/stream
  if (pathname === "/v1/stream") {
    if (request.method !== "POST") return refusal(405, "MethodNotAllowed", "POST an MMSP request to /v1/stream.", { allow: "POST" });
    const admitted = await admit(request, env);
    if (admitted instanceof Response) return admitted;
    if (env.STREAMS) return createStream(request, admitted, url, env, env.STREAMS);
    return env.MMSP_UPSTREAM ? relay(admitted, env.MMSP_UPSTREAM) : replay(admitted, url, env.SAMPLE_PACE_MS);
  }
  const id = streamIdOf(pathname);
  if (id !== null) {
    if (request.method !== "GET" && request.method !== "DELETE") {
      return refusal(405, "MethodNotAllowed", "GET /v1/streams/<id> resumes a stream, DELETE cancels it.", { allow: "GET, DELETE" });
    }
    if (!env.STREAMS) {
      return refusal(404, "NotFoundError", "This relay keeps no streams (no STREAMS Durable Object binding): nothing to resume.");
    }
    if (request.method === "DELETE") return cancelStream(request, id, env, env.STREAMS);
    return resumeStream(request, url, id, env, env.STREAMS);
  }
  if (request.method === "GET" || request.method === "HEAD") {
    if (pathname === "/" || pathname === "/index.html") {
      return new Response(DEMO_HTML.replace("/*CONFIG*/{}", pageConfig(env)), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "content-security-policy": PAGE_CSP },
      });
    }
    if (pathname === "/demo.js") {
      return new Response(DEMO_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" } });
    }
    if (pathname === "/favicon.ico") return new Response(null, { status: 204 });
  }
  return refusal(
    404,
    "NotFoundError",
    `No route for ${request.method} ${pathname}: POST /v1/stream, GET or DELETE /v1/streams/<id>, POST /api/chat, GET / (demo page).`,
  );
}

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

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method === "OPTIONS") return preflight(request, env);
    let answer: Response;
    try {
      answer = await route(request, env, new URL(request.url));
    } catch (e) {
      // logged for the operator; the client gets no stack (it may name files, variables, the upstream)
      console.error("relay: unexpected error", e);
      answer = refusal(500, "InternalError", "The relay failed on this request (the error is in its log).");
    }
    return nosniff(withCors(answer, request, env));
  },
};
