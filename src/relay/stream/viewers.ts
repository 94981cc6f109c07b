// The stream: SPEC §8 (any number of clients served what is stored: a client resuming after event n
// gets n+1… from storage, then follows the live stream; each in the format it asked for).
//
// The part of a stream's object that serves its viewers (stream-object.ts is the shell): one answer
// per client, pulled (a pull is the client asking for more: its time is the abandon clock, see
// `idleSince`), woken at each stored event or the end, kept alive by MMSP's keep-alive.
import { parseJsonText } from "../../internal/json.js";
import { streamHeaders } from "./headers.js";
import { clientFormat } from "./client-format.js";
import type { EventLog } from "./event-log.js";
import { META_HEADER } from "./headers.js";
import { type Framer, NDJSON_FRAMER, SSE_FRAMER } from "./resume.js";
import { fromWireError } from "../../errors.js";
import { checkEvent } from "../../decode/validate.js";
import type { UniEvent } from "../../schema.js";
import { LiveEvents } from "./live-events.js";

/** MMSP's keep-alive period: a silent stream still sends bytes, so proxies do not time out. */
const KEEP_ALIVE_MS = 15_000;

/** One client's answer: whether it is waiting for an event now, and how to wake it. */
interface Viewer {
  pulling: boolean;
  wake: (() => void) | null;
  /** The next event it sends. */
  next: number;
  /** It takes the checked events themselves while they are held (a door's answer: live-events.ts). */
  objects: boolean;
}

/** What the viewers read of the stream: its stored events and whether it ended. */
export interface ServedStream {
  readonly log: EventLog;
  readonly ended: boolean;
  /** Live, but no instance reads its upstream any more (its object died under it): no keep-alive, the answer ends. */
  readonly orphaned?: boolean;
}

/** The clients of one stream: their answers, their wake-ups, when one last read. */
export class Viewers {
  /** Clients connected now (reading or not). */
  private readonly viewers = new Set<Viewer>();
  /** Wakes the answers waiting for the next event (or the end). */
  private wake: (() => void)[] = [];
  /** When a client last pulled its answer (or left, or the stream began): the abandon clock. */
  lastRead = 0;
  /** The checked events last read, held for the clients that take them (the run loop adds them: run.ts). */
  readonly live = new LiveEvents(() => this.lowest(true));

  /** How many clients are connected now. */
  get size(): number {
    return this.viewers.size;
  }

  /** The clients connected now. */
  [Symbol.iterator](): IterableIterator<Viewer> {
    return this.viewers.values();
  }

  /** Wakes every answer waiting for the next event. */
  notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const wake of waiting) wake();
  }

  /** The first event a connected client has not been sent whole yet (Infinity without clients): the window keeps it (event-log.ts). */
  lowest(objects = false): number {
    let lowest = Infinity;
    for (const v of this.viewers) if (v.next < lowest && (v.objects || !objects)) lowest = v.next;
    return lowest;
  }

  /** Since when no client has read: now while one is waiting for an event, else the last pull. */
  idleSince(now: number): number {
    for (const v of this.viewers) if (v.pulling) return now;
    return this.lastRead;
  }

  /** Resolves true at the next event (or the end, or the viewer leaving), false after `ms` without one. */
  private changed(ms: number, viewer: Viewer): Promise<boolean> {
    return new Promise((resolve) => {
      // (a wake left in this.wake after its timer fired must not clear a newer one)
      const wake = (): void => {
        clearTimeout(timer);
        if (viewer.wake === wake) viewer.wake = null;
        resolve(true);
      };
      const timer = setTimeout(() => {
        if (viewer.wake === wake) viewer.wake = null;
        resolve(false);
      }, ms);
      viewer.wake = wake;
      this.wake.push(wake);
    });
  }

  /** The streamed answer to one client: stored events from `from`, then live ones, then the end. */
  answer(stream: ServedStream, from: number, accept: string | null, meta: string | null): Response {
    const { format, contentType } = clientFormat(accept);
    const framer: Framer = format === "sse" ? SSE_FRAMER : NDJSON_FRAMER;
    const utf8 = new TextEncoder();
    const body = this.follow<Uint8Array>(stream, from, framer, {
      text: (text, controller) => (controller.enqueue(utf8.encode(text)), true),
      // (SSE: the rows' own bytes, made once as they were written: event-log.ts `sliceBytes`)
      bytes: framer === SSE_FRAMER ? (bytes, controller) => (controller.enqueue(bytes), true) : undefined,
      end: (controller) => void (framer.end && controller.enqueue(utf8.encode(framer.end))),
      keepAlive: framer.keepAlive === null ? null : utf8.encode(framer.keepAlive),
    });
    const headers = new Headers(streamHeaders(contentType));
    if (meta !== null) headers.set(META_HEADER, meta);
    return new Response(body, { status: 200, headers });
  }

  /**
   * The stored events from `from`, then live ones, as one client reads them, for a door's encoder
   * (encoding.ts): each parsed back as it was stored (checked when it was taken: its bytes decoded,
   * its one walk), a stored `{"error"}` the stream's error as a reader of its SSE would raise it.
   */
  events(stream: ServedStream, from: number): ReadableStream<UniEvent> {
    let buffered = "";
    const sink: Sink<UniEvent> = {
      text: (text, controller) => {
        buffered += text;
        let given = false;
        for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
          const value = parseJsonText(buffered.slice(0, nl)) as Record<string, unknown>;
          buffered = buffered.slice(nl + 1);
          // (the stream's error once the events before it are read: an error now would drop them)
          if (value.error !== undefined && value.error !== null) {
            sink.failure = { error: fromWireError(value, null, "relay") };
            return given;
          }
          controller.enqueue(checkEvent(value, true));
          given = true;
        }
        return given;
      },
      end: () => {},
      keepAlive: null,
    };
    return this.follow<UniEvent>(stream, from, NDJSON_FRAMER, sink);
  }

  /** One client following the stream from `from`: each slice of stored events given to `sink`, then its end. */
  follow<T>(stream: ServedStream, from: number, framer: Framer, sink: Sink<T>): ReadableStream<T> {
    const { log } = stream;
    let next = from;
    let connected = true;
    const viewer: Viewer = { pulling: false, wake: null, next: from, objects: sink.events !== undefined };
    this.viewers.add(viewer);
    const leave = (): void => {
      if (!connected) return;
      connected = false;
      this.viewers.delete(viewer);
      this.live.release();
      this.lastRead = Date.now();
      viewer.wake?.(); // a pull waiting for the next event ends now, not at the next keep-alive
    };
    // A pull is the client asking for more: its time is the abandon clock (see idleSince()).
    const pull = async (controller: ReadableStreamDefaultController<T>): Promise<void> => {
      viewer.pulling = true;
      this.lastRead = Date.now();
      try {
        await send(controller);
      } finally {
        viewer.pulling = false;
        this.lastRead = Date.now();
      }
    };
    let part = 0; // the next part of event `next` to send (0: its head first)
    const send = async (controller: ReadableStreamDefaultController<T>): Promise<void> => {
      for (;;) {
        if (!connected) return; // cancelled while waiting: nothing more to send
        if (sink.failure) return controller.error(sink.failure.error), leave(); // (what came before it was read)
        if (sink.closed) return controller.close(), leave(); // (the sink wrote its end)
        if (next < log.count && part === 0 && sink.events) {
          // (the checked events themselves while they are held: no parse-back; live-events.ts)
          const events = this.live.take(next, log.count);
          if (events.length > 0) {
            const first = next;
            viewer.next = next += events.length;
            this.live.release();
            const given = sink.events(events, first, controller);
            if (given === true || (given !== false && (await given))) return;
            continue;
          }
        }
        if (next < log.count) {
          // one slice: whole small events, or the next parts of a large one (at most ~2 parts);
          // none when deleted under us (expired): the answer ends
          const slice = sink.bytes ? log.sliceBytes(next, part) : log.slice(next, part, framer);
          viewer.next = next = slice.seq;
          part = slice.part;
          if (viewer.objects) this.live.release();
          if ("bytes" in slice ? slice.bytes.length > 0 : slice.text) {
            const given = "bytes" in slice ? sink.bytes!(slice.bytes, controller) : sink.text(slice.text, controller);
            if (given === true || (given !== false && (await given))) return;
            continue; // (nothing to give yet: a large event's first part)
          }
        }
        if (stream.ended || next < log.count) {
          const ending = sink.end(controller);
          if (ending) await ending; // (a door's end that waits: Open Responses keeps its response first)
          if (connected) controller.close();
          return leave();
        }
        if (stream.orphaned) {
          // (SPEC §10 "A stream outlives its object": keep-alives only from a live stream; a resume finds the rest)
          controller.error(new Error("the stream's object stopped (a restart): resume from the last event id"));
          return leave();
        }
        if (!(await this.changed(KEEP_ALIVE_MS, viewer)) && connected && sink.keepAlive !== null) {
          return controller.enqueue(sink.keepAlive);
        }
      }
    };
    return new ReadableStream<T>({ pull, cancel: () => leave() }, { highWaterMark: 0 });
  }
}

/**
 * Where a client's slices of stored events go: its body's chunks (`text`: whether it gave one);
 * `failure`: the stream's error, raised once what came before it is read (an error drops the queue).
 */
export interface Sink<T> {
  /** Gives the slice's text (a promise only when it must wait: a door's sealing step). */
  text(text: string, controller: ReadableStreamDefaultController<T>): boolean | Promise<boolean>;
  /** Gives the slice as SSE's UTF-8 bytes instead (`Viewers.answer` in SSE: a row's bytes as written); absent: `text`. */
  bytes?(bytes: Uint8Array, controller: ReadableStreamDefaultController<T>): boolean;
  /** Gives stored events `first…` as the checked objects themselves, held while live (live-events.ts); absent: text only. */
  events?(events: readonly UniEvent[], first: number, controller: ReadableStreamDefaultController<T>): boolean | Promise<boolean>;
  failure?: { error: unknown };
  /** The sink wrote its end (a door's answer after the stream's error): the body closes at the next pull. */
  closed?: boolean;
  /** Writes the end (a promise only when it must wait: a door's `settle`). */
  end(controller: ReadableStreamDefaultController<T>): void | Promise<void>;
  keepAlive: T | null;
}
