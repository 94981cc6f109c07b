// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (Gemini's routes, its key, its answers).
//
// The relay speaking Gemini's API (issue #47), for the model the path names (a row of the models table):
//
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse
//                          the request mapped to MMSP's (request.ts), admitted as POST /v1/stream is (key,
//                          body bounds, the models table, ceilings, quota), streamed by the same stream step;
//                          the checked UniEvents written as Gemini's SSE chunks (GeminiEncoderStream). Without
//                          `alt=sse` Gemini streams a JSON array: refused by name (every SDK asks for SSE)
//   POST /v1beta/models/<model>:generateContent
//                          the same, answered as one GenerateContentResponse (geminiResponse)
//   POST /v1beta/models/<model>:countTokens
//                          the relay's estimate of the request's input tokens (no provider of the relay has
//                          a counter it calls: the answer says it is an estimate, `x-relay-token-count`);
//                          admitted as a request of the row, counting against requestsPerMinute, not tokens
//
// (`/v1/models/…` too: the same API's stable version.) The key is Gemini's own: `x-goog-api-key`, or the
// `key` query parameter; it is offered to admission as the relay's key (`Authorization: Bearer`) and
// never goes further (the URL passed on has no `key`). Errors in Google's shape (refused.ts).
import { fromResponse } from "../../../from-response.js";
import { GeminiEncoderStream, geminiError, geminiResponse } from "../../../encode.js";
import { through } from "../../../internal/through.js";
import { inputEstimate } from "../../accounting/usage-estimate.js";
import { streamHeaders } from "../../routing/answer.js";
import { type GeminiAsk, geminiAsk } from "./request.js";
import { googleError, googleRefusal } from "./refused.js";

/** What createRelay lends the door. */
export interface GeminiHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`; `counting`: a count of tokens. */
  admit(request: Request, env: E, translate: (body: unknown) => unknown | Response, counting?: boolean): Promise<Request | Response>;
  /** The MMSP answer to an admitted request: the stream object's or the stateless pipe's. */
  stream(request: Request, admitted: Request, env: E): Promise<Response>;
  /** Settles the claim of an admitted request that made no stream (a count of tokens). */
  release(request: Request, env: E): Promise<void>;
}

/** The door's routes, as the 404 of an unknown path names them. */
export const GEMINI_ROUTES = [
  "POST /v1beta/models/<model>:streamGenerateContent?alt=sse",
  "POST /v1beta/models/<model>:generateContent",
  "POST /v1beta/models/<model>:countTokens",
];

const ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):([A-Za-z]+)$/;
const METHODS = new Set(["streamGenerateContent", "generateContent", "countTokens"]);
/** A model name as a path gives it (a row's name: no path, query or control characters). */
const MODEL = /^[A-Za-z0-9._\-@]{1,200}$/;
/** A key as a header may carry it. */
const KEY = /^[\x21-\x7e]{1,1024}$/;
const SSE_TYPE = "text/event-stream; charset=utf-8";

/** The routes: an answer for a path of Gemini's API, null for any other path. */
export function geminiRoutes<E>(hooks: GeminiHooks<E>) {
  return async (request: Request, env: E, url: URL): Promise<Response | null> => {
    const m = ROUTE.exec(url.pathname);
    if (!m) return null;
    const [, , rawModel, method] = m as unknown as [string, string, string, string];
    if (!METHODS.has(method)) return googleError(404, `No method '${method.slice(0, 64)}' here: ${GEMINI_ROUTES.join(", ")}.`);
    if (request.method !== "POST") return googleError(405, `POST to :${method}.`, { allow: "POST" });
    let model: string;
    try {
      model = decodeURIComponent(rawModel);
    } catch {
      model = "";
    }
    if (!MODEL.test(model)) return googleError(400, "The model in the path must be a model name of this relay (letters, digits, . _ - @).");
    if (method === "streamGenerateContent" && url.searchParams.get("alt") !== "sse") {
      return googleError(400, "streamGenerateContent without alt=sse (a streamed JSON array) is not supported: ask with ?alt=sse.");
    }
    const keyed = withKey(request, url);
    if (keyed instanceof Response) return keyed;
    let ask: GeminiAsk | Response | undefined;
    const translate = (body: unknown) => {
      ask = method === "countTokens" ? countAsk(body, model) : geminiAsk(body, model);
      return ask;
    };
    const admitted = await hooks.admit(keyed, env, translate, method === "countTokens");
    if (admitted instanceof Response) return admitted.ok ? admitted : ask instanceof Response ? ask : googleRefusal(admitted);
    const asked = ask as GeminiAsk;
    if (method === "countTokens") {
      await hooks.release(admitted, env);
      return Response.json({ totalTokens: inputEstimate(asked.messages, asked.config) }, {
        headers: { "x-relay-token-count": "estimate" },
      });
    }
    admitted.headers.set("accept", "text/event-stream");
    const answer = await hooks.stream(keyed, admitted, env);
    if (!answer.ok) return googleRefusal(answer);
    const out = method === "generateContent" ? await whole(answer, model) : streamed(answer, model);
    for (const name of ["x-mmsp-provider", "x-mmsp-target", "content-location"]) {
      const value = answer.headers.get(name);
      if (value !== null) out.headers.set(name, value);
    }
    return out;
  };
}

/** The request with Gemini's key offered as the relay's (`Authorization: Bearer`), and neither `x-goog-api-key` nor `?key` left. */
function withKey(request: Request, url: URL): Request | Response {
  const key = request.headers.get("x-goog-api-key") ?? url.searchParams.get("key");
  if (key !== null && !KEY.test(key)) return googleError(401, "The API key (x-goog-api-key or ?key=) is not one a header can carry.");
  const clean = new URL(url);
  clean.searchParams.delete("key");
  const out = new Request(clean, request);
  out.headers.delete("x-goog-api-key");
  if (key !== null && !out.headers.has("authorization")) out.headers.set("authorization", `Bearer ${key}`);
  return out;
}

/** countTokens' body (`contents`, or a whole `generateContentRequest`; Vertex's form: a GenerateContentRequest's members) → its request. */
function countAsk(body: unknown, model: string): GeminiAsk | Response {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const { generateContentRequest: inner, ...rest } = body as Record<string, unknown>;
    if (typeof inner === "object" && inner !== null) {
      if (Object.keys(rest).some((k) => rest[k] != null)) {
        return googleError(400, "countTokens takes contents or generateContentRequest, not both.");
      }
      const { model: _named, ...request } = inner as Record<string, unknown>;
      return geminiAsk(request, model);
    }
  }
  return geminiAsk(body, model);
}

/** The MMSP answer's checked UniEvents as Gemini's `streamGenerateContent?alt=sse` chunks. */
function streamed(answer: Response, model: string): Response {
  const { readable, message } = fromResponse(answer, { client: "relay" });
  message.catch(() => {}); // (the readable carries a failure to the encoder, which writes Google's error chunk)
  const body = through(readable, new GeminiEncoderStream({ modelVersion: model }));
  return new Response(body, { status: 200, headers: streamHeaders(SSE_TYPE) });
}

/** The MMSP answer read to its end as one GenerateContentResponse (a failure: Google's error, its status). */
async function whole(answer: Response, model: string): Promise<Response> {
  const { readable, message } = fromResponse(answer, { client: "relay" });
  const reader = readable.getReader();
  try {
    while (!(await reader.read()).done);
  } catch {
    // (the message rejects with the same error)
  }
  try {
    return Response.json(geminiResponse(await message, { modelVersion: model }));
  } catch (e) {
    const { status, body } = geminiError(e);
    return Response.json(body, { status: status >= 400 ? status : 502 });
  }
}
