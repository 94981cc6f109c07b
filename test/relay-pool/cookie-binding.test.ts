// Issue #44, "Tests that see the money": a stream created with a Cookie is bound to it (bind.ts
// BIND_HEADERS) as to Authorization: resumed or cancelled without it, or with another, it is the 404
// of a stream that never existed; its upstream goes on. Through the repository Worker (SELF) in workerd.
import { expect, test } from "vitest";
import { cancelStream, createStream, newTag, readRecords, rest, resumeStream, streamIdOf, upstreamState } from "./relay.ts";

test("a stream bound by Cookie: another cookie, or none, neither resumes nor cancels it; the same cookie does both", async () => {
  const alice = { cookie: "session=alice-0123456789" };
  const tag = newTag();
  const res = await createStream(tag, alice, "endless");
  expect(res.status).toBe(200);
  const id = streamIdOf(res);
  const head = await readRecords(res.body!, 2);
  const unknown = await (await resumeStream("0".repeat(32), null)).text();
  for (const headers of [{}, { cookie: "session=mallory-0123456789" }, { cookie: "session=alice-0123456789; extra=1" }] as Record<string, string>[]) {
    const resumed = await resumeStream(id, null, { headers });
    expect(resumed.status, JSON.stringify(headers)).toBe(404);
    expect(await resumed.text()).toBe(unknown); // (word for word: no oracle of which ids exist)
    const cancelled = await cancelStream(id, headers);
    expect(cancelled.status, JSON.stringify(headers)).toBe(404);
    await cancelled.arrayBuffer();
  }
  expect((await upstreamState(tag)).cancelledAt).toBeNull();
  const same = await resumeStream(id, 0, { headers: alice });
  expect(same.status).toBe(200);
  await same.body!.cancel();
  expect((await cancelStream(id, alice)).status).toBe(204);
  expect(head.text + (await rest(head.reader))).toMatch(/StreamCancelled/);
});
