// The stream object's reading (src/relay/stream/run.ts) takes a provider chunk's events at once (one
// read per chunk, issue #49) and still checks the bounds at each event: a chunk that crosses MAX_EVENTS
// stores the events up to the bound, then the StreamLimitExceeded event, and nothing of the chunk after
// it; a chunk's events are stored as one row (as an SSE client is sent them: event-log.ts). The storage
// is a stand-in that records what is written.
import { expect, test } from "vitest";
import { limits } from "../../../../src/relay/admission/limits.ts";
import { sseAnswer } from "../../../../src/relay/stream/answer.ts";
import { StreamEnding } from "../../../../src/relay/stream/ending.ts";
import type { Live, StreamContext } from "../../../../src/relay/stream/parts.ts";
import { StreamRun } from "../../../../src/relay/stream/run.ts";
import { StreamStore } from "../../../../src/relay/stream/store.ts";
import { Viewers } from "../../../../src/relay/stream/viewers.ts";
import type { RelaySqlStorage, RelayState } from "../../../../src/relay/platform.ts";
import type { UniEvent } from "../../../../src/schema.ts";

const delta = (text: string): UniEvent => ({
  role: "assistant",
  event_type: "delta",
  content_items: [{ type: "text.delta", text }],
  usage_metadata: null,
  finish_reason: null,
});

/** A storage that keeps the events table's rows written (seq, part, n, data) and answers the rest emptily. */
function recordingSql(): { sql: RelaySqlStorage; rows: [number, number, number, string][] } {
  const rows: [number, number, number, string][] = [];
  const cursor = (values: unknown[]) => ({ toArray: () => values, one: () => values[0], [Symbol.iterator]: () => values[Symbol.iterator]() });
  const sql = {
    exec(query: string, ...bindings: unknown[]) {
      if (query.startsWith("INSERT INTO events")) {
        // (a row's data is its UTF-8, a BLOB: read here as its text)
        for (let i = 0; i < bindings.length; i += 4) {
          const [seq, part, n, data] = bindings.slice(i, i + 4) as [number, number, number, Uint8Array];
          rows.push([seq, part, n, new TextDecoder().decode(data)]);
        }
      }
      return cursor(query.includes("MAX(seq + n)") ? [{ n: null }] : []);
    },
  } as unknown as RelaySqlStorage;
  return { sql, rows };
}

/** The events of a stored row of whole events (SSE frames: `id: <n>`, `data: <json>`, a blank line). */
const eventsOf = (data: string): unknown[] =>
  data.split("\n\n").slice(0, -1).map((frame) => JSON.parse(frame.slice(frame.indexOf("\ndata: ") + 7)));

async function read(chunks: UniEvent[][], maxEvents: number): Promise<[number, number, number, string][]> {
  const { sql, rows } = recordingSql();
  const viewers = new Viewers();
  const store = new StreamStore(sql, () => viewers.notify(), () => {});
  store.create(null, null);
  const state = { storage: { sql, setAlarm: async () => {}, deleteAll: async () => {} }, waitUntil: () => {} } as unknown as RelayState;
  const config = { open: async () => new Response(), clientOf: () => "test", limits: () => limits({}, { maxEvents }) };
  const ctx: StreamContext<object> = { state, env: {}, config, store, viewers };
  const live: Live = { pending: false, startedAt: Date.now(), upstream: new AbortController(), cost: null };
  const run = new StreamRun(ctx, live, new StreamEnding(ctx, live));
  let i = 0;
  const events = new ReadableStream<UniEvent[]>({ pull: (c) => (i < chunks.length ? c.enqueue(chunks[i++]!) : c.close()) });
  await run.read(sseAnswer(events, "test", { checked: true }), "test", live.upstream!.signal);
  await new Promise((resolve) => setTimeout(resolve, 5)); // (a store at the end of the turn would be in by now)
  return rows;
}

test("the events of one turn (two chunks here) are stored as one row, framed for SSE", async () => {
  const rows = await read([[delta("a"), delta("b"), delta("c")], [delta("d")]], 100);
  expect(rows.map(([seq, part, n]) => [seq, part, n])).toEqual([[0, 0, 4]]); // (one turn: both chunks in one row)
  expect(rows[0]![3].startsWith("id: 0\ndata: {")).toBe(true);
  expect(eventsOf(rows[0]![3]).map((e) => (e as { content_items: { text: string }[] }).content_items[0]!.text)).toEqual(["a", "b", "c", "d"]);
});

test("a chunk that crosses MAX_EVENTS: the events up to the bound, then StreamLimitExceeded, nothing of the chunk after it", async () => {
  const rows = await read([[delta("a"), delta("b")], [delta("c"), delta("d"), delta("e"), delta("f")]], 4);
  const stored = rows.flatMap(([, , , data]) => eventsOf(data)) as { content_items: { text: string }[]; error: { type: string } }[];
  expect(stored.slice(0, 4).map((e) => e.content_items[0]!.text)).toEqual(["a", "b", "c", "d"]);
  expect(stored.length).toBe(5);
  expect(stored[4].error.type).toBe("StreamLimitExceeded");
});
