// The Chat Completions door: SPEC §10 "Doors: the APIs a client speaks" (POST /v1/chat/completions).
//
// The relay speaking OpenAI's Chat Completions (issue #47), for the clients that speak nothing else
// (`openai`'s chat.completions, LangChain's default ChatOpenAI, the AI SDK's `.chat()`): the request
// mapped onto MMSP's (request.ts), admitted as POST /v1/stream is (its key as `Authorization: Bearer`,
// the body bounds, the models rows and ceilings, the quota claim), streamed by the same stream step
// (routing's fallbacks, continuation and watchdog; the accounting), and written by the door's encoding
// (encoding.ts) where the events are: `chat.completion.chunk` SSE when `stream` is true, else one
// `chat.completion`; every refusal in OpenAI's error shape. The API has no cancel of its own: the
// client going away stops the provider, unless the request asks for its stream to be kept
// (`x-mmsp-keep: 1`): then the answer carries event ids and Content-Location names the stream. Behind
// a row whose first target speaks Chat itself, a stream not kept is passed through (pass-through.ts).
import { type Door, type DoorDeclaration, inDoorShape, type RelayRefusal } from "../door.js";
import { asksKept, type DoorStreamOptions } from "../../stream/streams.js";
import { OPEN_RESPONSES_DECLARES } from "../open-responses/door.js";
import { CHAT_COMPLETIONS_ENCODING, chatCompletionsEncoding, chatMetaText } from "./encoding.js";
import { hasSeals, openSeals, sealEnv, SealRefused } from "../sealing.js";
import { type ChatAsk, chatAsk, chatError } from "./request.js";
import { passThrough } from "../../routing/pass-through.js";
import { chatPassThrough } from "./pass-through.js";
import { isRecord } from "../../../internal/values.js";

/** What createRelay lends this door. */
export interface ChatCompletionsHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`. */
  admit(request: Request, env: E, translate: (body: unknown) => unknown | Response): Promise<Request | Response>;
  /** The door's answer to an admitted request (stream/streams.ts `answer`): kept in a stream's object when asked and bound, else stateless. */
  answer(request: Request, admitted: Request, env: E, options: DoorStreamOptions): Promise<Response>;
  /** The provider (`Provider.name`) of the first target of the row named `model`, if any: a request is passed through to its door's own API's. */
  speaks?(model: string, env: E): string | undefined;
}

/**
 * What the door declares (doors/door.ts): its clients' key is the relay's own (`Authorization:
 * Bearer`); the OpenAI SDKs' own headers allowed to browsers (the same as the Open Responses door's:
 * one SDK); OpenAI's error shape; no cancel of its own.
 */
export const CHAT_COMPLETIONS_DECLARES: DoorDeclaration = {
  cors: OPEN_RESPONSES_DECLARES.cors,
  errorShape: (r: RelayRefusal) => chatError(r.status, r.type, r.message, r.parameter, r.headers),
  cancel: false,
  encodings: { [CHAT_COMPLETIONS_ENCODING]: chatCompletionsEncoding },
};

const PATH = "/v1/chat/completions";

/** The Chat Completions door: its route, and what it declares. */
export function chatCompletionsDoor<E>(hooks: ChatCompletionsHooks<E>): Door<E> {
  return { ...CHAT_COMPLETIONS_DECLARES, routes: [`POST ${PATH}`], answer: chatCompletionsRoutes(hooks) };
}

/** The door's answer: POST /v1/chat/completions, null for any other path. */
export function chatCompletionsRoutes<E>(hooks: ChatCompletionsHooks<E>) {
  return async (request: Request, env: E, url: URL): Promise<Response | null> => {
    if (url.pathname !== PATH) return null;
    if (request.method !== "POST") {
      return inDoorShape(
        chatError(405, "MethodNotAllowed", "POST a Chat Completions request to /v1/chat/completions.", null, { allow: "POST" }),
      );
    }
    let ask: ChatAsk | Response | undefined;
    let passed: Record<string, unknown> | undefined;
    const admitted = await hooks.admit(request, env, (body) => {
      // same API in, same provider out (pass-through.ts): streamed, not kept, its row's first target a Chat one;
      // a body carrying a sealed value goes encoded (the builder sends its maker the opened value)
      passed = passes(request, body, env) ? body : undefined;
      ask = chatAsk(body, passed !== undefined);
      if (passed !== undefined && !(ask instanceof Response) && hasSeals(ask.mmsp)) {
        passed = undefined;
        ask = chatAsk(body);
      }
      if (ask instanceof Response) return ask;
      // (a sealed `reasoning_details` entry opened to its maker's own value, or refused naming it: doors/sealing.ts)
      return openSeals(ask.mmsp, sealEnv(env)).catch((e) => {
        if (!(e instanceof SealRefused)) throw e;
        return (ask = chatError(400, "invalid_value", e.message, e.member));
      });
    });
    if (admitted instanceof Response) return ask instanceof Response ? inDoorShape(ask) : admitted; // (else: the route table shapes it)
    const { stream, includeUsage, mmsp } = ask as ChatAsk;
    admitted.headers.set("accept", "text/event-stream");
    const kept = asksKept(request);
    if (passed !== undefined) passThrough(admitted, chatPassThrough(passed, includeUsage));
    return await hooks.answer(request, admitted, env, {
      name: CHAT_COMPLETIONS_ENCODING,
      encoding: chatCompletionsEncoding,
      meta: chatMetaText({ model: mmsp.model, created: Math.floor(Date.now() / 1000), includeUsage }),
      kept,
      whole: !stream,
      ids: kept,
    });
  };

  function passes(request: Request, body: unknown, env: E): body is Record<string, unknown> {
    if (!isRecord(body) || body.stream !== true || asksKept(request) || typeof body.model !== "string") return false;
    return hooks.speaks?.(body.model, env) === "openai-chat";
  }
}
