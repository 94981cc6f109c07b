// The resumable relay (worker/, STREAMS Durable Object) in workerd through vitest-pool-workers:
// clients drop at many points of a stream and resume, by Last-Event-ID or ?last_event_id; what they
// put together must equal an uninterrupted read, and the upstream must see one request per stream.
import { beforeAll, describe, expect, test } from "vitest";
import { SAMPLES } from "../../worker/generated/assets.ts";
import {
  completeRecords,
  createStream,
  lastId,
  newTag,
  readBack,
  readThenDrop,
  records,
  resumeStream,
  streamIdOf,
  textOf,
  upstreamRequests,
  type SseRecord,
} from "./relay.ts";

/** An uninterrupted read of one stream: its text, records, events and message. */
let whole: { text: string; bytes: Uint8Array; recs: SseRecord[]; read: Awaited<ReturnType<typeof readBack>> };

beforeAll(async () => {
  const res = await createStream(newTag());
  expect(res.status).toBe(200);
  const text = await res.text();
  whole = { text, bytes: new TextEncoder().encode(text), recs: records(text), read: await readBack(text) };
});

/** Byte offsets in the whole answer: after each record (event boundaries) and in the middle of each. */
function dropPoints(): { boundaries: number[]; insides: number[]; beforeDone: number } {
  const boundaries: number[] = [];
  const insides: number[] = [];
  let at = 0;
  for (const block of whole.text.split(/(?<=\n\n)/)) {
    const size = new TextEncoder().encode(block).length;
    insides.push(at + Math.floor(size / 2));
    at += size;
    boundaries.push(at);
  }
  const beforeDone = new TextEncoder().encode(whole.text.slice(0, whole.text.lastIndexOf("data: [DONE]"))).length;
  return { boundaries, insides, beforeDone };
}

/**
 * Creates a stream, drops its client after k bytes, resumes after the last complete event, and
 * checks that the two parts make exactly the uninterrupted read and that the upstream saw one request.
 */
async function dropAndResume(k: number, by: "header" | "query"): Promise<void> {
  const tag = newTag();
  const first = await createStream(tag);
  expect(first.status).toBe(200);
  const id = streamIdOf(first);
  const kept = completeRecords(await readThenDrop(first.body!, k));
  const after = lastId(records(kept));
  const second = await resumeStream(id, after, { by });
  expect(second.status, `resume after ${after} (cut at byte ${k})`).toBe(200);
  expect(second.headers.get("content-location")).toBe(`/v1/streams/${id}`);
  const joined = kept + (await second.text());
  const recs = records(joined);
  expect(recs, `cut at byte ${k}, resumed after ${after} by ${by}`).toEqual(whole.recs);
  const read = await readBack(joined);
  expect(read.events).toEqual(whole.read.events);
  expect(read.message).toEqual(whole.read.message);
  expect(await upstreamRequests(tag), `upstream requests for the stream cut at byte ${k}`).toBe(1);
}

describe("an uninterrupted read", () => {
  test("POST /v1/stream: SSE with id: 0, 1, … on every event, then [DONE]; Content-Location names the stream", async () => {
    const tag = newTag();
    const res = await createStream(tag);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    streamIdOf(res);
    const recs = records(await res.text());
    expect(recs.at(-1)).toEqual({ id: null, data: "[DONE]" });
    expect(recs.slice(0, -1).map((r) => r.id)).toEqual([...Array(recs.length - 1).keys()]);
    expect(await upstreamRequests(tag)).toBe(1);
  });

  test("its events and message are the sample's, as the package reads it", async () => {
    const sample = await readBack(SAMPLES["tool-call"]!.text);
    expect(whole.read.events.length).toBeGreaterThan(10);
    expect(whole.read.events).toEqual(sample.events);
    expect(whole.read.message).toEqual(sample.message);
  });

  test("GET /v1/streams/<id> without Last-Event-ID replays it whole, byte for byte", async () => {
    const res = await createStream(newTag());
    const text = await res.text();
    expect(text).toBe(whole.text);
    const again = await resumeStream(streamIdOf(res), null);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(text);
  });
});

describe("a client that drops and resumes gets exactly the uninterrupted read", () => {
  test("dropped at every event boundary, resumed with Last-Event-ID", async () => {
    const { boundaries } = dropPoints();
    expect(boundaries.length).toBe(whole.recs.length);
    for (const k of [0, ...boundaries.slice(0, -1)]) await dropAndResume(k, "header");
  });

  test("dropped inside every event (and inside [DONE]), resumed with ?last_event_id", async () => {
    for (const k of dropPoints().insides) await dropAndResume(k, "query");
  });

  test("dropped after 1 byte, after `id: 0\\n`, one byte before and one after a boundary", async () => {
    const { boundaries } = dropPoints();
    for (const k of [1, 6, boundaries[0]! - 1, boundaries[3]! - 1, boundaries[3]! + 1]) await dropAndResume(k, "header");
  });

  test("dropped right before [DONE] (all events received), by header and by query", async () => {
    const { beforeDone } = dropPoints();
    expect(new TextDecoder().decode(whole.bytes.subarray(beforeDone))).toBe("data: [DONE]\n\n");
    await dropAndResume(beforeDone, "header");
    await dropAndResume(beforeDone, "query");
  });

  test("a resume that drops too, resumed again, still adds up to the whole", async () => {
    const tag = newTag();
    const res = await createStream(tag);
    const id = streamIdOf(res);
    const { boundaries, insides } = dropPoints();
    let kept = completeRecords(await readThenDrop(res.body!, insides[2]!));
    // the second connection drops inside a later event, the third reads to the end
    const second = await resumeStream(id, lastId(records(kept)));
    const had = new TextEncoder().encode(kept).length;
    kept += completeRecords(await readThenDrop(second.body!, insides[7]! - had));
    expect(new TextEncoder().encode(kept).length).toBe(boundaries[6]);
    const third = await resumeStream(id, lastId(records(kept)), { by: "query" });
    kept += await third.text();
    expect(kept).toBe(whole.text);
    expect(await upstreamRequests(tag)).toBe(1);
  });
});

describe("two clients on one stream", () => {
  test("the creator and a second client that joins right after creation both get every event", async () => {
    const tag = newTag();
    const first = await createStream(tag);
    const id = streamIdOf(first);
    const second = await resumeStream(id, null);
    expect(second.status).toBe(200);
    const [a, b] = await Promise.all([first.text(), second.text()]);
    expect(a).toBe(whole.text);
    expect(b).toBe(whole.text);
    expect(await upstreamRequests(tag)).toBe(1);
  });

  test("one client dropping does not end the other's stream", async () => {
    const tag = newTag();
    const first = await createStream(tag);
    const id = streamIdOf(first);
    // the first client has events 0-4 when a second one joins after event 2; then the first drops
    const { boundaries } = dropPoints();
    const reader = first.body!.getReader();
    let have = 0;
    while (have < boundaries[4]!) {
      const { done, value } = await reader.read();
      if (done) break;
      have += value.length;
    }
    const second = await resumeStream(id, 2, { by: "query" });
    expect(second.status).toBe(200);
    await reader.cancel("the first client's connection dropped");
    expect(records(await second.text())).toEqual(whole.recs.slice(3));
    expect(await upstreamRequests(tag)).toBe(1);
  });
});

describe("NDJSON answers resume by line count", () => {
  test("dropped after every line and inside lines, resumed with Last-Event-ID = lines received - 1", async () => {
    const ndjson = { accept: "application/x-ndjson" };
    const full = await textOf(await createStream(newTag(), ndjson));
    const lines = full.split(/(?<=\n)/);
    expect(lines.length).toBe(whole.read.events.length);
    const utf8 = new TextEncoder();
    const cuts: number[] = [];
    for (let i = 0, at = 0; i < lines.length; i++) {
      const size = utf8.encode(lines[i]!).length;
      cuts.push(at + Math.floor(size / 2));
      at += size;
      if (i < lines.length - 1) cuts.push(at); // not after the last line: nothing left to resume
    }
    for (const k of cuts) {
      const tag = newTag();
      const first = await createStream(tag, ndjson);
      const id = streamIdOf(first);
      const got = await readThenDrop(first.body!, k);
      const end = got.lastIndexOf(0x0a) + 1;
      const kept = new TextDecoder().decode(got.subarray(0, end));
      const count = kept === "" ? 0 : kept.split("\n").length - 1;
      const rest = await resumeStream(id, count === 0 ? null : count - 1, { headers: ndjson });
      expect(rest.headers.get("content-type")).toBe("application/x-ndjson");
      expect(kept + (await textOf(rest)), `cut at byte ${k}`).toBe(full);
      expect(await upstreamRequests(tag)).toBe(1);
    }
  });
});

describe("an upstream failure", () => {
  test("is stored as the stream's last event and replayed like any event", async () => {
    const tag = newTag();
    const res = await createStream(tag, {}, "break");
    expect(res.status).toBe(200);
    const id = streamIdOf(res);
    const text = await res.text();
    const recs = records(text);
    // event 0, then the connection ends inside event 1: event 1 is the error
    expect(recs.map((r) => r.id)).toEqual([0, 1, null]);
    expect(recs[0]).toEqual(whole.recs[0]);
    expect(JSON.parse(recs[1]!.data)).toHaveProperty("error.type");
    const rest = await resumeStream(id, 0);
    expect(await rest.text()).toBe(text.slice(text.indexOf("id: 1\n")));
    await expect(readBack(text)).rejects.toMatchObject({ name: "UpstreamError" });
    expect(await upstreamRequests(tag)).toBe(1);
  });
});
