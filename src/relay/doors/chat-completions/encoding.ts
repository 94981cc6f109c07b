// The Chat Completions door: SPEC §10 "Doors" (its encoding: the stream's events as `chat.completion.chunk`
// SSE, or one `chat.completion`).
//
// What the stream step runs where the events are (stream/encoding.ts): the API's encoder core
// (ChatCompletionsEncoderCore) over the stream's checked UniEvents, each output one SSE message as it
// goes on the wire (`data: <chunk>`, the usage chunk when `stream_options.include_usage` asked for it,
// `data: [DONE]`: the core writes it, after a failure's `{"error": …}` chunk too); and the whole answer
// of a request without `stream` (one `chat.completion`, a failure OpenAI's error object with the status
// it stands for). The completion's id is `chatcmpl-<stream id>`; the model the client named and
// whether it asked for usage ride with the stream as its meta. Another provider's bound value (an
// Anthropic signature, a Gemini thought signature, Responses' encrypted reasoning) is written sealed in a
// `reasoning.encrypted` entry by the encoding's sealing step (doors/sealing.ts); the Chat API's own
// provider's `reasoning_details` go as they are.
import { chatCompletion, chatCompletionsError } from "../../../encode.js";
import { parseJsonText } from "../../../internal/json.js";
import { isRecord } from "../../../internal/values.js";
import type { DoneItem, UniEvent, UniMessage } from "../../../schema.js";
import type { DoorEncoding, EncodingContext } from "../../stream/encoding.js";
import { inDoorShape } from "../door.js";
import type { StreamCore } from "../../../internal/core.js";
import { sealingStep } from "../sealing.js";
import { ChatBytesCore } from "./bytes.js";

/** What an answer needs of its request, kept with its stream (its meta). */
export interface ChatMeta {
  model: string;
  created: number;
  includeUsage: boolean;
}

/** The name the door passes with its requests (the stream object's config holds the encoding by it). */
export const CHAT_COMPLETIONS_ENCODING = "chat-completions";

/** A stream's meta as the door passes it (a header value: the model name percent-encoded). */
export const chatMetaText = (meta: ChatMeta): string => encodeURIComponent(JSON.stringify(meta));

function metaOf(text: string | null): ChatMeta {
  try {
    const m = parseJsonText(decodeURIComponent(text ?? ""));
    if (isRecord(m) && typeof m.model === "string" && Number.isInteger(m.created)) {
      return { model: m.model, created: m.created as number, includeUsage: m.includeUsage === true };
    }
  } catch {
    // (a stream made by another door: no meta of this one)
  }
  return { model: "", created: 0, includeUsage: false };
}

function coreOf(context: EncodingContext): StreamCore<UniEvent, string> {
  const meta = metaOf(context.meta);
  const core = new ChatBytesCore({
    id: `chatcmpl-${context.id}`,
    model: meta.model,
    created: meta.created,
    includeUsage: meta.includeUsage,
  });
  return core;
}

/** The Chat API's own provider: its `reasoning_details` go as they are (SPEC §10). */
const OWN = "openai-chat";

/**
 * Another provider's bound value sealed (doors/sealing.ts), as one `reasoning.encrypted` entry of
 * `reasoning_details` (a tool call's with the call's `id`); the thinking's field kept. No seal key: no entry.
 */
const chatSealing = sealingStep(OWN, (data, item) => {
  const fidelity = "fidelity" in item ? item.fidelity : undefined;
  const field = isRecord(fidelity) && typeof fidelity.reasoning_field === "string" ? { reasoning_field: fidelity.reasoning_field } : {};
  if (data === null) return Object.keys(field).length ? field : null;
  const id = item.type.startsWith("tool_call.") && "tool_call_id" in item && item.tool_call_id ? { id: item.tool_call_id } : {};
  return { ...field, reasoning_details: [{ type: "reasoning.encrypted", data, ...id }] };
});

/** The events read to their end as one `chat.completion`; a failure as OpenAI's error object (its status, at least 400). */
async function completion(events: ReadableStream<UniEvent>, context: EncodingContext): Promise<Response> {
  const meta = metaOf(context.meta);
  const reader = events.getReader();
  const collected: UniEvent[] = [];
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) collected.push(r.value);
  } catch (e) {
    const { status, body } = chatCompletionsError(e);
    return inDoorShape(Response.json(body, { status: status >= 400 ? status : 502 }));
  }
  return Response.json(chatCompletion(messageOf(collected), { id: `chatcmpl-${context.id}`, model: meta.model, created: meta.created }));
}

/** The finished message of a checked stream: its done items (each fragment's whole), its stop's finish and usage. */
function messageOf(events: readonly UniEvent[]): UniMessage {
  const items: DoneItem[] = [];
  const message: UniMessage = { role: "assistant", content_items: items };
  for (const event of events) {
    if (event.event_type === "stop") {
      message.finish_reason = event.finish_reason;
      message.usage_metadata = event.usage_metadata;
    } else for (const item of event.content_items) if (item.type.endsWith(".done")) items.push(item as DoneItem);
  }
  return message;
}

/** The Chat Completions door's encoding (see the top). */
export const chatCompletionsEncoding: DoorEncoding<string> = {
  contentType: "text/event-stream; charset=utf-8",
  sse: true,
  core: coreOf,
  frame: (s) => s,
  end: "",
  whole: completion,
  sealing: chatSealing,
};
