// The stream: SPEC §10 "Doors: the APIs a client speaks" (a door's answer written from the stream's
// events themselves: its encoder run where the events are).
//
// A door's encoding is its encoder core (UniEvents in, its API's events out), the text of each of
// them, and its answer's content type, with a whole-answer writer for a request that asked for no
// stream. The stream step runs it where the events are: in the stream's Durable Object over the
// stored events (viewers.ts: already checked, parsed back and written, never read as SSE again), and
// on the stateless path over the taken events (answer.ts `takeEvents`: the provider's reader giving
// one array of events per provider chunk, fused with the encoder in one loop per chunk, issue #49).
// Before this, the Open Responses door wrote MMSP SSE and read it back through `fromResponse`
// (framing, zod, the grammar) before encoding it: one encoder loop here instead, no stream between its stages.
//
// A kept stream's answer in an SSE encoding carries event ids: the last frame written for stored
// event n says `id: n` (a cut between two frames of one event resumes from that event), and a resume
// after n feeds the encoder events 0…n without writing them (its state is the whole stream's).
//
// A door's sealing step (SPEC §9: another provider's bound values sealed, `sealing`) runs here too,
// on each event before its encoder, so every answer of the door — first, whole, resumed at its own
// route or at GET /v1/streams/<id> — goes out sealed: one place, not one per route.
import type { StreamCore } from "../../internal/core.js";
import { encodeWireEvent, toWireError } from "../../encode.js";
import type { UniEvent } from "../../schema.js";
import type { ResponseKeeper } from "./responses.js";
import { utf8Of, type Utf8Out, type WritesInto, writesInto } from "./utf8-out.js";

/** What one answer's encoder is told: the stream's id, the door's meta (passed with the request), where a resume starts. */
export interface EncodingContext {
  /** The stream's id (32 hex digits; a new one for a stream that is not kept). */
  readonly id: string;
  /** What the door passed with the request (its settings, kept with the stream), or null. */
  readonly meta: string | null;
  /** The door's own resume position (Open Responses' `starting_after`), or null. */
  readonly after: string | null;
  /** A kept stream's answer asked to carry event ids (SSE encodings only): `id: <n>`, the index of the stored event. */
  readonly ids?: boolean;
  /** A Last-Event-ID resume: events up to this index are fed to the encoder, not written (-1 or absent: none). */
  readonly resumeAfter?: number;
  /** The relay's variables where the answer is written (the object's or the Worker's env: a door's secrets, e.g. the seal's key). */
  readonly env?: unknown;
  /** Where responses are kept, on a relay that keeps them (stream/responses.ts); absent: none. */
  readonly keeper?: ResponseKeeper | null;
}

/** How a door writes the stream's events: its encoder core, each output's text, its content type, its whole answer. */
export interface DoorEncoding<T = unknown> {
  /** The streamed answer's Content-Type. */
  readonly contentType: string;
  /** Whether its outputs are SSE frames (`event:`/`data:` … blank line): a kept stream's answer then carries `id: <n>`. */
  readonly sse: boolean;
  /**
   * Where a kept answer's `id: <n>` goes: absent, on the event's last frame (its first line); a line end
   * (Gemini's `\r\n`), in an event of its own after that frame, `id: <n>` and a blank line, for clients
   * that read only events that begin with `data:` (@google/genai drops any other: an id line first hid
   * every frame from it). An SSE client's last event id is n once event n's frame is read whole either
   * way; cut between that frame and its id event, it resumes at event n again (its frame comes twice).
   */
  readonly idEvent?: string;
  /** A new encoder core for one answer. */
  core(context: EncodingContext): StreamCore<UniEvent, T>;
  /** One output as the answer's text. */
  frame(output: T): string;
  /** Text after the last output (SSE's `data: [DONE]\n\n`), or "". */
  readonly end: string;
  /** Whether an output is written, for a resume at the door's own position (asked only when `context.after` is set); default: every one. */
  keep?(output: T, context: EncodingContext): boolean;
  /** The whole answer of a request that asked for no stream: the events read to their end as one Response. */
  whole?(events: ReadableStream<UniEvent>, context: EncodingContext): Promise<Response>;
  /**
   * The door's sealing step of one answer (SPEC §9: another provider's bound values sealed, doors/sealing.ts),
   * run on every event before the encoder wherever the answer is written: the first answer, the whole
   * one, any resume (the door's own route or GET /v1/streams/<id>), stateless or in the stream's object.
   */
  sealing?(context: EncodingContext): SealStep;
  /** Awaited before an output is written, when it returns a promise (Open Responses keeps its response before the terminal event reaches the client). */
  settle?(output: T, context: EncodingContext): Promise<void> | void;
}

/**
 * One answer's sealing step: an event as the encoder takes it — the event itself when it holds nothing
 * to seal (no promise: the common case stays synchronous), else a promise of it sealed.
 */
export type SealStep = (event: UniEvent) => UniEvent | Promise<UniEvent>;

/** `events` through the encoding's sealing step (for a whole answer, which reads them as events), if it has one. */
export function sealedEvents(events: ReadableStream<UniEvent>, encoding: DoorEncoding, context: EncodingContext): ReadableStream<UniEvent> {
  if (!encoding.sealing) return events;
  const step = encoding.sealing(context);
  const reader = events.getReader();
  return new ReadableStream<UniEvent>({
    async pull(controller) {
      const r = await reader.read();
      if (r.done) return controller.close();
      try {
        controller.enqueue(await step(r.value));
      } catch (e) {
        void reader.cancel(e).catch(() => {}); // (the events end here: their source stops)
        controller.error(e);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/** One answer's writer: each event, a failure or the end fed (`feed`, `failed`, `ended`), their outputs settled and taken as text. */
export class EncodedWriter<T> {
  private readonly core: StreamCore<UniEvent, T>;
  private readonly outputs: T[] = [];
  /** The outputs waiting: `outputs[0…waiting)` (the one array, reused: none made, none cut per event). */
  private waiting = 0;
  private readonly emit = (o: T): void => {
    this.outputs[this.waiting++] = o;
  };
  private done = false;
  /**
   * The core, when it writes hot records as bytes and every output is written (no door resume filter);
   * with the encoding's `settle` too: the records a core writes as bytes are never ones it waits for (utf8-out.ts).
   */
  private readonly bytes: WritesInto | null;
  /** The id event's line ends as bytes (`DoorEncoding.idEvent`), or null: an id goes first in the frame. */
  private readonly idEnd: Uint8Array | null;

  constructor(private readonly encoding: DoorEncoding<T>, private readonly context: EncodingContext) {
    this.core = encoding.core(context);
    this.core.start?.(this.emit);
    this.bytes = writesInto(this.core) && context.after === null ? this.core : null;
    this.idEnd = encoding.idEvent === undefined ? null : utf8Of(encoding.idEvent + encoding.idEvent);
  }

  /**
   * Writes one event's record straight into `out` as bytes when its core can (utf8-out.ts: a hot
   * fragment, no output waiting before it), its id (`id`: the stored event, on an SSE answer with ids)
   * where the encoding puts it, as `text` does; true then. False, nothing fed: the event goes through `write`.
   */
  into(event: UniEvent, id: number | null, out: Utf8Out): boolean {
    if (this.bytes === null || this.done || this.waiting !== 0) return false;
    if (id === null) return this.bytes.pushInto(event, out);
    const mark = out.length;
    if (this.idEnd === null) out.idLine(id);
    const record = out.length;
    if (!this.bytes.pushInto(event, out)) {
      out.truncate(mark);
      return false;
    }
    if (out.length === record) out.truncate(mark); // (no record: no id either, as `text`)
    else if (this.idEnd !== null) out.idLine(id, this.idEnd);
    return true;
  }

  /** The text of the outputs so far; `id`: the stored event they end, written on the last frame (SSE). */
  private text(id: number | null): string {
    const { outputs, encoding, context } = this;
    const n = this.waiting;
    const keep = context.after === null ? undefined : encoding.keep;
    let text = "";
    try {
      for (let i = 0; i < n; i++) {
        const o = outputs[i]!;
        if (keep && !keep(o, context)) continue;
        if (id === null || i !== n - 1) text += encoding.frame(o);
        else if (encoding.idEvent === undefined) text += `id: ${id}\n${encoding.frame(o)}`;
        else text += `${encoding.frame(o)}id: ${id}${encoding.idEvent}${encoding.idEvent}`;
      }
    } finally {
      this.waiting = 0;
    }
    return text;
  }

  /** Feeds one event (its outputs wait for `take`); false when there is nothing to write (done, or `quiet`). */
  feed(event: UniEvent, quiet = false): boolean {
    if (this.done) return false;
    this.core.push(event, this.emit);
    if (quiet) this.waiting = 0;
    return !quiet;
  }

  /**
   * Feeds one event and gives its outputs' text (`id`: the stored event, on an SSE answer with ids), or
   * a promise of it when one must settle first; "" when there is nothing to write (done, or `quiet`).
   */
  write(event: UniEvent, quiet: boolean, id: number | null): string | Promise<string> {
    if (!this.feed(event, quiet)) return "";
    const waiting = this.settle();
    return waiting ? waiting.then(() => this.take(id)) : this.take(id);
  }

  /**
   * Feeds one event and writes it into `out`: as bytes where its core can (`into`; never a `quiet` one),
   * else its outputs' text (`write`); a promise only when an output must settle first. The one way both
   * door loops write an event (door-answer.ts, encoded-body.ts).
   */
  writeTo(out: Utf8Out, event: UniEvent, quiet: boolean, id: number | null): void | Promise<void> {
    if (!quiet && this.into(event, id, out)) return;
    const text = this.write(event, quiet, id);
    if (typeof text !== "string") return text.then((t) => void (t && out.text(t)));
    if (text) out.text(text);
  }

  /** Feeds the stream's failure; false when the writer was done. */
  failed(reason: unknown): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.core.abort) this.core.abort(reason, this.emit);
    return true;
  }

  /** Feeds the stream's end; false when the writer was done. */
  ended(): boolean {
    if (this.done) return false;
    this.done = true;
    void this.core.end(this.emit);
    return true;
  }

  /** The encoding's `settle` of every output waiting to be written (see DoorEncoding); undefined when none had to wait. */
  settle(): Promise<void> | undefined {
    const { settle } = this.encoding;
    if (!settle) return undefined;
    for (let i = 0; i < this.waiting; i++) {
      const waiting = settle(this.outputs[i]!, this.context);
      if (waiting) return this.settleFrom(waiting, i + 1);
    }
    return undefined;
  }

  private async settleFrom(waiting: Promise<void>, from: number): Promise<void> {
    await waiting;
    for (let i = from; i < this.waiting; i++) await this.encoding.settle!(this.outputs[i]!, this.context);
  }

  /** The text of the outputs waiting (`id`: the stored event they end), and the encoding's end once done. */
  take(id: number | null): string {
    return this.text(id) + (this.done ? this.encoding.end : "");
  }

  /** Releases the core's timers. */
  dispose(): void {
    this.core.dispose?.();
  }
}

/** MMSP's own wire as a door encoding (SSE, or NDJSON): the stream's events as an MMSP server writes them. */
export function mmspEncoding(format: "sse" | "ndjson", contentType: string): DoorEncoding<string> {
  const record = format === "sse" ? (json: string) => `data: ${json}\n\n` : (json: string) => `${json}\n`;
  const end = format === "sse" ? "data: [DONE]\n\n" : "";
  return {
    contentType,
    sse: false, // (a kept MMSP stream's ids are the stream object's own framing: resume.ts)
    end,
    frame: (json) => json,
    core: () => {
      let finished = false;
      return {
        get finished() {
          return finished;
        },
        push(event, emit) {
          if (finished) return;
          let json: string;
          try {
            json = encodeWireEvent(event);
          } catch (error) {
            finished = true;
            return emit(record(errorJson(error)));
          }
          emit(record(json));
        },
        end() {},
        abort(reason, emit) {
          if (!finished) emit(record(errorJson(reason)));
          finished = true;
        },
      };
    },
  };
}

function errorJson(error: unknown): string {
  try {
    return JSON.stringify({ error: toWireError(error) });
  } catch {
    return JSON.stringify({ error: { type: "Error", message: "an error that cannot be written as JSON" } });
  }
}
