// mmsp-streams-relay: a Cloudflare Worker in front of an MMSP server, and a demo page.
//
//   POST /v1/stream   relays to `${MMSP_UPSTREAM}/stream` (relay.ts), or, without MMSP_UPSTREAM,
//                     replays the built-in samples chosen by the body's `model` (replay.ts); either
//                     way the stream is checked by the package and written back as SSE, or as
//                     NDJSON when `Accept` asks for it (stream.ts)
//   GET /             the demo page (page/index.html); GET /demo.js its script (page/demo.ts + src/)
//
// Variables: MMSP_UPSTREAM (e.g. http://127.0.0.1:25752/v1), SAMPLE_PACE_MS (replay pacing: N or
// A-B ms per event; default 20-40; the query parameter `?pace=` overrides it per request).
// worker/generated/assets.ts is made by `node worker/build.mjs` (wrangler's [build] command).
import { chat } from "./chat.ts";
import { DEMO_HTML, DEMO_JS } from "./generated/assets.ts";
import { relay } from "./relay.ts";
import { DEFAULT_MODEL, replay, sampleModels } from "./replay.ts";
import { refusal } from "./stream.ts";

export interface Env {
  MMSP_UPSTREAM?: string;
  SAMPLE_PACE_MS?: string;
}

/** What the page needs to know, written into it as JSON. */
function pageConfig(env: Env): string {
  const config = {
    mode: env.MMSP_UPSTREAM ? "relay" : "replay",
    samples: sampleModels(),
    defaultModel: DEFAULT_MODEL,
  };
  return JSON.stringify(config).replace(/</g, "\\u003c");
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const { pathname } = url;
    if (pathname === "/api/chat") return chat(request, url, env); // the AI SDK's useChat (chat.ts)
    if (pathname === "/v1/stream") {
      if (request.method !== "POST") return refusal(405, "MethodNotAllowed", "POST an MMSP request to /v1/stream.", { allow: "POST" });
      return env.MMSP_UPSTREAM ? relay(request, env.MMSP_UPSTREAM) : replay(request, url, env.SAMPLE_PACE_MS);
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
    return refusal(404, "NotFoundError", `No route for ${request.method} ${pathname}: POST /v1/stream, GET / (demo page).`);
  },
};
