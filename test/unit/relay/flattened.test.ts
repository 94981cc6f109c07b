// Issue #49: the stateless path reads a provider one array of events per chunk (providers/batches.ts);
// what reads events one by one (the stream's object, a continuation, a whole answer) takes them through
// reads.ts `flattened`, itself a passing stream (its reads taken directly: no stream hop per event).
// For random batches (a lone event counting as a batch of one), ending, cut by an error or cancelled
// part way, it gives every event in order, then the same end or error, and a cancel reaches the source.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { UniEvent } from "../../../src/index.ts";
import { flattened, passing, readsOf } from "../../../src/relay/reads.ts";
import { holds } from "../../property.ts";

const event = (n: number): UniEvent => ({ n }) as unknown as UniEvent;

/** A passing source of `reads` (arrays, or lone events), failing with `error` after them if given; its cancels. */
function source(reads: (number[] | number)[], error: string | null) {
  let i = 0;
  const cancelled: unknown[] = [];
  const read = (): Promise<ReadableStreamReadResult<UniEvent[] | UniEvent>> => {
    if (i < reads.length) {
      const r = reads[i++]!;
      return Promise.resolve({ done: false, value: Array.isArray(r) ? r.map(event) : event(r) });
    }
    return error === null ? Promise.resolve({ done: true, value: undefined }) : Promise.reject(new Error(error));
  };
  return { stream: passing(read, async (reason) => void cancelled.push(reason)), cancelled };
}

const cases = fc.record({
  reads: fc.array(fc.oneof(fc.array(fc.integer(), { maxLength: 5 }), fc.integer()), { maxLength: 20 }),
  error: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
  upTo: fc.nat({ max: 60 }),
});

describe("flattened: batches as one event per read (issue #49)", () => {
  test("every event in order, then the end or the error; a cancel part way reaches the source", async () => {
    await holds(
      fc.asyncProperty(cases, async ({ reads, error, upTo }) => {
        const all = reads.flatMap((r) => (Array.isArray(r) ? r : [r]));
        const { stream, cancelled } = source(reads, error);
        const { read, cancel } = readsOf(flattened(stream));
        const seen: unknown[] = [];
        for (let n = 0;; n++) {
          if (n === upTo) {
            await cancel("gone");
            seen.push("cancelled");
            break;
          }
          try {
            const r = await read();
            if (r.done) {
              seen.push("done");
              break;
            }
            seen.push((r.value as unknown as { n: number }).n);
          } catch (e) {
            seen.push(`error ${(e as Error).message}`);
            break;
          }
        }
        const ending = error === null ? "done" : `error ${error}`;
        const expected = upTo < all.length + 1 ? [...all.slice(0, upTo), "cancelled"] : [...all, ending];
        expect(seen).toEqual(expected);
        expect(cancelled).toEqual(seen.at(-1) === "cancelled" ? ["gone"] : []);
      }),
    );
  });
});
