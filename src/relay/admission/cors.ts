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
//
// The headers allowed and exposed are the relay's own and every door's (doors/door.ts's `cors`),
// composed once by `corsPolicy` (create-relay.ts). A door's prefix (`x-stainless-`: the OpenAI and
// Anthropic SDKs' own headers) allows the requested headers it covers, each by name: a preflight
// cannot answer `*` for a request with credentials, and a token-shaped name is all that is reflected.

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
/** The headers of a door's API a browser client sends and reads (doors/door.ts's `cors`). */
export interface CorsDeclaration {
  /** Request headers its clients send. */
  readonly allow?: readonly string[];
  /** Prefixes of request headers its clients send (each requested header they cover is allowed by name). */
  readonly allowPrefixes?: readonly string[];
  /** Response headers its clients read. */
  readonly expose?: readonly string[];
}

/** The relay's CORS headers with every door's: what preflights allow and answers expose. */
export interface CorsPolicy {
  /** Access-Control-Allow-Headers, before the requested headers a prefix covers. */
  readonly allowHeaders: string;
  /** Lowercase prefixes whose requested headers are allowed. */
  readonly allowPrefixes: readonly string[];
  /** Access-Control-Expose-Headers. */
  readonly exposeHeaders: string;
}

/** The relay's own policy (no door's headers). */
export const RELAY_CORS: CorsPolicy = { allowHeaders: CORS_ALLOW_HEADERS, allowPrefixes: [], exposeHeaders: CORS_EXPOSE_HEADERS };

/** The relay's headers and every door's declared ones, each once (the relay's spelling first). */
export function corsPolicy(doors: readonly { readonly cors?: CorsDeclaration | undefined }[]): CorsPolicy {
  const join = (own: string, more: (readonly string[] | undefined)[]): string => {
    const names = own.split(", ");
    for (const name of more.flatMap((m) => m ?? [])) {
      if (!names.some((n) => n.toLowerCase() === name.toLowerCase())) names.push(name);
    }
    return names.join(", ");
  };
  return {
    allowHeaders: join(CORS_ALLOW_HEADERS, doors.map((d) => d.cors?.allow)),
    allowPrefixes: [...new Set(doors.flatMap((d) => d.cors?.allowPrefixes ?? []).map((p) => p.toLowerCase()))],
    exposeHeaders: join(CORS_EXPOSE_HEADERS, doors.map((d) => d.cors?.expose)),
  };
}

/** The Access-Control-Allow-Headers of a preflight: the policy's, and each requested header a prefix covers (a token, by name). */
function allowedHeaders(request: Request, policy: CorsPolicy): string {
  if (policy.allowPrefixes.length === 0) return policy.allowHeaders;
  const asked = (request.headers.get("access-control-request-headers") ?? "").split(",").map((h) => h.trim().toLowerCase());
  const covered = asked.filter((h) => /^[a-z0-9-]{1,100}$/.test(h) && policy.allowPrefixes.some((p) => h.startsWith(p)));
  return [policy.allowHeaders, ...new Set(covered)].join(", ");
}

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
export function corsHeaders(request: Request, env: CorsEnv, policy: CorsPolicy = RELAY_CORS): Headers {
  const headers = new Headers();
  const origin = allowOrigin(request, env);
  if (origin !== null) {
    headers.set("access-control-allow-origin", origin);
    headers.set("access-control-expose-headers", policy.exposeHeaders);
  }
  if (allowedOrigins(env) !== "*") headers.set("vary", "Origin");
  return headers;
}

/** `response` with the CORS headers added (a copy: a fetched Response's headers are immutable). */
export function withCors(response: Response, request: Request, env: CorsEnv, policy: CorsPolicy = RELAY_CORS): Response {
  const extra = corsHeaders(request, env, policy);
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
export function preflight(request: Request, env: CorsEnv, methods = CORS_ALLOW_METHODS, policy: CorsPolicy = RELAY_CORS): Response {
  const headers = corsHeaders(request, env, policy);
  if (headers.has("access-control-allow-origin")) {
    headers.set("access-control-allow-methods", methods);
    headers.set("access-control-allow-headers", allowedHeaders(request, policy));
    headers.set("access-control-max-age", MAX_AGE_S);
  }
  headers.set("allow", methods);
  return new Response(null, { status: 204, headers });
}
