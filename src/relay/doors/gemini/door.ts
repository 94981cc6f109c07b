// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (Gemini's routes, its key, its answers).
//
// The relay speaking Gemini's API (issue #47), for the model the path names (a row of the models table):
//
//   POST /v1beta/models/<model>:streamGenerateContent?alt=sse
//                          the request mapped to MMSP's (request.ts), admitted as POST /v1/stream is (key,
//                          body bounds, the models table, ceilings, quota), served by the same stream step,
//                          written by the door's encoding (encoding.ts: Gemini's SSE chunks) where the events
//                          are. Without `alt=sse` Gemini streams a JSON array: refused by name (the SDKs ask for SSE)
//                          (behind a Gemini row, a stream not kept is passed through: pass-through.ts)
//   POST /v1beta/models/<model>:generateContent
//                          the same, answered as one GenerateContentResponse
//   POST /v1beta/models/<model>:countTokens
//                          the row's target's own counter's figure where it has one (routing/count.ts:
//                          Gemini's, Anthropic's, the Responses API's), else — or when it fails — the relay's
//                          estimate, said to be one by `x-mmsp-tokens-estimated: true` (doors/count.ts);
//                          admitted as a count of the row: against requestsPerMinute, never the tokens
//
// (`/v1/models/…` too: the same API's stable version.) The key is Gemini's own: `x-goog-api-key` (the
// door's key header: admission reads it), or the `key` query parameter, moved into that header; it goes
// no further (the URL passed on has no `key`). Gemini's API has no cancel: the client going away ends
// the request, unless it asked for its stream to be kept (`x-mmsp-keep: 1`: event ids, Content-Location,
// Last-Event-ID resume, DELETE). Errors in Google's shape (refused.ts).
import { inputEstimate } from "../../accounting/usage-estimate.js";
import { asksKept, type DoorStreamOptions } from "../../stream/streams.js";
import { type Door, type DoorDeclaration, inDoorShape, type RelayRefusal } from "../door.js";
import { GEMINI_ENCODING, geminiEncoding } from "./encoding.js";
import { hasSeals, openSeals, sealEnv, SealRefused } from "../sealing.js";
import { countAnswer } from "../count.js";
import { type GeminiAsk, geminiAsk } from "./request.js";
import { passThrough } from "../../routing/pass-through.js";
import { geminiPassThrough } from "./pass-through.js";
import { isRecord } from "../../../internal/values.js";
import { googleError } from "./refused.js";

/** What createRelay lends the door. */
export interface GeminiHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`; `counting`: a count of tokens. */
  admit(request: Request, env: E, translate: (body: unknown) => unknown | Response, counting?: boolean): Promise<Request | Response>;
  /** The door's answer to an admitted request (stream/streams.ts `answer`): kept in a stream's object when asked, else stateless. */
  answer(request: Request, admitted: Request, env: E, options: DoorStreamOptions): Promise<Response>;
  /** Settles the claim of an admitted request that made no stream (a count of tokens). */
  release(request: Request, env: E): Promise<void>;
  /** An admitted count's input tokens as its row's target counts them, or null: the relay's estimate (routing/count.ts). */
  count(admitted: Request, env: E): Promise<number | null>;
  /** The provider (`Provider.name`) of the first target of the row named `model`, if any: a request is passed through to its door's own API's. */
  speaks?(model: string, env: E): string | undefined;
}

/** The door's routes, as the 404 of an unknown path names them. */
export const GEMINI_ROUTES = [
  "POST /v1beta/models/<model>:streamGenerateContent?alt=sse",
  "POST /v1beta/models/<model>:generateContent",
  "POST /v1beta/models/<model>:countTokens",
];

/** The relay's refusal in Google's shape, its message naming the member at fault (Google's shape has no member for it). */
function googleShape(r: RelayRefusal): Response {
  const message = r.parameter !== null && !r.message.includes(r.parameter) ? `${r.parameter}: ${r.message}` : r.message;
  return googleError(r.status, message, r.headers);
}

/**
 * What the Gemini door declares (doors/door.ts): its clients' key header (`x-goog-api-key`, as the
 * SDKs send it); the headers Google's SDKs send from a browser; Google's error shape; no cancel of its
 * own (a stream is kept only when the request asks: `x-mmsp-keep: 1`).
 */
export const GEMINI_DECLARES: DoorDeclaration = {
  keyHeaders: [{ name: "x-goog-api-key" }],
  cors: { allow: ["X-Goog-Api-Key", "X-Goog-Api-Client", "X-Goog-User-Project"], expose: ["X-Mmsp-Tokens-Estimated"] },
  errorShape: googleShape,
  cancel: false,
  encodings: { [GEMINI_ENCODING]: geminiEncoding },
};

/** The Gemini door: its routes, and what it declares. */
export function geminiDoor<E>(hooks: GeminiHooks<E>): Door<E> {
  return { ...GEMINI_DECLARES, routes: GEMINI_ROUTES, answer: geminiRoutes(hooks) };
}

const ROUTE = /^\/(v1beta|v1)\/models\/([^/:]+):([A-Za-z]+)$/;
const METHODS = new Set(["streamGenerateContent", "generateContent", "countTokens"]);
/** A model name as a path gives it (a row's name: no path, query or control characters). */
const MODEL = /^[A-Za-z0-9._\-@]{1,200}$/;
/** A key as a header may carry it. */
const KEY = /^[\x21-\x7e]{1,1024}$/;
/** An error of this door, already in its shape (the route table passes it on as it is). */
const refused = (status: number, message: string, headers?: HeadersInit): Response => inDoorShape(googleError(status, message, headers));

/** The routes: an answer for a path of Gemini's API, null for any other path. */
export function geminiRoutes<E>(hooks: GeminiHooks<E>) {
  return async (request: Request, env: E, url: URL): Promise<Response | null> => {
    const m = ROUTE.exec(url.pathname);
    if (!m) return null;
    const [, , rawModel, method] = m as unknown as [string, string, string, string];
    if (!METHODS.has(method)) return refused(404, `No method '${method.slice(0, 64)}' here: ${GEMINI_ROUTES.join(", ")}.`);
    if (request.method !== "POST") return refused(405, `POST to :${method}.`, { allow: "POST" });
    let model: string;
    try {
      model = decodeURIComponent(rawModel);
    } catch {
      model = "";
    }
    if (!MODEL.test(model)) return refused(400, "The model in the path must be a model name of this relay (letters, digits, . _ - @).");
    if (method === "streamGenerateContent" && url.searchParams.get("alt") !== "sse") {
      return refused(400, "streamGenerateContent without alt=sse (a streamed JSON array) is not supported: ask with ?alt=sse.");
    }
    const keyed = withKey(request, url);
    if (keyed instanceof Response) return keyed;
    let ask: GeminiAsk | Response | undefined;
    // same API in, same provider out (pass-through.ts): streamed, not kept, the row's first target a Gemini one;
    // a body carrying a sealed value goes encoded (the builder sends its maker the opened value)
    let passed: Record<string, unknown> | undefined;
    const passes = method === "streamGenerateContent" && !asksKept(request) && hooks.speaks?.(model, env) === "gemini";
    const translate = (body: unknown) => {
      passed = passes && isRecord(body) ? body : undefined;
      ask = method === "countTokens" ? countAsk(body, model) : geminiAsk(body, model, passed !== undefined);
      if (passed !== undefined && !(ask instanceof Response) && hasSeals(ask)) {
        passed = undefined;
        ask = geminiAsk(body, model);
      }
      if (ask instanceof Response || method === "countTokens") return ask;
      // (a sealed thoughtSignature opened to its maker's own value, or refused naming it: doors/sealing.ts)
      return openSeals(ask, sealEnv(env)).catch((e) => {
        if (!(e instanceof SealRefused)) throw e;
        return (ask = googleError(400, e.message));
      });
    };
    const admitted = await hooks.admit(keyed, env, translate, method === "countTokens");
    if (admitted instanceof Response) return ask instanceof Response ? inDoorShape(ask) : admitted;
    admitted.headers.delete("x-goog-api-key"); // (a key that is not the relay's goes no further either)
    const asked = ask as GeminiAsk;
    if (method === "countTokens") {
      await hooks.release(admitted, env);
      const counted = await hooks.count(admitted, env);
      return countAnswer(counted, () => inputEstimate(asked.messages, asked.config), (totalTokens) => ({ totalTokens }));
    }
    admitted.headers.set("accept", "text/event-stream");
    // (Gemini's API has no cancel: a stream is kept, resumable and stoppable, only when the request asks)
    const kept = asksKept(request);
    if (passed !== undefined) passThrough(admitted, geminiPassThrough(passed));
    return await hooks.answer(keyed, admitted, env, {
      name: GEMINI_ENCODING,
      encoding: geminiEncoding,
      meta: encodeURIComponent(model),
      kept,
      whole: method === "generateContent",
      ids: kept,
    });
  };
}

/** The request with `?key=` moved into `x-goog-api-key` (admission reads it there: the door's key header), and no `key` in its URL. */
function withKey(request: Request, url: URL): Request | Response {
  const key = url.searchParams.get("key");
  if (key === null) return request;
  if (!KEY.test(key)) return refused(401, "The API key (?key=) is not one a header can carry.");
  const clean = new URL(url);
  clean.searchParams.delete("key");
  const out = new Request(clean, request);
  if (!out.headers.has("x-goog-api-key")) out.headers.set("x-goog-api-key", key);
  return out;
}

/** countTokens' body (`contents`, or a whole `generateContentRequest`; Vertex's form: a GenerateContentRequest's members) → its request. */
function countAsk(body: unknown, model: string): GeminiAsk | Response {
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    const { generateContentRequest: inner, ...rest } = body as Record<string, unknown>;
    if (typeof inner === "object" && inner !== null) {
      if (Object.keys(rest).some((k) => rest[k] != null)) {
        return refused(400, "countTokens takes contents or generateContentRequest, not both.");
      }
      const { model: _named, ...request } = inner as Record<string, unknown>;
      return geminiAsk(request, model);
    }
  }
  return geminiAsk(body, model);
}
