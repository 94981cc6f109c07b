// The Anthropic Messages door (issue #47), in Node: the real clients pointed at the stateless relay
// (createRelay with a models table) backed by the kit's fake providers — `@anthropic-ai/sdk`'s
// `messages.stream` with thinking and a tool over two turns (the signature carried back reaches the
// Anthropic fake, which refuses one it never issued), `messages.create`, `messages.countTokens`;
// `@ai-sdk/anthropic` with thinking and tools over three steps; the requests Claude Code documents for
// gateways; the four providers behind the door for a text answer; refusals in Messages' error shape.
import Anthropic from "@anthropic-ai/sdk";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, isStepCount, jsonSchema, tool } from "ai";
import { describe, expect, test } from "vitest";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../../../src/testing/index.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../../../cases/providers/captures-openai-responses.ts";
import { doorRelay, providerFor, relayFetch } from "./door-relay.ts";

const ORIGIN = "https://relay.test";
const KEY = "sk-unit-messages-KEY";

/** Thinking (signed), then a tool call: the answer of a thinking model that calls a tool (the streaming reference's events). */
const THINK_TOOL = ANTHROPIC.thinkThenCall('{"location":', ' "Paris"}');

const BACKENDS: { name: ProviderName; text: string }[] = [
  { name: "anthropic", text: ANTHROPIC.TEXT },
  { name: "openai-chat", text: CHAT.TEXT },
  { name: "gemini", text: GEMINI.TEXT },
  { name: "openai-responses", text: RESPONSES.TEXT },
];

/** A relay whose rows are Claude model names (as Claude Code asks for them) served by `backend`'s fake. */
function relayFor(backend: (typeof BACKENDS)[number] = BACKENDS[0]!, options: Parameters<typeof createRelay>[0] = {}) {
  return doorRelay({
    provider: backend.name,
    key: KEY,
    streams: { "text-model": backend.text, "think-tool-model": THINK_TOOL },
    rows: (provider) => ({
      "claude-haiku-4-5": { provider, model: "text-model" },
      // (a client's own function tools need no allow, SPEC §10; a thinking level does)
      "claude-sonnet-4-5": { provider, model: "think-tool-model", allow: { thinking_level: true } },
    }),
    options,
  });
}

const sdk = (relay: ReturnType<typeof createRelay>, env: object = {}) =>
  new Anthropic({ apiKey: "sk-relay-client", baseURL: ORIGIN, fetch: relayFetch(relay, env), maxRetries: 0 });

const WEATHER = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: { type: "object" as const, properties: { location: { type: "string" } }, required: ["location"] },
};

/** The SSE records of a body: their `event:` names, in order. */
const eventNames = (text: string): string[] => text.split("\n\n").filter(Boolean).map((r) => r.split("\n")[0]!.replace(/^event: /, ""));

describe("@anthropic-ai/sdk against the relay's /v1/messages (Anthropic fake)", () => {
  test("messages.stream with thinking and a tool over two turns: the signature carried back reaches the provider intact", async () => {
    const { relay, fake } = relayFor();
    const client = sdk(relay);
    const ask = {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      thinking: { type: "enabled" as const, budget_tokens: 2048 },
      tools: [WEATHER],
    };
    const first = client.messages.stream({ ...ask, messages: [{ role: "user", content: "Weather in Paris?" }] });
    const types: string[] = [];
    first.on("streamEvent", (e) => types.push(e.type));
    const message = await first.finalMessage();
    expect(types[0]).toBe("message_start"); // (the SDK does not hand on the ping: the raw bytes' test sees it)
    expect(types.at(-2)).toBe("message_delta");
    expect(types.at(-1)).toBe("message_stop");
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const thinking = message.content.find((b) => b.type === "thinking");
    expect(thinking).toMatchObject({ type: "thinking", signature: ANTHROPIC.SIGNATURE });
    const call = message.content.find((b) => b.type === "tool_use");
    expect(call).toMatchObject({ type: "tool_use", name: "get_weather", input: { location: "Paris" } });

    const second = client.messages.stream({
      ...ask,
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: message.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: call!.type === "tool_use" ? call!.id : "", content: "18 degrees, sunny" }],
        },
      ],
    });
    await second.finalMessage();
    expect(fake.requests).toHaveLength(2);
    const sent = fake.requests[1]!.json as { messages: { role: string; content: Record<string, unknown>[] }[] };
    expect(sent.messages[1]!.content[0]).toMatchObject({ type: "thinking", signature: ANTHROPIC.SIGNATURE });
    expect(JSON.stringify(sent.messages[2])).toContain("18 degrees, sunny");
  });

  test("messages.create (not streamed): one message object, its text, stop_reason and usage", async () => {
    const { relay } = relayFor();
    const message = await sdk(relay).messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 256,
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(message.type).toBe("message");
    expect(message.id).toMatch(/^msg_/);
    expect(message.model).toBe("claude-haiku-4-5");
    expect(message.content).toEqual([{ type: "text", text: "Hello!" }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBe(15);
  });

  test("messages.countTokens: Anthropic's own counter asked (the request in its shape, its key) and its figure returned; against requestsPerMinute", async () => {
    const { relay, fake } = relayFor(BACKENDS[0], { quotas: { anonymous: { requestsPerMinute: 1 } } });
    const client = sdk(relay);
    const body = {
      model: "claude-haiku-4-5",
      messages: [{ role: "user" as const, content: "How many tokens is this?" }],
      tools: [WEATHER],
    };
    const { data, response } = await client.messages.countTokens(body).withResponse();
    expect(fake.requests).toHaveLength(1);
    const asked = fake.requests[0]!;
    expect(new URL(asked.url).pathname).toBe("/v1/messages/count_tokens");
    expect(asked.status).toBe(200); // (the fake refuses what the real counter refuses: max_tokens, stream…)
    expect(asked.json).toMatchObject({ model: "text-model", tools: [{ name: "get_weather" }] });
    expect(data.input_tokens).toBe(asked.counted);
    expect(response.headers.get("x-mmsp-tokens-estimated")).toBeNull();
    const again = await client.messages.countTokens(body).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(Anthropic.RateLimitError);
  });

  test("messages.countTokens when the counter fails (here: refuses the row's key): the relay's estimate, said to be one, never a 5xx", async () => {
    const fake = fakeProvider("anthropic", { streams: { "text-model": parseCapture(ANTHROPIC.TEXT) }, key: KEY });
    const provider = providerFor("anthropic", "sk-not-the-fakes-key", fake as unknown as typeof fetch);
    const relay = createRelay({
      models: { "claude-haiku-4-5": { provider, model: "text-model" } },
      allowAnonymous: true,
      clientAddress: () => "203.0.113.9",
    });
    const { data, response } = await sdk(relay).messages.countTokens({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "Count me" }],
    })
      .withResponse();
    expect(fake.requests.map((r) => r.status)).toEqual([401]);
    expect(data.input_tokens).toBeGreaterThan(0);
    expect(response.headers.get("x-mmsp-tokens-estimated")).toBe("true");
  });

  test("messages.countTokens falls back along the row's targets, as a request does: one without a counter passed, a failing counter passed, the next one's figure", async () => {
    const fakes = {
      chat: fakeProvider("openai-chat", { streams: { "text-model": parseCapture(CHAT.TEXT) }, key: KEY }),
      claude: fakeProvider("anthropic", { streams: { "text-model": parseCapture(ANTHROPIC.TEXT) }, key: KEY }),
      gemini: fakeProvider("gemini", { streams: { "text-model": parseCapture(GEMINI.TEXT) }, key: KEY }),
    };
    const row = [
      { provider: providerFor("openai-chat", KEY, fakes.chat as unknown as typeof fetch), model: "text-model" }, // (no counter)
      { provider: providerFor("anthropic", "sk-not-the-fakes-key", fakes.claude as unknown as typeof fetch), model: "text-model" }, // (its counter refuses the key)
      { provider: providerFor("gemini", KEY, fakes.gemini as unknown as typeof fetch), model: "text-model" },
    ];
    const relay = createRelay({ models: { "claude-haiku-4-5": row }, allowAnonymous: true, clientAddress: () => "203.0.113.9" });
    const { data, response } = await sdk(relay).messages.countTokens({
      model: "claude-haiku-4-5",
      messages: [{ role: "user", content: "Count me along the row" }],
    }).withResponse();
    expect(fakes.chat.requests).toHaveLength(0);
    expect(fakes.claude.requests.map((r) => r.status)).toEqual([401]);
    expect(fakes.gemini.requests.map((r) => r.status)).toEqual([200]);
    expect(data.input_tokens).toBe(fakes.gemini.requests[0]!.counted);
    expect(response.headers.get("x-mmsp-tokens-estimated")).toBeNull();
    // none of them counts: the relay's estimate, said to be one
    const none = createRelay({ models: { "claude-haiku-4-5": row.slice(0, 2) }, allowAnonymous: true, clientAddress: () => "203.0.113.9" });
    const estimated = await sdk(none).messages.countTokens({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "x" }] }).withResponse();
    expect(estimated.data.input_tokens).toBeGreaterThan(0);
    expect(estimated.response.headers.get("x-mmsp-tokens-estimated")).toBe("true");
  });

  test("a principal with its day's tokens spent can still count (a count claims a place in requestsPerMinute only)", async () => {
    const { relay } = relayFor(BACKENDS[0], { quotas: { anonymous: { requestsPerMinute: 5, tokensPerDay: 1 } } });
    const client = sdk(relay);
    const refused = await client.messages.create({ model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError); // (the day's one token)
    const counted = await client.messages.countTokens({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "Hi" }] });
    expect(counted.input_tokens).toBeGreaterThan(0);
  });

  test("countTokens of a model the relay does not serve: 404 not_found_error", async () => {
    const { relay } = relayFor();
    const e = await sdk(relay).messages.countTokens({ model: "claude-nope", messages: [{ role: "user", content: "x" }] }).catch((
      x: unknown,
    ) => x);
    expect(e).toBeInstanceOf(Anthropic.NotFoundError);
  });
});

describe.each(BACKENDS)("the relay's /v1/messages backed by $name", (backend) => {
  test("messages.stream: the provider's text, stop_reason end_turn", async () => {
    const { relay } = relayFor(backend);
    const stream = sdk(relay).messages.stream({
      model: "claude-haiku-4-5",
      max_tokens: 256,
      messages: [{ role: "user", content: "Say hello" }],
    });
    let deltas = "";
    stream.on("text", (t) => (deltas += t));
    const message = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(0);
    expect(message.content.map((b) => (b.type === "text" ? b.text : "")).join("")).toBe(deltas);
    expect(message.stop_reason).toBe("end_turn");
  });
});

test("@ai-sdk/anthropic with thinking and a tool over three steps: each step's history (signed thinking, tool results) accepted by the provider", async () => {
  const { relay, fake } = relayFor();
  const provider = createAnthropic({ baseURL: `${ORIGIN}/v1`, apiKey: "sk-relay-client", fetch: relayFetch(relay) });
  let calls = 0;
  const result = await generateText({
    model: provider("claude-sonnet-4-5"),
    prompt: "Weather in Paris?",
    maxOutputTokens: 4096,
    tools: {
      get_weather: tool({
        description: "The weather in a city",
        inputSchema: jsonSchema<{ location: string }>({
          type: "object",
          properties: { location: { type: "string" } },
          required: ["location"],
        }),
        execute: async ({ location }) => (calls++, `18 degrees in ${location}`),
      }),
    },
    stopWhen: isStepCount(3),
    providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } },
  });
  expect(result.steps).toHaveLength(3);
  expect(calls).toBe(3);
  expect(result.steps[0]!.reasoningText).toContain("call the tool");
  expect(fake.requests).toHaveLength(3);
  const last = fake.requests[2]!.json as { messages: { content: Record<string, unknown>[] }[] };
  const signed = last.messages.flatMap((m) => m.content).filter((b) => b.type === "thinking");
  expect(signed).toHaveLength(2);
  for (const b of signed) expect(b.signature).toBe(ANTHROPIC.SIGNATURE);
});

describe("the requests Claude Code documents for gateways", () => {
  const HEADERS = {
    "content-type": "application/json",
    "anthropic-version": "2023-06-01",
    "anthropic-beta": "claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14",
    "anthropic-dangerous-direct-browser-access": "true",
    "x-app": "cli",
    "user-agent": "claude-cli/2.0.0 (external, cli)",
  };
  const KEYED = { RELAY_KEY: "sk-relay-key-for-claude-code" };

  test("HEAD / answers 200 (its probe), GET / is not the door's", async () => {
    const { relay } = relayFor();
    const head = await relay.fetch(new Request(`${ORIGIN}/`, { method: "HEAD" }), {});
    expect(head.status).toBe(200);
    const get = await relay.fetch(new Request(`${ORIGIN}/`), {});
    expect(get.status).toBe(404);
  });

  test("POST /v1/messages?beta=true with its betas, cache_control breakpoints, metadata.user_id, thinking and tools; ANTHROPIC_API_KEY as x-api-key", async () => {
    const { relay, fake } = relayFor(BACKENDS[0], { allowAnonymous: false });
    const body = {
      model: "claude-sonnet-4-5",
      max_tokens: 32000,
      stream: true,
      system: [
        { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." },
        { type: "text", text: "Help with software tasks.", cache_control: { type: "ephemeral" } },
      ],
      messages: [{ role: "user", content: [{ type: "text", text: "What's the weather?", cache_control: { type: "ephemeral" } }] }],
      tools: [WEATHER],
      thinking: { type: "enabled", budget_tokens: 31999 },
      metadata: { user_id: "user_abc_account__session_123" },
      temperature: 1,
    };
    const init = { method: "POST", body: JSON.stringify(body) };
    const refused = await relay.fetch(
      new Request(`${ORIGIN}/v1/messages?beta=true`, { ...init, headers: { ...HEADERS, "x-api-key": "wrong" } }),
      KEYED,
    );
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const answer = await relay.fetch(
      new Request(`${ORIGIN}/v1/messages?beta=true`, { ...init, headers: { ...HEADERS, "x-api-key": KEYED.RELAY_KEY } }),
      KEYED,
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await answer.text();
    const names = eventNames(text);
    expect(names[0]).toBe("message_start"); // (an Anthropic target: the provider's own bytes, anthropic-pass-through.test.ts)
    expect(names).toContain("content_block_delta");
    expect(names.slice(-2)).toEqual(["message_delta", "message_stop"]);
    const start = JSON.parse(text.split("\n")[1]!.slice(6)) as { message: { usage: { input_tokens: number } } };
    expect(start.message.usage.input_tokens).toBeGreaterThan(0);
    expect(text).toContain('"stop_reason":"tool_use"');
    expect(text).toContain('"type":"signature_delta"');
    expect(text).toContain('"type":"input_json_delta"');
    const sent = fake.requests[0]!.json as Record<string, unknown>;
    expect(JSON.stringify(sent.system)).toContain("Help with software tasks.");
  });

  test("ANTHROPIC_AUTH_TOKEN as Authorization: Bearer; count_tokens?beta=true", async () => {
    const { relay } = relayFor(BACKENDS[0], { allowAnonymous: false });
    const headers = { ...HEADERS, authorization: `Bearer ${KEYED.RELAY_KEY}` };
    const body = {
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "count me" }],
      system: "You are Claude Code.",
      tools: [WEATHER],
    };
    const answer = await relay.fetch(
      new Request(`${ORIGIN}/v1/messages/count_tokens?beta=true`, { method: "POST", headers, body: JSON.stringify(body) }),
      KEYED,
    );
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
  });
});

describe.each(BACKENDS)("messages.countTokens backed by $name", (backend) => {
  test("the target's own counter where it has one (Anthropic, Gemini, Responses), its figure returned; else the estimate, said to be one", async () => {
    const { relay, fake } = relayFor(backend);
    const { data, response } = await sdk(relay).messages.countTokens({
      model: "claude-haiku-4-5",
      system: "Be brief.",
      messages: [{ role: "user", content: "How many tokens is this?" }],
    }).withResponse();
    if (backend.name === "openai-chat") {
      expect(fake.requests).toHaveLength(0); // (an OpenAI-compatible Chat server has no counter)
      expect(data.input_tokens).toBeGreaterThan(0);
      expect(response.headers.get("x-mmsp-tokens-estimated")).toBe("true");
      return;
    }
    expect(fake.requests.map((r) => r.status)).toEqual([200]);
    expect(JSON.stringify(fake.requests[0]!.json)).toContain("Be brief.");
    expect(data.input_tokens).toBe(fake.requests[0]!.counted);
    expect(response.headers.get("x-mmsp-tokens-estimated")).toBeNull();
  });
});

/** A custom tool as the Messages API takes it. */
const TOOL = { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } };

describe("refusals are Messages' error shape, naming the member, with x-should-retry", () => {
  const { relay } = relayFor();
  const post = (body: object) =>
    relay.fetch(
      new Request(`${ORIGIN}/v1/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      {},
    );
  const base = { model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user" as const, content: "x" }] };
  test.each([
    [{ ...base, top_k: 5 }, 400, "invalid_request_error", "top_k"],
    [{ ...base, stop_sequences: ["END"] }, 400, "invalid_request_error", "stop_sequences"],
    [{ ...base, max_tokens: undefined }, 400, "invalid_request_error", "max_tokens"],
    [{ ...base, tools: [{ type: "web_search_20250305", name: "web_search" }] }, 400, "invalid_request_error", "tools[0]"],
    // (inside a custom tool too: what asks for more than the relay does, or a member it does not know, refused by name)
    [{ ...base, tools: [{ ...TOOL, strict: true }] }, 400, "invalid_request_error", "tools[0].strict"],
    [{ ...base, tools: [{ ...TOOL, defer_loading: true }] }, 400, "invalid_request_error", "tools[0].defer_loading"],
    [{ ...base, tools: [{ ...TOOL, allowed_callers: ["code_execution_20250825"] }] }, 400, "invalid_request_error", "tools[0].allowed_callers"],
    [{ ...base, tools: [{ ...TOOL, input_examples: [{ city: "Paris" }] }] }, 400, "invalid_request_error", "tools[0].input_examples"],
    [{ ...base, tools: [{ ...TOOL, cache_hint: "x" }] }, 400, "invalid_request_error", "tools[0].cache_hint"],
    [
      { ...base, messages: [{ role: "user", content: [{ type: "document", source: {} }] }] },
      400,
      "invalid_request_error",
      "messages[0].content[0]",
    ],
    [{ ...base, thinking: { type: "enabled", budget_tokens: 10 } }, 400, "invalid_request_error", "thinking.budget_tokens"],
    [{ ...base, model: "claude-nope" }, 404, "not_found_error", "claude-nope"],
  ])("%j → %i %s naming %s", async (body, status, type, named) => {
    const answer = await post(body);
    expect(answer.status).toBe(status);
    expect(answer.headers.get("x-should-retry")).toBe("false");
    const json = (await answer.json()) as { type: string; error: { type: string; message: string } };
    expect(json.type).toBe("error");
    expect(json.error.type).toBe(type);
    expect(json.error.message).toContain(named);
  });

  test("a custom tool's members that ask for nothing are accepted: eager_input_streaming, allowed_callers direct, defer_loading and strict false", async () => {
    const { relay, fake } = relayFor();
    const tool = { ...TOOL, eager_input_streaming: true, allowed_callers: ["direct"], defer_loading: false, strict: false, input_examples: [] };
    const answer = await relay.fetch(
      new Request(`${ORIGIN}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...base, tools: [tool] }),
      }),
      {},
    );
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect((fake.requests[0]!.json as { tools: unknown[] }).tools).toEqual([
      { name: "get_weather", description: "", input_schema: TOOL.input_schema },
    ]);
  });

  test("the SDK reads a refusal as its typed error, and does not retry it", async () => {
    let sent = 0;
    const client = new Anthropic({
      apiKey: "k",
      baseURL: ORIGIN,
      maxRetries: 2,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => (sent++, relayFetch(relay)(input, init)),
    });
    const e = await client.messages.create({ ...base, stop_sequences: ["END"] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.BadRequestError);
    expect(sent).toBe(1);
  });

  test("a method other than POST: 405 in Messages' shape", async () => {
    const answer = await relay.fetch(new Request(`${ORIGIN}/v1/messages`), {});
    expect(answer.status).toBe(405);
    expect(((await answer.json()) as { type: string }).type).toBe("error");
  });
});

/** The relay's seal key (doors/seal.ts). */
const SEAL = { RELAY_SEAL_KEY: "relay-seal-key-for-the-messages-tests-0123456789" };

/** A Responses answer: a reasoning item with its encrypted content, then a call of get_weather (the Responses API's streaming events). */
const REASONING_CALL = [
  { type: "response.created", response: { id: "resp_1", object: "response", status: "in_progress", output: [], model: "gpt-5.1" } },
  { type: "response.output_item.added", output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } },
  {
    type: "response.output_item.done",
    output_index: 0,
    item: { id: "rs_1", type: "reasoning", encrypted_content: RESPONSES.ENCRYPTED, summary: [] },
  },
  {
    type: "response.output_item.added",
    output_index: 1,
    item: { id: "fc_1", type: "function_call", status: "in_progress", arguments: "", call_id: "call_weather", name: "get_weather" },
  },
  { type: "response.function_call_arguments.done", item_id: "fc_1", output_index: 1, arguments: '{"location":"Paris"}' },
  {
    type: "response.output_item.done",
    output_index: 1,
    item: {
      id: "fc_1",
      type: "function_call",
      status: "completed",
      arguments: '{"location":"Paris"}',
      call_id: "call_weather",
      name: "get_weather",
    },
  },
  {
    type: "response.completed",
    response: {
      id: "resp_1",
      object: "response",
      status: "completed",
      output: [],
      model: "gpt-5.1",
      usage: { input_tokens: 30, output_tokens: 40, total_tokens: 70, output_tokens_details: { reasoning_tokens: 20 } },
    },
  },
].map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join("");

describe("provider-bound values through a Messages client's history (SPEC §9)", () => {
  /** A relay whose row is the Responses fake answering reasoning with encrypted content. */
  function responsesRelay() {
    return doorRelay({
      provider: "openai-responses",
      key: KEY,
      streams: { "reasoning-model": RESPONSES.REASONING_SUMMARIES },
      rows: (provider) => ({ "claude-sonnet-4-5": { provider, model: "reasoning-model", allow: { thinking_level: true } } }),
    });
  }

  test("another provider's encrypted reasoning is sealed into the thinking block's signature, and reaches its maker again intact", async () => {
    const { relay, fake } = responsesRelay();
    const client = sdk(relay, SEAL);
    const ask = { model: "claude-sonnet-4-5", max_tokens: 4096, thinking: { type: "enabled" as const, budget_tokens: 2048 } };
    const first = await client.messages.stream({ ...ask, messages: [{ role: "user", content: "2 + 2?" }] }).finalMessage();
    const thinking = first.content.find((b) => b.type === "thinking");
    expect(thinking?.type === "thinking" && thinking.signature).toMatch(/^mmsp1\./);
    expect(JSON.stringify(first)).not.toContain(RESPONSES.ENCRYPTED); // (not written as if it were Anthropic's)
    // (sealed: AES-GCM under the relay's key, not readable by the client — the old base64 wrapping was)
    const seal = thinking?.type === "thinking" ? thinking.signature : "";
    expect(atob(seal.slice(6).replace(/-/g, "+").replace(/_/g, "/"))).not.toContain("openai-responses");
    await client.messages.stream({
      ...ask,
      messages: [{ role: "user", content: "2 + 2?" }, { role: "assistant", content: first.content }, {
        role: "user",
        content: "And 3 + 3?",
      }],
    }).finalMessage();
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]!.json)).toContain(RESPONSES.ENCRYPTED);
  });

  test("an Anthropic signature is written as it is; a forged or altered seal is refused naming its member", async () => {
    const { relay, fake } = relayFor();
    const signed = (signature: string) => ({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      thinking: { type: "enabled" as const, budget_tokens: 2048 },
      tools: [WEATHER],
      messages: [
        { role: "user" as const, content: "Weather?" },
        {
          role: "assistant" as const,
          content: [
            { type: "thinking" as const, thinking: "t", signature },
            { type: "tool_use" as const, id: "toolu_1", name: "get_weather", input: { location: "Paris" } },
          ],
        },
        { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_1", content: "sunny" }] },
      ],
    });
    await sdk(relay).messages.create(signed(ANTHROPIC.SIGNATURE));
    expect(JSON.stringify(fake.requests[0]!.json)).toContain(ANTHROPIC.SIGNATURE);
    for (const forged of ["mmsp1.not-json", `mmsp1.${btoa(JSON.stringify({ provider: "anthropic", signature: ANTHROPIC.SIGNATURE }))}`]) {
      const refused = await sdk(relay, SEAL).messages.create(signed(forged)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
      expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
        type: "error",
        error: { type: "invalid_request_error", message: expect.stringContaining("messages[1].content[0].signature") },
      });
    }
    expect(fake.requests).toHaveLength(1); // (no provider asked)
  });

  test("without a seal key another provider's proof is left out (the thinking goes as foreign thinking), never written as it is", async () => {
    const { relay } = responsesRelay();
    const ask = { model: "claude-sonnet-4-5", max_tokens: 4096, thinking: { type: "enabled" as const, budget_tokens: 2048 } };
    const first = await sdk(relay).messages.stream({ ...ask, messages: [{ role: "user", content: "2 + 2?" }] }).finalMessage();
    expect(JSON.stringify(first)).not.toContain(RESPONSES.ENCRYPTED);
    expect(JSON.stringify(first)).not.toContain("mmsp-pending.");
    const whole = await sdk(relay).messages.create({ ...ask, messages: [{ role: "user", content: "2 + 2?" }] });
    expect(JSON.stringify(whole)).not.toContain("mmsp-pending.");
    expect(whole.content.some((b) => b.type === "thinking")).toBe(true);
  });

  test("a thinking + tool turn of one provider, a fallback to Anthropic on the next, its proof back to its maker intact after", async () => {
    let down = false;
    const responsesFake = fakeProvider("openai-responses", { streams: { "reasoning-model": parseCapture(REASONING_CALL) }, key: KEY });
    const overloaded = () => Response.json({ error: { message: "Overloaded", type: "server_error" } }, { status: 503 });
    const responsesFetch =
      ((input: RequestInfo | URL, init?: RequestInit) => down ? Promise.resolve(overloaded()) : responsesFake(input, init)) as typeof fetch;
    const anthropicFake = fakeProvider("anthropic", { streams: { "claude-model": parseCapture(ANTHROPIC.TOOL_USE) }, key: KEY });
    const allow = { thinking_level: true };
    const relay = createRelay({
      models: {
        "claude-sonnet-4-5": [
          { provider: providerFor("openai-responses", KEY, responsesFetch), model: "reasoning-model", allow },
          { provider: providerFor("anthropic", KEY, anthropicFake as unknown as typeof fetch), model: "claude-model", allow },
        ],
      },
      allowAnonymous: true,
      clientAddress: () => "203.0.113.9",
    });
    const client = sdk(relay, SEAL);
    const ask = {
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      tools: [WEATHER],
      thinking: { type: "enabled" as const, budget_tokens: 2048 },
    };
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
    const first = await client.messages.stream({ ...ask, messages: history }).finalMessage();
    const thinking = first.content.find((b) => b.type === "thinking");
    expect(thinking?.type === "thinking" && thinking.signature).toMatch(/^mmsp1\./);
    const call = first.content.find((b) => b.type === "tool_use");
    history.push({ role: "assistant", content: first.content }, {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: call?.type === "tool_use" ? call.id : "", content: "sunny" }],
    });
    // the next turn: the Responses target is down, Anthropic answers (its fake refuses a signature it never issued)
    down = true;
    const second = await client.messages.create({ ...ask, messages: history });
    expect(second.content.some((b) => b.type === "tool_use")).toBe(true);
    expect(anthropicFake.requests).toHaveLength(1);
    expect(JSON.stringify(anthropicFake.requests[0]!.json)).not.toContain(RESPONSES.ENCRYPTED);
    expect(JSON.stringify(anthropicFake.requests[0]!.json)).not.toContain("mmsp1.");
    // the turn after: the Responses target is back, and is sent its own encrypted reasoning intact
    down = false;
    history.push({ role: "assistant", content: second.content }, {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: second.content.find((b) => b.type === "tool_use")!.id, content: "sunny" }],
    } as Anthropic.MessageParam);
    await client.messages.create({ ...ask, messages: history });
    expect(JSON.stringify(responsesFake.requests.at(-1)!.json)).toContain(RESPONSES.ENCRYPTED);
  });
});

describe("a provider's failure reaches the client in Messages' own shape", () => {
  function failing() {
    return doorRelay({
      provider: "anthropic",
      key: KEY,
      streams: { "broken-model": ANTHROPIC.ERROR_MID_STREAM },
      rows: (provider) => ({ "claude-haiku-4-5": { provider, model: "broken-model" }, "claude-gone": { provider, model: "no-such-model" } }),
    }).relay;
  }
  const ask = (model: string) => ({ model, max_tokens: 256, messages: [{ role: "user" as const, content: "Hi" }] });

  test("streamed: the text so far, then `event: error` (the SDK throws its APIError)", async () => {
    const stream = sdk(failing()).messages.stream(ask("claude-haiku-4-5"));
    let text = "";
    stream.on("text", (t) => (text += t));
    const e = await stream.finalMessage().catch((x: unknown) => x);
    expect(text).toBe("Partial");
    expect(e).toBeInstanceOf(Anthropic.APIError);
    expect(String((e as Error).message)).toContain("verloaded");
  });

  test("not streamed: the error object with an error status, not an empty 200", async () => {
    const answer = await failing().fetch(
      new Request(`${ORIGIN}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(ask("claude-haiku-4-5")),
      }),
      {},
    );
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(await answer.json()).toMatchObject({
      type: "error",
      error: { type: expect.any(String), message: expect.stringContaining("verloaded") },
    });
  });

  test("refused by the provider before any byte: its refusal in Messages' shape", async () => {
    const e = await sdk(failing()).messages.create(ask("claude-gone")).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Anthropic.APIError);
    expect((e as InstanceType<typeof Anthropic.APIError>).status).toBeGreaterThanOrEqual(400);
    expect((e as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: "error", error: { type: expect.any(String) } });
  });
});

test("a browser's preflight for the Anthropic SDK's headers (x-api-key, anthropic-version, anthropic-beta, x-stainless-*) allows them", async () => {
  const { relay } = relayFor();
  const requested = "content-type, x-api-key, anthropic-version, anthropic-beta, anthropic-dangerous-direct-browser-access, x-stainless-os";
  const pre = await relay.fetch(
    new Request(`${ORIGIN}/v1/messages`, {
      method: "OPTIONS",
      headers: { origin: "https://page.test", "access-control-request-method": "POST", "access-control-request-headers": requested },
    }),
    {},
  );
  const allowed = (pre.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/,\s*/);
  for (const name of requested.split(", ")) expect(allowed, name).toContain(name);
});

describe("a Gemini 3 call's thought signature through a Messages client's history (a redacted_thinking block before its tool_use)", () => {
  const ask = { model: "claude-sonnet-4-5", max_tokens: 4096, thinking: { type: "enabled" as const, budget_tokens: 2048 }, tools: [WEATHER] };
  const geminiRelay = () =>
    doorRelay({
      provider: "gemini",
      key: KEY,
      streams: { "gemini-3-pro-preview": GEMINI.SIGNED_CALL },
      rows: (provider) => ({ "claude-sonnet-4-5": { provider, model: "gemini-3-pro-preview", allow: { thinking_level: true } } }),
    });
  /** The first turn's answer and the history that sends it back with the tool's result. */
  async function firstTurn(client: Anthropic) {
    const first = await client.messages.stream({ ...ask, messages: [{ role: "user", content: "Weather in Paris?" }] }).finalMessage();
    const call = first.content.find((b) => b.type === "tool_use");
    const history: Anthropic.MessageParam[] = [
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call?.type === "tool_use" ? call.id : "", content: "sunny" }] },
    ];
    return { first, history };
  }

  test("sealed with the call's id in a redacted_thinking block just before the tool_use; sent back, it reaches Gemini on that call", async () => {
    const { relay, fake } = geminiRelay();
    const client = sdk(relay, SEAL);
    const { first, history } = await firstTurn(client);
    expect(first.content.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "tool_use"]);
    expect(first.content[1]).toMatchObject({ type: "redacted_thinking", data: expect.stringMatching(/^mmsp1\./) });
    expect(JSON.stringify(first)).not.toContain(GEMINI.SIGNATURE);
    await client.messages.stream({ ...ask, messages: history }).finalMessage();
    expect(fake.requests).toHaveLength(2);
    const model = (fake.requests[1]!.json as { contents: { role: string; parts: Record<string, unknown>[] }[] }).contents[1]!;
    const call = model.parts.find((p) => p.functionCall !== undefined);
    expect(call).toMatchObject({ functionCall: { name: "get_weather" }, thoughtSignature: GEMINI.SIGNATURE });
    // (the carrier is no thinking: not sent as a thought, nor the placeholder in place of the call's own signature)
    expect(JSON.stringify(model)).not.toContain("_REDACTED_THINKING");
    expect(JSON.stringify(model)).not.toContain("skip_thought_signature_validator");
    // (the whole answer of a request not streamed carries it too)
    const whole = await client.messages.create({ ...ask, messages: [{ role: "user", content: "Weather in Paris?" }] });
    expect(whole.content.map((b) => b.type)).toEqual(["thinking", "redacted_thinking", "tool_use"]);
  });

  test("@ai-sdk/anthropic keeps the carrier as a reasoning part (its redactedData) and sends it back: Gemini gets the call's signature", async () => {
    const { relay, fake } = geminiRelay();
    const provider = createAnthropic({ baseURL: `${ORIGIN}/v1`, apiKey: "sk-relay-client", fetch: relayFetch(relay, SEAL) });
    await generateText({
      model: provider("claude-sonnet-4-5"),
      prompt: "Weather in Paris?",
      maxOutputTokens: 4096,
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ location: string }>({ type: "object", properties: { location: { type: "string" } }, required: ["location"] }),
          execute: async ({ location }) => `sunny in ${location}`,
        }),
      },
      stopWhen: isStepCount(2),
      providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 2048 } } },
    });
    expect(fake.requests).toHaveLength(2);
    const model = (fake.requests[1]!.json as { contents: { parts: Record<string, unknown>[] }[] }).contents[1]!;
    expect(model.parts.find((p) => p.functionCall !== undefined)).toMatchObject({ thoughtSignature: GEMINI.SIGNATURE });
  });

  test("a forged or altered carrier is refused naming its member, before any provider is asked", async () => {
    const { relay, fake } = geminiRelay();
    const client = sdk(relay, SEAL);
    const { first, history } = await firstTurn(client);
    const data = (first.content[1] as Anthropic.RedactedThinkingBlock).data;
    const altered = `${data.slice(0, -4)}${data.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    const content = first.content.map((b) => (b.type === "redacted_thinking" ? { ...b, data: altered } : b));
    const refused = await client.messages.create({ ...ask, messages: [history[0]!, { role: "assistant", content }, history[2]!] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      error: { type: "invalid_request_error", message: expect.stringContaining("messages[1].content[1].data") },
    });
    expect(fake.requests).toHaveLength(1);
  });

  test("after a fallback to Anthropic the carrier is not sent to it (another provider's call goes without its signature)", async () => {
    let down = false;
    const geminiFake = fakeProvider("gemini", { streams: { "gemini-3-pro-preview": parseCapture(GEMINI.SIGNED_CALL) }, key: KEY });
    const overloaded = () => Response.json({ error: { code: 503, message: "Overloaded", status: "UNAVAILABLE" } }, { status: 503 });
    const geminiFetch = ((input: RequestInfo | URL, init?: RequestInit) => down ? Promise.resolve(overloaded()) : geminiFake(input, init)) as typeof fetch;
    const anthropicFake = fakeProvider("anthropic", { streams: { "claude-model": parseCapture(ANTHROPIC.TEXT) }, key: KEY });
    const allow = { thinking_level: true };
    const relay = createRelay({
      models: {
        "claude-sonnet-4-5": [
          { provider: providerFor("gemini", KEY, geminiFetch), model: "gemini-3-pro-preview", allow },
          // (foreign thinking as text: a carrier taken for thinking would show as its mark)
          { provider: providerFor("anthropic", KEY, anthropicFake as unknown as typeof fetch), model: "claude-model", allow, foreignThinking: "text" },
        ],
      },
      allowAnonymous: true,
      clientAddress: () => "203.0.113.9",
    });
    const client = sdk(relay, SEAL);
    const { history } = await firstTurn(client);
    down = true;
    await client.messages.create({ ...ask, messages: history });
    expect(anthropicFake.requests).toHaveLength(1);
    const sent = JSON.stringify(anthropicFake.requests[0]!.json);
    expect(sent).toContain('"tool_use"');
    expect(sent).not.toContain(GEMINI.SIGNATURE);
    expect(sent).not.toContain("mmsp1.");
    expect(sent).not.toContain("redacted_thinking");
    expect(sent).not.toContain("_REDACTED_THINKING");
    expect(sent).toContain("The weather is needed."); // (Gemini's thought, as text: the row's foreignThinking)
  });
});

test("Stop: the client going away mid-stream (the SDK's abort) aborts the provider's request, the answer mapped (an OpenAI Chat row)", async () => {
  const { relay, fake } = doorRelay({
    provider: "openai-chat",
    key: KEY,
    streams: { "slow-model": { capture: parseCapture(CHAT.TEXT), stallMs: Infinity } },
    rows: (provider) => ({ "claude-haiku-4-5": { provider, model: "slow-model" } }),
  });
  const stream = sdk(relay).messages.stream({ model: "claude-haiku-4-5", max_tokens: 256, messages: [{ role: "user", content: "Hi" }] });
  let text = "";
  const read = (async () => {
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      if (text) stream.abort();
    }
  })().catch((e) => e);
  await read;
  expect(text.length).toBeGreaterThan(0);
  expect(await fake.requests[0]!.ended).toBe("aborted");
});
