// Issue #44, "Tests that see the money", in workerd through the real Durable Objects (QUOTAS:
// SQLite): a finished stream's whole cost (input and output) counts against the day's budget, so the
// next claim is refused on a tight tokensPerDay; a quota object that restarts keeps its open claims
// (they are in its storage, not its memory); a RELAY_KEYS name never spends an anonymous client's
// quota. The repository Worker's provider-backed "claude-fast" against the scripted Anthropic of
// providers.ts (input 12, output 6 for a whole answer). Each test names its own principals.
import { env, runInDurableObject } from "cloudflare:test";
import { expect, test, vi } from "vitest";
import { providerModels } from "../../worker/models.ts";
import { createRelay, type RelayOptions } from "../../src/relay/index.ts";
import { RelayQuotaObject } from "../../src/relay/accounting/quota-object.ts";
import { inputEstimate } from "../../src/relay/accounting/usage-estimate.ts";
import type { RelayState } from "../../src/relay/platform.ts";
import { newTag, ORIGIN } from "./relay.ts";

type Env = typeof env & Record<string, unknown>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const messagesOf = (tag: string) => [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:text` }] }];

function setup(options: Partial<RelayOptions<Env>>, vars: Record<string, string> = {}) {
  const relay = createRelay<Env>({ models: providerModels as never, ...options });
  const e: Env = { ...env, ...vars };
  const call = (path: string, init: RequestInit = {}) => relay.fetch(new Request(`${ORIGIN}${path}`, init), e);
  const post = (headers: Record<string, string>, tag: string, config: object = {}, init: object = {}) =>
    relay.fetch(
      new Request(`${ORIGIN}/v1/stream`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "claude-fast", messages: messagesOf(tag), config }),
        ...init,
      }),
      e,
    );
  return { call, post };
}

/** What the scripted providers saw of a tag. */
async function providerSaw(tag: string): Promise<number> {
  return ((await (await fetch(`http://upstream.test/__provider?tag=${tag}`)).json()) as { count: number }).count;
}

test("a finished stream's input and output both count: the next claim on a tight tokensPerDay is a 429 BudgetExceeded, the provider not asked", async () => {
  const name = `spent-${newTag()}`;
  const key = `key-of-${name}`;
  const as = { "x-relay-key": key };
  // each request reserves its input estimate plus its max_tokens (tags are UUIDs: every request the same size)
  const max_tokens = 50;
  const reserve = inputEstimate(messagesOf(newTag()), { max_tokens }) + max_tokens;
  // the first fits; after it (12 in + 6 out = 18 spent) a second does not: 18 + reserve > budget,
  // where counting the input alone (12) or the output alone (6) would still admit it
  const budget = reserve + 15;
  const { post, call } = setup({ quotas: { default: { tokensPerDay: budget } } }, { RELAY_KEYS: JSON.stringify({ [name]: key }) });
  const first = await post(as, newTag(), { max_tokens });
  expect(first.status, await first.clone().text()).toBe(200);
  await first.arrayBuffer();
  // the settlement is written after the stream's end (the stream object's waitUntil): wait for the ledger's row
  let rows: Record<string, number>[] = [];
  for (let i = 0; i < 100 && rows.length === 0; i++) {
    rows = ((await (await call("/v1/usage", { headers: as })).json()) as { data: Record<string, number>[] }).data;
    if (rows.length === 0) await sleep(50);
  }
  expect(rows).toMatchObject([{ requests: 1, input_tokens: 12, output_tokens: 6 }]);
  const tag = newTag();
  const second = await post(as, tag, { max_tokens });
  expect(second.status).toBe(429);
  expect(((await second.json()) as { error: { type: string } }).error.type).toBe("BudgetExceeded");
  expect(await providerSaw(tag)).toBe(0);
});

test("a quota object that restarts keeps its open claims (its storage, not its memory): the place and the reservation stay taken until settled", async () => {
  const principal = `restart-${newTag()}`;
  const stub = env.QUOTAS.get(env.QUOTAS.idFromName(`principal:${principal}`));
  const claim = (id: string, quota: object, tokens = 100) =>
    new Request("https://quota/claim", {
      method: "POST",
      body: JSON.stringify({ id, principal, model: "m", tokens, input: 10, until: Date.now() + 600_000, quota }),
    });
  const refusedOf = async (answer: Response) => ((await answer.json()) as { refused: { type: string } | null }).refused;
  const outcome = await runInDurableObject(stub, async (_instance, state) => {
    const before = new RelayQuotaObject(state as unknown as RelayState);
    const first = await refusedOf(await before.fetch(claim("c1", { concurrentStreams: 1, tokensPerDay: 150 })));
    // the object restarts: a new instance over the same storage, nothing of the old one's memory
    const after = new RelayQuotaObject(state as unknown as RelayState);
    const busy = await refusedOf(await after.fetch(claim("c2", { concurrentStreams: 1 })));
    const overBudget = await refusedOf(await after.fetch(claim("c3", { tokensPerDay: 150 }))); // 100 reserved + 100 > 150
    const settled = await after.fetch(
      new Request("https://quota/settle", {
        method: "POST",
        body: JSON.stringify({ id: "c1", principal, model: "m", input: 10, output: 5, estimated: 0, stopped: false }),
      }),
    );
    const freed = await refusedOf(await new RelayQuotaObject(state as unknown as RelayState).fetch(claim("c4", { concurrentStreams: 1, tokensPerDay: 150 })));
    const unknown = await after.fetch(new Request("https://quota/nothing"));
    return { first, busy: busy?.type, overBudget: overBudget?.type, settled: await settled.json(), freed, unknown: unknown.status };
  });
  expect(outcome).toEqual({ first: null, busy: "RateLimitError", overBudget: "BudgetExceeded", settled: { recorded: true }, freed: null, unknown: 404 });
});

test("a RELAY_KEYS name anon:<ip> never spends the anonymous client of that address: it still gets its own whole quota", async () => {
  const ip = `100.${64 + Math.floor(Math.random() * 64)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  const key = `key-of-anon-name-${newTag()}`;
  // a relay with keys, one of them named as the relay names an anonymous client (a configuration
  // error where it is refused; if it is ever admitted, it must spend for another principal)
  const keyed = setup({ quotas: { default: { requestsPerMinute: 1 } } }, { RELAY_KEYS: JSON.stringify({ [`anon:${ip}`]: key }) });
  const init = { cf: { country: "XX" } }; // (a request as Cloudflare's edge delivers it: its address in CF-Connecting-IP)
  const logged = vi.spyOn(console, "error").mockImplementation(() => {}); // (a configuration error is logged)
  const byKey = await keyed.post({ "x-relay-key": key, "cf-connecting-ip": ip }, newTag(), {}, init).catch(() => null).finally(() => logged.mockRestore());
  await byKey?.arrayBuffer();
  // an open relay over the same QUOTAS namespace: that address's anonymous client
  const open = setup({ allowAnonymous: { perMinute: 1 } });
  const mine = await open.post({ "cf-connecting-ip": ip }, newTag(), {}, init);
  expect(mine.status, await mine.clone().text()).toBe(200);
  await mine.arrayBuffer();
  // (its quota is held: the next one of the minute is refused)
  const next = await open.post({ "cf-connecting-ip": ip }, newTag(), {}, init);
  expect(next.status).toBe(429);
  await next.arrayBuffer();
});
