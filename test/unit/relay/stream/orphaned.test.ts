// A live stream's answer asks whether its object died under it (src/relay/stream/store.ts `served`)
// each time it waits for the next event: a batch stored since it last looked proves the storage
// reachable without a statement (issue #49: no `SELECT 1` per upstream chunk per viewer); with nothing
// stored since, the storage is asked (one statement), and a storage gone (reset under a running
// instance) or no upstream read makes the answer orphaned, as before.
import { expect, test } from "vitest";
import { served as servedOf, StreamStore } from "../../../../src/relay/stream/store.ts";
import type { RelaySqlStorage } from "../../../../src/relay/platform.ts";

/** A storage that counts `SELECT 1` and can die (every statement then throws). */
function countingSql(): { sql: RelaySqlStorage; probes: () => number; kill: () => void } {
  let probes = 0;
  let dead = false;
  const cursor = (values: unknown[]) => ({
    toArray: () => values,
    one: () => values[0],
    [Symbol.iterator]: () => values[Symbol.iterator](),
  });
  const sql = {
    exec(query: string) {
      if (dead) throw new Error("Durable Object reset");
      if (query === "SELECT 1") probes++;
      return cursor(query.includes("MAX(seq + n)") ? [{ n: null }] : []);
    },
  } as unknown as RelaySqlStorage;
  return { sql, probes: () => probes, kill: () => void (dead = true) };
}

test("a wait after each stored batch asks the storage nothing; a wait with nothing stored asks it once; a storage gone orphans the answer", () => {
  const { sql, probes, kill } = countingSql();
  const store = new StreamStore(sql, () => {}, () => {});
  store.create(null, null);
  let upstream: AbortController | null = new AbortController();
  const served = servedOf(store, () => upstream);
  for (let chunk = 0; chunk < 50; chunk++) {
    store.append(`{"n":${chunk}}`);
    store.flush();
    expect(served.orphaned).toBe(false); // (the viewer's wait after each upstream chunk)
  }
  expect(probes()).toBe(0);
  expect(served.orphaned).toBe(false); // (nothing stored since: the storage asked)
  expect(probes()).toBe(1);
  kill();
  expect(served.orphaned).toBe(true); // (reset under the running instance)
  upstream = null;
  expect(servedOf(store, () => upstream).orphaned).toBe(true); // (no upstream read by this instance)
});

test("an answer made after the last batch asks the storage at its first wait (a dead storage is not taken for a live one)", () => {
  const { sql, probes, kill } = countingSql();
  const store = new StreamStore(sql, () => {}, () => {});
  store.create(null, null);
  store.append(`{"n":0}`);
  store.flush();
  kill();
  const served = servedOf(store, () => new AbortController());
  expect(served.orphaned).toBe(true);
  expect(probes()).toBe(0);
});
