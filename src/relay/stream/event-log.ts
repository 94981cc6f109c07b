// The stream: SPEC §8 (the stream's events, stored in order, each with its id) and §10 "A stream
// outlives its object" (what is stored is what a resume after a restart reads).
//
// A stream's events as its Durable Object keeps them (stream-object.ts): the `events` table, a row
// per batch of events, and the last events written held in memory to serve the live viewers.
//
// - Writing: an event is taken at once (`add`: its index, counted against the bounds by the caller),
//   held until `flush` writes the held events as few rows (issue #49: a row costs SQLite far more
//   than its characters): whole events joined by "\n" (their JSON has none), at most PART_CHARS a
//   row; an event larger than that in rows of its own, one per part. The object flushes at the end
//   of the turn that took them (or sooner when they weigh FLUSH_CHARS), and before anything is served:
//   a viewer only ever sees stored events (`count`), so a resume after a restart never misses one.
// - A row: `seq` its first event's index, `part` 0 (or a large event's part number), `n` the events
//   it ends: a row of whole events ends `n` ≥ 1 of them; a large event's parts end none (`n` 0) but
//   the last, which ends it (`n` 1). So the events stored are `MAX(seq + n)`, and an event is found
//   in the row with the greatest `seq` at or before its index.
// - Serving: `slice(seq, part)` answers from the events last written while they are held (at most
//   WINDOW_CHARS, the oldest dropped first), else from storage: a live viewer costs no read, a viewer
//   behind the window (or after a restart) reads rows, at any event index, inside a row too.
// - The table of an object created before batches (a row per event part, no `n`) is brought to this
//   form when the object loads (`open`): `n` added, 1 on each event's last part, 0 on the others.
import type { RelaySqlStorage } from "../platform.js";
import type { Framer } from "./resume.js";

/**
 * A row holds at most this many UTF-16 units of events (storage keeps a value of at most 2 MB: at
 * most 3 bytes a unit in UTF-8), a large event's JSON is stored in parts of this size, and an answer
 * sends at most about two rows per pull: what one viewer holds, however large the event (a client
 * that does not read pins one slice, not the event).
 */
export const PART_CHARS = 64 * 1024;
/** Held events past this many UTF-16 units are written at once, not at the end of the turn. */
const FLUSH_CHARS = 4 * PART_CHARS;
/** The events last written, held for the live viewers: this many UTF-16 units, or up to MAX_WINDOW_CHARS for a client that has not been sent them yet. */
const WINDOW_CHARS = 4 * PART_CHARS;
const MAX_WINDOW_CHARS = 16 * PART_CHARS;
/** Rows one slice reads from storage at most (a slice stops at PART_CHARS before, unless rows are tiny). */
const SLICE_ROWS = 512;
/** Rows per INSERT: four bindings a row, within SQLite storage's 100 bindings per statement. */
const ROWS_PER_INSERT = 25;

/** `INSERT … VALUES (?, ?, ?, ?), …` for n rows, made once per n. */
const inserts: string[] = [];
const insertOf = (
  n: number,
): string => (inserts[n] ??= `INSERT INTO events (seq, part, n, data) VALUES ${
  Array.from({ length: n }, () => "(?, ?, ?, ?)").join(", ")
}`);

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

  /**
   * @param sql the object's storage
   * @param needed the first event a connected client has not been sent yet (Infinity: none)
   */
  constructor(private readonly sql: RelaySqlStorage, private readonly needed: () => number = () => Infinity) {}

  /** The table (made, or brought to the batch form: see the top), and the events it holds (`count`); the window empty. */
  open(): void {
    const table = this.sql.exec<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'").toArray()[0];
    if (table === undefined) {
      this.sql.exec(
        "CREATE TABLE events (seq INTEGER NOT NULL, part INTEGER NOT NULL, n INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (seq, part))",
      );
    } else if (!/\bn INTEGER\b/.test(table.sql)) {
      // (a table of an object made before batches, a row per event part: the same rows, `n` said)
      this.sql.exec("ALTER TABLE events ADD COLUMN n INTEGER NOT NULL DEFAULT 1");
      this.sql.exec("UPDATE events SET n = 0 WHERE part < (SELECT MAX(part) FROM events AS e WHERE e.seq = events.seq)");
    }
    this.count = Number(this.sql.exec<{ n: number | null }>("SELECT MAX(seq + n) AS n FROM events").one().n ?? 0);
    this.forget(this.count);
  }

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

  /** Writes every held event (in rows of whole events, a large one in parts); they are then served from the window. */
  flush(): void {
    const held = this.held;
    if (held.length === 0) return;
    this.write(held, this.count);
    this.held = [];
    this.heldChars = 0;
    this.count += held.length;
    if (this.windowFrom + this.window.length - this.head !== this.count - held.length) this.forget(this.count - held.length);
    for (const json of held) {
      this.window.push(json);
      this.windowChars += json.length;
    }
    // (the oldest dropped first, unless a client still needs it and the window holds less than
    // MAX_WINDOW_CHARS: an upstream that gives much at once outruns the client's next pull; the
    // array compacted once half of it is dropped: linear in all)
    const needed = this.needed();
    while (
      this.head < this.window.length &&
      (this.windowChars > MAX_WINDOW_CHARS || (this.windowChars > WINDOW_CHARS && this.windowFrom < needed))
    ) {
      this.windowChars -= this.window[this.head++]!.length;
      this.windowFrom++;
    }
    if (this.head > 64 && this.head * 2 > this.window.length) {
      this.window = this.window.slice(this.head);
      this.head = 0;
    }
  }

  /** Stores `events` (the first one's index `first`) as rows (see the top), in multi-row INSERTs. */
  private write(events: readonly string[], first: number): void {
    const bindings: (string | number)[] = [];
    let rows = 0;
    const row = (seq: number, part: number, n: number, data: string): void => {
      bindings.push(seq, part, n, data);
      if (++rows < ROWS_PER_INSERT) return;
      this.sql.exec(insertOf(rows), ...bindings);
      bindings.length = 0;
      rows = 0;
    };
    // (events[from…i) gathered for one row, `chars` their joined size)
    let from = 0;
    let chars = -1;
    const gathered = (to: number): void => {
      if (to > from) row(first + from, 0, to - from, to - from === 1 ? events[from]! : events.slice(from, to).join("\n"));
      from = to;
      chars = -1;
    };
    for (let i = 0; i < events.length; i++) {
      const json = events[i]!;
      if (json.length > PART_CHARS) {
        gathered(i);
        for (let part = 0, at = 0; at < json.length; part++, at += PART_CHARS) {
          row(first + i, part, at + PART_CHARS >= json.length ? 1 : 0, json.slice(at, at + PART_CHARS));
        }
        from = i + 1;
        continue;
      }
      if (chars + 1 + json.length > PART_CHARS) gathered(i);
      chars += 1 + json.length;
    }
    gathered(events.length);
    if (rows > 0) this.sql.exec(insertOf(rows), ...bindings);
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
   * small events, or the next parts of a large one: at most ~2 rows), and where the next slice
   * starts. From storage up to the window (in one statement, rows read one by one until the slice is
   * full), then from the window. An empty text when event `seq` is not stored (deleted under us).
   */
  slice(seq: number, part: number, framer: Framer): { text: string; seq: number; part: number } {
    let text = "";
    if (seq < this.windowFrom && seq < this.count) ({ text, seq, part } = this.stored(seq, part, framer));
    while (seq < this.count && text.length < PART_CHARS) {
      const i = seq - this.windowFrom + this.head;
      if (i < this.head || i >= this.window.length) break; // (not held: storage was deleted under us)
      const json = this.window[i]!;
      const at = part * PART_CHARS;
      if (part > 0 && at >= json.length) break;
      if (part === 0) text += framer.head(seq);
      text += json.length <= PART_CHARS ? json : json.slice(at, at + PART_CHARS);
      if (at + PART_CHARS >= json.length) {
        text += framer.tail;
        seq++;
        part = 0;
      } else part++;
    }
    return { text, seq, part };
  }

  /** `slice` from storage: from event `seq` (its part `part`) until the slice is full or the window begins. */
  private stored(seq: number, part: number, framer: Framer): { text: string; seq: number; part: number } {
    let text = "";
    const rows = this.sql.exec<StoredRow>(
      "SELECT seq, part, n, data FROM events WHERE seq >= (SELECT MAX(seq) FROM events WHERE seq <= ?1) AND seq < ?2 " +
        "ORDER BY seq, part LIMIT ?3",
      seq,
      this.count,
      SLICE_ROWS,
    )[Symbol.iterator]();
    try {
      for (let r = rows.next(); !r.done && seq < this.windowFrom && text.length < PART_CHARS; r = rows.next()) {
        const { seq: at, part: p, n, data } = r.value;
        if (p > 0 || n === 0) {
          // (one part of a large event)
          if (at === seq && p < part) continue;
          if (at !== seq || p !== part) break; // (deleted under us)
          if (part === 0) text += framer.head(seq);
          text += data;
          if (n === 1) {
            text += framer.tail;
            seq++;
            part = 0;
          } else part++;
        } else {
          // (whole events at…at + n - 1)
          if (at > seq || at + n <= seq || part !== 0) break; // (deleted under us)
          if (n === 1) text += framer.head(seq) + data + framer.tail;
          else {
            const lines = data.split("\n");
            for (let k = seq - at; k < n; k++) text += framer.head(at + k) + lines[k] + framer.tail;
          }
          seq = at + n;
        }
      }
    } finally {
      rows.return?.();
    }
    return { text, seq, part };
  }

  /** Every stored event's JSON (a large one's parts put together again), in order: what a restarted object takes up. */
  events(): string[] {
    const out: string[] = [];
    let partial = "";
    for (const { part, n, data } of this.sql.exec<StoredRow>("SELECT seq, part, n, data FROM events ORDER BY seq, part")) {
      if (part > 0 || n === 0) {
        partial += data;
        if (n === 1) (out.push(partial), partial = "");
      } else if (n === 1) out.push(data);
      else out.push(...data.split("\n"));
    }
    return out;
  }
}

/** One row of the events table (see the top). */
interface StoredRow {
  seq: number;
  part: number;
  n: number;
  data: string;
}
