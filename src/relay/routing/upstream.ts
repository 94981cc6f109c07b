// Routing: SPEC §10 "The provider's problems stay the operator's" (the upstream MMSP server's call and refusals).
//
// POST /v1/stream with an upstream URL (createRelay's `upstream`, or MMSP_UPSTREAM): the request goes
// to `${upstream}/stream` (body as is, Content-Type and Authorization forwarded); with an upstream
// function, callUpstream() calls it and vouches for its answer in the same way. openUpstream() makes that one request (the stream's
// Durable Object uses it, stream-object.ts); relay() (doors/mmsp/http.ts) is the stateless path (no STREAMS binding): the
// answer comes back through streamBack() and ends with the client.
//
// What comes back is the relay's to vouch for: a refusal whose body is JSON goes on as JSON (with
// nosniff); any other refusal body (an HTML error page, a traceback) is not passed on at all but
// replaced by an MMSP refusal `{"error": {"type": "HTTPError", "message": "HTTP <status>: …"}}`, so
// no upstream markup runs on the relay's origin; an upstream that cannot be reached is a 502 that
// names no URL (MMSP_UPSTREAM may hold `user:password@`).
import { isJsonDocumentType, mediaType } from "../../internal/media-type.js";
import { refusal } from "../refusal.js";
import { isHttpUrl, redact } from "./redact.js";
import { parseJsonText } from "../../internal/json.js";

/** How much of a JSON refusal body is passed on (a larger one is wrapped like a non-JSON one). */
const MAX_REFUSAL_CHARS = 64 * 1024;

/**
 * Makes the one upstream request. Resolves to the upstream's answer (2xx: the stream), its refusal
 * (see above), or a 502 refusal when the server cannot be reached. `signal` aborts the request and
 * its body.
 */
export async function openUpstream(request: Request, upstreamBase: string, signal?: AbortSignal): Promise<Response> {
  if (!isHttpUrl(upstreamBase)) {
    return refusal(502, "UpstreamUnavailable", "MMSP_UPSTREAM is not an http:// or https:// URL (the relay does not say what it is).");
  }
  const url = `${upstreamBase.replace(/\/+$/, "")}/stream`;
  const headers = new Headers({ accept: "text/event-stream" });
  for (const name of ["content-type", "authorization"]) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  let upstream: Response;
  try {
    upstream = await fetch(url, { method: "POST", headers, body: await request.arrayBuffer(), signal });
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return refusal(502, "UpstreamUnavailable", `cannot reach the MMSP server (MMSP_UPSTREAM): ${redact(reason, upstreamBase)}`);
  }
  if (upstream.ok) return upstream;
  return upstreamRefusal(upstream);
}

/**
 * Makes the upstream `Response` of a creating request (createRelay's `upstream` as a function).
 * `request` is the client's request as the relay admitted it (its URL, its headers without the
 * relay's own key, its JSON body); `init.signal` aborts when the stream is cancelled, abandoned or
 * past a bound: pass it to `fetch`. A refusal it returns is passed on as the relay passes on any
 * (JSON as JSON, anything else wrapped), a throw is a 502 that names no URL.
 */
export type UpstreamFunction<E> = (request: Request, env: E, init: { signal: AbortSignal }) => Response | Promise<Response>;

/** Calls an upstream function; resolves to its stream (2xx), its refusal as the relay answers it, or a 502. */
export async function callUpstream<E>(make: UpstreamFunction<E>, request: Request, env: E, signal: AbortSignal): Promise<Response> {
  let upstream: Response;
  try {
    upstream = await make(request, env, { signal });
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return refusal(502, "UpstreamUnavailable", `cannot reach the MMSP server: ${redact(reason)}`);
  }
  if (upstream.ok) return upstream;
  return upstreamRefusal(upstream);
}

/** An upstream refusal as the relay answers it: JSON as JSON, anything else wrapped (see the top). */
export async function upstreamRefusal(upstream: Response): Promise<Response> {
  const headers = { "content-type": "application/json", "x-content-type-options": "nosniff" };
  const type = mediaType(upstream.headers.get("content-type")) ?? "";
  const text = await upstream.text().catch(() => "");
  if (isJsonDocumentType(type) && text.length <= MAX_REFUSAL_CHARS) {
    try {
      parseJsonText(text);
      return new Response(text, { status: upstream.status, headers });
    } catch {
      // not JSON after all: wrapped below
    }
  }
  const what = type === "" ? "a body without a Content-Type" : `a ${type.replace(/[^\w.+/-]/g, "")} body`;
  const message = `HTTP ${upstream.status}: the MMSP server refused the request with ${what} (${text.length} characters), not passed on`;
  return Response.json({ error: { type: "HTTPError", message } }, { status: upstream.status, headers });
}
