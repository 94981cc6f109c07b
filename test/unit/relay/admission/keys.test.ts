// Issue #44, "Tests that see the money": the relay's key offered as `Authorization: Bearer <key>`
// (principal.ts, bind.ts) is accepted as `x-relay-key` is, for RELAY_KEY and for each RELAY_KEYS
// entry (whose principal then spends), and it goes no further than the relay. In Node, stateless,
// against the kit's fakeProvider.
import { readFileSync } from "node:fs";
import { expect, test, vi } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

const KEY = "sk-ant-keys-KEY-00000000";
const capture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));

function setup() {
  const fake = fakeProvider("anthropic", { streams: { "claude-test": capture }, key: KEY });
  const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake });
  const relay = createRelay({ models: { fast: { provider, model: "claude-test", config: { max_tokens: 64 } } } });
  const post = (headers: Record<string, string>, env: object) =>
    relay.fetch(
      new Request("https://relay.test/v1/stream", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ model: "fast", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] }),
      }),
      env,
    );
  return { fake, relay, post };
}

test("RELAY_KEY offered as Authorization: Bearer <key> is the relay's key: the stream is served, the key not sent upstream", async () => {
  const { fake, post } = setup();
  const env = { RELAY_KEY: "relay-key-bearer-0001" };
  const answer = await post({ authorization: "Bearer relay-key-bearer-0001" }, env);
  expect(answer.status, await answer.clone().text()).toBe(200);
  expect(await answer.text()).toMatch(/"finish_reason":"stop"/);
  expect(fake.requests).toHaveLength(1);
  expect(fake.requests[0]!.authorized).toBe(true); // (the operator's key reached the provider, not the client's)
  expect(JSON.stringify(fake.requests[0]).includes("relay-key-bearer-0001")).toBe(false);
  // the scheme's case is free, as HTTP says; a wrong key is a 401
  expect((await post({ authorization: "bearer relay-key-bearer-0001" }, env)).status).toBe(200);
  expect((await post({ authorization: "Bearer not-the-key-00" }, env)).status).toBe(401);
  expect((await post({}, env)).status).toBe(401);
});

test("a RELAY_KEYS key offered as Authorization: Bearer <key> spends for its name (GET /v1/usage read with the same header)", async () => {
  const { relay, post } = setup();
  const env = { RELAY_KEYS: JSON.stringify({ alice: "alice-key-0123456789", bob: "bob-key-0123456789" }) };
  const bearer = { authorization: "Bearer bob-key-0123456789" };
  const answer = await post(bearer, env);
  expect(answer.status, await answer.clone().text()).toBe(200);
  await answer.arrayBuffer();
  const usage = await relay.fetch(new Request("https://relay.test/v1/usage", { headers: bearer }), env);
  expect(usage.status).toBe(200);
  expect(((await usage.json()) as { data: unknown[] }).data).toMatchObject([{ principal: "bob", model: "fast", requests: 1 }]);
  expect((await post({ authorization: "Bearer carol-key-0123456789" }, env)).status).toBe(401);
});

test("the relay's key in Authorization goes no further than the relay (RELAY_KEY or a RELAY_KEYS key); another Authorization is the upstream's", async () => {
  const relay = createRelay({ upstream: "https://mmsp.internal/v1" });
  const admit = async (headers: Record<string, string>, env: object) => {
    const admitted = await relay.admit(
      new Request("https://relay.test/v1/stream", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" }),
      env,
    );
    expect(admitted, JSON.stringify(headers)).toBeInstanceOf(Request);
    return (admitted as Request).headers.get("authorization");
  };
  const one = { RELAY_KEY: "relay-key-bearer-0002" };
  const many = { RELAY_KEYS: JSON.stringify({ app: "app-key-0123456789" }) };
  expect(await admit({ authorization: "Bearer relay-key-bearer-0002" }, one)).toBeNull();
  expect(await admit({ authorization: "Bearer app-key-0123456789" }, many)).toBeNull();
  expect(await admit({ "x-relay-key": "app-key-0123456789", authorization: "Bearer the-upstream-token" }, many)).toBe("Bearer the-upstream-token");
  expect(await admit({ authorization: "Bearer the-upstream-token" }, {})).toBe("Bearer the-upstream-token");
});

test("a RELAY_KEYS key under 8 characters admits nobody: the request is not served and the provider not asked", async () => {
  const { fake, post } = setup();
  const logged = vi.spyOn(console, "error").mockImplementation(() => {}); // (a configuration error is the operator's: logged)
  try {
    const answer = await post({ "x-relay-key": "short" }, { RELAY_KEYS: JSON.stringify({ app: "short" }) });
    expect(answer.status).not.toBe(200);
    await answer.arrayBuffer();
    expect(fake.requests).toHaveLength(0);
  } finally {
    logged.mockRestore();
  }
});
