// The stream: SPEC §8 (the stream's events, stored in order, each with its id) and §10 "A stream
// outlives its object" (what is stored is what a resume after a restart reads).
//
// A stream's events as its Durable Object keeps them (stream-object.ts): the `events` table, a row
// per batch of events, and the last events written held in memory to serve the live viewers.
//
// - Writing: an event is taken at once (`add`: its index, counted against the bounds by the caller),
//   held until `flush` writes the held events as few rows (issue #49: a row costs SQLite far more
//   than its characters): whole events as an SSE client is sent them (`id: <n>`, `data: <json>`, a
//   blank line: SSE_FRAMER; their JSON has no line break), at most PART_CHARS a row; an event larger
//   than that in rows of its own, one per part of its JSON. The object flushes at the end of the turn
//   that took them (or sooner when they weigh FLUSH_CHARS), and before anything is served: a viewer
//   only ever sees stored events (`count`), so a resume after a restart never misses one.
// - A row: `seq` its first event's index, `part` 0 (or a large event's part number), `n` the events
//   it ends: a row of whole events ends `n` ≥ 1 of them; a large event's parts end none (`n` 0) but
//   the last, which ends it (`n` 1). So the events stored are `MAX(seq + n)`, and an event is found
//   in the row with the greatest `seq` at or before its index.
// - Serving: `slice(seq, part)` answers from the rows last written while they are held (at most
//   WINDOW_CHARS, the oldest dropped first), else from storage: a live viewer costs no read, a viewer
//   behind the window (or after a restart) reads rows, at any event index, inside a row too. An SSE
//   client is sent a row's text as it is stored (no framing per viewer, issue #49); other framings
//   (NDJSON lines, a door's parse-back) take each event's JSON out of its frame. A row's UTF-8 is made
//   once (event-rows.ts): stored as a BLOB, and what an SSE client served from the window is sent.
// - Older tables are read as they are: a row of whole events written before the SSE form (their JSON
//   joined by "\n", told apart by its first characters: a frame starts `id: `, an event's JSON `{`),
//   a row stored as TEXT before its bytes were kept (read as text; a BLOB is decoded),
//   and a table of an object created before batches (a row per event part, no `n`), brought to the
//   batch form when the object loads (`open`): `n` added, 1 on each event's last part, 0 on the others.
import type { RelaySqlStorage } from "../platform.js";
import { type Framer, SSE_FRAMER } from "./resume.js";
import { framed, framedRow, jsonOf, type Row, rowsOf, textOf } from "./event-rows.js";

/**
 * A row holds at most this many UTF-16 units of events, framed (or one event of at most this many,
 * with its frame's ~30 more: storage keeps a value of at most 2 MB, at most 3 bytes a unit in
 * UTF-8), a large event's JSON is stored in parts of this size, and an answer
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
/** (the UTF-8 of a slice's text that is no row's own bytes: `sliceBytes`) */
const utf8 = new TextEncoder();
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
  /** The rows last stored, `window[head…]` holding events `windowFrom…count - 1`, and their size. */
  private window: Row[] = [];
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
    const first = this.count;
    const rows = this.write(held, first);
    this.held = [];
    this.heldChars = 0;
    this.count += held.length;
    const last = this.window[this.window.length - 1];
    if ((last === undefined ? this.windowFrom : last.seq + last.n) !== first) this.forget(first);
    for (const row of rows) {
      this.window.push(row);
      this.windowChars += row.text.length;
    }
    // (the oldest rows dropped first, unless a client still needs one and the window holds less than
    // MAX_WINDOW_CHARS: an upstream that gives much at once outruns the client's next pull; the
    // array compacted once half of it is dropped: linear in all)
    const needed = this.needed();
    for (let row = this.window[this.head]; row !== undefined; row = this.window[this.head]) {
      if (!(this.windowChars > MAX_WINDOW_CHARS || (this.windowChars > WINDOW_CHARS && row.seq + row.n <= needed))) break;
      this.windowChars -= row.text.length;
      this.windowFrom = row.seq + row.n;
      this.head++;
    }
    if (this.head > 64 && this.head * 2 > this.window.length) {
      this.window = this.window.slice(this.head);
      this.head = 0;
    }
  }

  /** Stores `events` (the first one's index `first`) as rows (see the top, event-rows.ts), in multi-row INSERTs; the rows, for the window. */
  private write(events: readonly string[], first: number): Row[] {
    const bindings: (number | Uint8Array)[] = [];
    let rows = 0;
    const out = rowsOf(events, first, PART_CHARS, (seq, part, n, data) => {
      bindings.push(seq, part, n, data);
      if (++rows < ROWS_PER_INSERT) return;
      this.sql.exec(insertOf(rows), ...bindings);
      bindings.length = 0;
      rows = 0;
    });
    if (rows > 0) this.sql.exec(insertOf(rows), ...bindings);
    return out;
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
    const at = this.walk(seq, part, framer, false);
    return { text: at.out.join(""), seq: at.seq, part: at.part };
  }

  /** `slice` framed for SSE as its UTF-8 bytes: a row's own, as written, from the window (no encoding per answer). */
  sliceBytes(seq: number, part: number): { bytes: Uint8Array; seq: number; part: number } {
    const at = this.walk(seq, part, SSE_FRAMER, true);
    const pieces = at.out.map((p) => (typeof p === "string" ? utf8.encode(p) : p));
    if (pieces.length === 1) return { bytes: pieces[0]!, seq: at.seq, part: at.part };
    const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    for (let i = 0, o = 0; i < pieces.length; o += pieces[i]!.length, i++) bytes.set(pieces[i]!, o);
    return { bytes, seq: at.seq, part: at.part };
  }

  /** The pieces of one slice (see `slice`): text, or a row's bytes when `bytes` (SSE); where the next starts. */
  private walk(seq: number, part: number, framer: Framer, bytes: boolean): { out: (string | Uint8Array)[]; seq: number; part: number } {
    const out: (string | Uint8Array)[] = [];
    let chars = 0;
    const add = (text: string): void => void (out.push(text), chars += text.length);
    if (seq < this.windowFrom && seq < this.count) {
      const stored = this.stored(seq, part, framer);
      add(stored.text);
      ({ seq, part } = stored);
    }
    if (seq < this.windowFrom || seq >= this.count) return { out, seq, part };
    // (the window's row holding event `seq`: the last that starts at or before it)
    let lo = this.head;
    for (let hi = this.window.length - 1; lo < hi;) {
      const mid = (lo + hi + 1) >> 1;
      if (this.window[mid]!.seq <= seq) lo = mid;
      else hi = mid - 1;
    }
    for (let i = lo; seq < this.count && chars < PART_CHARS; i++) {
      const row = this.window[i];
      if (row === undefined || row.seq > seq || row.seq + row.n <= seq) break; // (not held: storage was deleted under us)
      if (row.at !== null) {
        if (part !== 0) break;
        if (bytes && seq === row.seq && row.bytes !== null) out.push(row.bytes), chars += row.text.length;
        else add(framed(row, seq - row.seq, framer));
        seq = row.seq + row.n;
        continue;
      }
      // (a large event's next part)
      if (part + 1 >= row.cuts.length) break;
      if (part === 0) add(framer.head(seq));
      if (bytes) out.push(row.bytes[part]!), chars += row.cuts[part + 1]! - row.cuts[part]!;
      else add(row.text.slice(row.cuts[part], row.cuts[part + 1]));
      if (part + 2 < row.cuts.length) {
        part++;
        break;
      }
      add(framer.tail);
      seq++;
      part = 0;
    }
    return { out, seq, part };
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
        const { seq: at, part: p, n } = r.value;
        const data = textOf(r.value.data);
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
          // (whole events at…at + n - 1: framed, or a row written before the SSE form, JSON lines)
          if (at > seq || at + n <= seq || part !== 0) break; // (deleted under us)
          if (data.startsWith(SSE_FRAMER.head(at))) {
            text += framer === SSE_FRAMER && seq === at ? data : framed(framedRow(at, n, data), seq - at, framer);
          } else if (n === 1) text += framer.head(seq) + data + framer.tail;
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
    for (const { seq, part, n, data: stored } of this.sql.exec<StoredRow>("SELECT seq, part, n, data FROM events ORDER BY seq, part")) {
      const data = textOf(stored);
      if (part > 0 || n === 0) {
        partial += data;
        if (n === 1) (out.push(partial), partial = "");
      } else if (data.startsWith(SSE_FRAMER.head(seq))) {
        const row = framedRow(seq, n, data);
        for (let k = 0; k < n; k++) out.push(jsonOf(row, k));
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
  /** Its text: a BLOB of UTF-8 (as written now), or TEXT (a row written before). */
  data: string | ArrayBuffer;
}
