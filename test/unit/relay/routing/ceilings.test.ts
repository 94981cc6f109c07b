// Issue #44, "Tests that see the money": a row's ceilings and switches (src/relay/routing/ceilings.ts) at
// their edges, in Node through createRelay (stateless, keyed: RELAY_KEY) and the kit's fakeProvider.
// Asking for exactly a ceiling is within it; a row whose `fast_mode` is false does not offer it.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import { createRelay, type RelayModel } from "../../../../src/relay/index.ts";
import { configWithin } from "../../../../src/relay/routing/ceilings.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

const KEY = "sk-ant-ceilings-KEY-0000";
const capture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const ENV = { RELAY_KEY: "relay-key-ceilings" };

function setup(rows: Record<string, Partial<RelayModel>>) {
  const fake = fakeProvider("anthropic", { streams: { "claude-test": capture }, key: KEY });
  const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake });
  const models = Object.fromEntries(Object.entries(rows).map(([name, row]) => [name, { provider, model: "claude-test", ...row } as RelayModel]));
  const relay = createRelay({ models });
  /** The client's config for `model`: the answer's status, its error, and what the provider was asked (undefined: not asked). */
  const ask = async (model: string, config: object) => {
    const before = fake.requests.length;
    const answer = await relay.fetch(
      new Request("https://relay.test/v1/stream", {
        method: "POST",
        headers: { "content-type": "application/json", "x-relay-key": ENV.RELAY_KEY },
        body: JSON.stringify({ model, messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config }),
      }),
      ENV,
    );
    const text = await answer.text();
    const error = answer.ok ? undefined : (JSON.parse(text) as { error: { type: string; parameter?: string } }).error;
    const asked = fake.requests.length > before ? (fake.requests.at(-1)!.json as Record<string, unknown>) : undefined;
    return { status: answer.status, error, asked };
  };
  return { ask };
}

test("asking for exactly a ceiling is within it: max_tokens, temperature and top_p equal to the row's are sent as asked", async () => {
  const { ask } = setup({ capped: { config: { max_tokens: 100, temperature: 0.5, top_p: 0.9 } } });
  const equal = await ask("capped", { max_tokens: 100, temperature: 0.5, top_p: 0.9 });
  expect(equal.status, JSON.stringify(equal.error)).toBe(200);
  expect(equal.asked).toMatchObject({ max_tokens: 100, temperature: 0.5, top_p: 0.9 });
  // one past each is refused, naming it (the edge is the row's number itself)
  for (const [key, value] of [["max_tokens", 101], ["temperature", 0.51], ["top_p", 0.91]] as const) {
    const over = await ask("capped", { [key]: value });
    expect(over.status, key).toBe(400);
    expect(over.error).toMatchObject({ type: "InvalidRequestError", parameter: key });
    expect(over.asked).toBeUndefined();
  }
  // the same edge in configWithin itself
  expect(configWithin({ max_tokens: 100 }, undefined, { max_tokens: 100 })).toMatchObject({ max_tokens: 100 });
  expect(configWithin({ temperature: 0 }, undefined, { temperature: 0 })).toMatchObject({ temperature: 0 });
});

test("a row with fast_mode: false does not offer the fast tier: a client's fast_mode true is a 400 UnsupportedParameterError, the provider not asked", async () => {
  const { ask } = setup({ slowTier: { config: { fast_mode: false } }, fastTier: { config: { fast_mode: true } } });
  const refused = await ask("slowTier", { fast_mode: true });
  expect(refused.status).toBe(400);
  expect(refused.error).toMatchObject({ type: "UnsupportedParameterError", parameter: "fast_mode" });
  expect(refused.asked).toBeUndefined();
  // (false asked of it is fine; a row with it on lets the client ask for it)
  expect((await ask("slowTier", { fast_mode: false })).status).toBe(200);
  expect((await ask("fastTier", { fast_mode: true })).status).toBe(200);
  const within = configWithin({ fast_mode: false }, undefined, { fast_mode: true });
  expect(within).toBeInstanceOf(Response);
  expect((within as Response).status).toBe(400);
  // allow names it: then it is the row's operator's choice
  expect(configWithin({ fast_mode: false }, { fast_mode: true }, { fast_mode: true })).toMatchObject({ fast_mode: true });
});

test("tools other than a list (a name, an object, null) are refused as a malformed request: a 400 naming config.tools, not the relay's 500", async () => {
  const weather = { name: "get_weather", description: "The weather of a city", parameters: { type: "object", properties: {} } };
  const { ask } = setup({ tooled: { config: { tools: [weather] } } });
  for (const tools of ["get_weather", weather, null, 1]) {
    const refused = await ask("tooled", { tools });
    expect(refused.status, JSON.stringify(tools)).toBe(400);
    expect(refused.error).toMatchObject({ type: "InvalidRequestError", parameter: "tools" });
    expect(JSON.stringify(refused.error)).not.toContain("offer");
    expect(refused.asked).toBeUndefined();
  }
});
