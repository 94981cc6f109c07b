// The Open Responses door: SPEC §10 "Doors" (its encoding: the stream's events as the spec's
// streaming events, or its response resource).
//
// What the stream step runs where the events are (stream/encoding.ts): the spec's encoder core
// (OpenResponsesEncoderCore) over the stream's checked UniEvents, each event framed as the spec
// frames it (`event: <type>` + `data: <json>`, `data: [DONE]` after the last, no `id` field), a
// resume at `starting_after` keeping the events after that sequence number, and the whole answer
// of `stream: false` (the terminal event's response resource, a failure the spec's error with 502).
// The response's id is `resp_<stream id>`; what the resource echoes rides with the stream as its meta,
// with the answer's state (sealing.ts: provider data sealed before the encoder — its sealing step —, `store`,
// `previous_response_id` and `include` applied after it, the response kept before its terminal event).
import { type OpenResponsesEvent } from "../../../encode.js";
import { OPEN_RESPONSES_END, openResponsesFrame } from "../../../encode/open-responses.js";
import { parseJsonText } from "../../../internal/json.js";
import { isRecord } from "../../../internal/values.js";
import type { UniEvent } from "../../../schema.js";
import type { StreamCore } from "../../../internal/core.js";
import type { DoorEncoding, EncodingContext } from "../../stream/encoding.js";
import { inDoorShape } from "../door.js";
import type { SealEnv } from "../seal.js";
import { type AnswerState, finisher, keepTerminal, sealStep } from "./sealing.js";
import { ResponsesBytesCore } from "./bytes.js";

/** What a response resource echoes, and its answer's state (sealing.ts), kept with its stream (its meta). */
export interface Meta extends Partial<AnswerState> {
  model: string;
  createdAt: number;
  echo: Record<string, unknown>;
}

/** The name the door passes with its requests (the stream object's config holds the encoding by it). */
export const OPEN_RESPONSES_ENCODING = "open-responses";

/** A stream's meta as the door passes it: percent-encoded UTF-8 JSON (a header value is Latin-1 only). */
export const metaText = (meta: Meta): string => encodeURIComponent(JSON.stringify(meta));

/** The meta of a stream (none, or not the door's: a stream made by POST /v1/stream, empty settings). */
export function metaOf(text: string | null): Meta {
  try {
    const m = parseJsonText(decodeURIComponent(text ?? ""));
    if (isRecord(m) && typeof m.model === "string" && Number.isInteger(m.createdAt) && isRecord(m.echo)) {
      const { include, stored, previous, keep } = m;
      return {
        model: m.model,
        createdAt: m.createdAt as number,
        echo: m.echo,
        include: include === true,
        stored: stored === true,
        previous: typeof previous === "string" ? previous : null,
        keep: typeof keep === "string" ? keep : null,
      };
    }
  } catch {
    // (a stream made by POST /v1/stream: no meta)
  }
  return { model: "", createdAt: 0, echo: {} };
}

/** The answer's state of a stream's meta (none: a stream made by POST /v1/stream, nothing asked). */
function stateOf(meta: Meta): AnswerState {
  return { include: meta.include === true, stored: meta.stored === true, previous: meta.previous ?? null, keep: meta.keep ?? null };
}

/** The encoder core of one answer: response `resp_<id>`, its settings from the meta, its outputs finished (sealing.ts). */
function coreOf(context: EncodingContext): StreamCore<UniEvent, OpenResponsesEvent> {
  const meta = metaOf(context.meta);
  // (its delta events framed as they are made: FramedEvent, their text with no event object — `frame` gives it;
  // its finished items shared by its events, not copied per event: `finisher` copies what it changes;
  // in the stream's object its deltas written as bytes: bytes.ts)
  const options = { id: `resp_${context.id}`, model: meta.model, createdAt: meta.createdAt, request: meta.echo };
  return new ResponsesBytesCore(options, finisher(stateOf(meta)));
}

/** The events read to the end: the terminal event's response resource (a failure: the spec's error, 502). */
async function resource(events: ReadableStream<UniEvent>, context: EncodingContext): Promise<Response> {
  const core = coreOf(context);
  let last: OpenResponsesEvent | undefined;
  let error: Record<string, unknown> | undefined;
  const emitted: OpenResponsesEvent[] = [];
  const emit = (e: OpenResponsesEvent): void => {
    if (e.type === "error" && isRecord(e.error)) error = e.error;
    last = e;
    emitted.push(e);
  };
  core.start?.(emit);
  const reader = events.getReader();
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) core.push(r.value, emit);
    await core.end(emit);
  } catch (e) {
    core.abort?.(e, emit);
  }
  for (const e of emitted) await keepTerminal(e, context); // (the response kept before its resource is answered)
  const response = last && isRecord(last.response) ? last.response : undefined;
  if (response && (response.status !== "failed" || !error)) return Response.json(response);
  return inDoorShape(Response.json({
    error: error ?? { message: "The response ended without its terminal event.", type: "server_error", param: null, code: null },
  }, {
    status: 502,
  }));
}

/** The Open Responses door's encoding (see the top). */
export const openResponsesEncoding: DoorEncoding<OpenResponsesEvent> = {
  contentType: "text/event-stream; charset=utf-8",
  sse: true,
  core: coreOf,
  frame: openResponsesFrame,
  end: OPEN_RESPONSES_END,
  keep: (e, context) => context.after === null || e.sequence_number > Number(context.after),
  whole: resource,
  sealing: (context) => sealStep(stateOf(metaOf(context.meta)), (context.env ?? {}) as SealEnv),
  settle: keepTerminal,
};
