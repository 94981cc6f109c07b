/**
 * When the parts of an answer arrived, on the client's clock: one clock call per input chunk (never
 * per byte or per event of a chunk); what the grammar completed is stamped with the time of the
 * chunk that completed it, after each chunk or when asked (so a listener called mid-chunk sees the
 * same figures as a read after it).
 */
import type { Grammar } from "../assemble/grammar.js";

/**
 * When the parts of a streamed answer arrived, in milliseconds of the platform clock
 * (`performance.now()` where present, else `Date.now()`: compare them with each other, not with
 * `created_at`), each `null` until it came, and the rate of its content. A frozen value, a new object
 * only when a figure changed. An event is stamped with the arrival of the chunk that completed it.
 */
export interface StreamTimings {
  /** The first chunk of the body (for `MessageAssemblerStream` and `fromFetch`: the first event in). */
  readonly firstByteAt: number | null;
  /** The first event out (usually the first fragment: time to first token, thinking included). */
  readonly firstEventAt: number | null;
  /** The first fragment of the answer: text, a tool call, inline data or an embedding (not thinking). */
  readonly firstContentAt: number | null;
  /** The stop event (in assemble mode: the end of the input, when the stop event is made). */
  readonly stopAt: number | null;
  /** UTF-16 units of text, thinking and tool-call arguments so far. */
  readonly characters: number;
  /**
   * `characters` per second, from the first event to the last chunk that brought any (the stop's,
   * at the end); `null` until two chunks apart did.
   */
  readonly charactersPerSecond: number | null;
}

const clock: () => number = /*#__PURE__*/ typeof performance !== "undefined" && typeof performance.now === "function"
  ? () => performance.now()
  : Date.now;

/** The timings of a stream that read nothing (a refused response). */
export const NO_TIMINGS: StreamTimings = /*#__PURE__*/ Object.freeze({
  firstByteAt: null,
  firstEventAt: null,
  firstContentAt: null,
  stopAt: null,
  characters: 0,
  charactersPerSecond: null,
});

type Figures = { -readonly [K in keyof StreamTimings]: StreamTimings[K] };

export class ReadTimings {
  /** The arrival of the chunk being handled (or of the last one). */
  private at = 0;
  /** The figures so far (`charactersPerSecond` derived when read) and the last chunk that brought characters. */
  private readonly f: Figures = { ...NO_TIMINGS };
  private lastAt = 0;
  private last: StreamTimings = NO_TIMINGS;

  constructor(private readonly grammar: Grammar) {}

  /** A chunk (for a stage of events: an event) arrived. */
  arrived(): void {
    this.at = clock();
    this.f.firstByteAt ??= this.at;
  }

  /** The input ended (the time the assembler's stop event is made). */
  ended(): void {
    this.at = clock();
  }

  /** Stamps what the grammar completed since the last look with the current chunk's time. */
  update(): void {
    const { f, grammar: g, at } = this;
    if (f.stopAt !== null) return;
    if (f.firstEventAt === null) {
      if (!g.started) return;
      f.firstEventAt = at;
    }
    if (f.firstContentAt === null && g.answered) f.firstContentAt = at;
    const chars = g.characters();
    if (chars !== f.characters) {
      f.characters = chars;
      this.lastAt = at;
    }
    if (g.message !== undefined) f.stopAt = this.lastAt = at;
    const span = this.lastAt - f.firstEventAt;
    f.charactersPerSecond = span > 0 ? (f.characters * 1000) / span : null;
  }

  /** The figures so far (the same object while none changed). */
  get value(): StreamTimings {
    this.update();
    const { f, last } = this;
    for (const k in f) if (f[k as keyof Figures] !== last[k as keyof Figures]) return (this.last = Object.freeze({ ...f }));
    return last;
  }
}
