// Quotas held for the whole deployment (issue #37, SPEC §10): two instances of the relay Worker
// (worker/, bundled as wrangler does) in one Miniflare, each with its own STREAMS, sharing one QUOTAS
// namespace (instance B binds instance A's QuotaObject class, as two Workers of a deployment share
// one Durable Object namespace), against the kit's fakeProvider("anthropic") on 127.0.0.1.
// A principal's limit holds whichever instance its requests come through, and the ledger both read is
// the provider's usage. Prints "relay-quotas: N passed, N failed".
//
// Run: node test/relay/quotas.mjs   (after `npm run build`)
import assert from "node:assert/strict";
import { Miniflare } from "miniflare";
import { fakeProvider } from "mmsp-streams/testing";
import { serve } from "../../scripts/upstream.mjs";
import { anthropicCapture, ledgerCounting } from "../../scripts/load-kit.mjs";
import { bundleWorker } from "../../worker/build.mjs";
import { namedTests } from "../../scripts/named-tests.mjs";

const t0 = performance.now();

// the provider's answer: Anthropic's events, input 12 and output 6 tokens
const KEY = "sk-ant-quotas-fake-key";
const provider = fakeProvider("anthropic", {
  streams: { "quota-model": anthropicCapture({ id: "msg_q", texts: ["Hello", " world"], input: 12, output: 6 }) },
  key: KEY,
});
const upstream = await serve(provider);

const { script, compatibilityDate, compatibilityFlags } = await bundleWorker();
const TEAM_KEY = "team-key-0123456789";
const bindings = {
  ANTHROPIC_API_KEY: KEY,
  ANTHROPIC_BASE_URL: upstream.url,
  ANTHROPIC_MODEL: "quota-model",
  RELAY_KEYS: JSON.stringify({ team: TEAM_KEY, other: "other-key-0123456789" }),
  RELAY_QUOTAS: JSON.stringify({ default: { requestsPerMinute: 3 } }),
  ADMIN_KEY: "admin-key-0123456789",
};
const streams = { className: "StreamObject", useSQLite: true };
const mf = new Miniflare({
  workers: [
    {
      name: "a",
      modules: true,
      script,
      compatibilityDate,
      compatibilityFlags,
      bindings,
      durableObjects: { STREAMS: streams, QUOTAS: { className: "QuotaObject", useSQLite: true } },
    },
    {
      name: "b",
      modules: true,
      script,
      compatibilityDate,
      compatibilityFlags,
      bindings,
      durableObjects: { STREAMS: streams, QUOTAS: { className: "QuotaObject", scriptName: "a", useSQLite: true } },
    },
  ],
});
await mf.ready;
const instances = { a: await mf.getWorker("a"), b: await mf.getWorker("b") };
const post = (which, key) =>
  instances[which].fetch("https://relay.test/v1/stream", {
    method: "POST",
    headers: { "content-type": "application/json", "x-relay-key": key },
    body: JSON.stringify({ model: "claude-fast", messages: [{ role: "user", content_items: [{ type: "text.done", text: "hi" }] }] }),
  });
const usage = async (which, key, query = "") => {
  const answer = await instances[which].fetch(`https://relay.test/v1/usage${query}`, { headers: { "x-relay-key": key } });
  assert.equal(answer.status, 200);
  return (await answer.json()).data;
};

const { test, run } = namedTests("relay-quotas");

test("a principal's requestsPerMinute holds across two Worker instances sharing the QUOTAS namespace", async () => {
  const before = provider.requests.length;
  for (const which of ["a", "b", "a"]) {
    const answer = await post(which, TEAM_KEY);
    assert.equal(answer.status, 200, `through ${which}`);
    await answer.arrayBuffer();
  }
  for (const which of ["b", "a"]) {
    const refused = await post(which, TEAM_KEY);
    assert.equal(refused.status, 429, `through ${which}`);
    assert.equal((await refused.json()).error.type, "RateLimitError");
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
  }
  assert.equal(provider.requests.length - before, 3, "the provider was asked 3 times, not 5");
  // another principal is counted apart
  const other = await post("b", "other-key-0123456789");
  assert.equal(other.status, 200);
  await other.arrayBuffer();
});

test("the ledger, read through either instance, is the provider's usage (3 × input 12, output 6)", async () => {
  const rows = await ledgerCounting(() => usage("b", TEAM_KEY), 3, { ms: 5_000, everyMs: 50 });
  const day = new Date().toISOString().slice(0, 10);
  assert.deepEqual(rows, [
    { principal: "team", model: "claude-fast", day, requests: 3, input_tokens: 36, output_tokens: 18, estimated_tokens: 0, stopped: 0 },
  ]);
  assert.deepEqual(await usage("a", TEAM_KEY), rows);
  const all = await usage("a", "admin-key-0123456789", "?all=1");
  assert.deepEqual(all.map((r) => r.principal).sort(), ["other", "team"]);
});

await run({
  timeoutMs: 30_000,
  t0,
  async cleanup() {
    await mf.dispose();
    await upstream.close();
  },
});
