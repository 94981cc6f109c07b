// The useChat door's parts and answer: SPEC §10 "Doors: the APIs a client speaks" (what the door
// needs of the rest of the relay, and its answers' headers: the AI SDK's UI message stream's).
import { UI_MESSAGE_STREAM_HEADERS } from "../../../ai-sdk/response.js";
import type { Admission, Admitted } from "../../admission/admit.js";
import type { RelayNamespace } from "../../platform.js";
import type { DoorStreamOptions, Streams } from "../../stream/streams.js";
import { messageIdMeta, UI_CHAT_ENCODING, uiChatEncoding } from "./encoding.js";

/** What the useChat door needs of the rest. */
export interface UiChatDoorParts<E extends object> {
  admission: Pick<Admission<E>, "admit" | "principalOf" | "bindingFor" | "identityOf">;
  admitted: Admitted;
  streams: Streams<E>;
  namespace(env: E): RelayNamespace | undefined;
  /** The door's path prefix (`chatPath`). */
  path: string;
}

/** The stream step's options for a chat's answer (its encoding, its message id as the stream's meta). */
export function chatStreamOptions(messageId: string, kept: boolean, id?: string): DoorStreamOptions {
  return { name: UI_CHAT_ENCODING, encoding: uiChatEncoding, meta: messageIdMeta(messageId), kept, ...(id === undefined ? {} : { id }) };
}

/** A 2xx answer in the door's encoding with the UI message stream's headers (and `etag`: a kept chat's stream); any other as it is. */
export function uiAnswer(answer: Response, etag?: string): Response {
  if (!answer.ok) return answer;
  const out = new Response(answer.body, answer);
  for (const [name, value] of Object.entries(UI_MESSAGE_STREAM_HEADERS)) out.headers.set(name, value);
  out.headers.delete("content-location"); // (the chat's stream is named by its ETag)
  if (etag !== undefined) out.headers.set("etag", `"${etag}"`);
  return out;
}
