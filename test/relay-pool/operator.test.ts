// Issue #44, "what a new operator met", in workerd (the repository Worker and a relay of its models,
// as under wrangler dev): RELAY_KEYS with a short key or an anon: name is a configuration error (a
// 500 that names the setting, the rule in the log, no key anywhere), a non-admin ?all=1 names
// ADMIN_KEY, a page may read a 429's Retry-After (CORS), the library's 404 names every route, and a
// request that is not from the edge (no request.cf) is not keyed by a CF-Connecting-IP it sets.
import { env } from "cloudflare:test";
import { afterEach, expect, test, vi } from "vitest";
import worker from "../../worker/index.ts";
import { providerModels } from "../../worker/models.ts";
import { createRelay } from "../../src/relay/index.ts";
import { EDGE, newTag, ORIGIN } from "./relay.ts";

type Env = typeof env & Record<string, unknown>;
afterEach(() => vi.restoreAllMocks());

const ask = (tag: string, headers: Record<string, string> = {}, init: RequestInit = EDGE): Request =>
  new Request(`${ORIGIN}/v1/stream`, {
    ...init,
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "claude-fast", messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:text` }] }] }),
  });

test("RELAY_KEYS with a key under 8 characters: a 500 'misconfigured (RELAY_KEYS)' with a key or without, the rule in the log, no key shown", async () => {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const e = { ...env, RELAY_KEYS: JSON.stringify({ alice: "alice-key-0000000001", ci: "1234567" }) } as Env;
  for (const headers of [{ "x-relay-key": "alice-key-0000000001" }, {}] as Record<string, string>[]) {
    const answer = await worker.fetch(ask(newTag(), headers), e);
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(JSON.parse(text).error).toMatchObject({ type: "InternalError" });
    expect(JSON.parse(text).error.message).toMatch(/misconfigured \(RELAY_KEYS\)/);
    expect(text).not.toMatch(/1234567|alice-key/);
  }
  const log = logged.mock.calls.map((c) => c.map(String).join(" ")).join("\n");
  expect(log).toMatch(/relay: configuration error: RELAY_KEYS: the entry "ci": each key must be a string of 8 characters or more/);
  expect(log).not.toMatch(/1234567|alice-key/);
  // the chat routes say the same (they read the keys too)
  expect((await worker.fetch(new Request(`${ORIGIN}/api/chat/c-1/stream`, EDGE), e)).status).toBe(500);
});

test("a RELAY_KEYS name anon:<address> is refused: it would spend that anonymous client's quota", async () => {
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const e = { ...env, RELAY_KEYS: JSON.stringify({ "anon:203.0.113.1": "takes-the-quota-0001" }) } as Env;
  const answer = await worker.fetch(ask(newTag(), { "x-relay-key": "takes-the-quota-0001" }), e);
  expect(answer.status).toBe(500);
  expect(String(logged.mock.calls[0]?.[0])).toMatch(/names starting "anon:" are the relay's own/);
});

test("a non-admin GET /v1/usage?all=1 says admin rights (ADMIN_KEY) are needed; the library's 404 names every route", async () => {
  const e = { ...env, RELAY_KEY: "relay-key-for-tests", ADMIN_KEY: "admin-key-for-tests" } as Env;
  const all = await worker.fetch(new Request(`${ORIGIN}/v1/usage?all=1`, { headers: { "x-relay-key": "relay-key-for-tests" } }), e);
  expect(all.status).toBe(401);
  const { error } = (await all.json()) as { error: { message: string } };
  expect(error.message).toMatch(/admin rights.*ADMIN_KEY/);
  const relay = createRelay<Env>({ models: providerModels as never });
  const missing = await relay.fetch(new Request(`${ORIGIN}/v1/nothing`), env as Env);
  const message = ((await missing.json()) as { error: { message: string } }).error.message;
  for (const route of ["POST /v1/stream", "/v1/streams/<id>", "POST /v1/responses", "GET /v1/models", "GET /v1/usage"]) expect(message).toContain(route);
});

test("a page on another origin reads a 429's Retry-After (CORS); a request with no request.cf is not keyed by the CF-Connecting-IP it sets", async () => {
  const relay = createRelay<Env>({ models: providerModels as never, allowAnonymous: { perMinute: 1 } });
  const ip = `2001:db8:${Math.floor(Math.random() * 0xfff0) + 1}:7::1`;
  const from = { "cf-connecting-ip": ip, origin: "https://page.test" };
  const first = await relay.fetch(ask(newTag(), from), env as Env);
  expect(first.status).toBe(200);
  await first.arrayBuffer();
  const second = await relay.fetch(ask(newTag(), from), env as Env);
  expect(second.status).toBe(429);
  expect(second.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(second.headers.get("access-control-expose-headers")).toMatch(/Retry-After/);
  // not from the edge (no request.cf): a CF-Connecting-IP of one's own names no client; no address given, a 403 saying how
  const spoofed = await relay.fetch(ask(newTag(), { "cf-connecting-ip": "198.51.100.200" }, {}), env as Env);
  expect(spoofed.status).toBe(403);
  expect(((await spoofed.json()) as { error: { message: string } }).error.message).toMatch(/clientAddress/);
});
