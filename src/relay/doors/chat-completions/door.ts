// The Chat Completions door: SPEC §10 "Doors: the APIs a client speaks" (POST /v1/chat/completions).
//
// The relay speaking OpenAI's Chat Completions (issue #47), for the clients that speak nothing else
// (`openai`'s chat.completions, LangChain's default ChatOpenAI, the AI SDK's `.chat()`): the request
// mapped onto MMSP's (request.ts), admitted as POST /v1/stream is (its key as `Authorization: Bearer`,
// the body bounds, the models rows and ceilings, the quota claim), streamed by the same stream step
// (routing's fallbacks, continuation and watchdog; the accounting), and its checked UniEvents written
// in the API's own formats: `chat.completion.chunk` SSE (ChatCompletionsEncoderStream) when `stream`
// is true, else one `chat.completion` (chatCompletion); every refusal in OpenAI's error shape.
import { fromResponse } from "../../../from-response.js";
import { chatCompletion, ChatCompletionsEncoderStream, chatCompletionsError } from "../../../encode.js";
import { through } from "../../../internal/through.js";
import { streamHeaders } from "../../routing/answer.js";
import { newStreamId } from "../../stream/resume.js";
import { type ChatAsk, chatAsk, chatError, chatRefusal } from "./request.js";

/** What createRelay lends this door. */
export interface ChatCompletionsHooks<E> {
  /** Admits a POST as /v1/stream does, its JSON body first translated (or refused) by `translate`. */
  admit(request: Request, env: E, translate: (body: unknown) => unknown | Response): Promise<Request | Response>;
  /** The MMSP answer to an admitted request: the stream object's (its Content-Location names it) or the stateless pipe's. */
  stream(request: Request, admitted: Request, env: E): Promise<Response>;
}

const PATH = "/v1/chat/completions";
const SSE_TYPE = "text/event-stream; charset=utf-8";

/** The door's answer: POST /v1/chat/completions, null for any other path. */
export function chatCompletionsRoutes<E>(hooks: ChatCompletionsHooks<E>) {
  return async (request: Request, env: E, url: URL): Promise<Response | null> => {
    if (url.pathname !== PATH) return null;
    if (request.method !== "POST") {
      return chatError(405, "MethodNotAllowed", "POST a Chat Completions request to /v1/chat/completions.", null, { allow: "POST" });
    }
    let ask: ChatAsk | Response | undefined;
    const admitted = await hooks.admit(request, env, (body) => {
      ask = chatAsk(body);
      return ask instanceof Response ? ask : ask.mmsp;
    });
    if (admitted instanceof Response) return admitted.ok ? admitted : ask instanceof Response ? ask : chatRefusal(admitted);
    const asked = ask as ChatAsk;
    admitted.headers.set("accept", "text/event-stream");
    const answer = await hooks.stream(request, admitted, env);
    if (!answer.ok) return chatRefusal(answer);
    const location = /^\/v1\/streams\/([0-9a-f]{32})$/.exec(answer.headers.get("content-location") ?? "");
    const out = await encoded(answer, asked, `chatcmpl-${location ? location[1] : newStreamId()}`);
    for (const name of ["x-mmsp-provider", "x-mmsp-target"]) {
      const value = answer.headers.get(name);
      if (value !== null) out.headers.set(name, value);
    }
    return out;
  };
}

/**
 * The MMSP answer's checked UniEvents in the API's format: the chunks' SSE, or (read to its end) one
 * `chat.completion`, a failure as OpenAI's error object with the status it stands for. (The one place
 * the answer is written: the door contract's encoder hook replaces this function.)
 */
async function encoded(answer: Response, asked: ChatAsk, id: string): Promise<Response> {
  const { readable, message } = fromResponse(answer, { client: "relay" });
  const model = asked.mmsp.model;
  const created = Math.floor(Date.now() / 1000);
  if (asked.stream) {
    message.catch(() => {}); // (the readable carries a failure to the encoder, which writes it; the message is not read)
    const body = through(readable, new ChatCompletionsEncoderStream({ id, model, created, includeUsage: asked.includeUsage }));
    return new Response(body, { status: 200, headers: streamHeaders(SSE_TYPE) });
  }
  const reader = readable.getReader();
  try {
    while (!(await reader.read()).done);
    return Response.json(chatCompletion(await message, { id, model, created }));
  } catch (e) {
    const { status, body } = chatCompletionsError(e);
    return Response.json(body, { status: status >= 400 ? status : 502 });
  }
}
