// The events table of a stream's object (src/relay/stream/event-log.ts), in workerd's SQLite: a batch
// of events stored as one row (issue #49) serves the same bytes as an event a row did, from the window
// and from storage, from any event index (inside a row too) and after a restart (a new log on the same
// storage), for random event sequences, flushes and resume points; a row is stored as an SSE client is
// sent it and served to one as it is; rows written before that (a batch of JSON lines) are still
// served, beside new ones; and a table of an object made before batches (a row per event part) is
// brought to the batch form when the object loads.
import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { expect, test } from "vitest";
import { EventLog, PART_CHARS } from "../../src/relay/stream/event-log.ts";
import { type Framer, NDJSON_FRAMER, SSE_FRAMER } from "../../src/relay/stream/resume.ts";
import type { RelaySqlStorage } from "../../src/relay/platform.ts";

/** An object that holds no stream: its storage for the logs of these tests. */
const stub = (name: string): DurableObjectStub => env.STREAMS.get(env.STREAMS.idFromName(`event-log-${name}`));

/** An event's JSON of `size` UTF-16 units (some not ASCII: a row's limit is in bytes). */
const eventOf = (i: number, size: number): string => {
  const head = `{"i":${i},"t":"`;
  const fill = Math.max(0, size - head.length - 2);
  return head + "é…".repeat(fill >> 1) + "x".repeat(fill & 1) + `"}`;
};

/** An event's JSON of about `size` UTF-16 units, with surrogate pairs (😀) all along: a large one's cuts fall beside and inside them. */
const astralOf = (i: number, size: number): string => {
  const head = `{"i":${i},"t":"`;
  const fill = Math.max(0, size - head.length - 2);
  return head + "😀é".repeat(Math.floor(fill / 3)) + "x".repeat(fill % 3) + `"}`;
};

/** The log's SSE slices as bytes (`sliceBytes`: a row's own, as written) from event `from` to the last stored one, joined. */
function servedBytes(log: EventLog, from: number): Uint8Array {
  const pieces: Uint8Array[] = [];
  let seq = from;
  let part = 0;
  while (seq < log.count) {
    const slice = log.sliceBytes(seq, part);
    expect(slice.bytes.length).toBeGreaterThan(0);
    pieces.push(slice.bytes);
    ({ seq, part } = slice);
  }
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  pieces.reduce((o, p) => (out.set(p, o), o + p.length), 0);
  return out;
}

/** What an answer from event `from` sends: every stored event from it, framed. */
const expected = (events: readonly string[], from: number, framer: Framer): string =>
  events.slice(from).map((json, k) => framer.head(from + k) + json + framer.tail).join("");

/** The log's slices from event `from` to the last stored one, joined (each slice bounded). */
function served(log: EventLog, from: number, framer: Framer): string {
  let text = "";
  let seq = from;
  let part = 0;
  while (seq < log.count) {
    const slice = log.slice(seq, part, framer);
    expect(slice.text.length).toBeGreaterThan(0);
    expect(slice.text.length).toBeLessThanOrEqual(3 * PART_CHARS);
    text += slice.text;
    ({ seq, part } = slice);
  }
  return text;
}

const fresh = (sql: RelaySqlStorage): EventLog => {
  // (emptied, not dropped: a slice's cursor read in part may still be open)
  if (sql.exec("SELECT name FROM sqlite_master WHERE name = 'events'").toArray().length > 0) sql.exec("DELETE FROM events");
  const log = new EventLog(sql);
  log.open();
  return log;
};

test("random events and flushes: every resume point, live and after a restart, serves the same bytes as the events framed one by one", async () => {
  await runInDurableObject(stub("property"), (_instance, state) => {
    const sql = state.storage.sql as unknown as RelaySqlStorage;
    // (sizes: mostly small, some past a row (PART_CHARS), some pushing the first ones out of the window)
    const size = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 10, max: 400 }) },
      { weight: 1, arbitrary: fc.integer({ min: 20_000, max: PART_CHARS + 10 }) },
      { weight: 1, arbitrary: fc.integer({ min: PART_CHARS - 5, max: 3 * PART_CHARS + 7 }) },
    );
    const turn = fc.array(size, { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 12 }), fc.nat(), fc.nat(), fc.boolean(), (turns, at, at2, astral) => {
        const log = fresh(sql);
        const events: string[] = [];
        let flushes = 0;
        for (const sizes of turns) {
          for (const n of sizes) {
            const json = (astral ? astralOf : eventOf)(events.length, n);
            events.push(json);
            if (log.add(json)) (log.flush(), flushes++); // (as the object does: at once when they weigh enough)
          }
          log.flush(); // (the end of the turn)
          flushes++;
          expect(log.count).toBe(events.length);
        }
        const from = at % events.length;
        for (const framer of [SSE_FRAMER, NDJSON_FRAMER]) {
          expect(served(log, from, framer)).toBe(expected(events, from, framer));
          expect(served(log, 0, framer)).toBe(expected(events, 0, framer));
        }
        // (an SSE client's bytes: the rows' own, whole pairs on both sides of every cut)
        // (read as a client reads them: a cut pair would be two U+FFFD here)
        const utf8 = new TextDecoder();
        expect(utf8.decode(servedBytes(log, from))).toBe(expected(events, from, SSE_FRAMER));
        expect(utf8.decode(servedBytes(log, 0))).toBe(expected(events, 0, SSE_FRAMER));
        // a restart: the same storage, nothing held in memory
        const again = new EventLog(sql);
        again.open();
        expect(again.count).toBe(events.length);
        expect(again.events()).toEqual(events);
        const from2 = at2 % events.length;
        expect(served(again, from2, SSE_FRAMER)).toBe(expected(events, from2, SSE_FRAMER));
        expect(served(again, from, NDJSON_FRAMER)).toBe(expected(events, from, NDJSON_FRAMER));
        expect(utf8.decode(servedBytes(again, from2))).toBe(expected(events, from2, SSE_FRAMER));
        // a row per batch: one per flush, and one more per half PART_CHARS, beside a large event's parts
        const rows = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM events").one().n;
        const small = events.filter((json) => json.length <= PART_CHARS);
        const large = events.filter((json) => json.length > PART_CHARS);
        const chars = small.reduce((n, json, i) => n + json.length + SSE_FRAMER.head(i).length + SSE_FRAMER.tail.length, 0);
        const parts = large.reduce((n, json) => n + Math.ceil(json.length / PART_CHARS), 0);
        expect(rows).toBeLessThanOrEqual(flushes + 2 * Math.ceil(chars / PART_CHARS) + 2 * large.length + parts);
        // a row within storage's 2 MB a value
        expect(sql.exec<{ bytes: number }>("SELECT MAX(length(CAST(data AS BLOB))) AS bytes FROM events").one().bytes).toBeLessThanOrEqual(2_000_000);
      }),
      { numRuns: 40 },
    );
  });
});

test("a turn of small events is one row, its SSE frames, and a resume inside it after a restart reads from that event on", async () => {
  await runInDurableObject(stub("one-row"), (_instance, state) => {
    const sql = state.storage.sql as unknown as RelaySqlStorage;
    const log = fresh(sql);
    const events = Array.from({ length: 50 }, (_, i) => eventOf(i, 120));
    for (const json of events) log.add(json);
    log.flush();
    expect(sql.exec<{ seq: number; part: number; n: number }>("SELECT seq, part, n FROM events").toArray())
      .toEqual([{ seq: 0, part: 0, n: 50 }]);
    // (stored as an SSE client is sent it, and sent to one as it is stored)
    // (its UTF-8, a BLOB: the bytes an SSE client served from memory is sent, made once)
    const data = sql.exec<{ data: ArrayBuffer }>("SELECT data FROM events").one().data;
    const row = new TextDecoder().decode(data);
    expect(row).toBe(expected(events, 0, SSE_FRAMER));
    expect(log.slice(0, 0, SSE_FRAMER).text).toBe(row);
    expect(new TextDecoder().decode(log.sliceBytes(0, 0).bytes)).toBe(row);
    const again = new EventLog(sql);
    again.open();
    expect(served(again, 17, SSE_FRAMER)).toBe(expected(events, 17, SSE_FRAMER));
    expect(again.slice(17, 0, SSE_FRAMER).text.startsWith(`id: 17\ndata: ${events[17]}\n\n`)).toBe(true);
  });
});

test("a table of an object made before batches (a row per event part) is brought to the batch form when it loads", async () => {
  await runInDurableObject(stub("old-table"), (_instance, state) => {
    const sql = state.storage.sql as unknown as RelaySqlStorage;
    sql.exec("DROP TABLE IF EXISTS events");
    // (as the relay wrote it before: event-log.ts at 193af2c)
    sql.exec("CREATE TABLE events (seq INTEGER NOT NULL, part INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (seq, part))");
    const events = [eventOf(0, 90), eventOf(1, 2 * PART_CHARS + 100), eventOf(2, 300), eventOf(3, PART_CHARS)];
    events.forEach((json, seq) => {
      for (let part = 0, at = 0; part === 0 || at < json.length; part++, at += PART_CHARS) {
        sql.exec("INSERT INTO events (seq, part, data) VALUES (?, ?, ?)", seq, part, json.slice(at, at + PART_CHARS));
      }
    });
    const log = new EventLog(sql);
    log.open();
    expect(log.count).toBe(4);
    expect(log.events()).toEqual(events);
    for (const from of [0, 1, 2, 3]) expect(served(log, from, SSE_FRAMER)).toBe(expected(events, from, SSE_FRAMER));
    // the stream goes on in the new form, and a restart reads both
    const more = [eventOf(4, 50), eventOf(5, 70)];
    for (const json of more) log.add(json);
    log.flush();
    const again = new EventLog(sql);
    again.open();
    expect(again.count).toBe(6);
    expect(served(again, 2, NDJSON_FRAMER)).toBe(expected([...events, ...more], 2, NDJSON_FRAMER));
    expect(again.events()).toEqual([...events, ...more]);
  });
});

test("the window keeps what a connected client was not sent yet (an upstream that gives much at once), up to its bound", async () => {
  await runInDurableObject(stub("window"), (_instance, state) => {
    const storage = state.storage.sql as unknown as RelaySqlStorage;
    let reads = 0;
    const sql: RelaySqlStorage = {
      exec: (query, ...bindings) => (/^SELECT seq, part, n, data/.test(query) && reads++, storage.exec(query, ...bindings)),
    };
    const written = (needed: () => number, chars: number): { log: EventLog; events: string[] } => {
      fresh(storage);
      const log = new EventLog(sql, needed);
      log.open();
      const events: string[] = [];
      while (events.length * 1000 < chars) {
        const json = eventOf(events.length, 1000);
        events.push(json);
        if (log.add(json)) log.flush();
      }
      log.flush();
      return { log, events };
    };
    // a client at event 0, 800 Ki characters at once: all served from memory
    let { log, events } = written(() => 0, 800 * 1024);
    reads = 0;
    expect(served(log, 0, SSE_FRAMER)).toBe(expected(events, 0, SSE_FRAMER));
    expect(reads).toBe(0);
    // no client: the window holds the last 256 Ki characters, the first events are read from storage
    ({ log, events } = written(() => Infinity, 800 * 1024));
    reads = 0;
    expect(served(log, 0, SSE_FRAMER)).toBe(expected(events, 0, SSE_FRAMER));
    expect(reads).toBeGreaterThan(0);
    // a client that does not read pins at most MAX_WINDOW_CHARS (1 Mi characters): past it, storage
    ({ log, events } = written(() => 0, 1400 * 1024));
    reads = 0;
    expect(served(log, 0, NDJSON_FRAMER)).toBe(expected(events, 0, NDJSON_FRAMER));
    expect(reads).toBeGreaterThan(0);
  });
});

test("rows of the batch form before SSE frames (JSON lines): every resume point serves them, beside rows written after, live and after a restart", async () => {
  await runInDurableObject(stub("json-lines"), (_instance, state) => {
    const sql = state.storage.sql as unknown as RelaySqlStorage;
    const size = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 10, max: 400 }) },
      { weight: 1, arbitrary: fc.integer({ min: PART_CHARS - 5, max: 2 * PART_CHARS + 7 }) },
    );
    fc.assert(
      fc.property(fc.array(fc.array(size, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 5 }), fc.array(size, { maxLength: 30 }), fc.nat(), (before, after, at) => {
        fresh(sql);
        // (as the relay wrote them before: event-log.ts at e2c1b29, a row per turn of JSON lines, a large event in parts)
        const events: string[] = [];
        for (const sizes of before) {
          let lines: string[] = [];
          const row = (): void => {
            if (lines.length > 0) sql.exec("INSERT INTO events (seq, part, n, data) VALUES (?, 0, ?, ?)", events.length - lines.length, lines.length, lines.join("\n"));
            lines = [];
          };
          for (const n of sizes) {
            const json = eventOf(events.length, n);
            if (json.length > PART_CHARS) {
              row();
              for (let part = 0, at = 0; at < json.length; part++, at += PART_CHARS) {
                sql.exec("INSERT INTO events (seq, part, n, data) VALUES (?, ?, ?, ?)", events.length, part, at + PART_CHARS >= json.length ? 1 : 0, json.slice(at, at + PART_CHARS));
              }
              events.push(json);
            } else (events.push(json), lines.push(json));
          }
          row();
        }
        const log = new EventLog(sql);
        log.open();
        expect(log.count).toBe(events.length);
        for (const n of after) {
          const json = eventOf(events.length, n);
          events.push(json);
          if (log.add(json)) log.flush();
        }
        log.flush();
        const again = new EventLog(sql);
        again.open();
        expect(again.events()).toEqual(events);
        for (const framer of [SSE_FRAMER, NDJSON_FRAMER]) {
          // (every resume point's first slice, against the whole answer's text from that event; whole answers from two)
          const whole = expected(events, 0, framer);
          const offsets = [0];
          for (let i = 0; i < events.length; i++) offsets.push(offsets[i]! + framer.head(i).length + events[i]!.length + framer.tail.length);
          for (let from = 0; from < events.length; from++) {
            for (const l of [log, again]) {
              const { text } = l.slice(from, 0, framer);
              expect(text.length).toBeGreaterThan(0);
              expect(text).toBe(whole.slice(offsets[from], offsets[from]! + text.length));
            }
          }
          const from = at % events.length;
          expect(served(log, from, framer)).toBe(expected(events, from, framer));
          expect(served(again, 0, framer)).toBe(whole);
        }
      }),
      { numRuns: 15 },
    );
  });
}, 120_000);
