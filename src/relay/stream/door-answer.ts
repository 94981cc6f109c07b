// The stream: SPEC §10 "Doors: the APIs a client speaks" (a door's answer, written by its encoding
// where the events are: the stream's object or the stateless path).
//
// A door's request to the stream's object names the encoding (the object's config holds every door's
// by name) and what its answer needs, in one header the Worker sets (admission strips it from every
// client's request): the stream's id, the door's resume position, whether the answer is the whole
// one and whether it carries event ids. The stateless path and the object write the answer the same
// way from the events they have (encodedAnswer).
import { parseJsonText } from "../../internal/json.js";
import { streamHeaders } from "./headers.js";
import type { UniEvent } from "../../schema.js";
import { type DoorEncoding, EncodedWriter, type EncodingContext, sealedEvents } from "./encoding.js";
import { encodedBody } from "./encoded-body.js";
import { refusal } from "../refusal.js";
import { fromWireError } from "../../errors.js";
import { checkEvent } from "../../decode/validate.js";
import { NDJSON_FRAMER } from "./resume.js";
import { flattened } from "../reads.js";
import { Utf8Out } from "./utf8-out.js";
import type { ServedStream, Sink, Viewers } from "./viewers.js";

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

/**
 * What a stream's object keeps as its meta: the door's meta, and for a stream kept at its client's
 * asking (`ids`) the door's ask before it, so a resume of GET /v1/streams/<id> (Last-Event-ID) is
 * answered in the door's encoding too.
 */
export function keptMeta(ask: DoorAsk, meta: string | null): string | null {
  // (one header value: no line break; the ask's text has no space — URLSearchParams writes one as +)
  return ask.ids ? `${KEPT_ASK}${doorAskText(ask)}${meta === null ? "" : ` ${meta}`}` : meta;
}

/** What starts a kept meta that carries its door's ask. */
const KEPT_ASK = "door?";

/** A stream's kept meta read back: the door's ask it keeps (if any) and the door's meta. */
export function doorOf(header: string | null, kept: string | null): { ask: DoorAsk | null; meta: string | null } {
  if (kept === null || !kept.startsWith(KEPT_ASK)) return { ask: doorAskOf(header), meta: kept };
  const space = kept.indexOf(" ");
  const stored = doorAskOf(kept.slice(KEPT_ASK.length, space < 0 ? undefined : space));
  const meta = space < 0 ? null : kept.slice(space + 1) || null;
  return { ask: doorAskOf(header) ?? stored, meta };
}

/** The answer a door's encoding writes of `events` (one array per provider chunk on the stateless path): its stream, or its whole answer. */
export async function encodedAnswer(
  events: ReadableStream<UniEvent[] | UniEvent>,
  encoding: DoorEncoding,
  context: EncodingContext,
  whole: boolean,
): Promise<Response> {
  if (whole && encoding.whole) return encoding.whole(sealedEvents(flattened(events), encoding, context), context);
  return new Response(encodedBody(events, encoding, context), { status: 200, headers: streamHeaders(encoding.contentType) });
}

/**
 * The stream object's answer to a door (`from`: the first stored event the client lacks): the stored
 * events from the start through its encoding, those before `from` fed to it but not written. A
 * streamed answer is one loop per slice of stored events (parsed back and checked by their one walk,
 * or at the live edge the checked events themselves: live-events.ts; encoded, written as one chunk; only an event the door's sealing step seals, or an output its
 * `settle` must wait for — Open Responses' stored response —, is awaited there); a whole answer
 * reads them as events. `where`: the object's env and keeper, for the encoding's context.
 */
export function storedDoorAnswer(
  viewers: Viewers,
  stream: ServedStream,
  ask: DoorAsk,
  encodings: Readonly<Record<string, DoorEncoding>> | undefined,
  meta: string | null,
  from: number,
  where: Pick<EncodingContext, "env" | "keeper"> = {},
): Promise<Response> | Response {
  const encoding = encodings && Object.hasOwn(encodings, ask.name) ? encodings[ask.name] : undefined;
  if (encoding === undefined) {
    return refusal(500, "InternalError", `The relay has no door encoding named ${JSON.stringify(ask.name.slice(0, 40))}.`);
  }
  const context: EncodingContext = { id: ask.id, meta, after: ask.after, ids: ask.ids, resumeAfter: from - 1, ...where };
  if (ask.whole && encoding.whole) return encoding.whole(sealedEvents(viewers.events(stream, 0), encoding, context), context);
  const body = viewers.follow(stream, 0, NDJSON_FRAMER, encodedSink(encoding, context));
  return new Response(body, { status: 200, headers: streamHeaders(encoding.contentType) });
}

/**
 * The stored events' lines written by a door's encoding: each slice's text in one chunk (see
 * storedDoorAnswer). Synchronous but for an event the sealing step seals or an output `settle` waits for.
 */
function encodedSink(encoding: DoorEncoding, context: EncodingContext): Sink<Uint8Array> {
  const writer = new EncodedWriter(encoding, context);
  const step = encoding.sealing?.(context);
  const ids = context.ids === true && encoding.sse;
  const resumeAfter = context.resumeAfter ?? -1;
  let buffered = "";
  let index = 0;
  /** The text of what the writer holds once settled (`id`: the stored event it ends, on an SSE answer with ids). */
  const taken = (id: number | null): string | Promise<string> => {
    const waiting = writer.settle();
    return waiting ? waiting.then(() => writer.take(id)) : writer.take(id);
  };
  /** The answer's bytes as they are written (each slice's taken out at once: utf8-out.ts). */
  const out = new Utf8Out();
  /** One event, sealed, written into `out` (EncodedWriter.writeTo; a promise only when an output must settle first). */
  const written = (event: UniEvent, n: number): void | Promise<void> => writer.writeTo(out, event, n <= resumeAfter, ids ? n : null);
  /** The failure's text written into `out` once its outputs are settled; the writer then released. */
  const failed = (reason: unknown, n: number): void | Promise<void> => {
    sink.closed = true;
    const text = writer.failed(reason) ? taken(ids ? n : null) : "";
    if (typeof text === "string") {
      if (text) out.text(text);
      return writer.dispose();
    }
    return text.then((t) => void (t && out.text(t))).finally(() => writer.dispose());
  };
  /** Objects given whole (live-events.ts), not yet written. */
  let given: readonly UniEvent[] = [];
  let at = 0;
  /** The next value to write: a given object, else a buffered line parsed back (checked by its one walk, or the stream's error). */
  const nextValue = (): UniEvent | StoredError | undefined => {
    if (at < given.length) return given[at++];
    const nl = buffered.indexOf("\n");
    if (nl < 0) return undefined;
    const value = parseJsonText(buffered.slice(0, nl)) as Record<string, unknown>;
    buffered = buffered.slice(nl + 1);
    // (the error a reader of the stream's SSE raised: written by the encoder, then its end)
    if (value.error !== undefined && value.error !== null) return new StoredError(fromWireError(value, null, "relay"));
    return checkEvent(value, true);
  };
  /** The values written into `out`, the slice's bytes given as one chunk; async only where `written` or `failed` is. */
  const drain = (controller: ReadableStreamDefaultController<Uint8Array>): boolean | Promise<boolean> => {
    for (let value = sink.closed ? undefined : nextValue(); value !== undefined; value = sink.closed ? undefined : nextValue()) {
      const n = index++;
      let writing: void | Promise<void>;
      if (value instanceof StoredError) writing = failed(value.reason, n);
      else {
        const event = step ? step(value) : value;
        writing = event instanceof Promise ? event.then((sealed) => written(sealed, n)) : written(event, n);
      }
      if (writing) {
        return writing.then(() => drain(controller), async (e: unknown) => {
          await failed(e, n);
          return drain(controller);
        });
      }
    }
    if (out.length === 0) return sink.closed === true;
    controller.enqueue(out.take());
    return true;
  };
  const sink: Sink<Uint8Array> = {
    text(text, controller) {
      buffered += text;
      return drain(controller);
    },
    events(events, _first, controller) {
      given = events;
      at = 0;
      return drain(controller);
    },
    end(controller) {
      const text = writer.ended() ? taken(null) : "";
      // (through the answer's one buffer, as every other write: it is empty here, each drain took its slice)
      const write = (t: string): void => {
        writer.dispose();
        if (!t) return;
        out.text(t);
        controller.enqueue(out.take());
      };
      if (typeof text === "string") return write(text);
      return text.then(write);
    },
    keepAlive: null,
  };
  return sink;
}

/** A stored line that is the stream's error (its last). */
class StoredError {
  constructor(readonly reason: unknown) {}
}
