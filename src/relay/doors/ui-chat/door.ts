// The useChat door: SPEC §10 "Doors: the APIs a client speaks" (the AI SDK's chat protocol, with
// resume and Stop; issue #50). `chatPath` (default /api/chat) is its prefix:
//
//   POST   <chatPath>                    the AI SDK's chat request (request.ts) mapped onto MMSP's,
//                                        admitted as POST /v1/stream is (key, body, the models table,
//                                        ceilings, quota), streamed by the same routing (fallbacks,
//                                        continuation) and answered as the UI message stream
//                                        (UIMessageChunkStream); an upstream error or protocol violation
//                                        mid-stream is one `error` chunk, then the end
//   GET    <chatPath>/<chatId>/stream    the chat's open answer replayed from its start (the same
//                                        chunks, the same message id), then live; 204 when none is open
//   DELETE <chatPath>/<chatId>/stream    stops it (SPEC §8: the provider's request aborted); 204
//
// With the stream objects' namespace and the request's chat `id` an answer is kept (kept.ts): its
// stream in its own object, the chat's record (stream/chat-record.ts) naming it as the chat's open
// answer, `ETag: "<stream id>"` on every answer, `If-Match` naming one stream (412 when a newer
// answer replaced it) — the contract MmspChatTransport relies on. Without the namespace, or without
// an `id`, the answer is stateless: a client that goes away cancels the upstream request, and GET /
// DELETE answer 204.
import { refusal } from "../../refusal.js";
import type { Door } from "../door.js";
import { generateMessageId } from "../../../ai-sdk/ids.js";
import { chatStreamOptions, uiAnswer, type UiChatDoorParts } from "./answer.js";
import { UI_CHAT_ENCODING, uiChatEncoding } from "./encoding.js";
import { type ChatAsk, chatAsk, chatIdOf, MAX_CHAT_ID } from "./request.js";
import { chatStream, keptChat, keptRecord } from "./kept.js";

export type { UiChatDoorParts };

/** The useChat door: POST <chatPath>, GET and DELETE <chatPath>/<chatId>/stream. */
export function uiChatDoor<E extends object>(parts: UiChatDoorParts<E>): Door<E> {
  const { admission, streams, namespace, path } = parts;

  async function post(request: Request, env: E): Promise<Response> {
    if (request.method !== "POST") {
      return refusal(405, "MethodNotAllowed", `POST an AI SDK chat request to ${path}.`, { allow: "POST, OPTIONS" });
    }
    let ask: ChatAsk | Response | undefined;
    const admitted = await admission.admit(request, env, (body) => {
      ask = chatAsk(body);
      return ask instanceof Response ? ask : ask.mmsp;
    });
    if (admitted instanceof Response) return admitted;
    const { chatId } = ask as ChatAsk;
    const messageId = (ask as ChatAsk).messageId ?? generateMessageId();
    const ns = namespace(env);
    const record = ns && chatId !== undefined ? await keptRecord(parts, request, admitted, env, chatId) : null;
    if (ns && record !== null) return keptChat(parts, ns, { request, admitted, env, record, messageId });
    return uiAnswer(await streams.answer(request, admitted, env, chatStreamOptions(messageId, false)));
  }

  return {
    routes: [`POST ${path}`, `GET or DELETE ${path}/<chatId>/stream`],
    cancel: true,
    encodings: { [UI_CHAT_ENCODING]: uiChatEncoding },
    answer: async (request, env, url) => {
      if (url.pathname === path) return post(request, env);
      const chatId = chatIdOf(url.pathname, path);
      if (chatId === null) return null;
      if (request.method !== "GET" && request.method !== "DELETE") {
        return refusal(405, "MethodNotAllowed", `GET ${path}/<chatId>/stream resumes the chat's open answer, DELETE stops it.`, {
          allow: "GET, DELETE",
        });
      }
      if (chatId === "") {
        return refusal(404, "NotFoundError", `No such chat: a chat id is 1 to ${MAX_CHAT_ID} characters without control characters.`);
      }
      return chatStream(parts, request, env, chatId);
    },
  };
}
