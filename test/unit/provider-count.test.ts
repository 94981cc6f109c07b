// A provider's own token counter (`Provider.countTokens`, src/providers/count.ts) against the kit's fake
// providers' counting routes (src/testing/counters.ts): the request the builder makes sent to the API's
// counter in the body that route takes (the fakes refuse a generation's members, as the references
// say the real counters do), the figure read back; a refusal the provider's typed error without the
// key; a provider without a counter (an OpenAI-compatible Chat server) has no countTokens.
import { describe, expect, test } from "vitest";
import { UpstreamError } from "../../src/errors.ts";
import { anthropic, gemini, type MmspRequest, openaiChat, openaiResponses, type Provider } from "../../src/providers/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../src/testing/index.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../cases/providers/captures-openai-responses.ts";

const KEY = "sk-unit-count-KEY-0123456789";

const COUNTERS: [ProviderName, (key: string, fetch: typeof globalThis.fetch) => Provider, string, string, string][] = [
  [
    "anthropic",
    (apiKey, fetch) => anthropic({ apiKey, baseURL: "https://p.test", fetch }),
    ANTHROPIC.TEXT,
    "/v1/messages/count_tokens",
    "input_tokens",
  ],
  [
    "gemini",
    (apiKey, fetch) => gemini({ apiKey, baseURL: "https://p.test/v1beta", fetch }),
    GEMINI.TEXT,
    "/v1beta/models/m-1:countTokens",
    "totalTokens",
  ],
  [
    "openai-responses",
    (apiKey, fetch) => openaiResponses({ apiKey, baseURL: "https://p.test/v1", fetch }),
    RESPONSES.TEXT,
    "/v1/responses/input_tokens",
    "input_tokens",
  ],
];

const ASK: MmspRequest = {
  model: "m-1",
  messages: [{ role: "user", content_items: [{ type: "text.done", text: "How many tokens is this sentence?" }] }],
  config: { max_tokens: 512, system_prompt: "Be brief." },
};

describe.each(COUNTERS)("%s's counter", (name, make, capture, path, member) => {
  const fakeOf = () => fakeProvider(name, { streams: { "m-1": parseCapture(capture) }, key: KEY });

  test("countTokens sends the builder's request (system prompt and all, no generation members) to the counter; its figure comes back", async () => {
    const fake = fakeOf();
    const tokens = await make(KEY, fake as unknown as typeof fetch).countTokens!(ASK);
    expect(fake.requests).toHaveLength(1);
    const asked = fake.requests[0]!;
    expect(new URL(asked.url).pathname).toBe(path);
    expect(asked.status).toBe(200);
    expect(asked.body).toContain("Be brief.");
    expect(asked.body).not.toContain('"stream"');
    expect(tokens).toBe(asked.counted);
  });

  test("the fake's counter refuses what the real one does: a generation's member, an unknown model, a wrong key", async () => {
    const fake = fakeOf();
    const post = (body: object, key = KEY, at = path) =>
      fake(`https://p.test${at}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key, "x-goog-api-key": key, authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
    const good = name === "gemini"
      ? { contents: [{ role: "user", parts: [{ text: "hi" }] }] }
      : { model: "m-1", ...(name === "anthropic" ? { messages: [{ role: "user", content: "hi" }] } : { input: "hi" }) };
    const ok = await post(good);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Record<string, unknown>)[member]).toBe(fake.requests.at(-1)!.counted);
    expect((await post({ ...good, stream: true })).status).toBe(400);
    expect((await post(good, "sk-wrong")).status).toBe(401);
    if (name === "gemini") {
      const both = await post({ ...good, generateContentRequest: { model: "models/m-1", contents: good.contents } });
      expect(both.status).toBe(400);
      expect((await post({}, KEY, "/v1beta/models/nope:countTokens")).status).toBe(400);
      expect((await post(good, KEY, "/v1beta/models/nope:countTokens")).status).toBe(404);
    } else {
      expect((await post({ ...good, max_tokens: 10 })).status).toBe(400);
      expect((await post({ ...good, model: "nope" })).status).toBe(404);
    }
  });

  test("a refusal is the provider's typed error, without the key", async () => {
    const fake = fakeOf();
    const wrong = "sk-wrong-key-that-must-not-show-0123";
    const error = await make(wrong, fake as unknown as typeof fetch).countTokens!(ASK).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).status).toBe(401);
    expect(String((error as Error).message)).not.toContain(wrong);
  });
});

test("an OpenAI-compatible Chat server has no counter: its provider has no countTokens, its fake answers the path 404", async () => {
  const fake = fakeProvider("openai-chat", { streams: {}, key: KEY });
  expect(openaiChat({ apiKey: KEY, fetch: fake as unknown as typeof fetch }).countTokens).toBeUndefined();
  const answer = await fake("https://p.test/v1/responses/input_tokens", {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: "m-1", input: "hi" }),
  });
  expect(answer.status).toBe(404);
});
