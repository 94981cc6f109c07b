// The useChat door: SPEC §10 "Doors" (its encoding: the stream's events as the AI SDK's UI message
// stream, written where the events are — the stream's object for a kept chat, the stateless path else).
//
// The package's ChunkMapper (what UIMessageChunkStream runs) over the stream's checked UniEvents:
// `start` with the assistant message id (the door's meta, kept with the stream, so a replay rebuilds
// the same message), the parts' chunks, then `finish`; a failure mid-stream (an upstream error, a
// protocol violation, a cancel: the stream's error event) is one `error` chunk, then the end. Each
// chunk an SSE `data:` record, `data: [DONE]` after the last, as the AI SDK's own servers write it.
//
// No `reset-step` is written: the relay never takes back what a client was sent. A fallback moves to
// the next target before the first event reaches the stream (routing/fallback.ts) and continuation
// continues the same text group with nothing repeated (routing/continuation.ts), so the step the AI
// SDK holds is never restarted; a `reset-step` would remove the parts it already shows.
//
// The mapper writes each chunk's SSE record itself (CHUNK_SSE: a text, reasoning or argument fragment
// from its part's template, the fragment alone JSON-escaped; any other chunk JSON.stringify'd), so no
// chunk object is built per fragment only to be stringified by `frame`; where a kept chat's events
// are, a fragment's record is written as bytes from that template (bytes.ts: `pushInto`).
import { CHUNK_SSE } from "../../../ai-sdk/chunk-mapper.js";
import { generateMessageId } from "../../../ai-sdk/ids.js";
import { defaultErrorText } from "../../../ai-sdk/ui-message-chunk-stream.js";
import type { StreamCore } from "../../../internal/core.js";
import type { UniEvent } from "../../../schema.js";
import type { DoorEncoding, EncodingContext } from "../../stream/encoding.js";
import type { WritesInto } from "../../stream/utf8-out.js";
import { UiChatBytesMapper } from "./bytes.js";

/** The name the door passes with its requests (the stream object's config holds the encoding by it). */
export const UI_CHAT_ENCODING = "ui-chat";

/** The UI message stream's Content-Type (the AI SDK's `x-vercel-ai-ui-message-stream: v1` is added by the door). */
const CONTENT_TYPE = "text/event-stream";

/** The meta a chat's stream keeps: its assistant message id, percent-encoded (a header value is Latin-1 only). */
export const messageIdMeta = (messageId: string): string => encodeURIComponent(messageId);

function messageIdOf(context: EncodingContext): string {
  try {
    const id = decodeURIComponent(context.meta ?? "");
    if (id !== "") return id;
  } catch {
    // (not the door's meta: a new id)
  }
  return generateMessageId();
}

/** The UI message stream as a door encoding (see the top). */
export const uiChatEncoding: DoorEncoding<string> = {
  contentType: CONTENT_TYPE,
  sse: false, // (the AI SDK resumes a chat from its start: no event ids)
  end: "data: [DONE]\n\n",
  frame: (record) => record,
  core: (context) => {
    const mapper = new UiChatBytesMapper(messageIdOf(context));
    let over = false;
    const fail = (error: unknown, emit: (record: string) => void): void => {
      if (over) return;
      over = true;
      emit(CHUNK_SSE.chunk({ type: "error", errorText: defaultErrorText(error) }));
    };
    const core: StreamCore<UniEvent, string> & WritesInto = {
      get finished() {
        return over || mapper.finished;
      },
      start: (emit) => mapper.start(emit),
      push(event, emit) {
        if (over || mapper.finished) return;
        try {
          mapper.push(event, emit);
        } catch (error) {
          fail(error, emit);
        }
      },
      end(emit) {
        if (!mapper.finished) fail(new TypeError("UIMessageChunkStream: the input ended before its stop event"), emit);
      },
      abort: (reason, emit) => fail(reason, emit),
      pushInto: (event, out) => !over && mapper.pushInto(event, out),
    };
    return core;
  },
};
