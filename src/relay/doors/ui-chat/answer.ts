// The useChat door's parts and answer: SPEC §10 "Doors: the APIs a client speaks" (what the door
// needs of the rest of the relay, and an MMSP answer spoken as the AI SDK's UI message stream).
import { fromResponse } from "../../../from-response.js";
import { UIMessageChunkStream } from "../../../ai-sdk/ui-message-chunk-stream.js";
import { toUIMessageStreamResponse } from "../../../ai-sdk/response.js";
import { through } from "../../../internal/through.js";
import type { Admission, Admitted } from "../../admission/admit.js";
import type { RelayNamespace } from "../../platform.js";
import { PROVIDER_HEADER, TARGET_HEADER } from "../../routing/models.js";
import type { Streams } from "../../stream/streams.js";

/** What the useChat door needs of the rest. */
export interface UiChatDoorParts<E extends object> {
  admission: Pick<Admission<E>, "admit" | "principalOf" | "bindingFor" | "identityOf">;
  admitted: Admitted;
  streams: Streams<E>;
  namespace(env: E): RelayNamespace | undefined;
  /** The door's path prefix (`chatPath`). */
  path: string;
}

/** An MMSP answer (a stream object's or the stateless pipe's) as the chat's UI message stream. */
export function uiAnswer(answer: Response, messageId: string | undefined, headers: Record<string, string> = {}): Response {
  const { readable, message } = fromResponse(answer, { client: "the relay's stream" });
  message.catch(() => {}); // (the readable carries a failure to the chunk stream, which writes it as an `error` chunk)
  const out = toUIMessageStreamResponse(through(readable, new UIMessageChunkStream({ messageId })), { headers });
  for (const name of [PROVIDER_HEADER, TARGET_HEADER]) {
    const value = answer.headers.get(name);
    if (value !== null) out.headers.set(name, value);
  }
  return out;
}
