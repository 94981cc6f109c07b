// The stream: SPEC §8 (the stream's events, stored in order, each with its id).
//
// A stream's events as its Durable Object keeps them (stream-object.ts): the `events` table, written
// a batch at a time, and the last events written held in memory to serve the live viewers.
//
// - Writing: an event is taken at once (`add`: its index, counted against the bounds by the caller),
//   held until `flush` writes every held event in a few multi-row INSERTs (one per ROWS_PER_INSERT
//   parts) — one statement per upstream chunk instead of one per event. The object flushes at the end
//   of the turn that took them (or sooner when they weigh FLUSH_CHARS), and before anything is served:
//   a viewer only ever sees stored events (`count`), so a resume after a restart never misses one.
// - Serving: `part(seq, part)` answers from the events last written while they are held (at most
//   WINDOW_CHARS, the oldest dropped first), else from storage: a live viewer costs no read, a viewer
//   behind the window reads storage as before.
import type { RelaySqlStorage } from "../platform.js";
import type { Framer } from "./resume.js";

/**
 * An event's JSON is stored in parts of this many UTF-16 units (storage keeps a value of at most
 * 2 MB), and an answer sends at most about two parts per pull: what one viewer holds, however large
 * the event (a client that does not read pins one slice, not the event).
 */
export const PART_CHARS = 64 * 1024;
/** Held events past this many UTF-16 units are written at once, not at the end of the turn. */
const FLUSH_CHARS = 4 * PART_CHARS;
/** The events last written, held for the live viewers: at most this many UTF-16 units. */
const WINDOW_CHARS = 4 * PART_CHARS;
/** Rows one slice reads from storage at most (a slice stops at PART_CHARS before, unless events are tiny). */
const SLICE_ROWS = 512;
/** Rows per INSERT: three bindings a row, within SQLite storage's 100 bindings per statement. */
const ROWS_PER_INSERT = 33;

/** `INSERT … VALUES (?, ?, ?), …` for n rows, made once per n. */
const inserts: string[] = [];
const insertOf = (
  n: number,
): string => (inserts[n] ??= `INSERT INTO events (seq, part, data) VALUES ${Array.from({ length: n }, () => "(?, ?, ?)").join(", ")}`);

/** The events table of one stream, with the events taken but not yet written, and the window. */
export class EventLog {
  /** Events stored (the next stored event's index): what viewers and resumes may see. */
  count = 0;
  /** Events taken, not yet stored (indices count, count + 1, …). */
  private held: string[] = [];
  private heldChars = 0;
  /** The events last stored, `window[head…]` being events `windowFrom…` (their JSON whole), and their size. */
  private window: string[] = [];
  private head = 0;
  private windowFrom = 0;
  private windowChars = 0;

  constructor(private readonly sql: RelaySqlStorage) {}

  /** Events taken so far, stored or not (the next event's index). */
  get taken(): number {
    return this.count + this.held.length;
  }

  /** Takes one event; true when the held events weigh enough to be written now. */
  add(json: string): boolean {
    this.held.push(json);
    this.heldChars += json.length;
    return this.heldChars >= FLUSH_CHARS;
  }

  /** Writes every held event (each in parts, if large); they are then served from the window. */
  flush(): void {
    const held = this.held;
    if (held.length === 0) return;
    const rows: (string | number)[] = [];
    let n = 0;
    const write = (): void => {
      this.sql.exec(insertOf(n), ...rows);
      rows.length = 0;
      n = 0;
    };
    let seq = this.count;
    for (const json of held) {
      for (let part = 0, at = 0; part === 0 || at < json.length; part++, at += PART_CHARS) {
        rows.push(seq, part, json.length <= PART_CHARS ? json : json.slice(at, at + PART_CHARS));
        if (++n === ROWS_PER_INSERT) write();
      }
      seq++;
    }
    if (n > 0) write();
    this.held = [];
    this.heldChars = 0;
    this.count = seq;
    if (this.windowFrom + this.window.length - this.head !== this.count - held.length) this.forget(this.count - held.length);
    for (const json of held) {
      this.window.push(json);
      this.windowChars += json.length;
    }
    // (the oldest dropped first; the array compacted once half of it is dropped: linear in all)
    while (this.windowChars > WINDOW_CHARS && this.head < this.window.length) {
      this.windowChars -= this.window[this.head++]!.length;
      this.windowFrom++;
    }
    if (this.head > 64 && this.head * 2 > this.window.length) {
      this.window = this.window.slice(this.head);
      this.head = 0;
    }
  }

  /** Drops the window (storage was deleted, or the count set anew): the next events start it at `from`. */
  forget(from: number): void {
    this.window = [];
    this.head = 0;
    this.windowChars = 0;
    this.windowFrom = from;
  }

  /**
   * The stored events from part `part` of event `seq` on, framed, about PART_CHARS of them (whole
   * small events, or the next parts of a large one: at most ~2 parts), and where the next slice
   * starts. From the window while it holds them, else from storage in one statement (rows read one
   * by one until the slice is full). An empty text when event `seq` is not stored (deleted under us).
   */
  slice(seq: number, part: number, framer: Framer): { text: string; seq: number; part: number } {
    let text = "";
    let rows: Iterator<StoredPart> | null = null;
    while (seq < this.count && text.length < PART_CHARS) {
      let data: string;
      let last: boolean;
      const i = seq - this.windowFrom + this.head;
      if (i >= this.head && i < this.window.length) {
        const json = this.window[i]!;
        const at = part * PART_CHARS;
        if (part > 0 && at >= json.length) break;
        data = json.length <= PART_CHARS ? json : json.slice(at, at + PART_CHARS);
        last = at + PART_CHARS >= json.length;
      } else {
        rows ??= this.sql.exec<StoredPart>(
          "SELECT seq, part, data, part = (SELECT MAX(part) FROM events AS e WHERE e.seq = events.seq) AS last FROM events " +
            "WHERE seq < ?3 AND (seq > ?1 OR (seq = ?1 AND part >= ?2)) ORDER BY seq, part LIMIT ?4",
          seq,
          part,
          this.count,
          SLICE_ROWS,
        )[Symbol.iterator]();
        const row = rows.next();
        if (row.done || row.value.seq !== seq || row.value.part !== part) break; // (deleted under us)
        data = row.value.data;
        last = row.value.last === 1;
      }
      if (part === 0) text += framer.head(seq);
      text += data;
      if (last) {
        text += framer.tail;
        seq++;
        part = 0;
      } else part++;
    }
    rows?.return?.();
    return { text, seq, part };
  }
}

/** One row of the events table, and whether it is its event's last part. */
interface StoredPart {
  seq: number;
  part: number;
  data: string;
  last: number;
}
