// Admission: SPEC §1 server side (the pages that may call the relay; the headers a browser client may send and read).
//
// CORS for the relay's routes, so a page on another origin can call them (and read the headers a
// resuming reader needs). One module, reused by every route: `preflight()` answers OPTIONS,
// `withCors()` adds the headers to any answer.
//
// The allowed origins come from the variable CORS_ORIGINS: "*" (the default: any origin; fine here
// because the relay uses no cookies, and Authorization is named explicitly below, which "*" in
// Access-Control-Allow-Headers would not cover), or a comma-separated list of exact origins
// ("https://app.example, http://localhost:5173"), each answered with its own origin and
// `Vary: Origin`, so caches keep one answer per origin.

import { ownValue } from "../../internal/values.js";

/** The variable of the allowed origins. */
export interface CorsEnv {
  /** `"*"` (the default) or a comma-separated list of exact origins. */
  CORS_ORIGINS?: string;
}

/** Request headers a cross-origin page may send (Last-Event-ID: resuming; Authorization, X-Relay-Key: a key; If-Match: a chat's stream). */
export const CORS_ALLOW_HEADERS = "Content-Type, Authorization, Accept, Last-Event-ID, X-Relay-Key, If-Match";
/**
 * Response headers a cross-origin page may read (Content-Location: where to resume; the AI SDK's
 * stream marker; ETag: a chat answer's stream; X-MMSP-Provider and X-MMSP-Target: who answered;
 * Retry-After and X-Should-Retry: when a refused request may be sent again, and whether to).
 */
export const CORS_EXPOSE_HEADERS =
  "Content-Location, X-Vercel-AI-UI-Message-Stream, ETag, X-MMSP-Provider, X-MMSP-Target, Retry-After, X-Should-Retry";
/** DELETE: cancelling a stream (DELETE /v1/streams/<id>). */
export const CORS_ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";
/** How long a browser may cache a preflight answer, in seconds. */
const MAX_AGE_S = "86400";

/** The allowed origins: "*" or a list of exact origins (no trailing slash, compared case-insensitively). */
export function allowedOrigins(env: CorsEnv): "*" | string[] {
  const raw = (ownValue(env, "CORS_ORIGINS") ?? "*").trim();
  if (raw === "" || raw === "*") return "*";
  return raw.split(",").map((o) => o.trim().replace(/\/+$/, "").toLowerCase()).filter((o) => o !== "");
}

/**
 * The Access-Control-Allow-Origin value for this request: "*", the request's Origin when the list
 * names it, or null (no CORS headers: the browser keeps the answer from the page).
 */
export function allowOrigin(request: Request, env: CorsEnv): string | null {
  const allowed = allowedOrigins(env);
  if (allowed === "*") return "*";
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  return allowed.includes(origin.toLowerCase()) ? origin : null;
}

/** The CORS headers of an answer to `request` (empty when its origin is not allowed). */
export function corsHeaders(request: Request, env: CorsEnv): Headers {
  const headers = new Headers();
  const origin = allowOrigin(request, env);
  if (origin !== null) {
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-expose-headers", CORS_EXPOSE_HEADERS);
  }
  if (allowedOrigins(env) !== "*") headers.set("vary", "Origin");
  return headers;
}

/** `response` with the CORS headers added (a copy: a fetched Response's headers are immutable). */
export function withCors(response: Response, request: Request, env: CorsEnv): Response {
  const extra = corsHeaders(request, env);
  if ([...extra.keys()].length === 0) return response;
  const out = new Response(response.body, response);
  for (const [name, value] of extra) {
    if (name === "vary") out.headers.append("vary", value);
    else out.headers.set(name, value);
  }
  return out;
}

/** A preflight request: OPTIONS with Access-Control-Request-Method. */
export function isPreflight(request: Request): boolean {
  return request.method === "OPTIONS" && request.headers.has("access-control-request-method");
}

/**
 * The answer to an OPTIONS request: 204 with what may be sent, or, for an origin the list does
 * not name, 204 without CORS headers (the browser then refuses the real request).
 */
export function preflight(request: Request, env: CorsEnv, methods = CORS_ALLOW_METHODS): Response {
  const headers = corsHeaders(request, env);
  if (headers.has("access-control-allow-origin")) {
    headers.set("access-control-allow-methods", methods);
    headers.set("access-control-allow-headers", CORS_ALLOW_HEADERS);
    headers.set("access-control-max-age", MAX_AGE_S);
  }
  headers.set("allow", methods);
  return new Response(null, { status: 204, headers });
}
