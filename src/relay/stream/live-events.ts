// The stream: SPEC §8 (a live client is served the events as they come) and issue #47's "Speed" (a
// door's answer in the stream's object costs no more than MMSP's + 20%).
//
// The checked events themselves, as the stream's run loop read them (run.ts), held for the door
// answers that follow the live edge (door-answer.ts): such an answer writes them through its encoding
// as they are, instead of parsing their stored JSON back (a parse, a check and a copy per event: what
// made a door's answer in the object cost more than MMSP's, which sends the stored text). What is
// stored stays the one truth: an event is given from here only once it is stored (`to`: the log's
// count), and an answer behind what is held (a resume, after a restart, past the bound) reads the
// stored JSON as before, then takes the objects from where they begin. The bytes are the same either
// way (test/unit/relay/stream/door-encoding.test.ts).
//
// Memory: events are held only while a client that takes them is connected and has not been sent
// them (`lowest`), at most MAX_HELD_CHARS of their JSON (the event log's window bound: event-log.ts);
// past that the oldest are dropped and their answer reads them from storage.
import type { UniEvent } from "../../schema.js";

/** The held events' JSON weighs at most this many UTF-16 units (event-log.ts's MAX_WINDOW_CHARS). */
const MAX_HELD_CHARS = 16 * 64 * 1024;
/** One take gives at most about this many UTF-16 units of events (event-log.ts's PART_CHARS: a slice). */
const TAKE_CHARS = 64 * 1024;

/** The checked events last read, from `from` on, for the live door answers. */
export class LiveEvents {
  /** Events `from + i - head`, each with its JSON's size. */
  private events: UniEvent[] = [];
  private sizes: number[] = [];
  private head = 0;
  private from = 0;
  private chars = 0;

  /**
   * @param lowest the first event a connected client that takes objects has not been sent (Infinity: none)
   */
  constructor(private readonly lowest: () => number) {}

  /** Holds event `n` (its stored JSON `chars` long), when a connected client will take it; an event out of order starts anew. */
  add(n: number, event: UniEvent, chars: number): void {
    if (this.lowest() > n) return this.clear(n + 1); // (no client that takes objects will be sent it)
    if (n !== this.from + this.events.length - this.head) this.clear(n);
    this.events.push(event);
    this.sizes.push(chars);
    this.chars += chars;
    while (this.chars > MAX_HELD_CHARS) this.shift();
  }

  /** A gap at event `n` (one not held: the stream's stored error): nothing from there on is held. */
  skip(n: number): void {
    this.clear(n + 1);
  }

  /** The held events from `n` (about a slice of them) before `to` (the events stored); none when `n` is not held. */
  take(n: number, to: number): UniEvent[] {
    const i = n - this.from + this.head;
    if (n < this.from || i >= this.events.length) return [];
    let end = i;
    for (let chars = 0; end < this.events.length && n + end - i < to && chars < TAKE_CHARS; end++) chars += this.sizes[end]!;
    return this.events.slice(i, end);
  }

  /** Drops what no connected client that takes objects still needs (before `lowest`). */
  release(): void {
    const lowest = this.lowest();
    if (lowest === Infinity) return this.clear(this.from + this.events.length - this.head);
    while (this.head < this.events.length && this.from < lowest) this.shift();
  }

  private shift(): void {
    this.chars -= this.sizes[this.head]!;
    this.events[this.head] = undefined as unknown as UniEvent; // (released now, not at the compaction)
    this.head++;
    this.from++;
    if (this.head > 64 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
  }

  private clear(from: number): void {
    if (this.events.length > 0) {
      this.events = [];
      this.sizes = [];
    }
    this.head = 0;
    this.chars = 0;
    this.from = from;
  }
}
