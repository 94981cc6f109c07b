// Stopping a stream (SPEC §8): DELETE /v1/streams/<id> aborts the upstream request at once and ends
// the stream with one StreamCancelled error event for every viewer and every later resume; a client
// that merely goes away does not stop it; one that stops reading counts as gone (ABANDON_S).
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { expect, test } from "vitest";
import {
  cancelStream,
  createStream,
  newTag,
  readBack,
  readRecords,
  records,
  rest,
  resumeStream,
  streamIdOf,
  upstreamCancelled,
  upstreamState,
} from "./relay.ts";

const stubOf = (id: string): DurableObjectStub => env.STREAMS.get(env.STREAMS.idFromName(id));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The object's clock and viewers, as the tests move them (see StreamObject.idleSince()). */
interface Inside {
  lastRead: number;
  viewers: Set<{ pulling: boolean }>;
  count: number;
  ended: boolean;
}

/**
 * Waits (up to 10 s) until the stream's answers fill what lies between the object and a client that
 * does not read, so that none is pulled any more; false if that never happens.
 */
async function stalled(stub: DurableObjectStub): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    const idle = await runInDurableObject(stub, (instance) => {
      const inside = instance as Inside;
      return ![...inside.viewers].some((v) => v.pulling) && Date.now() - inside.lastRead > 300;
    });
    if (idle) return true;
  }
  return false;
}

/** A stream's text ends with exactly one error event of this type, then [DONE], and no stop event. */
function expectEndedWith(text: string, type: string): void {
  const recs = records(text);
  expect(recs.at(-1)).toEqual({ id: null, data: "[DONE]" });
  const last = JSON.parse(recs.at(-2)!.data) as { error?: { type: string; message: string } };
  expect(last.error?.type).toBe(type);
  expect(last.error?.message.length).toBeGreaterThan(10);
  const errors = recs.filter((r) => r.data.startsWith('{"error"'));
  expect(errors.length).toBe(1);
  expect(recs.some((r) => r.data.includes('"event_type":"stop"'))).toBe(false);
}

test("DELETE mid-stream: the upstream request is aborted within a second; both viewers end with StreamCancelled; a resume replays it", async () => {
  const tag = newTag();
  const first = await createStream(tag, {}, "endless");
  expect(first.status).toBe(200);
  const id = streamIdOf(first);
  const head = await readRecords(first.body!, 3);
  const second = await resumeStream(id, null); // a second viewer, from the start
  const secondText = second.text();

  const t = Date.now();
  const del = await cancelStream(id);
  expect(del.status).toBe(204);
  const cancelledAt = await upstreamCancelled(tag, 1000);
  expect(cancelledAt, "the upstream saw its request aborted").not.toBeNull();
  expect(cancelledAt! - t).toBeLessThan(1000);

  const creatorText = head.text + (await rest(head.reader));
  expectEndedWith(creatorText, "StreamCancelled");
  const viewerText = await secondText;
  expect(viewerText).toBe(creatorText);
  await expect(readBack(viewerText)).rejects.toMatchObject({ name: "UpstreamError", errorType: "StreamCancelled" });

  // later resumes replay the stored events and that end; a second DELETE is a 204 and changes nothing
  const again = await resumeStream(id, null);
  expect(await again.text()).toBe(creatorText);
  const recs = records(creatorText);
  const tail = await resumeStream(id, recs.at(-3)!.id);
  expect(records(await tail.text())).toEqual(recs.slice(-2));
  expect((await cancelStream(id)).status).toBe(204);
  expect(await (await resumeStream(id, null)).text()).toBe(creatorText);
  expect((await upstreamState(tag)).count).toBe(1);
});

test("DELETE: 404 for an unknown or malformed id, the same 404 for another Authorization, 204 for an ended stream (kept as it was)", async () => {
  const unknown = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  for (const id of [unknown, "not-a-stream-id"]) {
    const res = await cancelStream(id);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("NotFoundError");
  }
  const tag = newTag();
  const res = await createStream(tag, { authorization: "Bearer alice" }, "endless");
  const id = streamIdOf(res);
  const head = await readRecords(res.body!, 2);
  for (const headers of [{}, { authorization: "Bearer mallory" }] as Record<string, string>[]) {
    const refused = await cancelStream(id, headers);
    expect(refused.status).toBe(404); // as if it did not exist: no oracle of which ids do
    expect(((await refused.json()) as { error: { type: string } }).error.type).toBe("NotFoundError");
  }
  expect((await upstreamState(tag)).cancelledAt).toBeNull();
  expect((await cancelStream(id, { authorization: "Bearer alice" })).status).toBe(204);
  expectEndedWith(head.text + (await rest(head.reader)), "StreamCancelled");

  // a stream that ended on its own stays whole: no cancel event is added
  const done = await createStream(newTag());
  const doneId = streamIdOf(done);
  const text = await done.text();
  expect((await cancelStream(doneId)).status).toBe(204);
  expect(await (await resumeStream(doneId, null)).text()).toBe(text);
});

test("a client that merely disconnects does not stop the upstream: the stream goes on and a resume gets the newer events", async () => {
  const tag = newTag();
  const res = await createStream(tag, {}, "endless");
  const id = streamIdOf(res);
  const head = await readRecords(res.body!, 3);
  await head.reader.cancel("the client went away");
  await sleep(300);
  expect((await upstreamState(tag)).cancelledAt, "the upstream is still being read").toBeNull();
  const count = await runInDurableObject(stubOf(id), (instance) => (instance as Inside).count);
  expect(count).toBeGreaterThan(10); // events kept arriving after the client left
  const resumed = await resumeStream(id, 2);
  const more = await readRecords(resumed.body!, 5);
  expect(records(more.text)[0]!.id).toBe(3);
  await more.reader.cancel();
  expect((await cancelStream(id)).status).toBe(204); // (stops the endless upstream)
  expect(await upstreamCancelled(tag, 1000)).not.toBeNull();
});

test("a client that keeps its connection but stops reading counts as gone: after ABANDON_S the stream ends with StreamAbandoned, the upstream aborted", async () => {
  const tag = newTag();
  const res = await createStream(tag, {}, "endless-16k");
  const id = streamIdOf(res);
  const stub = stubOf(id);
  const head = await readRecords(res.body!, 2); // then it holds the connection and reads nothing
  expect(await stalled(stub), "the stalled client's answer is no longer pulled").toBe(true);
  expect((await upstreamState(tag)).cancelledAt).toBeNull();
  // ABANDON_S (60 s by default) passes without waiting: the object's clock is moved back
  await runInDurableObject(stub, (instance) => {
    (instance as Inside).lastRead -= 61_000;
  });
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  expect(await upstreamCancelled(tag, 1000)).not.toBeNull();
  expect(await runInDurableObject(stub, (instance) => (instance as Inside).ended)).toBe(true);
  await head.reader.cancel();
  expectEndedWith(await (await resumeStream(id, null)).text(), "StreamAbandoned");
});

test("a client that reads is not abandoned, even when the abandon clock is moved back", async () => {
  const tag = newTag();
  const res = await createStream(tag, {}, "endless");
  const id = streamIdOf(res);
  const stub = stubOf(id);
  const head = await readRecords(res.body!, 2);
  const reading = rest(head.reader); // reads on, to the end
  await sleep(100);
  await runInDurableObject(stub, (instance) => {
    (instance as Inside).lastRead -= 61_000;
  });
  await sleep(100); // the reader's next pulls set the clock again
  await runDurableObjectAlarm(stub);
  expect(await runInDurableObject(stub, (instance) => (instance as Inside).ended)).toBe(false);
  expect((await upstreamState(tag)).cancelledAt).toBeNull();
  expect((await cancelStream(id)).status).toBe(204);
  expectEndedWith(head.text + (await reading), "StreamCancelled");
});

test("an ended stream whose only client holds its connection without reading still expires after STREAM_TTL_S", async () => {
  const tag = newTag();
  const res = await createStream(tag, {}, "endless-16k");
  const id = streamIdOf(res);
  const stub = stubOf(id);
  const head = await readRecords(res.body!, 2); // then holds the connection, reading nothing
  expect(await stalled(stub)).toBe(true);
  expect((await cancelStream(id)).status).toBe(204);
  // the TTL and the abandon time pass (the object's clocks moved back); the alarm deletes the stream
  await runInDurableObject(stub, (instance) => {
    const inside = instance as Inside & { expiresAt: number };
    expect(inside.viewers.size).toBe(1);
    inside.expiresAt = Date.now() - 1;
    inside.lastRead -= 61_000;
  });
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  const gone = await resumeStream(id, null);
  expect(gone.status).toBe(404);
  await gone.arrayBuffer();
  await head.reader.cancel();
});
