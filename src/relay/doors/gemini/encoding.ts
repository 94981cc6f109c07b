// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (its encoding: the stream's events as
// Gemini's `streamGenerateContent?alt=sse` chunks, or one GenerateContentResponse).
//
// What the stream step runs where the events are (stream/encoding.ts): the Gemini encoder core over
// the stream's checked UniEvents, each chunk one SSE message (a kept stream's answer puts `id: <n>` on
// the last of each event's), no `[DONE]` (Gemini writes none); the whole answer of `:generateContent`
// is the finished message (the done items, the stop event's finish and usage) as geminiResponse writes
// it, a failure Google's error with its status. `modelVersion` names the row the client asked for
// (the door's meta, kept with the stream).
import { geminiError, geminiResponse } from "../../../encode.js";
import type { DoneItem, UniEvent, UniMessage } from "../../../schema.js";
import type { DoorEncoding, EncodingContext } from "../../stream/encoding.js";
import { inDoorShape } from "../door.js";
import { sealingStep } from "../sealing.js";
import { GeminiBytesCore } from "./bytes.js";

/** The name the door passes with its requests (the stream object's config holds the encoding by it). */
export const GEMINI_ENCODING = "gemini";

/** The model a stream's answers name (its meta: the row's name, percent-encoded). */
function modelOf(context: EncodingContext): string | undefined {
  try {
    return context.meta === null ? undefined : decodeURIComponent(context.meta);
  } catch {
    return undefined;
  }
}

/** Gemini's own thought signatures go as they are (SPEC §10: an unsealed one is the door's API's provider's). */
const OWN = "gemini";

/** Another provider's bound value sealed (doors/sealing.ts), written as the part's `thoughtSignature` (no seal key: none). */
const geminiSealing = sealingStep(OWN, (signature) => (signature === null ? null : { signature }));

/** The events read to their end as one GenerateContentResponse (a failure: Google's error, its status). */
async function whole(events: ReadableStream<UniEvent>, context: EncodingContext): Promise<Response> {
  const items: DoneItem[] = [];
  const message: UniMessage = { role: "assistant", content_items: items };
  const reader = events.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const e = r.value;
      if (e.event_type === "stop") {
        message.finish_reason = e.finish_reason;
        message.usage_metadata = e.usage_metadata;
      } else for (const item of e.content_items) if (item.type.endsWith(".done")) items.push(item as DoneItem);
    }
  } catch (e) {
    const { status, body } = geminiError(e);
    return inDoorShape(Response.json(body, { status: status >= 400 ? status : 502 }));
  }
  const model = modelOf(context);
  return Response.json(geminiResponse(message, model === undefined ? {} : { modelVersion: model }));
}

/** The Gemini door's encoding (see the top). */
export const geminiEncoding: DoorEncoding<string> = {
  contentType: "text/event-stream; charset=utf-8",
  sse: true,
  // (a kept answer's ids as events of their own: @google/genai reads only events that begin with `data:`)
  idEvent: "\r\n",
  core: (context) => {
    const model = modelOf(context);
    return new GeminiBytesCore(model === undefined ? {} : { modelVersion: model });
  },
  frame: (chunk) => chunk,
  end: "",
  whole,
  sealing: geminiSealing,
};
