// Issue #44, "Tests that see the money": a stream's claim is settled once however it ends
// (stream-cost.ts `metered`, the stateless relay in Node), and the watchdog's documented defaults
// (watchdog.ts: STALL_S 60 s, FIRST_EVENT_S 30 s, "0" none).
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { metered, snapshotOf, StreamCost, withRequest } from "../../../../src/relay/accounting/stream-cost.ts";
import { watchdogOf } from "../../../../src/relay/routing/watchdog.ts";
import type { Settlement } from "../../../../src/relay/accounting/quota.ts";
import type { UniEvent } from "../../../../src/schema.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

const KEY = "sk-ant-settle-KEY-000000";
const capture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const turn = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

test("the stateless relay settles a stream the client cancels once: one request in the ledger, its place freed", async () => {
  const fake = fakeProvider("anthropic", { streams: { "claude-slow": { capture, pace: 20 } }, key: KEY });
  const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake });
  const relay = createRelay({ models: { slow: { provider, model: "claude-slow" } }, quotas: { default: { concurrentStreams: 1 } } });
  const env = { RELAY_KEYS: JSON.stringify({ app: "app-key-0123456789" }) };
  const as = { "x-relay-key": "app-key-0123456789" };
  const post = () =>
    relay.fetch(
      new Request("https://relay.test/v1/stream", {
        method: "POST",
        headers: { "content-type": "application/json", ...as },
        body: JSON.stringify({ model: "slow", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] }),
      }),
      env,
    );
  const usage = async () => ((await (await relay.fetch(new Request("https://relay.test/v1/usage", { headers: as }), env)).json()) as { data: Record<string, number>[] }).data;
  const answer = await post();
  expect(answer.status).toBe(200);
  const reader = answer.body!.getReader();
  await reader.read();
  const pending = reader.read(); // (a read under way when the client goes: the pipe's pull is waiting on the provider)
  await reader.cancel("the client went away");
  await pending.catch(() => {});
  for (let i = 0; i < 100 && (await usage()).length === 0; i++) await turn();
  for (let i = 0; i < 5; i++) await turn(); // (room for a second settlement to land, if there were one)
  expect(await usage()).toMatchObject([{ principal: "app", model: "slow", requests: 1, stopped: 1 }]);
  const again = await post(); // (its place among the concurrent ones is free)
  expect(again.status).toBe(200);
  await again.body!.cancel();
});

test("metered: a cancel while a read waits settles once, and so do a cancel after the end and a second cancel", async () => {
  const settled: Settlement[] = [];
  const cost = () => new StreamCost({ id: "c", principal: "p", model: "m", input: 2 });
  // a source that never answers: the pull waits; the cancel ends the wait with done
  const waiting = metered(new ReadableStream<UniEvent>({ pull: () => new Promise(() => {}) }, { highWaterMark: 0 }), cost(), "up", (s) => settled.push(s));
  const reader = waiting.getReader();
  const read = reader.read();
  await turn();
  await reader.cancel("gone");
  await read.catch(() => {});
  await turn();
  expect(settled).toHaveLength(1);
  expect(settled[0]).toMatchObject({ id: "c", stopped: true });
  // ended, then cancelled: the end's settlement only
  settled.length = 0;
  const ended = metered(new ReadableStream<UniEvent>({ start: (c) => c.close() }), cost(), "up", (s) => settled.push(s));
  const r = ended.getReader();
  expect((await r.read()).done).toBe(true);
  await r.cancel().catch(() => {});
  expect(settled).toHaveLength(1);
});

test("the watchdog's defaults are the documented ones: STALL_S 60 s, FIRST_EVENT_S 30 s; 0 turns either off; decimals allowed", () => {
  expect(watchdogOf({})).toEqual({ stallMs: 60_000, firstEventMs: 30_000 });
  expect(watchdogOf({ STALL_S: "0", FIRST_EVENT_S: "0" })).toEqual({ stallMs: undefined, firstEventMs: undefined });
  expect(watchdogOf({ STALL_S: "2.5", FIRST_EVENT_S: "0.5" })).toEqual({ stallMs: 2_500, firstEventMs: 500 });
  expect(watchdogOf({ STALL_S: "1e9" }).stallMs).toBe(2 ** 31 - 1); // (a timer's longest delay)
  // a variable only an Object.prototype holds is not read
  expect(watchdogOf(Object.create({ STALL_S: "1" }))).toEqual({ stallMs: 60_000, firstEventMs: 30_000 });
});

test("a stream's stored cost knows one request's input (`asked`): a continuation sent is counted with it until its target reports (withRequest)", () => {
  const ticket = { id: "c", principal: "p", model: "m", input: 2 };
  const usage = (prompt: number | null) => ({ cached_tokens: null, prompt_tokens: prompt, thoughts_tokens: null, response_tokens: null });
  // the first count the provider reported is one request's input; before any, the claim's estimate
  let reported: ReturnType<typeof usage> | null = null;
  const cost = new StreamCost(ticket);
  cost.follow(() => reported);
  expect(cost.snapshot().asked).toBe(2);
  reported = usage(12);
  expect(cost.snapshot().asked).toBe(12);
  reported = usage(30); // (a continuation's count with the earlier ones carried: not one request's)
  const stored = cost.snapshot();
  expect(stored.asked).toBe(12);
  expect(snapshotOf(JSON.stringify(stored))).toEqual(stored);
  const sent = withRequest(stored);
  expect(sent.settlement).toMatchObject({ input: 42, estimated: stored.settlement.estimated + 12 });
  expect(sent.usage).toMatchObject({ usage_metadata: { prompt_tokens: 42 }, usage_estimated: true });
  expect(sent.asked).toBe(12);
  // a snapshot stored without `asked` (before it was kept): its input so far; a bad one is dropped
  const { asked: _, ...old } = stored;
  expect(withRequest(old).settlement.input).toBe(60);
  expect(snapshotOf(JSON.stringify({ ...stored, asked: -1 }))?.asked).toBeUndefined();
  // a taken-up stream's cost is given it: the continuation's count (carried ones in it) is not one request's
  const taken = new StreamCost(ticket, 12);
  taken.follow(() => usage(24));
  expect(taken.snapshot().asked).toBe(12);
  // a continuation sent (past a provider's failure): counted in every snapshot until its first event
  taken.sent(12); // (one request's input: the least a request sent counts)
  expect(taken.snapshot().settlement.input).toBe(36);
  expect(taken.snapshot().settlement.input).toBe(36); // (a batch stored meanwhile keeps it)
  taken.see({ role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "a" }] } as unknown as UniEvent);
  expect(taken.snapshot().settlement.input).toBe(24);
});
