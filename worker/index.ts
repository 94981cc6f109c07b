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
//   POST /api/chat         the AI SDK's useChat: a UI message stream (chat.ts)
//   OPTIONS *              CORS preflights (cors.ts; every answer carries the CORS headers)
//   GET /                  the demo page (page/index.html); GET /demo.js its script (page/demo.ts + src/)
//
// Without the STREAMS binding the relay is stateless (stream.ts): no resume, and a client that goes
// away cancels the upstream request.
// Variables (env.ts): MMSP_UPSTREAM, SAMPLE_PACE_MS, STREAM_TTL_S, ABANDON_S, CORS_ORIGINS.
// worker/generated/assets.ts is made by `node worker/build.mjs` (wrangler's [build] command).
import { chat } from "./chat.ts";
import { DEMO_HTML, DEMO_JS } from "./generated/assets.ts";
import { relay } from "./relay.ts";
import { DEFAULT_MODEL, replay, sampleModels } from "./replay.ts";
import { preflight, withCors } from "./cors.ts";
import type { Env } from "./env.ts";
import { lastEventId, newStreamId, STREAM_ID, streamIdOf, streamPath } from "./resume.ts";
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

/** POST /v1/stream with a STREAMS binding: a new stream in its own object; the answer names it. */
async function createStream(request: Request, url: URL, streams: DurableObjectNamespace): Promise<Response> {
  const id = newStreamId();
  const stub = streams.get(streams.idFromName(id));
  const answer = await stub.fetch(`https://stream/create${url.search}`, { method: "POST", headers: request.headers, body: request.body });
  if (!answer.ok) return answer;
  const out = new Response(answer.body, answer);
  out.headers.set("content-location", streamPath(id));
  return out;
}

/** GET /v1/streams/<id>: a resume, checked here (id, Last-Event-ID), served by the stream's object. */
async function resumeStream(request: Request, url: URL, id: string, streams: DurableObjectNamespace): Promise<Response> {
  if (!STREAM_ID.test(id)) return refusal(404, "NotFoundError", "No such stream: a stream id is 32 hex digits.");
  const after = lastEventId(request, url);
  if (after instanceof Error) return refusal(400, "InvalidRequestError", after.message);
  const headers = forwarded(request, ["accept", "authorization"]);
  headers.set("x-resume-after", String(after));
  const answer = await streams.get(streams.idFromName(id)).fetch("https://stream/resume", { headers });
  if (!answer.ok) return answer;
  const out = new Response(answer.body, answer);
  out.headers.set("content-location", streamPath(id));
  return out;
}

/** DELETE /v1/streams/<id>: the stream's object stops it (204), under the resume's Authorization rule. */
async function cancelStream(request: Request, id: string, streams: DurableObjectNamespace): Promise<Response> {
  if (!STREAM_ID.test(id)) return refusal(404, "NotFoundError", "No such stream: a stream id is 32 hex digits.");
  const headers = forwarded(request, ["authorization"]);
  return streams.get(streams.idFromName(id)).fetch("https://stream/cancel", { method: "DELETE", headers });
}

/** The request's headers of these names (the ones a stream's object needs). */
function forwarded(request: Request, names: string[]): Headers {
  const headers = new Headers();
  for (const name of names) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

async function route(request: Request, env: Env, url: URL): Promise<Response> {
  const { pathname } = url;
  if (pathname === "/api/chat") return chat(request, url, env); // the AI SDK's useChat (chat.ts)
  if (pathname === "/v1/stream") {
    if (request.method !== "POST") return refusal(405, "MethodNotAllowed", "POST an MMSP request to /v1/stream.", { allow: "POST" });
    if (env.STREAMS) return createStream(request, url, env.STREAMS);
    return env.MMSP_UPSTREAM ? relay(request, env.MMSP_UPSTREAM) : replay(request, url, env.SAMPLE_PACE_MS);
  }
  const id = streamIdOf(pathname);
  if (id !== null) {
    if (request.method !== "GET" && request.method !== "DELETE")
      return refusal(405, "MethodNotAllowed", "GET /v1/streams/<id> resumes a stream, DELETE cancels it.", { allow: "GET, DELETE" });
    if (!env.STREAMS) return refusal(404, "NotFoundError", "This relay keeps no streams (no STREAMS Durable Object binding): nothing to resume.");
    if (request.method === "DELETE") return cancelStream(request, id, env.STREAMS);
    return resumeStream(request, url, id, env.STREAMS);
  }
  if (request.method === "GET" || request.method === "HEAD") {
    if (pathname === "/" || pathname === "/index.html")
      return new Response(DEMO_HTML.replace("/*CONFIG*/{}", pageConfig(env)), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" },
      });
    if (pathname === "/demo.js")
      return new Response(DEMO_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" } });
    if (pathname === "/favicon.ico") return new Response(null, { status: 204 });
  }
  return refusal(404, "NotFoundError", `No route for ${request.method} ${pathname}: POST /v1/stream, GET or DELETE /v1/streams/<id>, POST /api/chat, GET / (demo page).`);
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method === "OPTIONS") return preflight(request, env);
    return withCors(await route(request, env, new URL(request.url)), request, env);
  },
};
