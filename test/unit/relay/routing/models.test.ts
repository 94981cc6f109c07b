// createRelay({ models }) in Node, stateless (the Durable Object path runs in workerd:
// test/relay-pool/models.test.ts): the table's checks, the gate (closed by default, RELAY_KEY,
// authorize, allowAnonymous's bounded per-client rate), a model not in the table going on to the
// upstream, against the test kit's fakeProvider (its `.requests`: the key arrived, the stop aborted).
import { readFileSync } from "node:fs";
import { expect, test, vi } from "vitest";
import { anthropic, openaiChat } from "../../../../src/providers/index.ts";
import { createRelay, type RelayEnv } from "../../../../src/relay/index.ts";
import { ProcessQuotas, QuotaBook } from "../../../../src/relay/accounting/quota.ts";
import { configWithin } from "../../../../src/relay/routing/ceilings.ts";
import type { UniConfig } from "../../../../src/providers/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

const KEY = "sk-ant-unit-KEY-never-shown-7777";
const ORIGIN = "https://relay.test";
const capture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const endless = { capture, pace: 20 };

function setup(options: Parameters<typeof createRelay>[0] = {}) {
  const fake = fakeProvider("anthropic", { streams: { "claude-test": capture, "claude-slow": endless }, key: KEY });
  const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake });
  const relay = createRelay({
    models: { fast: { provider, model: "claude-test", config: { max_tokens: 77 } }, slow: { provider, model: "claude-slow" } },
    clientAddress: () => "203.0.113.9", // (Node: the address a server would give; see the address tests)
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

test("a row's foreignThinking (issue #36) is checked at the boundary and passed to the provider's builder", async () => {
  const provider = openaiChat({ apiKey: "k" });
  expect(() => createRelay({ models: { a: { provider, model: "m", foreignThinking: "keep" as never } } })).toThrow(/\["a"\]\.foreignThinking/);
  const fake = fakeProvider("anthropic", { streams: { "claude-test": capture } });
  const claude = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake });
  const relay = createRelay({
    models: { t: { provider: claude, model: "claude-test", foreignThinking: "text" } },
    allowAnonymous: true,
    clientAddress: () => "203.0.113.9",
  });
  const thought = { type: "thinking.done", thinking: "Gemini thought so.", fidelity: { signature: "g", provider: "gemini", model: "gemini-3-pro-preview" } };
  const messages = [...ask("t").messages, { role: "assistant", content_items: [thought] }, ...ask("t").messages];
  expect((await relay.fetch(post({ model: "t", messages }), {})).status).toBe(200);
  expect((fake.requests[0]!.json as { messages: unknown[] }).messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "Gemini thought so." }] });
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
    clientAddress: () => "203.0.113.9",
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
  const from = (ip: string) => ({ clientAddress: ip }); // (the address the server saw: the relay's fetch is told it)
  const first = await relay.fetch(post(ask("fast")), {}, from("203.0.113.1"));
  expect(first.status).toBe(200);
  await first.arrayBuffer();
  const second = await relay.fetch(post(ask("fast")), {}, from("203.0.113.1"));
  expect(second.status).toBe(429);
  expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
  const other = await relay.fetch(post(ask("fast")), {}, from("203.0.113.2"));
  expect(other.status).toBe(200);
  await other.arrayBuffer();
});

test("the anonymous quota's memory is bounded: 10 000 principals at most in a process, the oldest without an open claim forgotten; a window ends after a minute", async () => {
  const quotas = new ProcessQuotas();
  const claim = (principal: string, id = principal) => ({ id, principal, model: "m", tokens: 1, input: 1, until: Infinity, quota: { requestsPerMinute: 1 } });
  for (let i = 0; i < 12_000; i++) {
    await quotas.claim(claim(`anon:${i}`));
    await quotas.settle({ id: `anon:${i}`, principal: `anon:${i}`, model: "m", input: 0, output: 0, estimated: 0, stopped: false });
  }
  expect(quotas.size).toBe(10_000);
  expect((await quotas.claim(claim("anon:11999", "again")))?.type).toBe("RateLimitError");
  const book = new QuotaBook();
  expect(book.claim(claim("anon:x", "a"), 0, 1000)).toBeNull();
  expect(book.claim(claim("anon:x", "b"), 0, 1000)?.retryAfter).toBe(60);
  expect(book.claim(claim("anon:x", "c"), 0, 61_000)).toBeNull();
});

test("GET /v1/models: the table in order, behind RELAY_KEY when set", async () => {
  const { relay } = setup();
  const list = await (await relay.fetch(new Request(`${ORIGIN}/v1/models`), {})).json();
  expect(list).toMatchObject({ object: "list", data: [{ id: "fast", object: "model", owned_by: "mmsp" }, { id: "slow" }] });
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/models`), { RELAY_KEY: "rk" })).status).toBe(401);
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/models`, { method: "POST" }), {})).status).toBe(405);
});

// SPEC §10 "A row's settings are the operator's" (issue #34): the row's numbers are ceilings, a
// costlier setting needs the row's `allow`, and a model name is a row only as the table's own entry.
const chatCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/openai-chat.sse", import.meta.url), "utf8"));
const WEATHER = { name: "weather", description: "The weather in a city.", parameters: { type: "object", properties: {} } };

function chatSetup(rows: Record<string, object>, options: Parameters<typeof createRelay>[0] = {}) {
  const fake = fakeProvider("openai-chat", { streams: { "gpt-test": chatCapture }, key: KEY });
  const provider = openaiChat({ apiKey: KEY, baseURL: "https://api.openai.test/v1", fetch: fake });
  const models = Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, { provider, model: "gpt-test", ...row }]));
  return { relay: createRelay({ models, clientAddress: () => "203.0.113.9", ...options }), fake };
}
/** The status, the refusal's JSON (when not 200) and what the provider was asked (the last request's body, or undefined). */
async function answer(relay: ReturnType<typeof createRelay>, fake: ReturnType<typeof fakeProvider>, model: string, config: object) {
  const before = fake.requests.length;
  const response = await relay.fetch(post(ask(model, config), { "x-relay-key": "rk" }), { RELAY_KEY: "rk" }); // (no anonymous rate)
  const text = await response.text();
  const asked = fake.requests.length > before ? fake.requests.at(-1)!.json as Record<string, unknown> : undefined;
  return { status: response.status, error: response.status === 200 ? undefined : JSON.parse(text).error, asked };
}

test("a row's max_tokens is a ceiling: the client lowers it, never raises it (400 naming the setting and the ceiling, no provider request)", async () => {
  const { relay, fake } = chatSetup({ capped: { config: { max_tokens: 100 } }, open: {} });
  expect((await answer(relay, fake, "capped", {})).asked).toMatchObject({ max_completion_tokens: 100 });
  expect((await answer(relay, fake, "capped", { max_tokens: 40 })).asked).toMatchObject({ max_completion_tokens: 40 });
  for (const max_tokens of [1_000_000, 101, null, "50"]) {
    const over = await answer(relay, fake, "capped", { max_tokens });
    expect(over.status, JSON.stringify(max_tokens)).toBe(400);
    expect(over.error.type).toBe("InvalidRequestError");
    expect(over.error.message).toMatch(/max_tokens/);
    expect(over.error.message).toMatch(/\b100\b/);
    expect(over.asked, "the provider is not asked").toBeUndefined();
  }
  // the issue's request: a raised ceiling and the fast tier, both refused (the provider never asked for priority)
  const issue = await answer(relay, fake, "capped", { max_tokens: 1_000_000, fast_mode: true });
  expect(issue.status).toBe(400);
  expect(issue.asked).toBeUndefined();
  // no number in the row: the provider's default, the client may set it
  expect((await answer(relay, fake, "open", { max_tokens: 5000 })).asked).toMatchObject({ max_completion_tokens: 5000 });
  expect(fake.requests.every((r) => (r.json as Record<string, unknown>).service_tier === undefined)).toBe(true);
});

test("a costlier setting (fast_mode, a higher thinking_level) is refused unless the row allows it; a client's own tools need no allowance", async () => {
  const { relay, fake } = chatSetup({
    plain: {},
    low: { config: { thinking_level: "low" } },
    fast: { allow: { fast_mode: true, thinking_level: true } },
    tooled: { config: { tools: [WEATHER] } },
    anyTools: { allow: { tools: true } },
  });
  // (over a ceiling: InvalidRequestError; a setting not offered: UnsupportedParameterError, as a provider's own)
  const refused = async (model: string, config: object, setting: string) => {
    const r = await answer(relay, fake, model, config);
    expect(r.status, `${model} ${JSON.stringify(config)}`).toBe(400);
    expect(r.error.type).toBe(setting === "thinking_level" ? "InvalidRequestError" : "UnsupportedParameterError");
    expect(r.error.parameter).toBe(setting);
    expect(r.error.message).toContain(setting);
    expect(r.asked).toBeUndefined();
  };
  await refused("plain", { fast_mode: true }, "fast_mode");
  await refused("plain", { fast_mode: "yes" }, "fast_mode"); // (the builders read it as a truthy value)
  expect((await answer(relay, fake, "plain", { fast_mode: false })).status).toBe(200);
  expect((await answer(relay, fake, "fast", { fast_mode: true })).asked).toMatchObject({ service_tier: "priority" });

  await refused("low", { thinking_level: "high" }, "thinking_level");
  await refused("plain", { thinking_level: "low" }, "thinking_level"); // (no level in the row: none asked for)
  expect((await answer(relay, fake, "low", { thinking_level: "none" })).asked).toMatchObject({ reasoning_effort: "none" });
  expect((await answer(relay, fake, "low", {})).asked).toMatchObject({ reasoning_effort: "low" });
  expect((await answer(relay, fake, "fast", { thinking_level: "xhigh" })).asked).toMatchObject({ reasoning_effort: "xhigh" });

  const other = { ...WEATHER, name: "shell" };
  // (a client's own function tools are its own: no allowance; the row's are added to them; a name in both is a 400)
  expect((await answer(relay, fake, "plain", { tools: [WEATHER] })).asked).toMatchObject({ tools: [{ function: WEATHER }] });
  expect((await answer(relay, fake, "tooled", { tools: [other] })).asked).toMatchObject({ tools: [{ function: WEATHER }, { function: other }] });
  expect((await answer(relay, fake, "tooled", { tools: [] })).asked).toMatchObject({ tools: [{ function: WEATHER }] });
  const clash = await answer(relay, fake, "tooled", { tools: [{ ...WEATHER, description: "x".repeat(10_000) }] });
  expect(clash.status).toBe(400);
  expect(clash.error).toMatchObject({ type: "InvalidRequestError", parameter: "tools" });
  expect(clash.error.message).toContain(WEATHER.name);
  expect(clash.asked).toBeUndefined();
  // (allow.tools: the client's definition replaces the row's of its name)
  expect((await answer(relay, fake, "anyTools", { tools: [other] })).asked).toMatchObject({ tools: [{ function: other }] });
});

test("thinking_summary turns Anthropic's thinking on: only the row's value unless allowed", async () => {
  const { relay, fake } = setup({ allowAnonymous: true });
  const response = await relay.fetch(post(ask("fast", { thinking_summary: false })), {});
  expect(response.status).toBe(400);
  expect((await response.json()).error.message).toContain("thinking_summary");
  expect(fake.requests).toHaveLength(0);
});

test("the merged config is plain data: a __proto__ key of the client's JSON is a key like any other, refused by name", async () => {
  const { relay, fake } = chatSetup({ capped: { config: { max_tokens: 100 } } });
  const raw = '{"model":"capped","messages":[],"config":{"__proto__":{"fast_mode":true,"max_tokens":9000000}}}';
  const request = new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers: { "content-type": "application/json", "x-relay-key": "rk" }, body: raw });
  const response = await relay.fetch(request, { RELAY_KEY: "rk" });
  expect(response.status).toBe(400);
  expect((await response.json()).error).toMatchObject({ type: "UnsupportedParameterError", parameter: "__proto__" });
  expect(fake.requests).toHaveLength(0);
  expect(({} as Record<string, unknown>).fast_mode).toBeUndefined();
});

test("a row's allowance and ceilings are checked at the boundary, each wrong one named", () => {
  const provider = openaiChat({ apiKey: "k" });
  const row = (more: object) => ({ a: { provider, model: "m", ...more } });
  expect(() => createRelay({ models: row({ allow: { fastmode: true } }) as never })).toThrow(/\["a"\]\.allow\.fastmode/);
  expect(() => createRelay({ models: row({ allow: { max_tokens: true } }) as never })).toThrow(/\["a"\]\.allow\.max_tokens/);
  expect(() => createRelay({ models: row({ allow: { fast_mode: "yes" } }) as never })).toThrow(/\["a"\]\.allow\.fast_mode/);
  expect(() => createRelay({ models: row({ allow: [] }) as never })).toThrow(/\["a"\]\.allow/);
  expect(() => createRelay({ models: row({ config: { max_tokens: "100" } }) as never })).toThrow(/\["a"\]\.config\.max_tokens/);
  expect(() => createRelay({ models: row({ config: { thinking_level: "huge" } }) as never })).toThrow(/\["a"\]\.config\.thinking_level/);
  expect(() => createRelay({ models: row({ config: { tools: {} } }) as never })).toThrow(/\["a"\]\.config\.tools/);
  expect(() => createRelay({ models: row({ allow: { fast_mode: true, tools: false }, config: { max_tokens: 1 } }) })).not.toThrow();
});

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

test("Object.prototype's members are no rows: the 404 naming the models served, the provider not asked", async () => {
  const { relay, fake } = setup({ allowAnonymous: true });
  for (const name of PROTOTYPE_NAMES) {
    const response = await relay.fetch(post(ask(name)), {});
    expect(response.status, name).toBe(404);
    const { error } = await response.json();
    expect(error.type).toBe("NotFoundError");
    expect(error.message).toContain('("fast", "slow")');
  }
  expect(fake.requests).toHaveLength(0);
});

test("with an upstream, such a name goes on to it as any name not in the table does (never read as a row)", async () => {
  let upstreamAsked = 0;
  const { relay, fake } = setup({
    upstream: () => {
      upstreamAsked++;
      return new Response("the upstream's", { status: 418 });
    },
  });
  for (const name of PROTOTYPE_NAMES) {
    expect((await relay.fetch(post(ask(name)), {})).status, name).toBe(418);
  }
  expect(upstreamAsked).toBe(PROTOTYPE_NAMES.length);
  expect(fake.requests).toHaveLength(0);
});

test("configWithin builds a null-prototype object of own keys: the client's __proto__ is data", () => {
  const merged = configWithin({ max_tokens: 100 }, undefined, JSON.parse('{"__proto__":{"fast_mode":true},"max_tokens":10}'));
  expect(typeof merged).toBe("object");
  expect(Object.getPrototypeOf(merged)).toBeNull();
  expect(Object.keys(merged)).toEqual(["max_tokens", "__proto__"]);
  expect((merged as UniConfig).fast_mode).toBeUndefined();
  expect((merged as UniConfig).max_tokens).toBe(10);
});

// issue #37 in the stateless relay (no QUOTAS, no STREAMS: the process holds the quotas and the ledger)
test("stateless: a completed stream's ledger row is the provider's usage; a client gone is settled with the provider's input and the output estimated; concurrentStreams freed both ways", async () => {
  const keys = { RELAY_KEYS: JSON.stringify({ app: "app-key-0123456789" }) };
  const { relay } = setup({ quotas: { default: { concurrentStreams: 1 } } });
  const as = { "x-relay-key": "app-key-0123456789" };
  const done = await relay.fetch(post(ask("fast"), as), keys);
  expect(done.status).toBe(200);
  await done.arrayBuffer();
  const usage = async () => (await (await relay.fetch(new Request(`${ORIGIN}/v1/usage`, { headers: as }), keys)).json()).data;
  expect(await usage()).toMatchObject([{ principal: "app", model: "fast", requests: 1, input_tokens: 18, output_tokens: 58, estimated_tokens: 0, stopped: 0 }]);
  const slow = await relay.fetch(post(ask("slow"), as), keys);
  expect(slow.status).toBe(200);
  const busy = await relay.fetch(post(ask("fast"), as), keys);
  expect(busy.status).toBe(429);
  expect((await busy.json()).error.type).toBe("RateLimitError");
  const reader = slow.body!.getReader();
  await reader.read();
  await reader.cancel("the client went away");
  const [, row] = await usage();
  // the input as the provider reported it at message_start (18), the output estimated from what streamed
  expect(row).toMatchObject({ principal: "app", model: "slow", requests: 1, stopped: 1, input_tokens: 18 });
  expect(row.output_tokens).toBeGreaterThan(0);
  expect(row.estimated_tokens).toBe(row.output_tokens);
  const again = await relay.fetch(post(ask("fast"), as), keys);
  expect(again.status).toBe(200);
  await again.arrayBuffer();
});
