// Open Responses as real clients speak it (issue #46), in Node: the relay served on a port by the kit's
// `serve`, backed by the kit's fake Anthropic API, and each client pointed at it with its defaults —
// the OpenAI Agents SDK (streamed and not, with a tool), the AI SDK's `.responses()` (text, tools over
// three steps, reasoning with `store: false`, `Output.object`), LangChain's `ChatOpenAI` with
// `useResponsesApi` (streaming, tools over two turns), the `openai` SDK's `responses.stream` with a
// tool over two turns. The fake answers a tool call until the conversation holds as many tool results
// as the script wants, then text (each capture written from Anthropic's API reference).
import * as http from "node:http";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { generateText, jsonSchema, Output, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture, type Served, serve } from "../../../../src/testing/index.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";

const KEY = "sk-ant-fake-for-clients";
const RELAY_KEY = "relay-key-for-clients";

const start = (model: string) => ({
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 20, output_tokens: 1 } },
});
/** A tool_use turn calling get_weather for `city` (its id `toolu_<n>`). */
const toolTurn = (n: number, city: string): string =>
  ANTHROPIC.sse([
    start("claude-sonnet-4-5"),
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: `toolu_0${n}clients`, name: "get_weather", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: `{"city": "${city}"}` } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 20 } },
    { type: "message_stop" },
  ]);
/** A text turn. */
const textTurn = (text: string): string =>
  ANTHROPIC.sse([
    start("claude-sonnet-4-5"),
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 10 } },
    { type: "message_stop" },
  ]);

const fake = fakeProvider("anthropic", {
  streams: {
    "tool-1": parseCapture(toolTurn(1, "Paris")),
    "tool-2": parseCapture(toolTurn(2, "Rome")),
    "answer": parseCapture(textTurn("It is sunny in Paris.")),
    "json": parseCapture(textTurn('{"city":"Paris","sunny":true}')),
    "thinking": parseCapture(ANTHROPIC.THINKING),
    "think-tool": parseCapture(ANTHROPIC.thinkThenCall('{"city": "Paris"}')),
  },
  key: KEY,
});

/** The fake's model for a request: the row's script (`tools:<n>`: a tool call until n results are in), else the row's model. */
const scripted = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  const body = (await request.json()) as { model: string; messages: unknown[] };
  const m = /^tools:(\d)$/.exec(body.model);
  if (m) {
    const results = (JSON.stringify(body.messages).match(/"tool_result"/g) ?? []).length;
    body.model = results >= Number(m[1]) ? "answer" : `tool-${results + 1}`;
  }
  return fake(new Request(request.url, { method: "POST", headers: request.headers, body: JSON.stringify(body), signal: request.signal }));
}) as typeof fetch;

const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: scripted });
const relay = createRelay({
  models: {
    "claude-tools": { provider, model: "tools:1" },
    "claude-3-steps": { provider, model: "tools:2" },
    "claude-text": { provider, model: "answer" },
    "claude-json": { provider, model: "json" },
    "claude-thinking": { provider, model: "thinking", config: { thinking_level: "high" } },
    "claude-think-tool": { provider, model: "think-tool", config: { thinking_level: "high" } },
  },
});

let server: Served;
let baseURL = "";
beforeAll(async () => {
  server = await serve(relay.fetch, { http, env: { RELAY_KEY } });
  baseURL = `${server.url}/v1`;
  setTracingDisabled(true);
});
afterAll(() => server.close());

const WEATHER_SCHEMA = {
  type: "object" as const,
  properties: { city: { type: "string" as const } },
  required: ["city"],
  additionalProperties: false as const,
};

/** What the fake Anthropic API was last asked. */
const lastAsked = (): Record<string, any> => fake.requests.at(-1)!.json as Record<string, any>;

describe("@openai/agents 0.20 (its own openai 7), a run with a tool", () => {
  const weather = agentTool({
    name: "get_weather",
    description: "The weather in a city.",
    parameters: WEATHER_SCHEMA,
    strict: true,
    execute: async (args) => `Sunny in ${(args as { city: string }).city}`,
  });
  const agent = new Agent({ name: "Weather", instructions: "Answer briefly.", tools: [weather], model: "claude-tools" });
  const runner = () => new Runner({ modelProvider: new OpenAIProvider({ baseURL, apiKey: RELAY_KEY, useResponses: true }) });

  test("not streamed: the tool runs, its output goes back, the final answer is the provider's text", async () => {
    const result = await runner().run(agent, "Weather in Paris?");
    expect(result.finalOutput).toBe("It is sunny in Paris.");
    expect(JSON.stringify(lastAsked().messages)).toContain("Sunny in Paris");
  });

  test("streamed: the same run, its text streamed", async () => {
    const result = await runner().run(agent, "Weather in Paris?", { stream: true });
    let text = "";
    for await (const chunk of result.toTextStream()) text += chunk;
    await result.completed;
    expect(text).toBe("It is sunny in Paris.");
    expect(result.finalOutput).toBe("It is sunny in Paris.");
  });
});

describe("ai + @ai-sdk/openai .responses()", () => {
  const openai = () => createOpenAI({ baseURL, apiKey: RELAY_KEY });
  const weather = tool({
    description: "The weather in a city.",
    inputSchema: jsonSchema<{ city: string }>(WEATHER_SCHEMA),
    execute: async ({ city }) => `Sunny in ${city}`,
  });

  test("text", async () => {
    const { text } = await generateText({ model: openai().responses("claude-text"), prompt: "Hi" });
    expect(text).toBe("It is sunny in Paris.");
  });

  test("tools over three steps: two calls, each output sent back, then the answer", async () => {
    const result = await generateText({
      model: openai().responses("claude-3-steps"),
      prompt: "Weather in Paris and Rome?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(5),
    });
    expect(result.steps.length).toBe(3);
    expect(result.steps.flatMap((s) => s.toolCalls.map((c) => (c.input as { city: string }).city))).toEqual(["Paris", "Rome"]);
    expect(result.text).toBe("It is sunny in Paris.");
    const sent = JSON.stringify(lastAsked().messages);
    expect(sent).toContain("Sunny in Paris");
    expect(sent).toContain("Sunny in Rome");
  });

  test("reasoning with store: false: the reasoning text reaches the app", async () => {
    const result = streamText({
      model: openai().responses("claude-thinking"),
      prompt: "27 * 453?",
      providerOptions: { openai: { store: false, reasoningEffort: "high", reasoningSummary: "auto" } },
    });
    let reasoning = "";
    for await (const part of result.fullStream) if (part.type === "reasoning-delta") reasoning += part.text;
    expect(reasoning).toContain("Let me solve this step by step");
    expect(await result.text).toBe("27 * 453 = 12,231");
  });

  // (with the default store its second step sends the reasoning as item_reference: the Durable Object relay resolves
  // it, test/relay-pool/stored-responses.test.ts; this relay keeps nothing, so it says what to send instead)
  test("reasoning and a tool with the default store on the stateless relay: the second step refused, saying to send store: false", async () => {
    const run = generateText({
      model: openai().responses("claude-think-tool"),
      prompt: "Weather in Paris?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
      providerOptions: { openai: { reasoningEffort: "high" } },
    });
    await expect(run).rejects.toMatchObject({ statusCode: 400, message: expect.stringContaining("store: false") });
    // (with store: false the same run completes: the reasoning goes back by value, sealed)
    const ok = await generateText({
      model: openai().responses("claude-think-tool"),
      prompt: "Weather in Paris?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(1),
      providerOptions: { openai: { store: false, reasoningEffort: "high" } },
    });
    expect(ok.reasoningText).toBeTruthy();
  });
});

describe("@langchain/openai ChatOpenAI({ useResponsesApi: true })", () => {
  const chat = (model: string) => new ChatOpenAI({ model, apiKey: RELAY_KEY, useResponsesApi: true, configuration: { baseURL } });

  test("streaming: the chunks make the provider's text", async () => {
    let text = "";
    for await (const chunk of await chat("claude-text").stream("Hi")) text += typeof chunk.content === "string" ? chunk.content : chunk.text;
    expect(text).toBe("It is sunny in Paris.");
  });

  test("tools over two turns: the call, then its result sent back and the answer", async () => {
    const model = chat("claude-tools").bindTools([{
      type: "function",
      function: { name: "get_weather", description: "The weather in a city.", parameters: WEATHER_SCHEMA },
    }]);
    const first = await model.invoke([{ role: "user", content: "Weather in Paris?" }]);
    expect(first.tool_calls?.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]]);
    const call = first.tool_calls![0]!;
    const second = await model.invoke([
      { role: "user", content: "Weather in Paris?" },
      first,
      { role: "tool", content: "Sunny in Paris", tool_call_id: call.id! },
    ]);
    expect(second.text).toBe("It is sunny in Paris.");
    expect(JSON.stringify(lastAsked().messages)).toContain("Sunny in Paris");
  });
});

describe("openai responses.stream", () => {
  test("a tool over two turns", async () => {
    const client = new OpenAI({ baseURL, apiKey: RELAY_KEY });
    const tools = [{ type: "function" as const, name: "get_weather", description: "The weather in a city.", parameters: WEATHER_SCHEMA, strict: true }];
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: "Weather in Paris?" }];
    const first = await client.responses.stream({ model: "claude-tools", input, tools }).finalResponse();
    const call = first.output.find((i) => i.type === "function_call");
    expect(call).toMatchObject({ name: "get_weather", arguments: '{"city": "Paris"}' });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "Sunny in Paris" });
    let deltas = "";
    const stream = client.responses.stream({ model: "claude-tools", input, tools });
    stream.on("response.output_text.delta", (e) => (deltas += e.delta));
    const second = await stream.finalResponse();
    expect(second.output_text).toBe("It is sunny in Paris.");
    expect(deltas).toBe("It is sunny in Paris.");
  });
});

describe("structured output", () => {
  test("ai's Output.object: text.format json_schema reaches the provider as its structured output", async () => {
    const { output } = await generateText({
      model: createOpenAI({ baseURL, apiKey: RELAY_KEY }).responses("claude-json"),
      prompt: "Weather in Paris as JSON",
      output: Output.object({ schema: jsonSchema<{ city: string; sunny: boolean }>({ type: "object", properties: { city: { type: "string" }, sunny: { type: "boolean" } }, required: ["city", "sunny"], additionalProperties: false }) }),
    });
    expect(output).toEqual({ city: "Paris", sunny: true });
    // (Anthropic's structured output: output_config.format, the schema the client sent)
    expect(lastAsked().output_config).toMatchObject({ format: { type: "json_schema", schema: { required: ["city", "sunny"] } } });
  });
});
