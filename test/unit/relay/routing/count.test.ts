// Issue #47 "same quotas, fallbacks", SPEC §10 "Doors" and "Fallbacks": a door's count of tokens asks
// its row's targets' counters in order (src/relay/routing/count.ts), all of them within COUNT_MS in
// total, in Node with fake timers and counters of the kit's Provider shape: the first figure wins; a
// target without a counter or whose counter fails is passed; none left, or the row's first target
// refusing the request (its ceilings), is null (the door's estimate).
import { afterEach, expect, test, vi } from "vitest";
import type { Provider } from "../../../../src/providers/index.ts";
import type { RelayModels } from "../../../../src/relay/index.ts";
import { COUNT_MS, targetCount } from "../../../../src/relay/routing/count.ts";

afterEach(() => void vi.useRealTimers());

/** A target whose provider counts with `count` (none: no counter), with the row's `config` ceilings. */
function target(name: string, count?: (signal: AbortSignal) => Promise<number>, config: object = {}) {
  const calls: number[] = [];
  const provider = {
    name,
    ...(count ? { countTokens: (_r: unknown, o: { signal: AbortSignal }) => (calls.push(Date.now()), count(o.signal)) } : {}),
  } as unknown as Provider;
  return { row: { provider, model: `${name}-model`, config }, calls };
}
const bytes = (config: object = {}) =>
  new TextEncoder().encode(JSON.stringify({ model: "m", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config }));
const fails = () => Promise.reject(new Error("the counter failed"));
/** A counter that answers nothing until it is aborted. */
const hangs = (signal: AbortSignal) => new Promise<number>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));

test("the targets are asked in the row's order: no counter and a failing counter passed, the next one's figure", async () => {
  const none = target("chat");
  const failing = target("anthropic", fails);
  const counting = target("gemini", async () => 42);
  const after = target("responses", async () => 7);
  const table = { m: [none.row, failing.row, counting.row, after.row] } as unknown as RelayModels;
  expect(await targetCount(table, bytes())).toBe(42);
  expect([failing.calls.length, counting.calls.length, after.calls.length]).toEqual([1, 1, 0]);
  expect(await targetCount({ m: [none.row, failing.row] } as unknown as RelayModels, bytes())).toBeNull();
});

test("COUNT_MS bounds every counter together: a counter silent until then leaves no time for the next one (the estimate)", async () => {
  vi.useFakeTimers();
  const silent = target("anthropic", hangs);
  const next = target("gemini", async () => 42);
  const counting = targetCount({ m: [silent.row, next.row] } as unknown as RelayModels, bytes());
  await vi.advanceTimersByTimeAsync(COUNT_MS);
  expect(await counting).toBeNull();
  expect(next.calls).toHaveLength(0);
});

test("a request the row's first target refuses (over its ceiling) is not counted elsewhere: null, the estimate", async () => {
  const capped = target("anthropic", async () => 5, { max_tokens: 10 });
  const open = target("gemini", async () => 42);
  expect(await targetCount({ m: [capped.row, open.row] } as unknown as RelayModels, bytes({ max_tokens: 100 }))).toBeNull();
  expect([capped.calls.length, open.calls.length]).toEqual([0, 0]);
  expect(await targetCount({ m: [capped.row, open.row] } as unknown as RelayModels, bytes({ max_tokens: 5 }))).toBe(5);
});
