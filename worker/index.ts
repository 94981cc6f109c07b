// mmsp-streams-relay: a Cloudflare Worker in front of an MMSP server, and a demo page. The relay
// itself is the library's (mmsp-streams/relay, src/relay/: createRelay); this Worker adds its own
// routes on top (routes below) and the samples' replay as the upstream when MMSP_UPSTREAM is unset.
//
//   POST /v1/stream        creates a stream: a Durable Object (src/relay/stream/stream-object.ts, binding
//                          STREAMS) makes the one request to `${MMSP_UPSTREAM}/stream`
//                          (src/relay/routing/upstream.ts), or, without MMSP_UPSTREAM, replays the built-in
//                          sample chosen by the body's `model` (replay.ts); the stream is checked by
//                          the package, stored event by event and written back as SSE (`id: <n>` on
//                          every event), or as NDJSON when `Accept` asks for it;
//                          `Content-Location: /v1/streams/<id>` names it
//                          a model of the provider table (models.ts: "claude-fast", "gpt-fast", each
//                          when its key is set; "fast", Claude then GPT, when both are) is answered
//                          by that provider instead (its name in
//                          `x-mmsp-provider`); without RELAY_KEY or ALLOW_ANONYMOUS=true those are a 401
//   POST /v1/responses     the same, spoken as Open Responses (src/relay/doors/open-responses/door.ts; resume:
//                          GET /v1/responses/<id>?stream=true&starting_after=<n>, stop: POST …/<id>/cancel)
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse, :generateContent, :countTokens
//                          the same, spoken as Gemini's API (src/relay/doors/gemini/door.ts)
//   GET /v1/models         the provider table's models (SPEC §1)
//   GET /v1/usage          the caller's principal's usage of the provider-backed models; ?all=1 with
//                          ADMIN_KEY every principal's (src/relay/accounting/ledger.ts; quotas: RELAY_QUOTAS, QUOTAS)
//   GET /v1/streams/<id>   resumes it: `Last-Event-ID: <n>` (or `?last_event_id=<n>`) → events n+1…,
//                          then live to the end (src/relay/stream/resume.ts)
//   DELETE /v1/streams/<id> cancels it (SPEC §8): the upstream request aborted, the stream ended with
//                          a StreamCancelled error event for every viewer and resume (204)
//   POST /api/chat         the AI SDK's useChat: a UI message stream (the library's door,
//                          src/relay/doors/ui-chat/), kept like a /v1/stream answer;
//                          GET / DELETE /api/chat/<chatId>/stream resume / stop it
//   OPTIONS *              CORS preflights (src/relay/admission/cors.ts; every answer carries the CORS headers)
//   GET /                  the demo page (page/index.html); GET /demo.js its script (page/demo.ts + src/)
//
// Without the STREAMS binding the relay is stateless: no resume, and a client that goes away cancels
// the upstream request.
// Safe by default (the library's): a POST must be application/json (415) and at most MAX_BODY_BYTES
// (413), within the JSON bounds (400), and every request to a stream carry RELAY_KEY when one is set (401); the stream's bounds (src/relay/admission/limits.ts);
// credentials bind a stream to its creator (src/relay/admission/bind.ts); every answer carries nosniff, the page
// a Content-Security-Policy; a request that makes the relay throw is a 500 refusal without a stack.
// Variables (env.ts): MMSP_UPSTREAM, SAMPLE_PACE_MS, STREAM_TTL_S, ABANDON_S, CORS_ORIGINS, RELAY_KEY,
// BIND_SECRET, MAX_BODY_BYTES, MAX_STREAM_S, MAX_EVENTS, MAX_STREAM_BYTES, MAX_CLIENTS.
// worker/generated/assets.ts is made by `node worker/build.mjs` (wrangler's [build] command).
import { createRelay } from "../src/relay/index.ts";
import { refusal } from "../src/relay/refusal.ts";
import { openUpstream } from "../src/relay/routing/upstream.ts";
import { ownValue } from "../src/internal/values.ts";
import { DEMO_HTML, DEMO_JS } from "./generated/assets.ts";
import { DEFAULT_MODEL, sampleModels, sampleUpstream } from "./replay.ts";
import { providerModels } from "./models.ts";
import type { Env } from "./env.ts";

export type { Env } from "./env.ts";

/** What the page needs to know, written into it as JSON. */
function pageConfig(env: Env): string {
  const config = {
    mode: ownValue(env, "MMSP_UPSTREAM") ? "relay" : "replay",
    resumable: env.STREAMS !== undefined,
    samples: sampleModels(),
    providerModels: Object.keys(providerModels(env)),
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

/** The repository's routes on top of the library's relay: the demo page. */
async function routes(request: Request, env: Env): Promise<Response | undefined> {
  const url = new URL(request.url);
  const { pathname } = url;
  if (request.method === "GET" || request.method === "HEAD") {
    if (pathname === "/" || pathname === "/index.html") {
      return new Response(DEMO_HTML.replace(/\/\*CONFIG\*\/\s*\{\}/, pageConfig(env)), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "content-security-policy": PAGE_CSP },
      });
    }
    if (pathname === "/demo.js") {
      return new Response(DEMO_JS, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" } });
    }
    if (pathname === "/favicon.ico") return new Response(null, { status: 204 });
  }
  if (
    pathname === "/v1/stream" || pathname === "/v1/models" || pathname === "/v1/usage" || pathname.startsWith("/v1/streams/") ||
    pathname === "/v1/responses" || pathname.startsWith("/v1/responses/") || pathname.startsWith("/v1beta/models/") ||
    pathname === "/v1/chat/completions" ||
    pathname === "/v1/messages" || pathname.startsWith("/v1/messages/") ||
    pathname === "/api/chat" || pathname.startsWith("/api/chat/")
  ) {
    return undefined; // the library's
  }
  return refusal(
    404,
    "NotFoundError",
    `No route for ${request.method} ${pathname}: POST /v1/stream, POST /v1/responses, POST /v1/chat/completions, POST /v1/messages, POST /v1/messages/count_tokens, POST /v1beta/models/<model>:streamGenerateContent, GET /v1/models, GET /v1/usage, GET or DELETE /v1/streams/<id>, POST /api/chat, GET or DELETE /api/chat/<chatId>/stream, GET / (demo page).`,
  );
}

/**
 * The library's relay (mmsp-streams/relay), its upstream MMSP_UPSTREAM or, unset, the built-in
 * samples replayed (replay.ts) as if they came from an upstream.
 */
const relay = createRelay<Env>({
  // "claude-fast", "gpt-fast": answered by the provider whose key is set (models.ts); closed by
  // default (RELAY_KEY, or ALLOW_ANONYMOUS=true for a public demo)
  models: providerModels,
  upstream: (request, env, { signal }) => {
    // (env's own member only: a polluted Object.prototype never picks where a client's request goes, issue #34)
    const upstream = ownValue(env, "MMSP_UPSTREAM");
    return upstream ? openUpstream(request, upstream, signal) : sampleUpstream(request, new URL(request.url), env.SAMPLE_PACE_MS);
  },
  routes,
});

/**
 * The library's stream object (one per stream; a useChat chat's record in an object named
 * `chat:<HMAC>` of the same namespace: src/relay/stream/chat-record.ts).
 */
export const StreamObject = relay.StreamObject;

/** The library's quota object (src/relay/accounting/quota-object.ts): one per principal, binding QUOTAS. */
export const QuotaObject = relay.QuotaObject;

export default { fetch: relay.fetch };
