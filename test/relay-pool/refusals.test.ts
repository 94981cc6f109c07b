// The relay's refusals on resume (404, 400; another's stream is a 404 too) in MMSP's refusal shape, and what its Durable
// Objects keep: one object per stream holding every event once, expiry by the object's alarm.
import { env, listDurableObjectIds, SELF, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, test } from "vitest";
import { createStream, ORIGIN, newTag, readBack, records, resumeStream, streamIdOf, upstreamRequests } from "./relay.ts";

/** A refusal: its status and `{"error": {"type", "message"}}` body. */
async function expectRefusal(res: Response, status: number, type: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: { type: string; message: string } };
  expect(body.error.type).toBe(type);
  expect(body.error.message.length).toBeGreaterThan(10);
  return body.error.message;
}

/** A stream read to its end: its id and text. */
async function endedStream(headers: Record<string, string> = {}): Promise<{ id: string; text: string; tag: string }> {
  const tag = newTag();
  const res = await createStream(tag, headers);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  return { id: streamIdOf(res), text, tag };
}

const stubOf = (id: string): DurableObjectStub => env.STREAMS.get(env.STREAMS.idFromName(id));

test("404 for a stream id that never existed, and for a malformed one", async () => {
  const unknown = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  await expectRefusal(await resumeStream(unknown, null), 404, "NotFoundError");
  await expectRefusal(await resumeStream(unknown, 3), 404, "NotFoundError");
  await expectRefusal(await resumeStream("not-a-stream-id", null), 404, "NotFoundError");
});

test("400 for a malformed Last-Event-ID or last_event_id, and for one past the last event", async () => {
  const { id } = await endedStream();
  for (const bad of ["abc", "-1", "1.5", "01", "", "1e3"])
    await expectRefusal(await resumeStream(id, null, { headers: { "last-event-id": bad } }), 400, "InvalidRequestError");
  const byQuery = await SELF.fetch(`${ORIGIN}/v1/streams/${id}?last_event_id=x`);
  expect(await expectRefusal(byQuery, 400, "InvalidRequestError")).toMatch(/last_event_id/);
  expect(await expectRefusal(await resumeStream(id, 9999), 400, "InvalidRequestError")).toMatch(/past the last event/);
});

test("a stream created with Authorization, resumed with another value or none: the 404 of an id that never existed; 200 with the same", async () => {
  const { id, text } = await endedStream({ authorization: "Bearer alice" });
  const unknown = await (await resumeStream("0".repeat(32), 0)).text();
  for (const headers of [{ authorization: "Bearer mallory" }, {}, { authorization: "bearer alice" }] as Record<string, string>[]) {
    const res = await resumeStream(id, 0, { headers });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(unknown); // the same answer, word for word: no oracle of which ids exist
  }
  const same = await resumeStream(id, null, { headers: { authorization: "Bearer alice" } });
  expect(same.status).toBe(200);
  expect(await same.text()).toBe(text);
  // what the object keeps is an HMAC (bind.ts), not the value nor its plain SHA-256
  const kept = await runInDurableObject(stubOf(id), (_instance, state) => state.storage.sql.exec<{ auth_hash: string }>("SELECT auth_hash FROM stream").one().auth_hash);
  expect(kept).toMatch(/^[0-9a-f]{64}$/);
  for (const value of ["Bearer alice", "authorization: Bearer alice"]) {
    const sha = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)))].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(kept).not.toBe(sha);
  }
});

test("the object stores every event once; the upstream saw one request; one object per stream", async () => {
  const before = (await listDurableObjectIds(env.STREAMS)).length;
  const streams = [await endedStream(), await endedStream(), await endedStream()];
  expect((await listDurableObjectIds(env.STREAMS)).length).toBe(before + 3);
  for (const { id, text, tag } of streams) {
    // resumes (from the start, from the middle) read storage, never the upstream again
    await (await resumeStream(id, null)).text();
    await (await resumeStream(id, 5, { by: "query" })).text();
    expect(await upstreamRequests(tag)).toBe(1);
    const { events } = await readBack(text);
    const stored = await runInDurableObject(stubOf(id), (_instance, state) => ({
      // (a row holds events seq…seq + n - 1: event-log.ts)
      seqs: state.storage.sql.exec<{ seq: number; n: number }>("SELECT seq, n FROM events ORDER BY seq, part").toArray()
        .flatMap((r) => Array.from({ length: r.n }, (_, k) => r.seq + k)),
      state: state.storage.sql.exec<{ state: string }>("SELECT state FROM stream").one().state,
    }));
    expect(stored.seqs).toEqual([...events.keys()]);
    expect(stored.state).toBe("ended");
    expect(records(text).length).toBe(events.length + 1); // + [DONE]
  }
  expect((await listDurableObjectIds(env.STREAMS)).length).toBe(before + 3);
});

test("expiry: an ended stream's alarm keeps it until STREAM_TTL_S has passed, then deletes it: 404", async () => {
  const { id, text } = await endedStream();
  const stub = stubOf(id);
  const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
  expect(alarm).not.toBeNull();
  expect(alarm!).toBeGreaterThan(Date.now() + 60_000); // the default STREAM_TTL_S is 300 s

  // the alarm running before the deadline keeps the stream (and sets itself again)
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  const kept = await resumeStream(id, null);
  expect(kept.status).toBe(200);
  expect(await kept.text()).toBe(text);
  expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).not.toBeNull();

  // the TTL passes (without waiting 300 s: the object's deadline is moved to now), the alarm runs
  await runInDurableObject(stub, (instance) => {
    (instance as { expiresAt: number }).expiresAt = Date.now() - 1;
  });
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  await expectRefusal(await resumeStream(id, null), 404, "NotFoundError");
  await expectRefusal(await resumeStream(id, 3), 404, "NotFoundError");
  const left = await runInDurableObject(stub, (_instance, state) =>
    state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('stream', 'events')").toArray(),
  );
  expect(left).toEqual([]);
  expect(await runDurableObjectAlarm(stub)).toBe(false); // nothing left to do
});
