// The stream: SPEC §10 "Doors: the APIs a client speaks" (a door's answer, written by its encoding
// where the events are: the stream's object or the stateless path).
//
// A door's request to the stream's object names the encoding (the object's config holds every door's
// by name) and what its answer needs, in one header the Worker sets (admission strips it from every
// client's request): the stream's id, the door's resume position, whether the answer is the whole
// one and whether it carries event ids. The stateless path and the object write the answer the same
// way from the events they have (encodedAnswer).
import { streamHeaders } from "../routing/answer.js";
import type { UniEvent } from "../../schema.js";
import { type DoorEncoding, encodedBody, type EncodingContext } from "./encoding.js";
import { refusal } from "../refusal.js";

/** What a door asks of the stream's answer. */
export interface DoorAsk {
  /** Its encoding's name (the object's config `encodings`). */
  readonly name: string;
  /** The stream's id. */
  readonly id: string;
  /** The door's own resume position (encoding.ts `after`), or null. */
  readonly after: string | null;
  /** The whole answer (the encoding's `whole`), not a stream. */
  readonly whole: boolean;
  /** A kept stream's answer with event ids (SSE encodings). */
  readonly ids: boolean;
}

/** A door's ask as the header's value. */
export function doorAskText(ask: DoorAsk): string {
  const params = new URLSearchParams({ name: ask.name, id: ask.id });
  if (ask.after !== null) params.set("after", ask.after);
  if (ask.whole) params.set("whole", "1");
  if (ask.ids) params.set("ids", "1");
  return params.toString();
}

/** The ask of the header's value (set by the Worker only), or null for none. */
export function doorAskOf(text: string | null): DoorAsk | null {
  if (text === null) return null;
  const params = new URLSearchParams(text);
  const name = params.get("name");
  if (name === null) return null;
  return {
    name,
    id: params.get("id") ?? "",
    after: params.get("after"),
    whole: params.get("whole") === "1",
    ids: params.get("ids") === "1",
  };
}

/** The answer a door's encoding writes of `events`: its stream, or its whole answer. */
export async function encodedAnswer(
  events: ReadableStream<UniEvent>,
  encoding: DoorEncoding,
  context: EncodingContext,
  whole: boolean,
): Promise<Response> {
  if (whole && encoding.whole) return encoding.whole(events, context);
  return new Response(encodedBody(events, encoding, context), { status: 200, headers: streamHeaders(encoding.contentType) });
}

/**
 * The stream object's answer to a door (`from`: the first stored event the client lacks): the stored
 * events from the start through its encoding, those before `from` fed to it but not written.
 */
export function storedDoorAnswer(
  events: (from: number) => ReadableStream<UniEvent>,
  ask: DoorAsk,
  encodings: Readonly<Record<string, DoorEncoding>> | undefined,
  meta: string | null,
  from: number,
): Promise<Response> | Response {
  const encoding = encodings && Object.hasOwn(encodings, ask.name) ? encodings[ask.name] : undefined;
  if (encoding === undefined) {
    return refusal(500, "InternalError", `The relay has no door encoding named ${JSON.stringify(ask.name.slice(0, 40))}.`);
  }
  const context: EncodingContext = { id: ask.id, meta, after: ask.after, ids: ask.ids, resumeAfter: from - 1 };
  return encodedAnswer(events(0), encoding, context, ask.whole);
}
