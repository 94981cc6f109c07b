// Issue #44, "what a new operator met", in Node library mode (stateless relay, the kit's fakes): the
// anonymous client's address from what the runtime saw (address.ts: a header a client sets is not
// one, an IPv6 client's /64, the kit's serve giving the socket's), RELAY_KEYS's rules as a
// configuration error, the target that served (x-mmsp-target) and the log line of each move, a
// provider fetch that throws a plain Error (workerd's "Network connection lost") falling back, the
// CORS headers a page may read, the messages of ?all=1 and of an unknown route.
import * as http from "node:http";
import { readFileSync } from "node:fs";
import { afterEach, expect, test, vi } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import { createRelay, RelayConfigError, type RelayModel } from "../../../../src/relay/index.ts";
import { addressKey } from "../../../../src/relay/admission/address.ts";
import { CORS_EXPOSE_HEADERS } from "../../../../src/relay/admission/cors.ts";
import { connectionError } from "../../../../src/internal/http.ts";
import { ConnectionError } from "../../../../src/errors.ts";
import { fakeProvider, parseCapture, serve } from "../../../../src/testing/index.ts";

const capture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const ORIGIN = "https://relay.test";

afterEach(() => vi.restoreAllMocks());

/** An Anthropic target on the kit's fake (its faults: `refuse`, `cutAfterEvents`…). */
function target(faults: Record<string, unknown> = {}, extra: Partial<RelayModel> = {}) {
  const fake = fakeProvider("anthropic", { streams: { m: { capture, ...faults } } as never });
  const provider = anthropic({ apiKey: "sk-ant-a-KEY-000000", baseURL: "https://a.test", fetch: fake });
  return { fake, row: { provider, model: "m", ...extra } as RelayModel };
}
const body = JSON.stringify({ model: "fast", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] });
const post = (headers: Record<string, string> = {}, path = "/v1/stream"): Request =>
  new Request(`${ORIGIN}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

// ---- the anonymous client's address ------------------------------------------------------------

test("an IPv6 client is keyed by its /64 (:: expanded, zeros and case as one), an IPv4-mapped one by its IPv4; no address: null", () => {
  expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
  expect(addressKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
  expect(addressKey("2001:DB8:1:2::1")).toBe("2001:db8:1:2::/64");
  expect(addressKey("2001:0db8:0001:0002:ffff::9")).toBe("2001:db8:1:2::/64");
  expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
  expect(addressKey("::1")).toBe("0:0:0:0::/64");
  expect(addressKey("[2001:db8:1:2::1]")).toBe("2001:db8:1:2::/64");
  expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  expect(addressKey("::ffff:198.51.100.4")).toBe("198.51.100.4");
  expect(addressKey("::ffff:c633:6404")).toBe("198.51.100.4");
  expect(addressKey("64:ff9b::198.51.100.4")).toBe("64:ff9b:0:0::/64");
  for (const junk of ["", "unknown", "1.2.3", "256.1.1.1", "1:2:3:4:5:6:7:8:9", "1::2::3", "2001:db8:::1", "12345::", "::ffff:999.1.1.1"]) {
    expect(addressKey(junk), junk).toBeNull();
  }
});

test("library mode: a client-set CF-Connecting-IP changes nothing — perMinute 2 admits 2 of 8, through the kit's serve (the socket's address)", async () => {
  const { row, fake } = target();
  const relay = createRelay({ models: { fast: row }, allowAnonymous: { perMinute: 2 } });
  const server = await serve(relay.fetch, { http, env: {} });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const answer = await fetch(`${server.url}/v1/stream`, {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": `198.51.100.${i}` },
        body,
      });
      statuses.push(answer.status);
      await answer.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429, 429, 429]);
    expect(fake.requests).toHaveLength(2);
    // the usage a client reads is its own socket's principal, whatever header it sends
    const usage = await (await fetch(`${server.url}/v1/usage`, { headers: { "cf-connecting-ip": "198.51.100.1" } })).json();
    expect(usage.data.map((r: { principal: string }) => r.principal)).toEqual(["anon:127.0.0.1"]);
  } finally {
    await server.close();
  }
});

test("library mode: another anonymous client's usage cannot be read by naming its address in a header", async () => {
  const { row } = target();
  const relay = createRelay({ models: { fast: row }, allowAnonymous: true });
  await (await relay.fetch(post(), {}, { clientAddress: "203.0.113.1" })).arrayBuffer();
  const spy = await relay.fetch(new Request(`${ORIGIN}/v1/usage`, { headers: { "cf-connecting-ip": "203.0.113.1" } }), {}, {
    clientAddress: "203.0.113.2",
  });
  expect((await spy.json()).data).toEqual([]);
  const own = await relay.fetch(new Request(`${ORIGIN}/v1/usage`), {}, { clientAddress: "203.0.113.1" });
  expect((await own.json()).data.map((r: { principal: string }) => r.principal)).toEqual(["anon:203.0.113.1"]);
});

test("two addresses of one IPv6 /64 are one client (perMinute 1); another /64 counts apart", async () => {
  const { row } = target();
  const relay = createRelay({ models: { fast: row }, allowAnonymous: { perMinute: 1 } });
  const status = async (clientAddress: string) => {
    const answer = await relay.fetch(post(), {}, { clientAddress });
    await answer.arrayBuffer();
    return answer.status;
  };
  expect(await status("2001:db8:1:2::1")).toBe(200);
  expect(await status("2001:db8:1:2:ffff:eeee:dddd:cccc")).toBe(429);
  expect(await status("2001:db8:1:3::1")).toBe(200);
});

test("library mode without an address: an anonymous request for a model of the table is a 403 naming the ways to give it; the provider is not asked", async () => {
  const { row, fake } = target();
  const relay = createRelay({ models: { fast: row }, allowAnonymous: true });
  const answer = await relay.fetch(post({ "cf-connecting-ip": "203.0.113.1", "x-forwarded-for": "203.0.113.1" }), {});
  expect(answer.status).toBe(403);
  const { error } = await answer.json();
  expect(error.type).toBe("PermissionDeniedError");
  expect(error.message).toMatch(/clientAddress/);
  expect(error.message).toMatch(/trustedAddressHeader/);
  expect(error.message).toMatch(/TRUSTED_ADDRESS_HEADER/);
  expect(error.message).toMatch(/serve\(\)/);
  expect(fake.requests).toHaveLength(0);
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/usage`), {})).status).toBe(403);
  // a key needs no address
  const keyed = await relay.fetch(post({ "x-relay-key": "k".repeat(16) }), { RELAY_KEY: "k".repeat(16) });
  expect(keyed.status).toBe(200);
  await keyed.arrayBuffer();
});

test("the address sources: createRelay's clientAddress; the header the operator names (its last entry); on Cloudflare (request.cf) CF-Connecting-IP", async () => {
  const { row } = target();
  const principalOf = async (relay: ReturnType<typeof createRelay>, request: Request, env: object = {}) => {
    await (await relay.fetch(request, env)).arrayBuffer();
    const usage = await relay.fetch(new Request(`${ORIGIN}/v1/usage?all=1`, { headers: { "x-relay-key": "admin-key-0001" } }), {
      ADMIN_KEY: "admin-key-0001",
    });
    return (await usage.json()).data.map((r: { principal: string }) => r.principal);
  };
  const byOption = createRelay({ models: { fast: row }, allowAnonymous: true, clientAddress: (request) => request.headers.get("x-test-peer") });
  expect(await principalOf(byOption, post({ "x-test-peer": "::ffff:192.0.2.5", "cf-connecting-ip": "1.1.1.1" }))).toEqual(["anon:192.0.2.5"]);
  const byHeader = createRelay({ models: { fast: row }, allowAnonymous: true, trustedAddressHeader: "X-Forwarded-For" });
  expect(await principalOf(byHeader, post({ "x-forwarded-for": "10.9.9.9, 192.0.2.6", "cf-connecting-ip": "1.1.1.1" }))).toEqual([
    "anon:192.0.2.6",
  ]);
  const byVariable = createRelay({ models: { fast: row }, allowAnonymous: true });
  expect(await principalOf(byVariable, post({ "x-real-ip": "192.0.2.7" }), { TRUSTED_ADDRESS_HEADER: "x-real-ip" })).toEqual([
    "anon:192.0.2.7",
  ]);
  const onCloudflare = createRelay({ models: { fast: row }, allowAnonymous: true });
  const request = post({ "cf-connecting-ip": "192.0.2.8" });
  Object.defineProperty(request, "cf", { value: { colo: "AMS" } }); // (what workerd gives a request from the edge)
  expect(await principalOf(onCloudflare, request)).toEqual(["anon:192.0.2.8"]);
});

test("the address options are checked at the boundary", () => {
  const { row } = target();
  expect(() => createRelay({ models: { fast: row }, clientAddress: "1.2.3.4" as never })).toThrow(/clientAddress/);
  expect(() => createRelay({ models: { fast: row }, trustedAddressHeader: "x forwarded" })).toThrow(/trustedAddressHeader/);
  expect(() => createRelay({ models: { fast: row }, trustedAddressHeader: 1 as never })).toThrow(/trustedAddressHeader/);
  const relay = createRelay({ models: { fast: row }, allowAnonymous: true });
  return expect(relay.fetch(post(), {}, { clientAddress: 42 as never })).rejects.toThrow(/clientAddress/);
});

// ---- RELAY_KEYS: a configuration error --------------------------------------------------------

test("RELAY_KEYS with a key under 8 characters: a 500 saying the relay is misconfigured (RELAY_KEYS), with or without a key; the rule in the log; no key anywhere", async () => {
  const { row } = target();
  const relay = createRelay({ models: { fast: row } });
  const env = { RELAY_KEYS: JSON.stringify({ alice: "alice-key-000001", bob: "short" }) };
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  for (const headers of [{ "x-relay-key": "alice-key-000001" }, {}] as Record<string, string>[]) {
    const answer = await relay.fetch(post(headers), env);
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(JSON.parse(text).error.message).toMatch(/misconfigured \(RELAY_KEYS\)/);
    expect(text).not.toMatch(/short|alice-key/);
  }
  const log = logged.mock.calls.map((c) => String(c[0])).join("\n");
  expect(log).toMatch(/configuration error: RELAY_KEYS: the entry "bob": each key must be a string of 8 characters or more/);
  expect(log).not.toMatch(/short|alice-key/);
});

test("a RELAY_KEYS name anon:<address> cannot take an anonymous client's quota: a configuration error", async () => {
  const { row, fake } = target();
  const relay = createRelay({ models: { fast: row }, allowAnonymous: true });
  const env = { RELAY_KEYS: JSON.stringify({ "anon:203.0.113.1": "stolen-quota-key-01" }) };
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  const answer = await relay.fetch(post({ "x-relay-key": "stolen-quota-key-01" }), env, { clientAddress: "203.0.113.9" });
  expect(answer.status).toBe(500);
  expect((await answer.json()).error.message).toMatch(/misconfigured \(RELAY_KEYS\)/);
  expect(String(logged.mock.calls[0]?.[0])).toMatch(/names starting "anon:" are the relay's own/);
  expect(fake.requests).toHaveLength(0);
});

test("relay.checkEnv(env) says the same at a server's start: a RelayConfigError naming RELAY_KEYS and the rule, never a key", () => {
  const relay = createRelay({ models: { fast: target().row } });
  expect(() => relay.checkEnv({})).not.toThrow();
  expect(() => relay.checkEnv({ RELAY_KEYS: JSON.stringify({ a: "long-enough-key" }) })).not.toThrow();
  for (const [keys, rule] of [[{ a: "tiny" }, /8 characters or more/], [{ "anon:1.2.3.4": "long-enough-key" }, /anon:/], ["[1]", /JSON object/]] as const) {
    let error: unknown;
    try {
      relay.checkEnv({ RELAY_KEYS: typeof keys === "string" ? keys : JSON.stringify(keys) });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RelayConfigError);
    expect((error as RelayConfigError).setting).toBe("RELAY_KEYS");
    expect((error as Error).message).toMatch(rule);
    expect((error as Error).message).not.toMatch(/tiny|long-enough-key/);
  }
});

// ---- the target that served, the log of each move --------------------------------------------

test("two Anthropic targets: after a fallback x-mmsp-target names the second (its index, or its name); one log line names the failed target and why", async () => {
  const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
  const a = target({ refuse: 529 });
  const b = target();
  const relay = createRelay({ models: { fast: [a.row, b.row] }, allowAnonymous: true, clientAddress: () => "203.0.113.9" });
  const answer = await relay.fetch(post(), {});
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("anthropic");
  expect(answer.headers.get("x-mmsp-target")).toBe("1");
  await answer.arrayBuffer();
  expect(warned.mock.calls.map((c) => String(c[0]))).toEqual([
    'relay: model "fast": target 0 failed before its first event (HTTP 529 overloaded_error); asking target 1',
  ]);
  const logged = JSON.stringify(warned.mock.calls);
  expect(logged).not.toMatch(/sk-ant|Hi"/);

  const named = createRelay({
    models: { fast: [target({ refuse: 429 }, { name: "claude-eu" }).row, target({}, { name: "claude-us" }).row] },
    allowAnonymous: true,
    clientAddress: () => "203.0.113.9",
  });
  const served = await named.fetch(post(), {});
  expect(served.headers.get("x-mmsp-target")).toBe("claude-us");
  await served.arrayBuffer();
  expect(String(warned.mock.calls.at(-1)?.[0])).toMatch(/target claude-eu failed before its first event \(HTTP 429 [\w_]+\); asking target claude-us/);
  // no fallback: the first target, named by its index
  const one = await createRelay({ models: { fast: target().row }, allowAnonymous: true, clientAddress: () => "203.0.113.9" }).fetch(post(), {});
  expect(one.headers.get("x-mmsp-target")).toBe("0");
  await one.arrayBuffer();
});

test("a continuation is one log line too, naming the target cut mid-answer", async () => {
  const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
  const a = target({ cutAfterEvents: 6 }, { continueOnFailure: true, name: "first" });
  const b = target({}, { name: "second" });
  const relay = createRelay({ models: { fast: [a.row, b.row] }, allowAnonymous: true, clientAddress: () => "203.0.113.9" });
  const answer = await relay.fetch(post(), {});
  expect(answer.headers.get("x-mmsp-target")).toBe("first");
  await answer.arrayBuffer();
  expect(warned.mock.calls.map((c) => String(c[0]))).toEqual([
    'relay: model "fast": target first failed mid-answer (no connection); continuing with target second',
  ]);
});

test("a target's name is checked at the boundary", () => {
  for (const name of ["", "two words", "x".repeat(101), 7]) {
    expect(() => createRelay({ models: { fast: [target({}, { name: name as never }).row] } }), String(name)).toThrow(/\["fast"\]\[0\]\.name/);
  }
});

// ---- a fetch that throws before headers: no connection, in every runtime ------------------------

test("a provider's fetch that throws a plain Error (workerd's 'Network connection lost') is no connection: the next target serves", async () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
  for (const thrown of [new Error("Network connection lost."), new Error("internal error; reference = 0123"), "a string"]) {
    const down = anthropic({ apiKey: "sk-ant-a-KEY-000000", baseURL: "https://down.test", fetch: () => Promise.reject(thrown) });
    const b = target();
    const relay = createRelay({ models: { fast: [{ provider: down, model: "m" }, b.row] }, allowAnonymous: true, clientAddress: () => "203.0.113.9" });
    const answer = await relay.fetch(post(), {});
    expect(answer.status, String(thrown)).toBe(200);
    expect(answer.headers.get("x-mmsp-target")).toBe("1");
    await answer.arrayBuffer();
  }
  // (the shared rule: workerd's words are no answer for fromFetch too; an abort stays an abort)
  expect(connectionError(new Error("Network connection lost."), "https://h.test/x")).toBeInstanceOf(ConnectionError);
  expect(connectionError(new Error("odd"), "https://h.test/x", true)).toBeInstanceOf(ConnectionError);
  expect(connectionError(new Error("odd"), "https://h.test/x")).not.toBeInstanceOf(ConnectionError);
  const abort = new DOMException("stop", "AbortError");
  expect(connectionError(abort, "https://h.test/x", true)).toBe(abort);
});

// ---- CORS, messages ----------------------------------------------------------------------------

test("a page on another origin may read Retry-After, X-Should-Retry and X-MMSP-Target", async () => {
  for (const name of ["Retry-After", "X-Should-Retry", "X-MMSP-Target", "X-MMSP-Provider"]) expect(CORS_EXPOSE_HEADERS).toContain(name);
  const { row } = target();
  const relay = createRelay({ models: { fast: row }, allowAnonymous: { perMinute: 1 }, clientAddress: () => "203.0.113.9" });
  await (await relay.fetch(post({ origin: "https://page.test" }), {})).arrayBuffer();
  const refused = await relay.fetch(post({ origin: "https://page.test" }), {});
  expect(refused.status).toBe(429);
  expect(refused.headers.get("access-control-expose-headers")).toMatch(/Retry-After/);
});

test("a non-admin GET /v1/usage?all=1 says admin rights (ADMIN_KEY) are needed; an unknown route lists every route", async () => {
  const relay = createRelay({ models: { fast: target().row } });
  const env = { ADMIN_KEY: "admin-key-0001", RELAY_KEY: "relay-key-0001" };
  const all = await relay.fetch(new Request(`${ORIGIN}/v1/usage?all=1`, { headers: { "x-relay-key": "relay-key-0001" } }), env);
  expect(all.status).toBe(401);
  const { error } = await all.json();
  expect(error.message).toMatch(/admin rights/);
  expect(error.message).toMatch(/ADMIN_KEY/);
  expect(error.message).not.toMatch(/This relay needs a key/);
  const missing = await relay.fetch(new Request(`${ORIGIN}/v2/nothing`), {});
  expect(missing.status).toBe(404);
  const message = (await missing.json()).error.message;
  for (const route of ["POST /v1/stream", "/v1/streams/<id>", "POST /v1/responses", "/v1/responses/<id>", "GET /v1/models", "GET /v1/usage"]) {
    expect(message).toContain(route);
  }
});
