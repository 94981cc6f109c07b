// Issue #44, "Tests that see the money": what the client is told when a provider fails, in Node
// (stateless, keyed: RELAY_KEY) against the kit's fakeProvider. A 5xx of the first target is a
// refusal a retry may mend: the next target serves (fallback.ts). A non-streamed Open Responses
// answer whose stream failed is the spec's error with a failing status, never a 200 (open-responses.ts).
import { readFileSync } from "node:fs";
import { expect, test, vi } from "vitest";
import { anthropic, openaiChat } from "../../../../src/providers/index.ts";
import { createRelay, type RelayModel, type RelayModels } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

const anthropicCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const chatCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/openai-chat.sse", import.meta.url), "utf8"));
const ENV = { RELAY_KEY: "relay-key-failures-01" };

function target(kind: "anthropic" | "openai-chat", faults: Record<string, unknown> = {}) {
  const fake = fakeProvider(kind, { streams: { m: { capture: kind === "anthropic" ? anthropicCapture : chatCapture, ...faults } } as never });
  const provider = kind === "anthropic"
    ? anthropic({ apiKey: "sk-ant-f-KEY-000000", baseURL: "https://a.test", fetch: fake })
    : openaiChat({ apiKey: "sk-o-f-KEY-00000000", baseURL: "https://o.test/v1", fetch: fake });
  return { fake, row: { provider, model: "m" } as RelayModel };
}
const call = (models: RelayModels, path: string, body: object) =>
  createRelay({ models }).fetch(
    new Request(`https://relay.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-relay-key": ENV.RELAY_KEY },
      body: JSON.stringify(body),
    }),
    ENV,
  );
const mmsp = { model: "fb", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config: { max_tokens: 64 } };

test("a 500 (or 502, 503, 529) from the first target: the next target serves, x-mmsp-provider names it", async () => {
  for (const status of [500, 502, 503, 529]) {
    const a = target("anthropic", { refuse: status });
    const b = target("openai-chat");
    const answer = await call({ fb: [a.row, b.row] }, "/v1/stream", mmsp);
    expect(answer.status, String(status)).toBe(200);
    expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
    expect(await answer.text()).toMatch(/"finish_reason":"stop"/);
    expect([a.fake.requests.length, b.fake.requests.length], String(status)).toEqual([1, 1]);
  }
});

test("a non-streamed Open Responses answer whose stream failed is the spec's error with a 5xx status, not a 200 resource", async () => {
  const cut = target("anthropic", { cutAfterEvents: 4 }); // (mid-text, no continueOnFailure: the stream ends with its error)
  const logged = vi.spyOn(console, "error").mockImplementation(() => {}); // (the relay logs the provider's failure)
  const answer = await call({ fb: cut.row }, "/v1/responses", { model: "fb", input: "Hi", stream: false }).finally(() => logged.mockRestore());
  expect(answer.status).toBeGreaterThanOrEqual(500);
  const body = (await answer.json()) as { error?: { type?: string; message?: string }; status?: string };
  expect(body.status).toBeUndefined(); // (not a response resource)
  expect(typeof body.error?.message).toBe("string");
  // the same request that succeeds is a 200 resource, completed
  const ok = await call({ fb: target("anthropic").row }, "/v1/responses", { model: "fb", input: "Hi", stream: false });
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { status: string }).status).toBe("completed");
  // the provider's refusal without a fallback: its failing status, not a 200
  const refused = await call({ fb: target("anthropic", { refuse: 500 }).row }, "/v1/responses", { model: "fb", input: "Hi", stream: false });
  expect(refused.status).toBeGreaterThanOrEqual(500);
  await refused.arrayBuffer();
});
