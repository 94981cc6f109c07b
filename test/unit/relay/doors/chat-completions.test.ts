// The Chat Completions door (issue #47), in Node: the stateless relay (createRelay with a models
// table) backed by the kit's fakeProvider of each of the four providers, read by the real clients:
// `openai`'s chat.completions.create streamed and not, with tools over two turns and thinking;
// LangChain's default ChatOpenAI streaming with bindTools; the AI SDK's createOpenAI().chat() with
// tools over three steps (streamText with stopWhen). Then the members refused by name, in OpenAI's
// error shape, and what the provider is asked for the members the door maps.
import { ChatOpenAI } from "@langchain/openai";
import { createOpenAI } from "@ai-sdk/openai";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { createRelay, type Relay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../../../src/testing/index.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../../../cases/providers/captures-openai-responses.ts";
import { claudeThenRelay, doorRelay, providerFor, relayFetch } from "./door-relay.ts";

const ORIGIN = "https://relay.test";
const KEY = "sk-unit-chat-completions-KEY";

/** Each provider behind the relay: its factory and the captures its fake answers (text, tool calls, thinking). */
const BACKENDS: { name: ProviderName; text: string; tool: string; think: string }[] = [
  {
    name: "anthropic",
    text: ANTHROPIC.TEXT,
    tool: ANTHROPIC.TOOL_USE,
    think: ANTHROPIC.THINKING,
  },
  {
    name: "openai-chat",
    text: CHAT.TEXT,
    // (OpenAI's own shape, the role in the first chunk: a streamed request is passed through (the
    // provider's bytes to the client), and the SDKs' stream helpers refuse a chunk without its role,
    // as they would from that server itself)
    tool: CHAT.PARALLEL_TOOLS_INTERLEAVED,
    think: CHAT.REASONING_CONTENT,
  },
  {
    name: "gemini",
    text: GEMINI.TEXT,
    tool: GEMINI.PARALLEL_CALLS,
    think: GEMINI.THOUGHTS_SIGNED,
  },
  {
    name: "openai-responses",
    text: RESPONSES.TEXT,
    tool: RESPONSES.FUNCTION_CALLS,
    think: RESPONSES.REASONING_SUMMARIES,
  },
];

/**
 * The relay for `backend`: rows `text`, `tools` (tool calls, then — from call `toolTurns` + 1 on — text:
 * a multi-step client's last step) and `think`. The fake's requests are kept.
 */
function relayFor(backend: (typeof BACKENDS)[number], toolTurns = Infinity) {
  let toolCalls = 0;
  return doorRelay({
    provider: backend.name,
    key: KEY,
    streams: { "text-model": backend.text, "tool-model": backend.tool, "think-model": backend.think },
    through: (fake) => async (input, init) => {
      const request = new Request(input as RequestInfo, init);
      let body = await request.text();
      let url = request.url;
      if (url.includes("tool-model") || body.includes('"tool-model"')) {
        if (++toolCalls > toolTurns) [url, body] = [url.replace("tool-model", "text-model"), body.replace('"tool-model"', '"text-model"')];
      }
      return fake(url, { method: request.method, headers: request.headers, body: body || undefined });
    },
    rows: (provider) => ({
      text: { provider, model: "text-model" },
      // (a client's own function tools need no allow, SPEC §10; the fast tier does)
      tools: { provider, model: "tool-model", allow: { fast_mode: true } },
      think: { provider, model: "think-model", allow: { thinking_level: true } },
    }),
  });
}

/** The relay's seal key (doors/seal.ts): another provider's reasoning_details go sealed under it. */
const SEAL = { RELAY_SEAL_KEY: "relay-seal-key-for-the-chat-tests-0123456789" };

const openaiFor = (relay: Relay) => new OpenAI({ apiKey: "unused", baseURL: `${ORIGIN}/v1`, fetch: relayFetch(relay, SEAL), maxRetries: 0 });

const post = (body: object): Request =>
  new Request(`${ORIGIN}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather",
    parameters: { type: "object", properties: { location: { type: "string" } } },
  },
};

describe.each(BACKENDS)("POST /v1/chat/completions backed by $name", (backend) => {
  test("openai chat.completions.create, not streamed: one chat.completion with the provider's text and usage", async () => {
    const { relay } = relayFor(backend);
    const completion = await openaiFor(relay).chat.completions.create({
      model: "text",
      messages: [{ role: "user", content: "Say hello" }],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("text");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
  });

  test("openai chat.completions.create streamed, with include_usage: the chunks assemble the same text; the usage chunk last", async () => {
    const { relay } = relayFor(backend);
    const client = openaiFor(relay);
    const whole = await client.chat.completions.create({ model: "text", messages: [{ role: "user", content: "Say hello" }] });
    const stream = await client.chat.completions.create({
      model: "text",
      messages: [{ role: "user", content: "Say hello" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      expect(chunk.object).toBe("chat.completion.chunk");
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(finish).toBe("stop");
    if (backend.name === "openai-chat") {
      // (passed through: the provider's own usage chunk, its details as it wrote them; the same counts)
      const { prompt_tokens, completion_tokens, total_tokens } = whole.usage!;
      expect(usage).toMatchObject({ prompt_tokens, completion_tokens, total_tokens });
    } else expect(usage).toEqual(whole.usage);
  });

  for (const stream of [false, true]) {
    test(`openai tools over two turns (stream: ${stream}): tool_calls, then the results sent back reach the provider`, async () => {
      const { relay, fake } = relayFor(backend, 1);
      const client = openaiFor(relay);
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
      let message: OpenAI.ChatCompletionMessage;
      if (stream) {
        const runner = client.chat.completions.stream({ model: "tools", messages, tools: [WEATHER], tool_choice: "auto" });
        const final = await runner.finalChatCompletion();
        expect(final.choices[0]!.finish_reason).toBe("tool_calls");
        message = final.choices[0]!.message;
      } else {
        const first = await client.chat.completions.create({ model: "tools", messages, tools: [WEATHER], tool_choice: "auto" });
        expect(first.choices[0]!.finish_reason).toBe("tool_calls");
        message = first.choices[0]!.message;
      }
      const calls = message.tool_calls!;
      expect(calls.length).toBeGreaterThan(0);
      expect(JSON.stringify(fake.requests.at(-1)!.json)).toContain("get_weather");
      messages.push(message as OpenAI.ChatCompletionMessageParam);
      for (const call of calls) {
        expect(call.type).toBe("function");
        expect(typeof JSON.parse((call as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments)).toBe("object");
        messages.push({ role: "tool", tool_call_id: call.id, content: `result of ${call.id}: 18 degrees` });
      }
      const second = await client.chat.completions.create({ model: "tools", messages, tools: [WEATHER], stream: false });
      expect(second.choices[0]!.finish_reason).toBe("stop");
      expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);
      const sent = JSON.stringify(fake.requests.at(-1)!.json);
      for (const call of calls) expect(sent).toContain(`result of ${call.id}: 18 degrees`);
    });
  }

  test("thinking: reasoning_effort reaches the provider; the reasoning comes back, and carried back it is accepted", async () => {
    const { relay, fake } = relayFor(backend);
    const client = openaiFor(relay);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "27 * 453?" }];
    const first = await client.chat.completions.create({ model: "think", messages, reasoning_effort: "high" });
    const message = first.choices[0]!.message as OpenAI.ChatCompletionMessage & {
      reasoning_content?: string;
      reasoning_details?: unknown[];
    };
    expect(message.reasoning_content!.length).toBeGreaterThan(0);
    expect(first.usage!.completion_tokens_details!.reasoning_tokens).toBeGreaterThan(0);
    if (backend.name !== "openai-chat") expect(message.reasoning_details!.length).toBeGreaterThan(0);
    expect(JSON.stringify(fake.requests.at(-1)!.json)).toMatch(/high|budget|thinking/i);
    messages.push(message as OpenAI.ChatCompletionMessageParam, { role: "user", content: "And 28 * 453?" });
    const second = await client.chat.completions.create({ model: "think", messages, reasoning_effort: "high" });
    expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);
    // the reasoning carried back reaches the Chat API's own provider in its field
    if (backend.name === "openai-chat") {
      expect(fake.requests.at(-1)!.json).toMatchObject({ messages: [{}, { reasoning_content: "The user greets me." }, {}] });
    }
  });

  test("LangChain's default ChatOpenAI, streaming with bindTools: the tool calls assembled", async () => {
    const { relay } = relayFor(backend);
    const model = new ChatOpenAI({
      model: "tools",
      apiKey: "unused",
      streaming: true,
      maxRetries: 0,
      configuration: { baseURL: `${ORIGIN}/v1`, fetch: relayFetch(relay, SEAL) },
    });
    const bound = model.bindTools([WEATHER]);
    let whole: Awaited<ReturnType<typeof bound.invoke>> | undefined;
    for await (const chunk of await bound.stream("Weather in Paris?")) whole = whole ? whole.concat(chunk) : chunk;
    expect(whole!.tool_calls!.length).toBeGreaterThan(0);
    for (const call of whole!.tool_calls!) {
      expect(call.id).toMatch(/./);
      expect(typeof call.args).toBe("object");
    }
    expect(whole!.usage_metadata!.total_tokens).toBeGreaterThan(0);
  });

  test("the AI SDK's createOpenAI().chat() with tools over three steps (streamText, stopWhen)", async () => {
    const { relay, fake } = relayFor(backend, 2);
    const provider = createOpenAI({ apiKey: "unused", baseURL: `${ORIGIN}/v1`, fetch: relayFetch(relay, SEAL) as typeof globalThis.fetch });
    let executed = 0;
    const result = streamText({
      model: provider.chat("tools"),
      prompt: "Weather in Paris?",
      // (every tool the captures call: get_weather, get_time; the Chat capture's a and b)
      tools: Object.fromEntries(["get_weather", "get_time", "a", "b"].map((name) => [
        name,
        tool({
          description: `Tool ${name}`,
          inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }),
          execute: async () => `${++executed}: 18 degrees`,
        }),
      ])),
      stopWhen: stepCountIs(3),
    });
    const text = await result.text;
    const steps = await result.steps;
    expect(steps.length).toBe(3);
    expect(steps[0]!.finishReason).toBe("tool-calls");
    expect(steps[1]!.finishReason).toBe("tool-calls");
    expect(steps[2]!.finishReason).toBe("stop");
    expect(text.length).toBeGreaterThan(0);
    expect(executed).toBeGreaterThan(1);
    expect(JSON.stringify(fake.requests.at(-1)!.json)).toContain(`${executed}: 18 degrees`);
  });
});

describe("the members of a Chat Completions request: mapped, accepted, or refused by name", () => {
  const backend = BACKENDS[1]!; // (OpenAI Chat behind: what it is sent is the mapping, readably)
  test.each([
    [{ stop: ["\n"] }, "stop"],
    [{ n: 2 }, "n"],
    [{ response_format: { type: "json_schema", json_schema: { name: "x" } } }, "response_format.json_schema.schema"],
    [{ response_format: { type: "grammar" } }, "response_format"],
    [{ verbosity: "max" }, "verbosity"],
    [{ logprobs: true }, "logprobs"],
    [{ seed: 7 }, "seed"],
    [{ store: true }, "store"],
    [{ parallel_tool_calls: "no" }, "parallel_tool_calls"],
    [{ prompt_cache_key: 7 }, "prompt_cache_key"],
    [{ audio: { voice: "alloy", format: "mp3" } }, "audio"],
    [{ functions: [{ name: "f" }] }, "functions"],
    [{ reasoning_effort: "huge" }, "reasoning_effort"],
    [{ service_tier: "flex" }, "service_tier"],
    [{ max_tokens: 10, max_completion_tokens: 20 }, "max_tokens"],
    [{ tools: [{ type: "custom", custom: { name: "x" } }] }, "tools[0]"],
    [{ tools: [{ type: "function", function: { name: "f", strict: true } }] }, "tools[0].function.strict"],
    // (the rule inside a tool too: a member the relay does not know, refused by name)
    [{ tools: [{ type: "function", function: { name: "f", examples: ["x"] } }] }, "tools[0].function.examples"],
    [{ tools: [{ type: "function", function: { name: "f" }, cache_control: { type: "ephemeral" } }] }, "tools[0].cache_control"],
    [
      { messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "", format: "wav" } }] }] },
      "messages[0].content[0]",
    ],
    [{ frequency_penalty: 0.5 }, "frequency_penalty"],
  ])("%j → 400 naming %s, in OpenAI's error shape, nothing asked", async (extra, param) => {
    const { relay, fake } = relayFor(backend);
    const answer = await relay.fetch(post({ model: "text", messages: [{ role: "user", content: "Hi" }], ...extra }), {});
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: "invalid_request_error", param });
    expect(typeof body.error.message).toBe("string");
    expect(fake.requests).toHaveLength(0);
  });

  // (issue #47's rule: what the relay can do is done — structured output is every provider's since #46)
  test.each(BACKENDS)("response_format json_schema → $name's own structured output member; json_object and verbosity too where it has them", async (b) => {
    const { relay, fake } = relayFor(b);
    const client = openaiFor(relay);
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
    const messages = [{ role: "user" as const, content: "Weather as JSON" }];
    await client.chat.completions.create({ model: "text", messages, response_format: { type: "json_schema", json_schema: { name: "weather", schema, strict: true } } });
    const sent = fake.requests.at(-1)!.json as Record<string, any>;
    const member = {
      anthropic: () => sent.output_config.format,
      "openai-chat": () => sent.response_format.json_schema,
      gemini: () => ({ mime: sent.generationConfig.responseMimeType, schema: sent.generationConfig.responseJsonSchema }),
      "openai-responses": () => sent.text.format,
    }[b.name as string]!();
    expect(JSON.stringify(member)).toContain('"required":["city"]');
    if (b.name === "anthropic") return; // (Anthropic takes a schema only: json_object and verbosity are refused by name, structured-output.test.ts)
    await client.chat.completions.create({ model: "text", messages, response_format: { type: "json_object" } });
    expect(JSON.stringify(fake.requests.at(-1)!.json)).toMatch(/json_object|application\/json/);
    if (b.name !== "openai-chat" && b.name !== "openai-responses") return; // (verbosity is OpenAI's alone)
    await client.chat.completions.create({ model: "text", messages, verbosity: "low" });
    expect(JSON.stringify(fake.requests.at(-1)!.json)).toContain('"verbosity":"low"');
  });

  test("the SDK reads a refusal as its typed error (BadRequestError, param), a missing model as NotFoundError", async () => {
    const { relay } = relayFor(backend);
    const client = openaiFor(relay);
    const refused = await client.chat.completions.create({ model: "text", messages: [{ role: "user", content: "Hi" }], n: 3 }).catch((e) =>
      e
    );
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.param).toBe("n");
    const missing = await client.chat.completions.create({ model: "nope", messages: [{ role: "user", content: "Hi" }] }).catch((e) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test("accepted and mapped: system/developer, limits, sampling, tool_choice, priority tier, images, defaults", async () => {
    const { relay, fake } = relayFor(backend);
    const image = `data:image/png;base64,${GEMINI.PNG_BASE64}`;
    const answer = await relay.fetch(
      post({
        model: "tools",
        messages: [
          { role: "system", content: "You are a pirate." },
          { role: "developer", content: [{ type: "text", text: "Be terse." }] },
          {
            role: "user",
            content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: image, detail: "low" } }],
          },
        ],
        tools: [WEATHER],
        tool_choice: { type: "function", function: { name: "get_weather" } },
        max_completion_tokens: 123,
        temperature: 0.5,
        top_p: 0.9,
        service_tier: "priority",
        n: 1,
        store: false,
        logprobs: false,
        parallel_tool_calls: true,
        user: "u-1",
        safety_identifier: "s-1",
        prompt_cache_key: "k-1",
        metadata: { a: "b" },
        response_format: { type: "text" },
        stream_options: null,
      }),
      {},
    );
    expect(answer.status, await answer.clone().text()).toBe(200);
    const sent = fake.requests.at(-1)!.json as Record<string, any>;
    expect(sent.messages[0]).toEqual({ role: "system", content: "You are a pirate.\n\nBe terse." });
    expect(JSON.stringify(sent.messages[1])).toContain(GEMINI.PNG_BASE64);
    expect(sent).toMatchObject({ max_completion_tokens: 123, temperature: 0.5, top_p: 0.9, service_tier: "priority" });
    expect(JSON.stringify(sent.tool_choice)).toContain('"name":"get_weather"');
    for (const key of ["user", "safety_identifier", "metadata", "store", "n", "parallel_tool_calls"]) expect(sent).not.toHaveProperty(key);
    expect(sent.prompt_cache_key).toBe("k-1"); // (OpenAI's cache hint: tool-and-cache-settings.test.ts for every provider)
  });

  test("GET is 405 in OpenAI's shape; the 404 of an unknown path names the door's route", async () => {
    const { relay } = relayFor(backend);
    const get = await relay.fetch(new Request(`${ORIGIN}/v1/chat/completions`), {});
    expect(get.status).toBe(405);
    expect(((await get.json()) as any).error.type).toBe("invalid_request_error");
    const unknown = await relay.fetch(new Request(`${ORIGIN}/v1/nothing`), {});
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("POST /v1/chat/completions");
  });
});

test("the relay's key is the SDK's apiKey (Authorization: Bearer); a spent day is the SDK's RateLimitError, x-should-retry kept", async () => {
  const fake = fakeProvider("anthropic", { streams: { "text-model": parseCapture(ANTHROPIC.TEXT) }, key: KEY });
  const provider = providerFor("anthropic", KEY, fake as unknown as typeof fetch);
  const relay = createRelay({ models: { text: { provider, model: "text-model" } }, quotas: { default: { tokensPerDay: 10 } } });
  const env = { RELAY_KEY: "relay-key-for-the-chat-door-0123" };
  const seen: Response[] = [];
  const sdk = (apiKey: string) =>
    new OpenAI({
      apiKey,
      baseURL: `${ORIGIN}/v1`,
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const answer = await relay.fetch(new Request(input as RequestInfo, init), env);
        seen.push(answer.clone());
        return answer;
      },
    });
  const wrongKey = await sdk("not-the-key").chat.completions.create({ model: "text", messages: [{ role: "user", content: "Hi" }] }).catch((
    e,
  ) => e);
  expect(wrongKey).toBeInstanceOf(OpenAI.AuthenticationError);
  seen.length = 0;
  const spent = await sdk(env.RELAY_KEY).chat.completions.create({ model: "text", messages: [{ role: "user", content: "Hi" }] }).catch((
    e,
  ) => e);
  expect(spent).toBeInstanceOf(OpenAI.RateLimitError);
  expect(spent.error).toMatchObject({ type: "rate_limit_exceeded" });
  const retryAfter = Number(seen[0]!.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThan(0);
  // (a day's budget: Retry-After is the seconds to UTC midnight; past a minute the SDK is told not to retry, and does not)
  expect(seen[0]!.headers.get("x-should-retry")).toBe(retryAfter > 60 ? "false" : null);
  if (retryAfter > 60) expect(seen).toHaveLength(1);
  expect(fake.requests).toHaveLength(0);
});

test("a provider failing mid-answer: the streamed answer ends with OpenAI's error chunk (the SDK throws), the whole one is an error status", async () => {
  const { relay } = doorRelay({
    provider: "openai-chat",
    key: KEY,
    streams: { "bad-model": CHAT.ERROR_MID_STREAM },
    rows: (provider) => ({ bad: { provider, model: "bad-model" } }),
  });
  const client = openaiFor(relay);
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Hi" }];
  let text = "";
  const streamed = await (async () => {
    for await (const chunk of await client.chat.completions.create({ model: "bad", messages, stream: true })) {
      text += chunk.choices[0]?.delta.content ?? "";
    }
  })().catch((e) => e);
  expect(streamed).toBeInstanceOf(OpenAI.APIError);
  expect(text.length).toBeGreaterThan(0); // (what came before the failure was delivered)
  const whole = await client.chat.completions.create({ model: "bad", messages }).catch((e) => e);
  expect(whole).toBeInstanceOf(OpenAI.APIError);
  expect(whole.status).toBeGreaterThanOrEqual(500);
  expect(typeof whole.error.message).toBe("string");
});

test("Stop: the client going away mid-stream (the SDK's abort) aborts the provider's request (the API has no cancel route)", async () => {
  const { relay, fake } = doorRelay({
    provider: "openai-chat",
    key: KEY,
    streams: { "slow-model": { capture: parseCapture(CHAT.TEXT), stallMs: Infinity } },
    rows: (provider) => ({ slow: { provider, model: "slow-model" } }),
  });
  const controller = new AbortController();
  const stream = await openaiFor(relay).chat.completions.create(
    { model: "slow", messages: [{ role: "user", content: "Hi" }], stream: true },
    { signal: controller.signal },
  );
  let text = "";
  const read = (async () => {
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (text) controller.abort();
    }
  })().catch((e) => e);
  // (passed through to this Chat target: the SDK may have read the provider's whole first chunk, [DONE]
  // included, before its abort, and then it ends its loop quietly on its own abort, as against OpenAI)
  const ended = await read;
  expect(ended === undefined || ended instanceof Error).toBe(true);
  expect(text.length).toBeGreaterThan(0);
  expect(await fake.requests[0]!.ended).toBe("aborted");
});

describe("sealed reasoning_details (SPEC §9-§10): another provider's proof through a Chat client, back to its maker", () => {
  /** Thinking signed by Anthropic, then a call of get_weather (the Messages streaming reference's events). */
  const THINK_TOOL = ANTHROPIC.thinkThenCall('{"location": "Paris"}');

  /** A relay whose row is Anthropic (thinking + a tool call), then the Chat fake; `state.down` makes Anthropic answer 529. */
  function fallbackRelay() {
    const { relay, claude, second, state } = claudeThenRelay(
      KEY,
      THINK_TOOL,
      { provider: "openai-chat", model: "chat-model", capture: CHAT.PARALLEL_TOOLS_ONE_CHUNK },
      "203.0.113.9",
    );
    return { relay, claude, chat: second, state };
  }
  type Reasoned = OpenAI.ChatCompletionMessage & { reasoning_content?: string; reasoning_details?: Record<string, unknown>[] };

  test("a Claude signature goes out sealed, skips the Chat provider after a fallback, and reaches Anthropic intact after", async () => {
    const { relay, claude, chat, state } = fallbackRelay();
    const client = openaiFor(relay);
    const ask = { model: "think", tools: [WEATHER], reasoning_effort: "high" as const };
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
    // turn 1, streamed: the thinking, its sealed proof in reasoning_details, the call
    const details: Record<string, unknown>[] = [];
    let reasoning = "";
    const calls: OpenAI.ChatCompletionMessageFunctionToolCall[] = [];
    for await (const chunk of await client.chat.completions.create({ ...ask, messages, stream: true })) {
      const delta = chunk.choices[0]?.delta as (OpenAI.ChatCompletionChunk.Choice.Delta & Partial<Reasoned>) | undefined;
      if (delta?.reasoning_details) details.push(...delta.reasoning_details);
      if (delta?.reasoning_content) reasoning += delta.reasoning_content;
      for (const c of delta?.tool_calls ?? []) {
        if (c.id) calls.push({ id: c.id, type: "function", function: { name: c.function!.name!, arguments: "" } });
        calls.at(-1)!.function.arguments += c.function?.arguments ?? "";
      }
    }
    expect(details).toEqual([{ type: "reasoning.encrypted", data: expect.stringMatching(/^mmsp1\./) }]);
    expect(JSON.stringify(details)).not.toContain(ANTHROPIC.SIGNATURE);
    expect(calls).toHaveLength(1);
    const assistant = { role: "assistant", content: null, reasoning_content: reasoning, reasoning_details: details, tool_calls: calls };
    messages.push(assistant as OpenAI.ChatCompletionMessageParam, { role: "tool", tool_call_id: calls[0]!.id, content: "sunny" });
    // turn 2: Anthropic overloaded, the Chat provider answers (its fake refuses reasoning_details it never issued)
    state.down = true;
    const second = await client.chat.completions.create({ ...ask, messages });
    expect(second.choices[0]!.message.tool_calls!.length).toBeGreaterThan(0);
    expect(chat.requests).toHaveLength(1);
    expect(JSON.stringify(chat.requests[0]!.json)).not.toContain("mmsp1.");
    expect(JSON.stringify(chat.requests[0]!.json)).not.toContain(ANTHROPIC.SIGNATURE);
    // turn 3 (the turn-1 history again): Anthropic back, sent its own signature intact (its fake refuses one it never issued)
    state.down = false;
    const third = await client.chat.completions.create({ ...ask, messages });
    expect(third.choices[0]!.message.tool_calls).toHaveLength(1);
    expect(claude.requests).toHaveLength(2);
    expect(JSON.stringify(claude.requests[1]!.json)).toContain(ANTHROPIC.SIGNATURE);
  });

  test("a forged or altered sealed entry is refused naming it, in OpenAI's error shape; no provider is asked", async () => {
    const { relay, claude } = fallbackRelay();
    const client = openaiFor(relay);
    const forged = `mmsp1.${btoa(JSON.stringify({ provider: "anthropic", signature: ANTHROPIC.SIGNATURE }))}`;
    const assistant = { role: "assistant", content: "ok", reasoning_details: [{ type: "reasoning.encrypted", data: forged }] };
    const refused = await client.chat.completions.create({
      model: "think",
      messages: [{ role: "user", content: "Hi" }, assistant as OpenAI.ChatCompletionMessageParam, { role: "user", content: "Again" }],
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages[1].reasoning_details[0].data");
    expect(claude.requests).toHaveLength(0);
  });
});
