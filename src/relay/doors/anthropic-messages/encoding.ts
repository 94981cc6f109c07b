// The Anthropic Messages door: SPEC §10 "Doors" (its encoding: the stream's events as Messages SSE, or one message object).
//
// What the stream step runs where the events are (stream/encoding.ts): the Messages encoder core
// (AnthropicMessagesEncoderCore) over the stream's checked UniEvents — `message_start` with usage (the
// relay's input estimate until the stop event tells the count), a `ping` after it as the API sends
// one, the content blocks, `message_delta` with `stop_reason` and usage, `message_stop`; a failure
// `event: error` — another provider's thinking proof sealed first (seal.ts: the encoding's sealing step). The whole answer of a
// request without `stream: true` is one message object, a failure Messages' error with its status.
// The message id is `msg_<stream id>`; the model the client named and the estimate ride as the meta.
import { anthropicMessage, anthropicMessagesError } from "../../../encode.js";
import type { StreamCore } from "../../../internal/core.js";
import { parseJsonText } from "../../../internal/json.js";
import { isRecord } from "../../../internal/values.js";
import type { UniEvent } from "../../../schema.js";
import type { DoorEncoding, EncodingContext } from "../../stream/encoding.js";
import { inDoorShape } from "../door.js";
import { messagesError } from "./request.js";
import { MessagesBytesCore } from "./bytes.js";
import type { Utf8Out, WritesInto } from "../../stream/utf8-out.js";
import { messagesSealing } from "./seal.js";

/** What the answer says of the request, kept with its stream (its meta). */
export interface MessagesMeta {
  /** The model the client named. */
  model: string;
  /** The relay's estimate of the input, for `message_start`. */
  inputTokens: number;
}

/** The name the door passes with its requests (the stream object's config holds the encoding by it). */
export const MESSAGES_ENCODING = "anthropic-messages";

/** A stream's meta as the door passes it: percent-encoded UTF-8 JSON (a header value is Latin-1 only). */
export const messagesMetaText = (meta: MessagesMeta): string => encodeURIComponent(JSON.stringify(meta));

function metaOf(text: string | null): MessagesMeta {
  try {
    const m = parseJsonText(decodeURIComponent(text ?? ""));
    if (isRecord(m) && typeof m.model === "string" && Number.isInteger(m.inputTokens) && (m.inputTokens as number) >= 0) {
      return { model: m.model, inputTokens: m.inputTokens as number };
    }
  } catch {
    // (a stream made by another door: no meta of this one)
  }
  return { model: "", inputTokens: 0 };
}

const optionsOf = (context: EncodingContext) => {
  const meta = metaOf(context.meta);
  return { id: `msg_${context.id}`, model: meta.model, inputTokens: meta.inputTokens };
};

const PING = 'event: ping\ndata: {"type":"ping"}\n\n';

/**
 * The Messages encoder core, with a `ping` after `message_start`; an event's SSE records as the core
 * gives them, its last record its last output (a kept answer's `id: n` goes on it: stream/encoding.ts),
 * not cut apart and framed again per record.
 */
class MessagesCore implements StreamCore<UniEvent, string>, WritesInto {
  private readonly inner: MessagesBytesCore;
  constructor(context: EncodingContext) {
    this.inner = new MessagesBytesCore(optionsOf(context));
  }
  /** A fragment of the open block as bytes (bytes.ts). */
  pushInto(event: UniEvent, out: Utf8Out): boolean {
    return this.inner.pushInto(event, out);
  }
  get finished(): boolean {
    return this.inner.finished;
  }
  start(emit: (records: string) => void): void {
    this.inner.start(emit);
    emit(PING);
  }
  push(event: UniEvent, emit: (records: string) => void): void {
    this.inner.push(event, emit);
  }
  abort(reason: unknown, emit: (records: string) => void): void {
    this.inner.abort(reason, emit);
  }
  end(emit: (records: string) => void): void {
    this.inner.end(emit);
  }
}

/** The events read to the end: one message object, or the error they ended with in Messages' shape. */
async function whole(events: ReadableStream<UniEvent>, context: EncodingContext): Promise<Response> {
  const all: UniEvent[] = [];
  const reader = events.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) all.push(r.value);
    return Response.json(anthropicMessage(all, optionsOf(context)));
  } catch (e) {
    const { status, body } = anthropicMessagesError(e);
    return inDoorShape(messagesError(status, body.error.type, body.error.message));
  }
}

/** The Messages door's encoding (see the top). */
export const messagesEncoding: DoorEncoding<string> = {
  contentType: "text/event-stream; charset=utf-8",
  sse: true,
  core: (context) => new MessagesCore(context),
  frame: (record) => record,
  end: "",
  whole,
  sealing: messagesSealing,
};
