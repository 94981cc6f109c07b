// Issue #49: the stream object takes a provider's events by their reads (src/relay/reads.ts), not
// through targetEvents' ReadableStream. For random event streams (ending, or cut by an error, or
// cancelled part way), the direct reads give what a reader of the stream gives: the same values in the
// same order, the same end, the same error, and a cancel that reaches the source.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { passing, readsOf } from "../../../src/relay/reads.ts";
import { holds } from "../../property.ts";

/** A source of `values`, failing with `error` after them if given; what it was told (its cancel). */
function source(values: number[], error: string | null) {
  let i = 0;
  const told: { cancelled: unknown[] } = { cancelled: [] };
  const reader = new ReadableStream<number>({
    pull(c) {
      if (i < values.length) c.enqueue(values[i++]!);
      else if (error !== null) c.error(new Error(error));
      else c.close();
    },
    cancel: (reason) => void told.cancelled.push(reason),
  }, { highWaterMark: 0 }).getReader();
  // (as routing/target.ts makes its events: the first read given first, an error mapped on the way)
  const read = (): Promise<ReadableStreamReadResult<number>> =>
    reader.read().catch((e: Error) => {
      throw new Error(`seen: ${e.message}`);
    });
  return { stream: passing(read, (reason) => reader.cancel(reason)), told };
}

/** Every read until the end or the error, at most `upTo` (then a cancel); what each gave. */
async function drain(read: () => Promise<ReadableStreamReadResult<number>>, cancel: (r: unknown) => Promise<void>, upTo: number) {
  const seen: unknown[] = [];
  for (let n = 0; n < upTo; n++) {
    try {
      const r = await read();
      seen.push(r.done ? "done" : r.value);
      if (r.done) return seen;
    } catch (e) {
      seen.push(`error ${(e as Error).message}`);
      return seen;
    }
  }
  await cancel("gone");
  seen.push("cancelled");
  return seen;
}

const cases = fc.record({
  values: fc.array(fc.integer(), { maxLength: 30 }),
  error: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  upTo: fc.nat({ max: 40 }),
});

describe("readsOf: a passing stream's reads taken directly give what its reader gives (issue #49)", () => {
  test("the same values, end, error and cancel as a reader of the stream", async () => {
    await holds(
      fc.asyncProperty(cases, async ({ values, error, upTo }) => {
        const a = source(values, error);
        const viaReader = a.stream.getReader();
        const expected = await drain(() => viaReader.read(), (r) => viaReader.cancel(r), upTo);
        const b = source(values, error);
        const direct = readsOf(b.stream);
        expect(await drain(direct.read, direct.cancel, upTo)).toEqual(expected);
        expect(b.told.cancelled).toEqual(a.told.cancelled);
        expect(b.stream.locked).toBe(true); // (never read twice)
      }),
      { numRuns: 200 },
    );
  });

  test("any other stream: its reader's reads", async () => {
    const stream = new ReadableStream<number>({
      start(c) {
        c.enqueue(1);
        c.enqueue(2);
        c.close();
      },
    });
    const { read } = readsOf(stream);
    expect([await read(), await read(), await read()]).toEqual([
      { done: false, value: 1 },
      { done: false, value: 2 },
      { done: true, value: undefined },
    ]);
  });
});
