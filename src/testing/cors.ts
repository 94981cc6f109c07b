/**
 * CORS on the fake servers, so a page can call them as it calls the real ones (the browser page
 * with the user's own key of docs/guide/providers.md, examples/browser-own-key.html): a preflight is answered 204 and not logged, and an answer to a
 * request that carries an `Origin` gets the CORS headers. Requests without an `Origin` (a server's
 * fetch, a test) get the answer untouched.
 */
import { isPreflight } from "../relay/admission/cors.js";

/** What a server allows a page: the methods and the response headers it may read. */
export interface CorsPolicy {
  methods: string;
  /** The request headers allowed: a list, or the ones the preflight asks for (a provider allows its own: any its clients send). */
  allowHeaders: string | null;
  exposeHeaders: string;
  /** A header a page's request must set to `true` to be answered with CORS headers (routes.ts `browserOptIn`). */
  optIn?: string;
}

/** `answer` behind CORS: preflights answered here, the CORS headers added to answers to a page. */
export function withCors(policy: CorsPolicy, answer: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return async (request) => {
    if (isPreflight(request)) {
      const asked = request.headers.get("access-control-request-headers");
      const headers = new Headers({
        "access-control-allow-origin": "*",
        "access-control-allow-methods": policy.methods,
        "access-control-max-age": "86400",
        allow: policy.methods,
      });
      const allow = policy.allowHeaders ?? asked;
      if (allow) headers.set("access-control-allow-headers", allow);
      return new Response(null, { status: 204, headers });
    }
    const response = await answer(request);
    const optedOut = policy.optIn !== undefined && request.headers.get(policy.optIn) !== "true";
    if (!request.headers.has("origin") || optedOut || response.headers.has("access-control-allow-origin")) return response;
    const out = new Response(response.body, response);
    out.headers.set("access-control-allow-origin", "*");
    out.headers.set("access-control-expose-headers", policy.exposeHeaders);
    return out;
  };
}
