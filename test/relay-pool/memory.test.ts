// What a stream's object holds (src/relay/stream/stream-object.ts): a large event is stored in parts and
// sent in slices, so one viewer never holds an event whole (a client that does not read pins one
// slice); an upstream event past MAX_EVENT_BYTES ends the stream (StreamLimitError) instead of
// being held. The figures (memory of many non-reading viewers, of a long stream) are printed by
// scripts/relay-bounds.mjs.
import { env, runInDurableObject } from "cloudflare:test";
import { expect, test } from "vitest";
import { createStream, newTag, readBack, resumeStream, streamIdOf, textOf } from "./relay.ts";

const MiB = 1024 * 1024;
const stubOf = (id: string): DurableObjectStub => env.STREAMS.get(env.STREAMS.idFromName(id));

test("a 4 MiB event: stored in parts, each answer's chunk a slice of at most 128 Ki characters, and the stream reads back whole", async () => {
  const res = await createStream(newTag(), {}, "large", { size: 4 * MiB });
  expect(res.status).toBe(200);
  const id = streamIdOf(res);
  const text = await textOf(res);
  const { message } = await readBack(text);
  expect((message.content_items[0] as { text: string }).text.length).toBe(4 * MiB);
  // the object's own answer, read chunk by chunk as it enqueues them
  const sizes = await runInDurableObject(stubOf(id), async (instance, state) => {
    const parts = state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE seq = 0").one().n;
    const answer = (instance as unknown as { answer(from: number, accept: string | null): Response }).answer(0, null);
    const reader = answer.body!.getReader();
    const chunks: number[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value.byteLength);
    }
    return { parts, chunks };
  });
  expect(sizes.parts).toBeGreaterThan(60); // 4 MiB in 64 Ki-character parts
  expect(Math.max(...sizes.chunks)).toBeLessThanOrEqual(128 * 1024 + 64);
  expect(sizes.chunks.reduce((a, b) => a + b, 0)).toBe(new TextEncoder().encode(text).length);
  // a resume reads the same bytes as the live answer did
  const again = await resumeStream(id, null);
  expect(await textOf(again)).toBe(text);
});

test("an upstream event past MAX_EVENT_BYTES (16 MiB) ends the stream with a StreamLimitError, not held", async () => {
  const res = await createStream(newTag(), {}, "large", { size: 17 * MiB });
  expect(res.status).toBe(200);
  const text = await textOf(res);
  const last = text.split("\n\n").filter((b) => b.startsWith("id: ")).at(-1)!;
  expect(last).toMatch(/"error":\{"type":"StreamLimitError","message":"event 0 exceeds maxEventBytes=16777216"/);
  expect(text.length).toBeLessThan(MiB); // nothing of the event was stored
});
