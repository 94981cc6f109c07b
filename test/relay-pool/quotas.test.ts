// Quotas and usage (issue #37, SPEC §10 "Principals and quotas") in workerd, through the real
// Durable Objects (STREAMS, QUOTAS: SQLite), the repository Worker's provider-backed models
// (worker/models.ts: "claude-fast" → the scripted Anthropic of providers.ts: input 12, output 6 for
// a whole answer). Each test names its own principals (a tag), so no test sees another's counts.
import { env } from "cloudflare:test";
import { expect, test } from "vitest";
import { providerModels } from "../../worker/models.ts";
import worker from "../../worker/index.ts";
import { createRelay, type RelayModel, type RelayOptions } from "../../src/relay/index.ts";
import { fromResponse, UpstreamError } from "../../src/index.ts";
import { EDGE, newTag, ORIGIN, readRecords, records, rest, streamIdOf } from "./relay.ts";

type Env = typeof env & Record<string, unknown>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A relay of the Worker's models with these options, its env with RELAY_KEYS naming `keys`. */
function setup(options: Partial<RelayOptions<Env>> = {}, keys: Record<string, string> = {}, vars: Record<string, string> = {}) {
  const relay = createRelay<Env>({ models: providerModels as never, ...options });
  const e: Env = { ...env, ...vars, ...(Object.keys(keys).length ? { RELAY_KEYS: JSON.stringify(keys) } : {}) };
  const call = (path: string, init: RequestInit = {}) => relay.fetch(new Request(`${ORIGIN}${path}`, { ...EDGE, ...init }), e);
  const post = (headers: Record<string, string>, tag: string, script = "text", config: object = {}) =>
    call("/v1/stream", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({
        model: "claude-fast",
        messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:${script}` }] }],
        config,
      }),
    });
  const usage = async (headers: Record<string, string>, query = ""): Promise<{ object: string; data: Record<string, unknown>[] }> => {
    const answer = await call(`/v1/usage${query}`, { headers });
    expect(answer.status, await answer.clone().text()).toBe(200);
    return answer.json();
  };
  return { relay, call, post, usage };
}

/** What the scripted providers saw of a tag. */
async function providerSaw(tag: string): Promise<{ count: number; body: string }> {
  return (await (await fetch(`http://upstream.test/__provider?tag=${tag}`)).json()) as { count: number; body: string };
}

/** Polls `read` until `ok` (a settlement is written after the stream's end, in the object's waitUntil). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await sleep(50);
  }
}

const keyOf = (name: string) => `key-of-${name}-0123456789`;
const as = (name: string) => ({ "x-relay-key": keyOf(name) });

test("two principals (RELAY_KEYS) with separate limits: one's 429 RateLimitError with Retry-After, the other's streams go on", async () => {
  const [alice, bob] = [`alice-${newTag()}`, `bob-${newTag()}`];
  const { post } = setup({ quotas: { default: { requestsPerMinute: 2 } } }, { [alice]: keyOf(alice), [bob]: keyOf(bob) });
  for (let i = 0; i < 2; i++) {
    const ok = await post(as(alice), newTag());
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  }
  const tag = newTag();
  const refused = await post(as(alice), tag);
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe("RateLimitError");
  expect((await providerSaw(tag)).count).toBe(0);
  const other = await post(as(bob), newTag());
  expect(other.status).toBe(200);
  await other.arrayBuffer();
  // a key that is none of them: 401
  expect((await post({ "x-relay-key": "not-a-key-of-anyone" }, newTag())).status).toBe(401);
});

test("authorize's { principal, quota } names the principal and its own limit", async () => {
  const user = `user-${newTag()}`;
  const { post, usage } = setup({
    authorize: (request) => ({ principal: request.headers.get("x-user") ?? "nobody", quota: { requestsPerMinute: 1 } }),
  });
  const ok = await post({ "x-user": user }, newTag());
  expect(ok.status).toBe(200);
  await ok.arrayBuffer();
  expect((await post({ "x-user": user }, newTag())).status).toBe(429);
  const rows = await until(() => usage({ "x-user": user }), (u) => u.data.length > 0);
  expect(rows.data).toMatchObject([{ principal: user, model: "claude-fast", requests: 1 }]);
});

test("a budget is refused before the provider is asked: 429 BudgetExceeded, Retry-After to the next UTC midnight", async () => {
  const name = `budget-${newTag()}`;
  // (the row's max_tokens is 2048: the reservation is the input estimate plus 2048)
  const { post } = setup({ quotas: { default: { tokensPerDay: 1000 } } }, { [name]: keyOf(name) });
  const tag = newTag();
  const answer = await post(as(name), tag);
  expect(answer.status).toBe(429);
  const { error } = (await answer.json()) as { error: { type: string; message: string } };
  expect(error.type).toBe("BudgetExceeded");
  const retry = Number(answer.headers.get("retry-after"));
  const midnight = Math.ceil((Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1) - Date.now()) / 1000);
  expect(Math.abs(retry - midnight)).toBeLessThanOrEqual(2);
  expect((await providerSaw(tag)).count).toBe(0);
  // a smaller max_tokens fits
  const fits = await post(as(name), newTag(), "text", { max_tokens: 100 });
  expect(fits.status).toBe(200);
  await fits.arrayBuffer();
});

test("a completed stream's ledger entry is the provider's usage (input 12, output 6), not estimated", async () => {
  const name = `done-${newTag()}`;
  const { post, usage } = setup({}, { [name]: keyOf(name) });
  const answer = await post(as(name), newTag());
  expect(answer.status).toBe(200);
  await answer.arrayBuffer();
  const { object, data } = await until(() => usage(as(name)), (u) => u.data.length > 0);
  expect(object).toBe("list");
  expect(data).toEqual([{
    principal: name,
    model: "claude-fast",
    day: new Date().toISOString().slice(0, 10),
    requests: 1,
    input_tokens: 12,
    output_tokens: 6,
    estimated_tokens: 0,
    stopped: 0,
  }]);
});

test("a stopped stream: its error event carries usage_metadata (the provider's input at message_start, the output estimated) and usage_estimated, the reader's UpstreamError too; the ledger's entry says what is estimated", async () => {
  const name = `stop-${newTag()}`;
  const { post, usage, call } = setup({}, { [name]: keyOf(name) }, { ADMIN_KEY: "admin-key-0123456789" });
  const answer = await post(as(name), newTag(), "endless");
  expect(answer.status).toBe(200);
  const id = streamIdOf(answer);
  const { text, reader } = await readRecords(answer.body!, 6);
  const deleted = await call(`/v1/streams/${id}`, { method: "DELETE", headers: as(name) });
  expect(deleted.status).toBe(204);
  const all = text + (await rest(reader));
  const last = records(all).filter((r) => r.data !== "[DONE]").at(-1)!;
  const { error } = JSON.parse(last.data) as { error: Record<string, unknown> };
  expect(error.type).toBe("StreamCancelled");
  expect(error.usage_estimated).toBe(true);
  const usageOf = error.usage_metadata as Record<string, number | null>;
  expect(usageOf.response_tokens).toBeGreaterThan(0);
  expect(usageOf.prompt_tokens).toBe(12); // what the provider's message_start said, not the relay's estimate of the request
  // the reader exposes them on its UpstreamError
  const { readable } = fromResponse(new Response(all, { headers: { "content-type": "text/event-stream" } }));
  const caught = await (async () => {
    for await (const _ of readable);
  })().then(() => null, (e: unknown) => e);
  expect(caught).toBeInstanceOf(UpstreamError);
  expect((caught as UpstreamError).usage_metadata).toEqual(usageOf);
  expect((caught as UpstreamError).usageEstimated).toBe(true);
  const { data } = await until(() => usage(as(name)), (u) => u.data.length > 0);
  const row = data[0]!;
  expect(row).toMatchObject({ principal: name, requests: 1, stopped: 1 });
  expect(row.input_tokens).toBe(usageOf.prompt_tokens);
  expect(row.output_tokens).toBe(usageOf.response_tokens);
  expect(row.estimated_tokens).toBe(row.output_tokens); // (the input is the provider's count)
  // ?all=1 needs ADMIN_KEY, and lists this principal among all
  expect((await call("/v1/usage?all=1", { headers: as(name) })).status).toBe(401);
  // (the "all" object's copy is written once the principal's object recorded it)
  const listed = (u: { data: Record<string, unknown>[] }) => u.data.some((r) => r.principal === name && r.stopped === 1);
  const everyone = await until(() => usage({ "x-relay-key": "admin-key-0123456789" }, "?all=1"), listed);
  expect(listed(everyone)).toBe(true);
});

test("anonymous quotas per client (allowAnonymous's perMinute): each CF-Connecting-IP its own count, held in QUOTAS", async () => {
  const { post, usage } = setup({ allowAnonymous: { perMinute: 1 } });
  // (two clients of this run only: a random /64 each, keyed as such)
  const random64 = () => `2001:db8:${crypto.getRandomValues(new Uint16Array(2)).map((n) => n | 1).join(":").replace(/\d+/g, (n) => Number(n).toString(16))}`;
  const [a64, b64] = [random64(), random64()];
  const [a, b] = [`${a64}::1`, `${b64}:0:0:0:2`];
  const first = await post({ "cf-connecting-ip": a }, newTag());
  expect(first.status).toBe(200);
  await first.arrayBuffer();
  expect((await post({ "cf-connecting-ip": a }, newTag())).status).toBe(429);
  // another relay instance (another isolate's) sees the same count: it is the namespace's
  expect((await setup({ allowAnonymous: { perMinute: 1 } }).post({ "cf-connecting-ip": a }, newTag())).status).toBe(429);
  const other = await post({ "cf-connecting-ip": b }, newTag());
  expect(other.status).toBe(200);
  await other.arrayBuffer();
  const mine = await until(() => usage({ "cf-connecting-ip": a }), (u) => u.data.length > 0);
  expect(mine.data.map((r) => r.principal)).toEqual([`anon:${a64}::/64`]);
  // another address of a's /64 is a
  expect((await post({ "cf-connecting-ip": `${a64}:ffff:ffff:ffff:ffff` }, newTag())).status).toBe(429);
});

test("concurrentStreams: a place is released when a stream ends, however it ends (stop, completion, the provider's refusal)", async () => {
  const name = `conc-${newTag()}`;
  const { post, call } = setup({ quotas: { default: { concurrentStreams: 1 } } }, { [name]: keyOf(name) });
  const retryUntilOk = (script: string) =>
    until(async () => {
      const r = await post(as(name), newTag(), script);
      if (r.status !== 200) await r.arrayBuffer();
      return r;
    }, (r) => r.status === 200);
  // stopped
  const endless = await post(as(name), newTag(), "endless");
  expect(endless.status).toBe(200);
  const busy = await post(as(name), newTag());
  expect(busy.status).toBe(429);
  expect(((await busy.json()) as { error: { type: string } }).error.type).toBe("RateLimitError");
  const { reader } = await readRecords(endless.body!, 2);
  await (await call(`/v1/streams/${streamIdOf(endless)}`, { method: "DELETE", headers: as(name) })).arrayBuffer();
  await reader.cancel();
  // completed
  const done = await retryUntilOk("text");
  expect(done.status).toBe(200);
  await done.arrayBuffer();
  // the provider's refusal (429 from the provider: passed on, nothing kept)
  const refusedByProvider = await until(async () => {
    const r = await post(as(name), newTag(), "refuse");
    await r.arrayBuffer();
    return r;
  }, (r) => r.status !== 429 || r.headers.get("retry-after") === null);
  expect(refusedByProvider.headers.get("x-mmsp-provider")).toBeNull();
  const after = await retryUntilOk("text");
  expect(after.status).toBe(200);
  await after.arrayBuffer();
});

test("/api/chat (the repository Worker, RELAY_QUOTAS): the chat's stream object settles the claim, so concurrentStreams is freed", async () => {
  const name = `chat-${newTag()}`;
  const e = {
    ...env,
    RELAY_KEYS: JSON.stringify({ [name]: keyOf(name) }),
    RELAY_QUOTAS: JSON.stringify({ default: { concurrentStreams: 1 } }),
  } as Env;
  const chat = (tag: string) =>
    worker.fetch(
      new Request(`${ORIGIN}/api/chat`, {
        ...EDGE,
        method: "POST",
        headers: { "content-type": "application/json", ...as(name) },
        body: JSON.stringify({
          id: `chat-${tag}`,
          model: "claude-fast",
          messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: `tag:${tag}` }] }],
        }),
      }),
      e,
    );
  const first = await chat(newTag());
  expect(first.status).toBe(200);
  await first.arrayBuffer();
  const second = await until(async () => {
    const r = await chat(newTag());
    if (r.status !== 200) await r.arrayBuffer();
    return r;
  }, (r) => r.status === 200);
  expect(second.status).toBe(200);
  await second.arrayBuffer();
  const rows = await until(() => setup({}, { [name]: keyOf(name) }).usage(as(name)), (u) => Number(u.data[0]?.requests) === 2);
  expect(rows.data).toMatchObject([{ principal: name, requests: 2, input_tokens: 24, output_tokens: 12 }]);
});

// Issue #44, "The budget", in workerd with the Durable Objects (QUOTAS, STREAMS).
const openRow = (e: Env) => ({ "claude-fast": { ...(providerModels(e as never)["claude-fast"] as RelayModel), config: {} } });

test("a row without max_tokens (stateless in workerd, QUOTAS): the provider is asked for the reserve (DEFAULT_MAX_TOKENS) and the claim holds that much; a spent day says x-should-retry: false", async () => {
  const name = `reserve-${newTag()}`;
  // (the stream objects of STREAMS are the repository Worker's, with its own table: this relay is stateless)
  const { post } = setup({ models: openRow as never, quotas: { default: { tokensPerDay: 3000 } } }, { [name]: keyOf(name) }, {
    DEFAULT_MAX_TOKENS: "2500",
    STREAMS: undefined as never,
  });
  const tag = newTag();
  const first = await post(as(name), tag);
  expect(first.status).toBe(200);
  await first.arrayBuffer();
  expect(JSON.parse((await providerSaw(tag)).body).max_tokens).toBe(2500);
  // one more fits (18 spent, 2 500 and the input reserved); a third while it is open does not
  const second = await until(async () => {
    const r = await post(as(name), newTag(), "endless");
    if (r.status !== 200) await r.arrayBuffer();
    return r;
  }, (r) => r.status === 200);
  expect(second.status).toBe(200);
  const { reader } = await readRecords(second.body!, 2);
  const third = await post(as(name), newTag());
  expect(third.status).toBe(429);
  expect(((await third.json()) as { error: { type: string } }).error.type).toBe("BudgetExceeded");
  expect(third.headers.get("x-should-retry")).toBe(Number(third.headers.get("retry-after")) > 60 ? "false" : null);
  await reader.cancel();
});

test("Open Responses with instructions in Chinese through the stream's object: answered, replayed with its echo, the claim settled (concurrentStreams 1)", async () => {
  const name = `zh-${newTag()}`;
  const { call } = setup({ quotas: { default: { concurrentStreams: 1 } } }, { [name]: keyOf(name) });
  const ask = (tag: string) =>
    call("/v1/responses", {
      method: "POST",
      headers: { "content-type": "application/json", ...as(name) },
      body: JSON.stringify({ model: "claude-fast", input: `tag:${tag}`, instructions: "请用中文回答", metadata: { 名前: "アリス" } }),
    });
  const answer = await ask(newTag());
  expect(answer.status, await answer.clone().text()).toBe(200);
  const resource = (await answer.json()) as { id: string; instructions: string; metadata: Record<string, string> };
  expect(resource.instructions).toBe("请用中文回答");
  const replay = (await (await call(`/v1/responses/${resource.id}`, { headers: as(name) })).json()) as typeof resource;
  expect([replay.instructions, replay.metadata]).toEqual(["请用中文回答", { 名前: "アリス" }]);
  const next = await until(async () => {
    const r = await ask(newTag());
    await r.arrayBuffer();
    return r;
  }, (r) => r.status === 200);
  expect(next.status).toBe(200);
});

test("every path out after a claim settles it: a stream object that cannot be reached, a provider's refusal settled once (QUOTAS)", async () => {
  const name = `lost-${newTag()}`;
  const { relay, usage } = setup({ quotas: { default: { concurrentStreams: 1 } } }, { [name]: keyOf(name) });
  const lost = {
    ...env,
    RELAY_KEYS: JSON.stringify({ [name]: keyOf(name) }),
    STREAMS: { idFromName: (n: string) => n, get: () => ({ fetch: () => Promise.reject(new Error("Network connection lost")) }) },
  } as unknown as Env;
  const ask = (e: Env, script = "text") =>
    relay.fetch(
      new Request(`${ORIGIN}/v1/stream`, {
        method: "POST",
        headers: { "content-type": "application/json", ...as(name) },
        body: JSON.stringify({ model: "claude-fast", messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${newTag()} script:${script}` }] }] }),
      }),
      e,
    );
  expect((await ask(lost)).status).toBe(500);
  const again = await until(() => ask(lost), (r) => r.status !== 429);
  expect(again.status).toBe(500);
  // the provider's refusal: the stream's object settles the claim, the Worker's settlement of it again is not counted
  const refused = await until(async () => {
    const r = await ask({ ...env, RELAY_KEYS: JSON.stringify({ [name]: keyOf(name) }) } as Env, "refuse");
    await r.arrayBuffer();
    return r;
  }, (r) => r.headers.get("x-mmsp-provider") === null && r.status === 429 && r.headers.get("retry-after") === null);
  expect(refused.status).toBe(429);
  const done = await until(async () => {
    const r = await ask({ ...env, RELAY_KEYS: JSON.stringify({ [name]: keyOf(name) }) } as Env);
    await r.arrayBuffer();
    return r;
  }, (r) => r.status === 200);
  expect(done.status).toBe(200);
  const rows = await until(() => usage(as(name)), (u) => Number(u.data[0]?.input_tokens) === 12);
  expect(rows.data).toMatchObject([{ principal: name, requests: 4, input_tokens: 12, output_tokens: 6 }]);
});

test("quotas per principal in RELAY_QUOTAS: the named principal's own limit, the others the default", async () => {
  const [alice, bob] = [`alice-${newTag()}`, `bob-${newTag()}`];
  const quotas = JSON.stringify({ default: { requestsPerMinute: 5 }, principals: { [alice]: { requestsPerMinute: 1 } } });
  const { post } = setup({}, { [alice]: keyOf(alice), [bob]: keyOf(bob) }, { RELAY_QUOTAS: quotas });
  const first = await post(as(alice), newTag());
  expect(first.status).toBe(200);
  await first.arrayBuffer();
  expect((await post(as(alice), newTag())).status).toBe(429);
  for (let i = 0; i < 2; i++) {
    const ok = await post(as(bob), newTag());
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
  }
});
