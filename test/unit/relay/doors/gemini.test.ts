// The relay's Gemini door (issue #47), in Node: the real clients pointed at the relay (createRelay with
// a models table whose providers are the kit's fakes of all four providers, served on 127.0.0.1 by the
// kit's serve): `@google/genai` 2.x `generateContentStream` with a function call over two turns,
// `generateContent`, `countTokens`; the AI SDK's `createGoogleGenerativeAI` with a tool. Then the
// mapping of Gemini's request (id-less calls, thought signatures, the members refused by name), the key
// (`x-goog-api-key`, `?key=`; never passed on), Google's error shape, and countTokens against
// requestsPerMinute, not tokens.
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { GoogleGenAI } from "@google/genai";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { afterAll, describe, expect, test } from "vitest";
import { createRelay, type RelayOptions } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../../../src/testing/index.ts";
import type { Served } from "../../../../src/testing/serve.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../../../cases/providers/captures-openai-responses.ts";
import { claudeThenRelay, doorRelay, providerFor, serveRelay } from "./door-relay.ts";

type Rec = Record<string, any>;
const KEY = "sk-unit-gemini-door-KEY";

/** Each provider behind the relay: its factory and the captures its fake answers (text, a tool call, thinking). */
const BACKENDS: { name: ProviderName; text: string; tool: string; think: string }[] = [
  {
    name: "gemini",
    text: GEMINI.TEXT,
    tool: GEMINI.PARALLEL_CALLS,
    think: GEMINI.THOUGHTS_SIGNED,
  },
  {
    name: "anthropic",
    text: ANTHROPIC.TEXT,
    tool: ANTHROPIC.TOOL_USE,
    think: ANTHROPIC.THINKING,
  },
  {
    name: "openai-chat",
    text: CHAT.TEXT,
    tool: CHAT.PARALLEL_TOOLS_ONE_CHUNK,
    think: CHAT.REASONING_CONTENT,
  },
  {
    name: "openai-responses",
    text: RESPONSES.TEXT,
    tool: RESPONSES.FUNCTION_CALLS,
    think: RESPONSES.REASONING_SUMMARIES,
  },
];

/** The relay's seal key (doors/seal.ts): another provider's thought signature goes sealed under it. */
const SEAL = { RELAY_SEAL_KEY: "relay-seal-key-for-the-gemini-tests-0123456789" };

const servers: Served[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A relay over `backend`'s fake (rows: text, tools, think), served on 127.0.0.1. */
async function relayFor(backend: (typeof BACKENDS)[number], more: Partial<RelayOptions> = {}, env: Record<string, string> = SEAL) {
  const { relay, fake } = doorRelay({
    provider: backend.name,
    key: KEY,
    streams: { "text-model": backend.text, "tool-model": backend.tool, "think-model": backend.think },
    rows: (provider) => ({
      text: { provider, model: "text-model" },
      // (a client's own function tools need no allow, SPEC §10; a thinking level above the row's does)
      tools: { provider, model: "tool-model", allow: { thinking_level: true } },
      think: { provider, model: "think-model", allow: { thinking_level: true } },
    }),
    address: "203.0.113.7",
    options: more,
  });
  const server = await serveRelay(relay, env);
  servers.push(server);
  return { relay, fake, url: server.url, ai: new GoogleGenAI({ apiKey: "client-key", httpOptions: { baseUrl: server.url } }) };
}

const WEATHER: Rec = {
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] },
};

describe.each(BACKENDS)("the Gemini door backed by $name: @google/genai", (backend) => {
  test("generateContentStream: the text, the finish, the usage", async () => {
    const { ai } = await relayFor(backend);
    let text = "";
    let last: Rec | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: "text", contents: "Say hello" })) {
      text += chunk.text ?? "";
      last = chunk;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(last!.candidates[0].finishReason).toBe("STOP");
    expect(last!.usageMetadata.promptTokenCount).toBeGreaterThan(0);
  });

  test("generateContent: one GenerateContentResponse", async () => {
    const { ai } = await relayFor(backend);
    const response = await ai.models.generateContent({ model: "text", contents: "Say hello", config: { systemInstruction: "Be brief." } });
    expect(response.text!.length).toBeGreaterThan(0);
    expect(response.candidates![0]!.finishReason).toBe("STOP");
    expect(response.modelVersion).toBe("text");
  });

  test("generateContentStream with a function call over two turns: the calls, then their responses reach the provider", async () => {
    const { ai, fake } = await relayFor(backend);
    const config = { tools: [{ functionDeclarations: [WEATHER] }] };
    const contents: Rec[] = [{ role: "user", parts: [{ text: "Weather in Paris and Tokyo?" }] }];
    const parts: Rec[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model: "tools", contents, config })) {
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    }
    const calls = parts.filter((p) => p.functionCall);
    expect(calls.length).toBeGreaterThan(0);
    expect(JSON.stringify(fake.requests.at(-1)!.json)).toContain("get_weather");
    // turn two: the model's turn as it came, and a response to each call
    contents.push({ role: "model", parts });
    contents.push({
      role: "user",
      parts: calls.map((c, k) => ({
        functionResponse: { id: c.functionCall.id, name: c.functionCall.name, response: { result: `sunny-${k}` } },
      })),
    });
    let text = "";
    for await (const chunk of await ai.models.generateContentStream({ model: "tools", contents, config })) text += chunk.text ?? "";
    const sent = JSON.stringify(fake.requests.at(-1)!.json);
    calls.forEach((_, k) => expect(sent).toContain(`sunny-${k}`));
    if (backend.name === "gemini") {
      // the signature the provider gave goes back to it on its call, byte for byte
      expect(sent).toContain(GEMINI.SIGNATURE);
    }
  });

  test("thinking: includeThoughts gives the thoughts as thought parts", async () => {
    const { ai } = await relayFor(backend);
    const config = { thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" as never } };
    const parts: Rec[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model: "think", contents: "Think first", config })) {
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    }
    expect(parts.filter((p) => p.thought && p.text).length).toBeGreaterThan(0);
    expect(parts.filter((p) => !p.thought && p.text).length).toBeGreaterThan(0);
  });

  test("countTokens: the target's own counter asked and its figure returned; without one (Chat), the estimate, said to be one", async () => {
    const { ai, url, fake } = await relayFor(backend);
    const counted = await ai.models.countTokens({ model: "text", contents: "How many tokens is this sentence?" });
    const answer = await fetch(`${url}/v1beta/models/text:countTokens`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ parts: [{ text: "x" }] }] }),
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(200);
    const { totalTokens } = (await answer.json()) as Rec;
    const asked = fake.requests.filter((r) => r.counted !== undefined);
    if (backend.name === "openai-chat") {
      expect(fake.requests).toHaveLength(0);
      expect(counted.totalTokens).toBeGreaterThan(0);
      expect(answer.headers.get("x-mmsp-tokens-estimated")).toBe("true");
      return;
    }
    expect(asked.map((r) => r.status)).toEqual([200, 200]);
    expect(JSON.stringify(asked[0]!.json)).toContain("How many tokens is this sentence?");
    expect(counted.totalTokens).toBe(asked[0]!.counted);
    expect(totalTokens).toBe(asked[1]!.counted);
    expect(answer.headers.get("x-mmsp-tokens-estimated")).toBeNull();
  });

  test("the AI SDK's createGoogleGenerativeAI with a tool, over two steps", async () => {
    const { url, fake } = await relayFor(backend);
    const google = createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: "client-key" });
    const result = await generateText({
      model: google("tools"),
      prompt: "Weather in Paris?",
      // (every name the captures' calls use: each backend's fake answers its own capture)
      tools: Object.fromEntries(["get_weather", "get_time", "a", "b"].map((name) => [
        name,
        tool({
          description: `The tool ${name}`,
          inputSchema: jsonSchema<Record<string, unknown>>({ type: "object", properties: { city: { type: "string" } } }),
          execute: async () => "sunny-ai-sdk",
        }),
      ])),
      stopWhen: stepCountIs(2),
    });
    expect(result.steps[0]!.toolCalls.length).toBeGreaterThan(0);
    expect(result.steps.length).toBe(2);
    expect(JSON.stringify(fake.requests.at(-1)!.json)).toContain("sunny-ai-sdk");
  });
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
const hello = { contents: [{ role: "user", parts: [{ text: "hi" }] }] };

describe("the Gemini door's mapping", () => {
  test("id-less calls of one function get ids of their own; each id-less response answers its call in order", async () => {
    const { url, fake } = await relayFor(BACKENDS[2]!);
    const contents = [
      { role: "user", parts: [{ text: "Two cities" }] },
      {
        role: "model",
        parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, {
          functionCall: { name: "get_weather", args: { city: "Tokyo" } },
        }],
      },
      {
        role: "user",
        parts: [{ functionResponse: { name: "get_weather", response: { result: "P-sunny" } } }, {
          functionResponse: { name: "get_weather", response: { result: "T-rain" } },
        }],
      },
    ];
    const answer = await post(`${url}/v1beta/models/tools:generateContent`, { contents, tools: [{ functionDeclarations: [WEATHER] }] });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const messages = (fake.requests.at(-1)!.json as Rec).messages as Rec[];
    const ids = messages[1]!.tool_calls.map((c: Rec) => c.id);
    expect(new Set(ids).size).toBe(2);
    expect(messages[2]).toMatchObject({ role: "tool", tool_call_id: ids[0], content: "P-sunny" });
    expect(messages[3]).toMatchObject({ role: "tool", tool_call_id: ids[1], content: "T-rain" });
  });

  test("a Gemini schema's types (OBJECT, STRING) reach another provider as JSON Schema's", async () => {
    const { url, fake } = await relayFor(BACKENDS[2]!);
    await (await post(`${url}/v1beta/models/tools:generateContent`, { ...hello, tools: [{ functionDeclarations: [WEATHER] }] })).json();
    const params = (fake.requests.at(-1)!.json as Rec).tools[0].function.parameters;
    expect(params).toEqual({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  });

  // (issue #47's rule: what the relay can do is done — structured output is every provider's since #46)
  test.each(BACKENDS)("responseMimeType application/json with a responseSchema → $name's own structured output member (Gemini's types as JSON Schema's)", async (b) => {
    const { url, fake } = await relayFor(b);
    const generationConfig = { responseMimeType: "application/json", responseSchema: WEATHER.parameters };
    const answer = await post(`${url}/v1beta/models/text:generateContent`, { ...hello, generationConfig });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const sent = fake.requests.at(-1)!.json as Rec;
    const member = {
      anthropic: () => sent.output_config.format.schema,
      "openai-chat": () => sent.response_format.json_schema.schema,
      gemini: () => sent.generationConfig.responseJsonSchema,
      "openai-responses": () => sent.text.format.schema,
    }[b.name as string]!();
    expect(member).toEqual({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  });

  test("maxOutputTokens, toolConfig and thinkingConfig reach the provider", async () => {
    const { url, fake } = await relayFor(BACKENDS[0]!);
    const body = {
      ...hello,
      tools: [{ functionDeclarations: [WEATHER] }],
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
      generationConfig: { maxOutputTokens: 123, thinkingConfig: { thinkingBudget: 0 }, candidateCount: 1 },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
      labels: { team: "a" },
    };
    const answer = await post(`${url}/v1beta/models/tools:generateContent`, body);
    expect(answer.status, await answer.clone().text()).toBe(200);
    const sent = fake.requests.at(-1)!.json as Rec;
    expect(sent.generationConfig.maxOutputTokens).toBe(123);
    expect(sent.toolConfig).toEqual({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } });
    expect(sent.generationConfig.thinkingConfig).toBeDefined();
    expect(JSON.stringify(sent)).not.toContain("BLOCK_NONE");
  });

  test.each([
    [{ ...hello, generationConfig: { topK: 3 } }, "generationConfig.topK"],
    [{ ...hello, generationConfig: { responseMimeType: "text/x.enum" } }, "generationConfig.responseMimeType"],
    // (a schema asks for JSON: without responseMimeType application/json, as Gemini's API refuses it)
    [{ ...hello, generationConfig: { responseSchema: { type: "OBJECT" } } }, "generationConfig.responseMimeType"],
    [{ ...hello, generationConfig: { candidateCount: 2 } }, "generationConfig.candidateCount"],
    [{ ...hello, generationConfig: { stopSequences: ["END"] } }, "generationConfig.stopSequences"],
    [{ ...hello, tools: [{ googleSearch: {} }] }, "tools[0].googleSearch"],
    [{ ...hello, tools: [{ codeExecution: {} }] }, "tools[0].codeExecution"],
    [{ ...hello, tools: [{ functionDeclarations: [WEATHER], urlContext: {} }] }, "tools[0].urlContext"],
    // (the rule: a member the relay does not know, inside a tool or the tool config too, refused by name)
    [{ ...hello, tools: [{ functionDeclarations: [{ ...WEATHER, cacheHint: "x" }] }] }, "tools[0].functionDeclarations[0].cacheHint"],
    [{ ...hello, toolConfig: { functionCallingConfig: { mode: "VALIDATED" } } }, "functionCallingConfig.mode VALIDATED"],
    [{ ...hello, toolConfig: { functionCallingConfig: { mode: "AUTO", allowedFunctionNames: ["f"] } } }, "allowedFunctionNames"],
    [{ ...hello, toolConfig: { functionCallingConfig: { mode: "ANY", parallel: false } } }, "toolConfig.functionCallingConfig.parallel"],
    [{ ...hello, toolConfig: { functionCallingConfig: { streamFunctionCallArguments: true } } }, "streamFunctionCallArguments"],
    [{ ...hello, toolConfig: { latLng: {} } }, "toolConfig.latLng"],
    [{ ...hello, cachedContent: "cachedContents/abc" }, "'cachedContent'"],
    [
      { ...hello, safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_LOW_AND_ABOVE" }] },
      "safetySettings[0].threshold",
    ],
    [{ contents: [{ role: "user", parts: [{ executableCode: { code: "1" } }] }] }, "contents[0].parts[0].executableCode"],
    [{ contents: [{ role: "system", parts: [{ text: "x" }] }] }, "contents[0].role"],
    [{ contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: {} } }] }] }, "contents[0].parts[0].functionResponse"],
  ])("%j → 400 in Google's shape naming %s", async (body, member) => {
    const { url, fake } = await relayFor(BACKENDS[0]!);
    const before = fake.requests.length;
    const answer = await post(`${url}/v1beta/models/text:generateContent`, body);
    expect(answer.status).toBe(400);
    const json = (await answer.json()) as Rec;
    expect(json.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(json.error.message).toContain(member);
    expect(fake.requests.length).toBe(before);
  });

  // (the tool's output_schema on the mapped path: Gemini's responseJsonSchema, no member of the other APIs)
  test.each(BACKENDS)("a function's output schema (response, responseJsonSchema) asks nothing of the relay: to Gemini as responseJsonSchema, left out for $name otherwise", async (b) => {
    const { url, fake } = await relayFor(b);
    const forecast = { type: "object", properties: { forecast: { type: "string" } } };
    const declarations = [
      { ...WEATHER, response: { type: "OBJECT", properties: { forecast: { type: "STRING" } } }, responseJsonSchema: forecast },
      // (Gemini's OpenAPI types alone, as JSON Schema's)
      { ...WEATHER, name: "get_outlook", response: { type: "OBJECT", properties: { forecast: { type: "STRING" } } } },
    ];
    const body = {
      ...hello,
      tools: [{ functionDeclarations: declarations }],
      toolConfig: { functionCallingConfig: { mode: "AUTO" }, includeServerSideToolInvocations: false },
    };
    const answer = await post(`${url}/v1beta/models/tools:generateContent`, body);
    expect(answer.status, await answer.clone().text()).toBe(200);
    const sent = fake.requests.at(-1)!.json as Rec;
    if (b.name === "gemini") {
      const [weather, other] = sent.tools[0].functionDeclarations;
      expect(weather.responseJsonSchema).toEqual(forecast);
      expect(other.responseJsonSchema).toEqual(forecast);
      expect(JSON.stringify(sent.tools)).not.toContain('"response"');
      return;
    }
    if (b.name === "anthropic") {
      expect(sent.tools[0]).toEqual({ name: "get_weather", description: WEATHER.description, input_schema: expect.any(Object) });
    }
    expect(JSON.stringify(sent)).not.toContain("forecast");
  });

  test("streamGenerateContent without alt=sse is refused by name; an unknown model is Google's 404", async () => {
    const { url } = await relayFor(BACKENDS[0]!);
    const array = await post(`${url}/v1beta/models/text:streamGenerateContent`, hello);
    expect(array.status).toBe(400);
    expect(((await array.json()) as Rec).error.message).toContain("alt=sse");
    const missing = await post(`${url}/v1beta/models/nope:generateContent`, hello);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as Rec).error).toMatchObject({ code: 404, status: "NOT_FOUND" });
  });

  test("the key: x-goog-api-key or ?key= is the relay's key; a wrong one is Google's 401; it never reaches the provider", async () => {
    const { url, fake } = await relayFor(BACKENDS[0]!, { allowAnonymous: false }, { RELAY_KEY: "relay-secret-1" });
    const ok = await post(`${url}/v1beta/models/text:generateContent`, hello, { "x-goog-api-key": "relay-secret-1" });
    expect(ok.status, await ok.clone().text()).toBe(200);
    const byQuery = await post(`${url}/v1beta/models/text:generateContent?key=relay-secret-1`, hello);
    expect(byQuery.status).toBe(200);
    const wrong = await post(`${url}/v1beta/models/text:generateContent`, hello, { "x-goog-api-key": "nope" });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as Rec).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    for (const r of fake.requests) {
      expect(JSON.stringify(r.headers)).not.toContain("relay-secret-1");
      expect(r.url).not.toContain("relay-secret-1");
    }
    const ai = new GoogleGenAI({ apiKey: "relay-secret-1", httpOptions: { baseUrl: url } });
    expect((await ai.models.generateContent({ model: "text", contents: "hi" })).text!.length).toBeGreaterThan(0);
  });

  test("CORS: a browser's preflight for x-goog-api-key and x-goog-api-client is allowed", async () => {
    const { relay } = await relayFor(BACKENDS[0]!, { cors: { origins: "*" } });
    const headers = {
      origin: "https://page.test",
      "access-control-request-method": "POST",
      "access-control-request-headers": "x-goog-api-key, x-goog-api-client",
    };
    const pre = await relay.fetch(new Request("https://relay.test/v1beta/models/text:generateContent", { method: "OPTIONS", headers }), {});
    const allowed = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase();
    expect(allowed).toContain("x-goog-api-key");
    expect(allowed).toContain("x-goog-api-client");
    // (a browser may read whether a count is the relay's estimate)
    const count = await relay.fetch(
      new Request("https://relay.test/v1beta/models/text:countTokens", {
        method: "POST",
        headers: { origin: "https://page.test", "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ parts: [{ text: "x" }] }] }),
      }),
      {},
    );
    expect(count.status).toBe(200);
    expect((count.headers.get("access-control-expose-headers") ?? "").toLowerCase()).toContain("x-mmsp-tokens-estimated");
  });

  test("countTokens counts against requestsPerMinute, not the day's tokens", async () => {
    const { url } = await relayFor(BACKENDS[0]!, { quotas: { anonymous: { requestsPerMinute: 2, tokensPerDay: 1 } } });
    const first = await post(`${url}/v1beta/models/text:countTokens`, {
      contents: [{ parts: [{ text: "a long enough sentence to count" }] }],
    });
    expect(first.status, await first.clone().text()).toBe(200);
    const generate = await post(`${url}/v1beta/models/text:generateContent`, hello);
    expect(generate.status).toBe(429); // (the day's token budget: one token)
    const second = await post(`${url}/v1beta/models/text:countTokens`, hello);
    expect(second.status).toBe(200); // (the refused request took no place in the minute)
    const third = await post(`${url}/v1beta/models/text:countTokens`, hello);
    expect(third.status).toBe(429); // (the minute's two requests are spent)
    expect(((await third.json()) as Rec).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
  });
});

test("countTokens falls back along the row's targets, as a request does: one without a counter passed, a failing counter passed, the next one's figure", async () => {
  const fakes = {
    chat: fakeProvider("openai-chat", { streams: { "text-model": parseCapture(CHAT.TEXT) }, key: KEY }),
    google: fakeProvider("gemini", { streams: { "text-model": parseCapture(GEMINI.TEXT) }, key: KEY }),
    claude: fakeProvider("anthropic", { streams: { "text-model": parseCapture(ANTHROPIC.TEXT) }, key: KEY }),
  };
  const relay = createRelay({
    models: {
      text: [
        { provider: providerFor("openai-chat", KEY, fakes.chat as unknown as typeof fetch), model: "text-model" }, // (no counter)
        { provider: providerFor("gemini", "not-the-fakes-key", fakes.google as unknown as typeof fetch), model: "text-model" }, // (refused)
        { provider: providerFor("anthropic", KEY, fakes.claude as unknown as typeof fetch), model: "text-model" },
      ],
    },
    allowAnonymous: true,
    clientAddress: () => "203.0.113.7",
  });
  const server = await serveRelay(relay, SEAL);
  servers.push(server);
  const ai = new GoogleGenAI({ apiKey: "client-key", httpOptions: { baseUrl: server.url } });
  const counted = await ai.models.countTokens({ model: "text", contents: "Count me along the row" });
  expect(fakes.chat.requests).toHaveLength(0);
  expect(fakes.google.requests.map((r) => r.status)).not.toContain(200);
  expect(fakes.google.requests.length).toBeGreaterThan(0);
  expect(fakes.claude.requests.map((r) => r.status)).toEqual([200]);
  expect(counted.totalTokens).toBe(fakes.claude.requests[0]!.counted);
});

describe("a sealed thoughtSignature (SPEC §9-§10): another provider's proof through a Gemini client, back to its maker", () => {
  /** Thinking signed by Anthropic, then a call of get_weather (the Messages streaming reference's events). */
  const THINK_TOOL = ANTHROPIC.thinkThenCall('{"city": "Paris"}');

  /** Anthropic first (thinking + a call), Gemini after it; `state.down` makes Anthropic answer 529. */
  async function fallbackRelay() {
    const { relay, claude, second: google, state } = claudeThenRelay(
      KEY,
      THINK_TOOL,
      { provider: "gemini", model: "gemini-2.5-flash", capture: GEMINI.TEXT },
      "203.0.113.7",
    );
    const server = await serveRelay(relay, SEAL);
    servers.push(server);
    return { claude, google, state, ai: new GoogleGenAI({ apiKey: "client-key", httpOptions: { baseUrl: server.url } }) };
  }

  test("a Claude signature goes out sealed as thoughtSignature, skips Gemini after a fallback, and reaches Anthropic intact after", async () => {
    const { ai, claude, google, state } = await fallbackRelay();
    const config = { tools: [{ functionDeclarations: [WEATHER] }], thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } };
    const contents: Rec[] = [{ role: "user", parts: [{ text: "Weather in Paris?" }] }];
    const parts: Rec[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model: "think", contents, config })) {
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    }
    const signatures = parts.map((p) => p.thoughtSignature).filter(Boolean);
    expect(signatures).toEqual([expect.stringMatching(/^mmsp1\./)]);
    expect(JSON.stringify(parts)).not.toContain(ANTHROPIC.SIGNATURE);
    const call = parts.find((p) => p.functionCall)!.functionCall;
    contents.push({ role: "model", parts }, {
      role: "user",
      parts: [{ functionResponse: { id: call.id, name: call.name, response: { result: "sunny" } } }],
    });
    // the next turn: Anthropic overloaded, Gemini answers (its fake refuses a thoughtSignature it never issued)
    state.down = true;
    const second = await ai.models.generateContent({ model: "think", contents, config });
    expect(second.text!.length).toBeGreaterThan(0);
    expect(google.requests).toHaveLength(1);
    expect(JSON.stringify(google.requests[0]!.json)).not.toContain("mmsp1.");
    expect(JSON.stringify(google.requests[0]!.json)).not.toContain(ANTHROPIC.SIGNATURE);
    // the same history again, Anthropic back: its own signature intact (its fake refuses one it never issued)
    state.down = false;
    await ai.models.generateContent({ model: "think", contents, config });
    expect(claude.requests).toHaveLength(2);
    expect(JSON.stringify(claude.requests[1]!.json)).toContain(ANTHROPIC.SIGNATURE);
  });

  test("a forged thoughtSignature is refused naming it, in Google's error shape; no provider is asked", async () => {
    const { ai, claude } = await fallbackRelay();
    const forged = `mmsp1.${btoa(JSON.stringify({ provider: "anthropic", signature: ANTHROPIC.SIGNATURE }))}`;
    const contents = [
      { role: "user", parts: [{ text: "Hi" }] },
      { role: "model", parts: [{ text: "ok", thought: true, thoughtSignature: forged }, { text: "Hello" }] },
      { role: "user", parts: [{ text: "Again" }] },
    ];
    const refused = await ai.models.generateContent({ model: "think", contents }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(String((refused as Error).message)).toContain("contents[1].parts[0].thoughtSignature");
    expect(String((refused as Error).message)).toContain("INVALID_ARGUMENT");
    expect(claude.requests).toHaveLength(0);
  });
});

test("Stop: the client going away mid-stream aborts the provider's request, the answer mapped (an Anthropic row)", async () => {
  const { relay, fake } = doorRelay({
    provider: "anthropic",
    key: KEY,
    streams: { "slow-model": { capture: parseCapture(ANTHROPIC.TEXT), stallMs: Infinity } },
    rows: (provider) => ({ slow: { provider, model: "slow-model" } }),
  });
  const server = await serveRelay(relay, SEAL);
  servers.push(server);
  const controller = new AbortController();
  const answer = await fetch(`${server.url}/v1beta/models/slow:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(hello),
    signal: controller.signal,
  });
  const reader = answer.body!.getReader();
  let text = "";
  while (!text.includes('"text"')) text += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  expect(await fake.requests[0]!.ended).toBe("aborted");
});
