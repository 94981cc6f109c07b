// Issue #44, "The budget", in Node library mode (the stateless relay, its quotas in the process):
// the provider is asked for exactly the output the claim reserved (every provider, a fallback, a
// continuation), counts trusted only when whole, ≥ 0 and bounded, a missing output estimated, every
// path out after a claim settles it, x-should-retry on a limit that will not clear soon, quotas per
// named principal, and books and ledger that never forget a principal holding an open claim.
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { expect, test } from "vitest";
import { fromResponse } from "../../../../src/index.ts";
import { anthropic, gemini, openaiChat, openaiResponses, type Provider } from "../../../../src/providers/index.ts";
import { createRelay, type RelayModel, type RelayModels } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import { checkQuotas, type Claim, MAX_BOOKS, ProcessQuotas, quotasOfVariable } from "../../../../src/relay/accounting/quota.ts";
import { MAX_ROWS } from "../../../../src/relay/accounting/ledger.ts";
import { DEFAULT_MAX_TOKENS, inputEstimate, MAX_TRUSTED_TOKENS, trustedCount, UsageMeter } from "../../../../src/relay/accounting/usage-estimate.ts";
import type { UniEvent } from "../../../../src/schema.ts";
import * as geminiCaptures from "../../../cases/providers/captures-gemini.ts";
import * as responsesCaptures from "../../../cases/providers/captures-openai-responses.ts";

const ORIGIN = "https://relay.test";
const KEYS = JSON.stringify({ alice: "alice-key-0123456789", bob: "bob-key-01234567890" });
const anthropicCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const chatCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/openai-chat.sse", import.meta.url), "utf8"));

const MESSAGES = [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }];
const post = (model: string, config: object = {}, key = "alice-key-0123456789") =>
  new Request(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-relay-key": key },
    body: JSON.stringify({ model, messages: MESSAGES, config }),
  });
const read = (answer: Response) => fromResponse(answer, { client: "relay" }).message;
const usageOf = async (relay: { fetch: (r: Request, env: object) => Promise<Response> }, env: object, key = "alice-key-0123456789") =>
  ((await (await relay.fetch(new Request(`${ORIGIN}/v1/usage`, { headers: { "x-relay-key": key } }), env)).json()) as {
    data: { input_tokens: number; output_tokens: number; estimated_tokens: number; requests: number }[];
  }).data;

/** The four providers, each over the kit's fake of its API, serving model "m". */
function providers() {
  const fake = {
    anthropic: fakeProvider("anthropic", { streams: { m: anthropicCapture } }),
    "openai-chat": fakeProvider("openai-chat", { streams: { m: chatCapture } }),
    "openai-responses": fakeProvider("openai-responses", { streams: { m: parseCapture(responsesCaptures.TEXT) } }),
    gemini: fakeProvider("gemini", { streams: { m: parseCapture(geminiCaptures.TEXT) } }),
  };
  const made: Record<keyof typeof fake, Provider> = {
    anthropic: anthropic({ apiKey: "sk-ant-KEY-00000000", baseURL: "https://a.test", fetch: fake.anthropic }),
    "openai-chat": openaiChat({ apiKey: "sk-o-KEY-000000000", baseURL: "https://o.test/v1", fetch: fake["openai-chat"] }),
    "openai-responses": openaiResponses({ apiKey: "sk-r-KEY-000000000", baseURL: "https://r.test/v1", fetch: fake["openai-responses"] }),
    gemini: gemini({ apiKey: "g-KEY-0000000000000", baseURL: "https://g.test/v1beta", fetch: fake.gemini }),
  };
  return { fake, made };
}
/** The output limit a provider's request carried, in its API's own name. */
const limitOf = (kind: string, json: unknown): unknown => {
  const body = json as Record<string, Record<string, unknown> & { generationConfig?: Record<string, unknown> }>;
  if (kind === "anthropic") return body.max_tokens;
  if (kind === "openai-chat") return body.max_completion_tokens ?? body.max_tokens;
  if (kind === "openai-responses") return body.max_output_tokens;
  return body.generationConfig?.maxOutputTokens;
};

test("a row without max_tokens: every provider is asked for the output reserved (DEFAULT_MAX_TOKENS, or the operator's), the client's when lower", async () => {
  expect(DEFAULT_MAX_TOKENS).toBe(16_384);
  const { fake, made } = providers();
  const kinds = Object.keys(made) as (keyof typeof made)[];
  const models = Object.fromEntries(kinds.map((k) => [k, { provider: made[k], model: "m" }])) as RelayModels;
  const env = { RELAY_KEYS: KEYS };
  const cases: [ReturnType<typeof createRelay>, object, object, number][] = [
    [createRelay({ models }), env, {}, DEFAULT_MAX_TOKENS],
    [createRelay({ models }), { ...env, DEFAULT_MAX_TOKENS: "2500" }, {}, 2500],
    [createRelay({ models, limits: { defaultMaxTokens: 3000 } }), { ...env, DEFAULT_MAX_TOKENS: "2500" }, {}, 3000],
    [createRelay({ models }), env, { max_tokens: 100 }, 100],
  ];
  for (const [relay, e, config, expected] of cases) {
    for (const kind of kinds) {
      const answer = await relay.fetch(post(kind, config), e);
      expect(answer.status, kind).toBe(200);
      await read(answer);
      expect(limitOf(kind, fake[kind].requests.at(-1)!.json), `${kind} asked with ${JSON.stringify(e)}`).toBe(expected);
    }
  }
  // a row's ceiling is the limit when the client sets none
  const ceiling = createRelay({ models: { a: { provider: made.anthropic, model: "m", config: { max_tokens: 700 } } } });
  await read(await ceiling.fetch(post("a"), env));
  expect(limitOf("anthropic", fake.anthropic.requests.at(-1)!.json)).toBe(700);
});

/** An Anthropic API that spends all it is asked for: its usage says `max_tokens` output tokens (64 000 when none is sent). */
function spendAll(input = 5) {
  const asked: unknown[] = [];
  const fetch = async (url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const body = (await new Request(url, init).json()) as { max_tokens?: number };
    asked.push(body.max_tokens);
    const n = body.max_tokens ?? 64_000;
    const events = [
      { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", content: [], usage: { input_tokens: input, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "word ".repeat(20) } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: n } },
      { type: "message_stop" },
    ];
    const text = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  };
  return { fetch, asked };
}

test("6 parallel requests on a 10 000-token day, a row without max_tokens: the total charged stays within the budget", async () => {
  const spender = spendAll();
  const relay = createRelay({
    models: { m: { provider: anthropic({ apiKey: "sk-ant-KEY-00000000", baseURL: "https://a.test", fetch: spender.fetch }), model: "claude" } },
    quotas: { default: { tokensPerDay: 10_000 } },
    limits: { defaultMaxTokens: 2000 },
  });
  const env = { RELAY_KEYS: KEYS };
  const answers = await Promise.all(Array.from({ length: 6 }, () => relay.fetch(post("m"), env)));
  const admitted = answers.filter((a) => a.status === 200);
  expect(admitted.length).toBeGreaterThan(0);
  for (const a of answers) {
    if (a.status === 200) await read(a);
    else expect(a.status).toBe(429);
  }
  expect(spender.asked.every((n) => n === 2000)).toBe(true);
  const [row] = await usageOf(relay, env);
  const estimateError = inputEstimate(MESSAGES, {}) * admitted.length; // (the input estimate's error, at most its size here)
  expect(row!.input_tokens + row!.output_tokens).toBeLessThanOrEqual(10_000 + estimateError);
  expect(row!.output_tokens).toBe(2000 * admitted.length);
});

test("a fallback target is asked for the same limit, a continuing target for what is left of the claim", async () => {
  const first = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, refuse: 529 } } });
  const second = fakeProvider("openai-chat", { streams: { m: chatCapture } });
  const a = (fetch: typeof first, extra: Partial<RelayModel> = {}) =>
    ({ provider: anthropic({ apiKey: "sk-ant-KEY-00000000", baseURL: "https://a.test", fetch }), model: "m", ...extra }) as RelayModel;
  const row = [a(first), { provider: openaiChat({ apiKey: "sk-o-KEY-000000000", baseURL: "https://o.test/v1", fetch: second }), model: "m" }];
  const relay = createRelay({ models: { fb: row }, limits: { defaultMaxTokens: 1234 } });
  const answer = await relay.fetch(post("fb"), { RELAY_KEYS: KEYS });
  await read(answer);
  expect(limitOf("anthropic", first.requests[0]!.json)).toBe(1234);
  expect(limitOf("openai-chat", second.requests[0]!.json)).toBe(1234);

  const cut = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, cutAfterEvents: 9 } } });
  const goOn = fakeProvider("anthropic", { streams: { m: anthropicCapture } });
  const continuing = createRelay({ models: { c: [a(cut, { continueOnFailure: true }), a(goOn)] }, limits: { defaultMaxTokens: 1234 } });
  const m = await read(await continuing.fetch(post("c"), { RELAY_KEYS: KEYS }));
  const asked = goOn.requests[0]!.json as { max_tokens: number; messages: { role: string; content: { text: string }[] }[] };
  const prefix = asked.messages.at(-1)!.content.map((p) => p.text).join("");
  expect(prefix.length).toBeGreaterThan(0);
  expect(asked.max_tokens).toBe(1234 - Math.ceil(new TextEncoder().encode(prefix).length / 4));
  expect(m.content_items).toHaveLength(1);
});

const delta = (text: string): UniEvent => ({ role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text } as never], usage_metadata: null, finish_reason: null });
const stop = (usage: object): UniEvent => ({ role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage as never, finish_reason: "stop" });

test("the settlement trusts a count only when whole, ≥ 0 and bounded; else (and where none came) its estimate, marked", () => {
  expect([0, 7, MAX_TRUSTED_TOKENS].map(trustedCount)).toEqual([0, 7, MAX_TRUSTED_TOKENS]);
  expect([-1, 1.5, 1e300, NaN, Infinity, MAX_TRUSTED_TOKENS + 1, "5", null].map(trustedCount)).toEqual(Array(8).fill(null));
  const hostile = new UsageMeter(50);
  hostile.see(delta("x".repeat(400)));
  hostile.see(stop({ cached_tokens: null, prompt_tokens: -1_000_000, thoughts_tokens: null, response_tokens: 1e300 }));
  expect(hostile.spent()).toMatchObject({ input: 50, output: 100, estimated: 150, usage_estimated: true, stopped: false });
  // no output count at all after the stop (an OpenAI-compatible stream without its usage chunk): the fragments' estimate
  const silent = new UsageMeter(3);
  silent.see(delta("y".repeat(4000)));
  silent.see(stop({ cached_tokens: null, prompt_tokens: 12, thoughts_tokens: null, response_tokens: null }));
  expect(silent.spent()).toMatchObject({ input: 12, output: 1000, estimated: 1000, usage_estimated: true });
  // what the provider reported before an early end is checked alike
  const early = new UsageMeter(9);
  expect(early.spent({ cached_tokens: -5, prompt_tokens: null, thoughts_tokens: null, response_tokens: -7 })).toMatchObject({ input: 9, output: 0 });
});

/** An OpenAI Chat API whose stream is `text` in 100-character chunks, then `usage` (or no usage chunk). */
function chatApi(text: string, usage?: object) {
  return async (): Promise<Response> => {
    const chunk = (delta: object, finish: string | null = null) => ({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
    const chunks: object[] = [chunk({ role: "assistant", content: "" })];
    for (let i = 0; i < text.length; i += 100) chunks.push(chunk({ content: text.slice(i, i + 100) }));
    chunks.push(chunk({}, "stop"));
    if (usage) chunks.push({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage });
    return new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
  };
}
const chatRelay = (fetch: () => Promise<Response>, tokensPerDay = 1_000) =>
  createRelay({
    models: { m: { provider: openaiChat({ apiKey: "sk-o-KEY-000000000", baseURL: "https://o.test/v1", fetch }), model: "gpt", config: { max_tokens: 100 } } },
    quotas: { default: { tokensPerDay } },
  });

test("hostile counts in a provider's stream: a negative input hands nothing back, 1e300 locks no one out, no usage chunk is estimated", async () => {
  const env = { RELAY_KEYS: KEYS };
  // -1 000 000 input tokens: without the check, every request would hand tokens back (30 of 30 admitted on a 300-token day)
  const negative = chatRelay(chatApi("a".repeat(40), { prompt_tokens: -1_000_000, completion_tokens: 10, total_tokens: -999_990 }), 300);
  const statuses: number[] = [];
  for (let i = 0; i < 30; i++) {
    const answer = await negative.fetch(post("m"), env);
    statuses.push(answer.status);
    await answer.arrayBuffer(); // (read as bytes: the stop event holds what the provider's reader passed on)
  }
  expect(statuses.filter((s) => s === 200).length).toBeLessThan(20); // (each costs ~17 of the day's 300, 107 reserved)
  const [row] = await usageOf(negative, env);
  expect(row!.input_tokens).toBeGreaterThan(0);

  // 1e300: estimated instead, the principal's next request admitted
  const huge = chatRelay(chatApi("b".repeat(40), { prompt_tokens: 1e300, completion_tokens: 1e300, total_tokens: 1e300 }));
  await (await huge.fetch(post("m"), env)).arrayBuffer();
  expect((await huge.fetch(post("m"), env)).status).toBe(200);

  // 4 000 characters, no usage chunk: 1 000 output tokens estimated (not 0)
  const silent = chatRelay(chatApi("c".repeat(4000)), 1_000_000);
  const answer = await silent.fetch(post("m"), env);
  const m = await read(answer);
  expect(m.usage_metadata?.response_tokens).toBeNull(); // (the stop event the client reads keeps the reader's null)
  const [silentRow] = await usageOf(silent, env);
  expect(silentRow!.output_tokens).toBe(1000);
  expect(silentRow!.estimated_tokens).toBeGreaterThanOrEqual(1000);
});

const responsesPost = (body: object, key = "alice-key-0123456789") =>
  new Request(`${ORIGIN}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-relay-key": key },
    body: JSON.stringify(body),
  });

test("POST /v1/responses with instructions, tools and metadata in any script: answered, the claim settled (concurrentStreams 1)", async () => {
  const { made } = providers();
  const relay = createRelay({ models: { m: { provider: made.anthropic, model: "m" } }, quotas: { default: { concurrentStreams: 1 } } });
  const env = { RELAY_KEYS: KEYS };
  for (const stream of [false, true]) {
    const answer = await relay.fetch(
      responsesPost({ model: "m", input: "你好", instructions: "请用中文回答", metadata: { 名前: "アリス" }, stream }),
      env,
    );
    expect(answer.status).toBe(200);
    if (stream) await answer.text();
    else expect(((await answer.json()) as { instructions: string }).instructions).toBe("请用中文回答");
  }
  expect((await relay.fetch(post("m"), env)).status).toBe(200);
});

test("every path out after a claim settles it: a provider refusing on every target, a stream object that fails", async () => {
  const refusing = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, refuse: 500 } } });
  const p = anthropic({ apiKey: "sk-ant-KEY-00000000", baseURL: "https://a.test", fetch: refusing });
  const relay = createRelay({ models: { m: [{ provider: p, model: "m" }, { provider: p, model: "m" }] }, quotas: { default: { concurrentStreams: 1 } } });
  for (let i = 0; i < 3; i++) expect((await relay.fetch(post("m"), { RELAY_KEYS: KEYS })).status).toBe(500);
  // a stream namespace whose object cannot be reached (the stub's fetch throws), then one that answers 503
  const { made } = providers();
  const durable = createRelay({ models: { m: { provider: made.anthropic, model: "m" } }, quotas: { default: { concurrentStreams: 1 } } });
  const failing = (fetch: () => Promise<Response>) => ({ RELAY_KEYS: KEYS, STREAMS: { idFromName: (n: string) => n, get: () => ({ fetch }) } });
  const thrown = failing(() => Promise.reject(new Error("Network connection lost")));
  expect((await durable.fetch(post("m"), thrown)).status).toBe(500);
  expect((await durable.fetch(post("m"), thrown)).status).toBe(500); // (not a 429: the first claim was settled)
  const refused = failing(() => Promise.resolve(Response.json({ error: { type: "Overloaded", message: "no" } }, { status: 503 })));
  expect((await durable.fetch(post("m"), refused)).status).toBe(503);
  expect((await durable.fetch(post("m"), refused)).status).toBe(503);
  const [row] = await usageOf(durable, { RELAY_KEYS: KEYS });
  expect(row!.requests).toBe(4); // (each refused request recorded once)
});

test("x-should-retry: false on a limit that will not clear soon (a day's budget, Retry-After > 60 s); absent on a short wait", async () => {
  const { made } = providers();
  const relay = createRelay({ models: { m: { provider: made.anthropic, model: "m" } }, quotas: { default: { tokensPerDay: 10 }, principals: { bob: { concurrentStreams: 0 } } } });
  const env = { RELAY_KEYS: KEYS };
  const spent = await relay.fetch(post("m"), env);
  expect(spent.status).toBe(429);
  expect(Number(spent.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(spent.headers.get("x-should-retry")).toBe(Number(spent.headers.get("retry-after")) > 60 ? "false" : null);
  const busy = await relay.fetch(post("m", {}, "bob-key-01234567890"), env);
  expect(busy.status).toBe(429);
  expect(busy.headers.get("retry-after")).toBe("5");
  expect(busy.headers.get("x-should-retry")).toBeNull();
});

test("the openai SDK (v6) gives up at once on a spent day instead of sleeping Retry-After", async () => {
  const { made } = providers();
  const relay = createRelay({ models: { m: { provider: made.anthropic, model: "m" } }, quotas: { default: { tokensPerDay: 10 } } });
  // (a day with more than a minute left: the budget's Retry-After is the seconds to UTC midnight)
  const now = new Date();
  if (86_400 - (now.getUTCHours() * 3600 + now.getUTCMinutes() * 60 + now.getUTCSeconds()) <= 61) return;
  let calls = 0;
  const client = new OpenAI({
    apiKey: "alice-key-0123456789",
    baseURL: `${ORIGIN}/v1`,
    fetch: (url: RequestInfo | URL, init?: RequestInit) => {
      calls++;
      const request = new Request(url, init);
      request.headers.set("x-relay-key", "alice-key-0123456789");
      return relay.fetch(request, { RELAY_KEYS: KEYS });
    },
  });
  const started = Date.now();
  await expect(client.responses.create({ model: "m", input: "Hi" })).rejects.toMatchObject({ status: 429 });
  expect(calls).toBe(1);
  expect(Date.now() - started).toBeLessThan(30_000);
}, 60_000);

test("quotas per principal: `principals` names RELAY_KEYS names; checked at the boundary (the option and RELAY_QUOTAS)", async () => {
  const { made } = providers();
  const env = { RELAY_KEYS: KEYS, RELAY_QUOTAS: JSON.stringify({ default: { requestsPerMinute: 5 }, principals: { alice: { requestsPerMinute: 1 } } }) };
  const relay = createRelay({ models: { m: { provider: made.anthropic, model: "m" } } });
  await read(await relay.fetch(post("m"), env));
  expect((await relay.fetch(post("m"), env)).status).toBe(429);
  for (let i = 0; i < 2; i++) {
    const bob = await relay.fetch(post("m", {}, "bob-key-01234567890"), env);
    expect(bob.status).toBe(200);
    await read(bob);
  }
  expect(() => checkQuotas({ principals: { alice: { tokensPerDay: -1 } } })).toThrow(/`quotas\.principals\["alice"\]\.tokensPerDay` must be a whole number/);
  expect(() => checkQuotas({ principals: { alice: { perDay: 1 } } })).toThrow(/principals\["alice"\]\.perDay` is no quota setting/);
  expect(() => checkQuotas({ principals: [] })).toThrow(/`quotas\.principals` must be an object/);
  expect(() => checkQuotas({ principals: { "anon:1.2.3.4": {} } })).toThrow(TypeError);
  expect(() => quotasOfVariable('{"principals": {"alice": {"requestsPerMinute": "1"}}}')).toThrow(/^RELAY_QUOTAS\.principals\["alice"\]\.requestsPerMinute/);
  expect(() => createRelay({ quotas: { principals: { bob: null } } as never })).toThrow(TypeError);
});

const claimOf = (principal: string, id: string, quota: Claim["quota"], tokens = 1): Claim => ({
  id,
  principal,
  model: "m",
  tokens,
  input: 1,
  until: Date.now() + 600_000,
  quota,
});
const settlement = (c: Claim, input: number, output: number) => ({ id: c.id, principal: c.principal, model: "m", input, output, estimated: 0, stopped: false });

test("books and ledger never forget a principal holding an open claim: its claim still counts, its day's spend stays", async () => {
  const quotas = new ProcessQuotas();
  const quota = { concurrentStreams: 1, tokensPerDay: 1000 };
  const first = claimOf("alice", "a1", quota, 100);
  expect(await quotas.claim(first)).toBeNull();
  await quotas.settle(settlement(first, 300, 300));
  expect(await quotas.claim(claimOf("alice", "a2", quota, 100))).toBeNull(); // (open: held while the others come)
  // more principals than the books and the ledger keep, each a settled stream
  for (let i = 0; i < Math.max(MAX_BOOKS, MAX_ROWS) + 10; i++) {
    const c = claimOf(`p${i}`, `c${i}`, {});
    await quotas.claim(c);
    await quotas.settle(settlement(c, 1, 1));
  }
  expect(quotas.size).toBeLessThanOrEqual(MAX_BOOKS + 1);
  expect((await quotas.claim(claimOf("alice", "a3", { tokensPerDay: 1000 }, 100)))?.type).toBeUndefined();
  expect((await quotas.claim(claimOf("alice", "a4", quota, 100)))?.type).toBe("RateLimitError"); // (a2 still counts)
  expect(await quotas.usage("alice")).toMatchObject([{ input_tokens: 300, output_tokens: 300 }]);
  // a claim settled twice as refused is recorded once
  await quotas.settle(settlement(claimOf("alice", "a3", {}), 0, 0));
  await quotas.settle(settlement(claimOf("alice", "a3", {}), 0, 0));
  expect((await quotas.usage("alice"))[0]!.requests).toBe(2);
});
