// Same API in, same provider out (issue #47): the Gemini door in front of a Gemini target passes a
// streamed request (`:streamGenerateContent?alt=sse`) through as written (top-level members the relay
// does not map) but for the key, the row's model (the path) and the reserved output
// (`generationConfig.maxOutputTokens`), and answers in the provider's own bytes; usage charged from
// the provider's counts; a fallback to another API and a request not streamed answered encoded. In
// Node: `@google/genai` pointed at the relay served on 127.0.0.1, the kit's fakes behind it.
import * as http from "node:http";
import { GoogleGenAI } from "@google/genai";
import { afterAll, describe, expect, test } from "vitest";
import { anthropic, gemini } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import { serve, type Served } from "../../../../src/testing/serve.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import { recorded, settledUsage } from "./pass-through-kit.ts";

const KEY = "sk-gemini-pass-through-KEY";
const ANTHROPIC_KEY = "sk-ant-gemini-pass-through-KEY";
const RELAY_KEY = "sk-relay-gemini-pass-through-app";
const ENV = { RELAY_KEYS: JSON.stringify({ app: RELAY_KEY }) };

const servers: Served[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** Google's refusal of a busy model (its API errors reference: 503 UNAVAILABLE). */
const unavailable = () =>
  Response.json({ error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } }, {
    status: 503,
  });

async function setup() {
  const fake = fakeProvider("gemini", { streams: { "gemini-target": parseCapture(GEMINI.TEXT) }, key: KEY });
  const { sent, fetch: recording } = recorded(fake); // (what the fake sent back, each answer's bytes as text)
  const provider = gemini({ apiKey: KEY, baseURL: "https://api.gemini.test/v1beta", fetch: recording });
  const down = gemini({ apiKey: KEY, baseURL: "https://down.gemini.test/v1beta", fetch: () => Promise.resolve(unavailable()) });
  const claudeFake = fakeProvider("anthropic", { streams: { "claude-target": parseCapture(ANTHROPIC.TEXT) }, key: ANTHROPIC_KEY });
  const claude = anthropic({ apiKey: ANTHROPIC_KEY, baseURL: "https://api.anthropic.test", fetch: claudeFake as unknown as typeof fetch });
  const relay = createRelay({
    models: {
      "gemini-pro": { provider, model: "gemini-target", config: { max_tokens: 300 } },
      "gemini-thinking": { provider, model: "gemini-target", config: { thinking_level: "low" } },
      "gemini-fallback": [{ provider: down, model: "gemini-target" }, { provider: claude, model: "claude-target" }],
    },
  });
  const server = await serve(relay.fetch, { http, env: ENV });
  servers.push(server);
  const ai = new GoogleGenAI({ apiKey: RELAY_KEY, httpOptions: { baseUrl: server.url } });
  const usage = () => settledUsage(fetch, `${server.url}/v1/usage`, { "x-goog-api-key": RELAY_KEY });
  return { fake, claudeFake, sent, url: server.url, ai, usage };
}

/** A request with a top-level member the relay does not map (it goes along when passed through). */
const WRITTEN = {
  contents: [{ role: "user", parts: [{ text: "Why is the sky blue?" }] }],
  systemInstruction: { parts: [{ text: "Be brief." }] },
  generationConfig: { maxOutputTokens: 200 },
  labels: { team: "search" },
  serviceTier: "standard",
};

const post = (url: string, model: string, method: string, body: object): Promise<Response> =>
  fetch(`${url}/v1beta/models/${model}:${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": RELAY_KEY },
    body: JSON.stringify(body),
  });

describe("the Gemini door passes a streamed request through to a Gemini target", () => {
  test("the provider receives the client's body (but the key, the model, the reserve); the client receives the provider's bytes", async () => {
    const { fake, sent, url } = await setup();
    const answer = await post(url, "gemini-pro", "streamGenerateContent?alt=sse", WRITTEN);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(sent).toHaveLength(1);
    expect(text).toBe(sent[0]); // (byte for byte: the provider's responseId, modelVersion, CRLF framing)
    const asked = fake.requests[0]!;
    expect(asked.url).toContain("/models/gemini-target:streamGenerateContent");
    expect(asked.json).toEqual(WRITTEN);
    expect(JSON.stringify(asked)).not.toContain(RELAY_KEY);
  });

  test("the output limit: the client's, within the row's; set to the reserve when the client sent none; over the row's, refused", async () => {
    const { fake, url } = await setup();
    const { generationConfig: _, ...none } = WRITTEN;
    await (await post(url, "gemini-pro", "streamGenerateContent?alt=sse", none)).text();
    expect((fake.requests[0]!.json as { generationConfig: unknown }).generationConfig).toEqual({ maxOutputTokens: 300 });
    const over = await post(url, "gemini-pro", "streamGenerateContent?alt=sse", {
      ...WRITTEN,
      generationConfig: { maxOutputTokens: 8192 },
    });
    expect(over.status).toBe(400);
    // (a named cache is the operator's project's, never a client's to name: still refused)
    const cached = await post(url, "gemini-pro", "streamGenerateContent?alt=sse", { ...WRITTEN, cachedContent: "cachedContents/abc" });
    expect(cached.status).toBe(400);
    expect(await cached.text()).toContain("cachedContent");
    expect(fake.requests).toHaveLength(1);
  });

  test("inside tools and the tool config, what Gemini reads goes as written: a function's output schema, a member the relay does not know, VALIDATED", async () => {
    const { fake, url } = await setup();
    const tooled = {
      ...WRITTEN,
      tools: [{
        functionDeclarations: [{
          name: "get_weather",
          description: "The weather in a city",
          parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } },
          responseJsonSchema: { type: "object", properties: { forecast: { type: "string" } } },
          cacheHint: "x",
        }],
      }],
      toolConfig: { functionCallingConfig: { mode: "VALIDATED", allowedFunctionNames: ["get_weather"] } },
    };
    const answer = await post(url, "gemini-pro", "streamGenerateContent?alt=sse", tooled);
    expect(answer.status).toBe(200);
    await answer.text();
    expect(fake.requests[0]!.json).toEqual(tooled);
    // (Google's own tools are billed outside token quotas: refused, passed through or not)
    const hosted = await post(url, "gemini-pro", "streamGenerateContent?alt=sse", { ...WRITTEN, tools: [{ googleSearch: {} }] });
    expect(hosted.status).toBe(400);
    expect(await hosted.text()).toContain("tools[0].googleSearch");
  });

  test("a row's config holds as on the mapped path: its thinking level set beside the client's members; a lower one of the client's kept", async () => {
    const { fake, url } = await setup();
    const thoughtful = { ...WRITTEN, generationConfig: { maxOutputTokens: 200, thinkingConfig: { includeThoughts: true } } };
    await (await post(url, "gemini-thinking", "streamGenerateContent?alt=sse", thoughtful)).text();
    // (the builder's member for the row's thinking_level, as the mapped path asks it; the client's others as written)
    expect(fake.requests[0]!.json).toEqual({
      ...WRITTEN,
      generationConfig: { maxOutputTokens: 200, thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" } },
    });
    const none = { ...WRITTEN, generationConfig: { maxOutputTokens: 200, thinkingConfig: { thinkingBudget: 0 } } };
    await (await post(url, "gemini-thinking", "streamGenerateContent?alt=sse", none)).text();
    expect(fake.requests[1]!.json).toEqual(none); // (no thinking: within the row's level, the client's own)
    const over = { ...WRITTEN, generationConfig: { thinkingConfig: { thinkingLevel: "HIGH" } } };
    expect((await post(url, "gemini-thinking", "streamGenerateContent?alt=sse", over)).status).toBe(400);
  });

  test("@google/genai's generateContentStream reads the provider's answer; the quota is charged the provider's counts", async () => {
    const { ai, usage } = await setup();
    let text = "";
    let last: { responseId?: string; usageMetadata?: { promptTokenCount?: number } } | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: "gemini-pro", contents: "Why is the sky blue?" })) {
      text += chunk.text ?? "";
      last = chunk;
    }
    expect(text).toBe("The sky is blue because of Rayleigh scattering.");
    expect(last!.responseId).toBe("mAitaLmkHPPlz7IPvtfUqQ4"); // (the provider's own)
    expect(await usage()).toMatchObject([{ principal: "app", model: "gemini-pro", requests: 1, input_tokens: 12, output_tokens: 11 }]);
  });

  test("a fallback to an Anthropic target, and a request not streamed, are answered encoded; there an unmapped member is refused", async () => {
    const { claudeFake, url } = await setup();
    const { serviceTier: _, ...mapped } = WRITTEN;
    const fallback = await (await post(url, "gemini-fallback", "streamGenerateContent?alt=sse", mapped)).text();
    expect(fallback).toContain('"modelVersion":"gemini-fallback"'); // (the row's name: the door's encoding)
    expect(JSON.stringify(claudeFake.requests[0]!.json)).not.toContain("labels");
    const whole = await post(url, "gemini-pro", "generateContent", mapped);
    expect(((await whole.json()) as { modelVersion: string }).modelVersion).toBe("gemini-pro");
    const refused = await post(url, "gemini-pro", "generateContent", WRITTEN);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("serviceTier");
  });
});
