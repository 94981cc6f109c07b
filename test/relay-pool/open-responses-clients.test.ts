// Open Responses as real clients speak it (issue #46), in workerd through the stream Durable Object:
// the OpenAI Agents SDK (`@openai/agents` 0.20, its own `openai` 7; streamed and not, with a tool) and
// LangChain's `ChatOpenAI({ useResponsesApi: true })` (`@langchain/openai` 1.5: streaming, tools over
// two turns), each with its defaults and its fetch the relay Worker's, against the repository Worker's
// provider-backed "claude-fast" row and the scripted Anthropic API's `tool` script (a get_weather call
// until the conversation holds a tool result, then the text: test/relay-pool/providers.ts).
// The Agents SDK's `_shims` export for "workerd" imports `node:async_hooks`, `node:events`,
// `node:crypto`, `node:stream` and `node:timers`: a Worker running it needs the `nodejs_compat` flag,
// which the workers pool sets for the test runner's isolate (the client's side here). The relay itself
// imports no `node:` module (src/ is web standards only; its own Worker, wrangler.toml, has no such flag).
import { env } from "cloudflare:test";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool as agentTool } from "@openai/agents";
// (the Agents SDK's own `openai` 7, as its OpenAIProvider makes it, given the relay Worker's fetch as a
// client Worker gives a service binding's: the package root's `openai` is 6, the SDK's copy is nested)
import OpenAI7 from "../../node_modules/@openai/agents-openai/node_modules/openai/index.mjs";
import { beforeAll, describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };
const viaWorker = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => worker.fetch(new Request(input, init), keyed);
const baseURL = `${ORIGIN}/v1`;

const WEATHER = { type: "object" as const, properties: { city: { type: "string" as const } }, required: ["city"], additionalProperties: false as const };

beforeAll(() => setTracingDisabled(true));

describe("@openai/agents 0.20 through the stream object: a run with a tool", () => {
  const ran: string[] = [];
  const weather = agentTool({
    name: "get_weather",
    description: "The weather in a city.",
    parameters: WEATHER,
    strict: true,
    execute: async (args) => {
      const { city } = args as { city: string };
      ran.push(city);
      return `Sunny in ${city}`;
    },
  });
  const agent = new Agent({ name: "Weather", instructions: "Answer briefly.", tools: [weather], model: "claude-fast" });
  const runner = () =>
    new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: new OpenAI7({ baseURL, apiKey: RELAY_KEY, fetch: viaWorker as typeof fetch }), useResponses: true }),
    });

  test("not streamed: the tool runs, its output goes back, the final answer is the provider's text", async () => {
    ran.length = 0;
    const result = await runner().run(agent, `tag:${newTag()} script:tool`);
    expect(ran).toEqual(["Paris"]);
    expect(result.finalOutput).toBe("Hello, provider world!");
  });

  test("streamed: the same run, its text streamed", async () => {
    ran.length = 0;
    const result = await runner().run(agent, `tag:${newTag()} script:tool`, { stream: true });
    let text = "";
    for await (const chunk of result.toTextStream()) text += chunk;
    await result.completed;
    expect(ran).toEqual(["Paris"]);
    expect(text).toBe("Hello, provider world!");
    expect(result.finalOutput).toBe("Hello, provider world!");
  });
});

describe("@langchain/openai ChatOpenAI({ useResponsesApi: true }) through the stream object", () => {
  const chat = () =>
    new ChatOpenAI({ model: "claude-fast", apiKey: RELAY_KEY, useResponsesApi: true, configuration: { baseURL, fetch: viaWorker as typeof fetch } });

  test("streaming: the chunks make the provider's text", async () => {
    let text = "";
    for await (const chunk of await chat().stream(`tag:${newTag()} script:text`)) text += chunk.text;
    expect(text).toBe("Hello, provider world!");
  });

  test("tools over two turns: the call, then its result sent back and the answer", async () => {
    const model = chat().bindTools([{ type: "function", function: { name: "get_weather", description: "The weather in a city.", parameters: WEATHER } }]);
    const asked = { role: "user" as const, content: `tag:${newTag()} script:tool` };
    const first = await model.invoke([asked]);
    expect(first.tool_calls?.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]]);
    const second = await model.invoke([asked, first, { role: "tool", content: "Sunny in Paris", tool_call_id: first.tool_calls![0]!.id! }]);
    expect(second.text).toBe("Hello, provider world!");
  });
});
