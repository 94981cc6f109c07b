// createRelay({ models }) in Node, stateless (the Durable Object path runs in workerd:
// test/relay-pool/models.test.ts): the table's checks, the gate (closed by default, RELAY_KEY,
// authorize, allowAnonymous's bounded per-client rate), a model not in the table going on to the
// upstream, against the test kit's fakeProvider (its `.requests`: the key arrived, the stop aborted).
import { readFileSync } from "node:fs";
import { expect, test, vi } from "vitest";
import { anthropic, openaiChat } from "../../src/providers/index.ts";
import { createRelay, type RelayEnv } from "../../src/relay/index.ts";
import { ClientRates } from "../../src/relay/gate.ts";
import { fakeProvider, parseCapture } from "../../src/testing/index.ts";

const KEY = "sk-ant-unit-KEY-never-shown-7777";
const ORIGIN = "https://relay.test";
const capture = parseCapture(readFileSync(new URL("../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const endless = { capture, pace: 20 };

function setup(options: Parameters<typeof createRelay>[0] = {}) {
  const fake = fakeProvider("anthropic", { streams: { "claude-test": capture, "claude-slow": endless }, key: KEY });
  const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake });
  const relay = createRelay({
    models: { fast: { provider, model: "claude-test", config: { max_tokens: 77 } }, slow: { provider, model: "claude-slow" } },
    ...options,
  });
  return { relay, fake };
}
const post = (body: object, headers: Record<string, string> = {}): Request =>
  new Request(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const ask = (model: string, config: object = {}) => ({
  model,
  messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
  config,
});

test("a models table is checked at the boundary, each wrong row named", () => {
  expect(() => createRelay({ models: { a: { model: "m" } } as never })).toThrow(/\["a"\]\.provider/);
  const provider = openaiChat({ apiKey: "k" });
  expect(() => createRelay({ models: { a: { provider, model: "" } } })).toThrow(/\["a"\]\.model/);
  expect(() => createRelay({ models: { a: { provider, model: "m", config: [] as never } } })).toThrow(/\["a"\]\.config/);
  expect(() => createRelay({ models: { a: { provider, model: "m" } }, allowAnonymous: { perMinute: 0 } })).toThrow(/allowAnonymous/);
  const relay = createRelay<RelayEnv>({ models: () => ({ a: { model: "m" } }) as never, allowAnonymous: true });
  return expect(relay.fetch(post(ask("a")), {})).resolves.toHaveProperty("status", 500); // (a bad table made of env: the relay's 500, in the log)
});

test("closed by default: a 401 naming RELAY_KEY, authorize and allowAnonymous; nothing reaches the provider", async () => {
  const { relay, fake } = setup();
  const answer = await relay.fetch(post(ask("fast")), {});
  expect(answer.status).toBe(401);
  expect((await answer.json()).error.message).toMatch(/RELAY_KEY.*authorize.*allowAnonymous/s);
  expect(fake.requests).toHaveLength(0);
});

test("RELAY_KEY or an authorize hook opens it; the answer is the provider's, the row's config under the client's, the key only upstream", async () => {
  const { relay, fake } = setup();
  const answer = await relay.fetch(post(ask("fast", { temperature: 0.5 }), { "x-relay-key": "rk" }), { RELAY_KEY: "rk" });
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("anthropic");
  const text = await answer.text();
  expect(text).toMatch(/"finish_reason":"stop"/);
  expect(text.includes(KEY)).toBe(false);
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0]!.authorized).toBe(true);
  expect(fake.requests[0]!.json).toMatchObject({ model: "claude-test", max_tokens: 77, temperature: 0.5 });

  const hooked = setup({ authorize: () => null });
  expect((await hooked.relay.fetch(post(ask("fast")), {})).status).toBe(200);
});

test("a model not in the table goes on to the upstream; without one it is a 404 naming the models served", async () => {
  let upstreamAsked = 0;
  const { relay } = setup({
    upstream: () => {
      upstreamAsked++;
      return new Response("nope", { status: 418 });
    },
  });
  expect((await relay.fetch(post(ask("other")), {})).status).toBe(418);
  expect(upstreamAsked).toBe(1);
  const alone = setup({ allowAnonymous: true });
  const answer = await alone.relay.fetch(post(ask("other")), {});
  expect(answer.status).toBe(404);
  expect((await answer.json()).error.message).toContain('("fast", "slow")');
});

test("the provider's 401 about the operator's key: a 502 UpstreamUnavailable for the client (SPEC §10), the refusal in the log", async () => {
  const fake = fakeProvider("anthropic", { streams: {}, key: KEY });
  const relay = createRelay({
    models: { fast: { provider: anthropic({ apiKey: "sk-wrong-key", baseURL: "https://api.anthropic.test", fetch: fake }), model: "m" } },
    allowAnonymous: true,
  });
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const answer = await relay.fetch(post(ask("fast")), {});
    expect(answer.status).toBe(502);
    const { error } = await answer.json();
    expect(error.type).toBe("UpstreamUnavailable");
    expect(JSON.stringify(error).includes("sk-wrong-key")).toBe(false);
    expect(String(logged.mock.calls[0]?.[0])).toMatch(/the provider \(anthropic\) refused the relay's credentials \(HTTP 401\): HTTP 401 AuthenticationError: Invalid API key/);
  } finally {
    logged.mockRestore();
  }
});

test("stateless: the client going away aborts the provider's request (the fake's request log)", async () => {
  const { relay, fake } = setup({ allowAnonymous: true });
  const answer = await relay.fetch(post(ask("slow")), {});
  const reader = answer.body!.getReader();
  await reader.read();
  await reader.cancel("gone");
  const end = await fake.requests[0]!.ended;
  expect(fake.requests[0]!.aborted).not.toBeNull();
  expect(end).toBeDefined();
});

test("allowAnonymous: perMinute streams a client, then a 429 with Retry-After; another client counts apart", async () => {
  const { relay } = setup({ allowAnonymous: { perMinute: 1 } });
  const from = (ip: string) => ({ "cf-connecting-ip": ip });
  const first = await relay.fetch(post(ask("fast"), from("203.0.113.1")), {});
  expect(first.status).toBe(200);
  await first.arrayBuffer();
  const second = await relay.fetch(post(ask("fast"), from("203.0.113.1")), {});
  expect(second.status).toBe(429);
  expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
  const other = await relay.fetch(post(ask("fast"), from("203.0.113.2")), {});
  expect(other.status).toBe(200);
  await other.arrayBuffer();
});

test("the rate's memory is bounded: 10 000 clients at most, the oldest forgotten; a window ends after a minute", () => {
  const rates = new ClientRates();
  for (let i = 0; i < 12_000; i++) rates.take(`client-${i}`, 1, 1000);
  expect(rates.size).toBe(10_000);
  expect(rates.take("client-11999", 1, 1000)?.status).toBe(429);
  expect(rates.take("client-11999", 1, 61_000)).toBeNull();
});

test("GET /v1/models: the table in order, behind RELAY_KEY when set", async () => {
  const { relay } = setup();
  const list = await (await relay.fetch(new Request(`${ORIGIN}/v1/models`), {})).json();
  expect(list).toMatchObject({ object: "list", data: [{ id: "fast", object: "model", owned_by: "mmsp" }, { id: "slow" }] });
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/models`), { RELAY_KEY: "rk" })).status).toBe(401);
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/models`, { method: "POST" }), {})).status).toBe(405);
});
