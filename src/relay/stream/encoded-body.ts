// The stream: SPEC §10 "Doors: the APIs a client speaks" (a door's answer body: encoding.ts's
// encoding run over the events where they are, issue #49's fused loop).
//
// One loop per read: a read gives one array of events (a provider chunk's, on the stateless path:
// providers/batches.ts) or one event (a stream's object); each event goes through the door's sealing
// step, then its encoder core (a hot fragment written as bytes: utf8-out.ts), and the bytes of the
// reads that are there at once go out as one chunk.
// No stage between, no promise per event: a step or a `settle` is awaited only when it returns a promise.
import { readsOf } from "../reads.js";
import { KeepAlive } from "../../encode/wire-event.js";
import type { UniEvent } from "../../schema.js";
import { type DoorEncoding, EncodedWriter, type EncodingContext } from "./encoding.js";
import { Utf8Out } from "./utf8-out.js";

/** A silent answer's keep-alive: `text` written after `ms` without output (MMSP's SSE comment). */
export interface KeepAliveOption {
  ms: number;
  text: string;
}

/** A chunk of a door's answer holds the bytes of the events read at once up to about this many. */
const CHUNK_BYTES = 64 * 1024;
/** Microtask turns a read is given to come before the text written so far goes (see `comes`). */
const TURNS = 16;

/**
 * Whether `reading` settles within a few microtask turns: the next event is there already (the
 * upstream's chunk held more, a slice of stored events), not awaited from the network. Without a
 * timer: an event that is not there in those turns lets the text written so far go at once.
 */
async function comes(reading: Promise<unknown>): Promise<boolean> {
  let settled = false;
  reading.then(() => (settled = true), () => (settled = true));
  for (let i = 0; i < TURNS && !settled; i++) await undefined;
  return settled;
}

/**
 * The events as a door's answer body: one loop per read, fused (issue #49). A read gives one array
 * of events (a provider chunk's, on the stateless path: providers/batches.ts) or one event (a stream's
 * object); each event goes through the encoding's sealing step, then its encoder core, with no stage
 * between and no promise per event (only a step or `settle` that returns one is awaited). The text of
 * the reads that are there at once is written as one chunk (a chunk per event cost workerd more than
 * the encoding), none held for a read still to come. The bytes are those of the encoder core run as
 * its own stage, event by event (test/unit/relay/stream/fused.test.ts proves it).
 */
export function encodedBody<T>(
  events: ReadableStream<UniEvent | UniEvent[]>,
  encoding: DoorEncoding<T>,
  context: EncodingContext,
  keepAlive?: KeepAliveOption,
): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  const reader = readsOf(events); // (a provider's events, metered: read directly, reads.ts)
  const writer = new EncodedWriter(encoding, context);
  const step = encoding.sealing?.(context);
  const ids = context.ids === true && encoding.sse;
  const resumeAfter = context.resumeAfter ?? -1;
  let index = 0;
  let ahead: Promise<ReadableStreamReadResult<UniEvent | UniEvent[]>> | null = null; // (a read begun, for the next pull)
  let alive: KeepAlive | undefined;
  /** The bytes to write (what a read's events made before a step failed is kept): stream/utf8-out.ts. */
  const out = new Utf8Out();
  /** A read's events through the sealing step and the encoder into `out`: a hot fragment as bytes, any other event as its text. */
  const encode = async (events: readonly UniEvent[]): Promise<void> => {
    for (const event of events) {
      let ready = step ? step(event) : event;
      if (ready instanceof Promise) ready = await ready;
      const n = index++;
      const writing = writer.writeTo(out, ready, n <= resumeAfter, ids ? n : null);
      if (writing) await writing;
    }
  };
  /** The end's or the failure's text, added once its outputs are settled. */
  const written = async (id: number | null): Promise<void> => {
    await writer.settle();
    const text = writer.take(id);
    if (text) out.text(text);
  };
  const close = (): void => {
    alive?.dispose();
    writer.dispose();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (keepAlive) alive = new KeepAlive(keepAlive.ms, () => controller.enqueue(utf8.encode(keepAlive.text)));
    },
    async pull(controller) {
      const send = (): void => {
        alive?.wrote();
        controller.enqueue(out.take());
      };
      for (;;) {
        let last = false;
        let read = false;
        const reading = ahead ?? reader.read();
        ahead = null;
        if (out.length > 0 && !(await comes(reading))) {
          ahead = reading; // (the next read is not there yet: what is written goes now)
          return send();
        }
        try {
          const r = await reading;
          read = true;
          if (r.done) {
            last = true;
            if (writer.ended()) await written(null);
          } else await encode(Array.isArray(r.value) ? r.value : [r.value]);
        } catch (e) {
          if (read && !last) void reader.cancel(e).catch(() => {}); // (a sealing step failed: the events' source stops)
          last = true;
          if (writer.failed(e)) await written(ids ? index : null);
        }
        if (last) {
          if (out.length > 0) send();
          close();
          return controller.close();
        }
        if (out.length >= CHUNK_BYTES) return send();
      }
    },
    cancel(reason) {
      close();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
