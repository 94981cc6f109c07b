// Every client × every provider in workerd, through the stream Durable Object (issues #46 and #47:
// "in Node and in workerd through the Durable Object relay, against the kit's fakes of all four
// providers"). The repository Worker's four provider rows (worker/models.ts: claude-fast → Anthropic,
// gpt-fast → OpenAI Chat, gpt-responses → OpenAI Responses, gemini-fast → Gemini) answered by the
// kit's fakeProvider of each (test/relay-pool/fakes.ts: the `m-…` scripts; each fake refuses what its
// API refuses, a signature it never issued, a tool result without its call, and checks the
// structured output member it receives). Each real client with its defaults, its fetch the Worker's:
//   Open Responses  ai + @ai-sdk/openai `.responses()` (text, tools over three steps, Output.object),
//                   openai `responses.stream` with a tool over two turns, and with thinking before the call (the
//                   output sent back by value, store absent: the relay completes it from the kept response)
//                   @openai/agents (its own openai 7) runs with a tool, streamed and not; @langchain/openai
//                   ChatOpenAI({ useResponsesApi: true }) streaming, and bindTools over two turns
//   Chat            openai `chat.completions` with a tool over two turns, streamed then not, and not then streamed
//                   ai + @ai-sdk/openai `.chat()` tools over three steps; LangChain's default ChatOpenAI streaming with bindTools
//   Messages        @anthropic-ai/sdk `messages.stream` with thinking and a tool over two turns; @ai-sdk/anthropic
//                   with thinking, tools over three steps, and a signed thinking turn sent back
//   Gemini          @google/genai `generateContentStream` with a function call over two turns
import Anthropic from "@anthropic-ai/sdk";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { type Content, GoogleGenAI } from "@google/genai";
import { generateText, jsonSchema, Output, stepCountIs, streamText, tool } from "ai";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool as agentTool } from "@openai/agents";
// (the Agents SDK's own openai 7, as open-responses-clients.test.ts imports it: the root's openai is 6)
import OpenAI7 from "../../node_modules/@openai/agents-openai/node_modules/openai/index.mjs";
import { env } from "cloudflare:test";
import OpenAI from "openai";
import { beforeAll, describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
// (MODEL_ALLOW_THINKING: the rows let a client ask for thinking, for this file's Worker only: models.test.ts checks they refuse it by default)
const keyed = { ...env, RELAY_KEY, MODEL_ALLOW_THINKING: "1" } as typeof env & { RELAY_KEY: string };
const viaWorker = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => worker.fetch(new Request(input as RequestInfo, init), keyed);
/** fakes.ts's TEXT and OBJECT (that module runs in Node, beside the pool: not importable here). */
const TEXT = "Hello, provider world!";
const OBJECT = { city: "Paris", sunny: true };

const CITY = { type: "object" as const, properties: { city: { type: "string" as const } }, required: ["city"], additionalProperties: false as const };
const ROWS = ["claude-fast", "gpt-fast", "gpt-responses", "gemini-fast"];
/** fakes.ts's proofs: the signature of the Anthropic fake's thinking, the Responses fake's encrypted reasoning, the Gemini fake's thought signature. */
const PROOFS: Record<string, string> = {
  "claude-fast": "EqQBCgIYAhIMmatrix+anthropic/signature==",
  "gpt-responses": "gAAAAABmatrix-encrypted-reasoning-of-the-fake==",
  "gemini-fast": "CiQBmatrixGeminiThoughtSignature0123456789==",
};
/** A prompt naming a fake's script, tagged. */
const asked = (script: string, tag = newTag()): string => `tag:${tag} script:${script}`;
/** The bodies the fake providers got with `tag`, in order (fakes.ts). */
const fakeGot = async (tag: string): Promise<string[]> => (await (await fetch(`http://upstream.test/__fake?tag=${tag}`)).json()) as string[];
/**
 * The second provider request of `tag` carries the tool's result, and to Gemini its call's own
 * thought signature (Gemini 3 refuses a call without one), not Google's placeholder.
 */
async function expectResultBack(tag: string, model: string): Promise<void> {
  const [, sent] = await fakeGot(tag);
  expect(sent).toContain("Sunny");
  if (model === "gemini-fast") {
    expect(sent).toContain(PROOFS["gemini-fast"]);
    expect(sent).not.toContain("skip_thought_signature_validator");
  }
}

describe.each(ROWS)("Open Responses clients through the stream object: %s", (model) => {
  const openai = createOpenAI({ baseURL: `${ORIGIN}/v1`, apiKey: RELAY_KEY, fetch: viaWorker as typeof fetch });

  test("ai .responses(): streamText's text", async () => {
    const result = streamText({ model: openai.responses(model), prompt: asked("m-text") });
    let deltas = "";
    for await (const part of result.fullStream) if (part.type === "text-delta") deltas += part.text;
    expect(deltas).toBe(TEXT);
    expect(await result.finishReason).toBe("stop");
  });

  test("ai .responses(): tools over three steps, each result sent back", async () => {
    const ran: string[] = [];
    const tag = newTag();
    const result = await generateText({
      model: openai.responses(model),
      prompt: asked("m-tools", tag),
      tools: {
        get_weather: tool({ inputSchema: jsonSchema<{ city: string }>(CITY), execute: async ({ city }) => (ran.push(`weather ${city}`), `Sunny in ${city}`) }),
        get_time: tool({ inputSchema: jsonSchema<{ city: string }>(CITY), execute: async ({ city }) => (ran.push(`time ${city}`), `Noon in ${city}`) }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(ran).toEqual(["weather Paris", "time Paris"]);
    expect(result.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "tool-calls", "stop"]);
    expect(result.text).toBe(TEXT);
    const sent = await fakeGot(tag);
    expect(sent.length).toBe(3);
    expect(sent[2]).toContain("Sunny in Paris");
    expect(sent[2]).toContain("Noon in Paris");
    // (Gemini: each call's own signature back, the AI SDK's reasoning parts sent as item_reference, its default with store)
    if (model === "gemini-fast") for (const later of sent.slice(1)) expect(later).toContain(PROOFS["gemini-fast"]);
  });

  test("ai .responses(): Output.object reaches the provider as its own structured output member", async () => {
    const { output } = await generateText({
      model: openai.responses(model),
      prompt: asked("m-object"),
      output: Output.object({
        schema: jsonSchema<{ city: string; sunny: boolean }>({
          type: "object",
          properties: { city: { type: "string" }, sunny: { type: "boolean" } },
          required: ["city", "sunny"],
          additionalProperties: false,
        }),
      }),
    });
    expect(output).toEqual(OBJECT);
  });

  test("openai responses.stream: a tool over two turns", async () => {
    // (Gemini: its call's signature back on the call, from the reasoning item the door wrote before it)
    await expectResultBack(await responsesTool(model), model);
  });

  test("openai responses.stream: thinking and a tool over two turns, the output sent back by value with store (absent): each proof back", async () => {
    // (no include: the reasoning items come without encrypted_content; the relay completes them from the kept response, as OpenAI does)
    const [, sent] = await fakeGot(await responsesTool(model, "m-think"));
    if (PROOFS[model]) expect(sent).toContain(PROOFS[model]);
    expect(sent).toContain("Sunny");
  });
});

describe.each(ROWS)("the Agents SDK and LangChain's useResponsesApi through the stream object: %s", (model) => {
  beforeAll(() => setTracingDisabled(true));
  const baseURL = `${ORIGIN}/v1`;

  test.each([false, true])("@openai/agents: a run with a tool, streamed: %s; the tool's output reaches the provider", async (stream) => {
    const ran: string[] = [];
    const weather = agentTool({
      name: "get_weather",
      description: "The weather.",
      parameters: CITY,
      strict: true,
      execute: async (args) => (ran.push((args as { city: string }).city), `Sunny in ${(args as { city: string }).city}`),
    });
    const agent = new Agent({ name: "Weather", instructions: "Answer briefly.", tools: [weather], model });
    const client = new OpenAI7({ baseURL, apiKey: RELAY_KEY, fetch: viaWorker as typeof fetch });
    const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }) });
    const tag = newTag();
    let text = "";
    if (stream) {
      const result = await runner.run(agent, asked("m-tool", tag), { stream: true });
      for await (const chunk of result.toTextStream()) text += chunk;
      await result.completed;
      expect(result.finalOutput).toBe(TEXT);
    } else {
      text = String((await runner.run(agent, asked("m-tool", tag))).finalOutput);
    }
    expect(ran).toEqual(["Paris"]);
    expect(text).toBe(TEXT);
    await expectResultBack(tag, model);
  });

  const chat = () => new ChatOpenAI({ model, apiKey: RELAY_KEY, useResponsesApi: true, configuration: { baseURL, fetch: viaWorker as typeof fetch } });

  test("@langchain/openai useResponsesApi: streaming makes the provider's text", async () => {
    let text = "";
    for await (const chunk of await chat().stream(asked("m-text"))) text += chunk.text;
    expect(text).toBe(TEXT);
  });

  test("@langchain/openai useResponsesApi: bindTools over two turns, the result sent back", async () => {
    const bound = chat().bindTools([{ type: "function", function: { name: "get_weather", description: "The weather.", parameters: CITY } }]);
    const tag = newTag();
    const user = { role: "user" as const, content: asked("m-tool", tag) };
    const first = await bound.invoke([user]);
    expect(first.tool_calls?.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]]);
    const second = await bound.invoke([user, first, { role: "tool", content: "Sunny", tool_call_id: first.tool_calls![0]!.id! }]);
    expect(second.text).toBe(TEXT);
    await expectResultBack(tag, model);
  });
});

/** `openai` responses.stream, a tool over two turns on `model` (`script`: the fake's; m-think thinks before its call); the tag. */
async function responsesTool(model: string, script = "m-tool"): Promise<string> {
  const client = new OpenAI({ baseURL: `${ORIGIN}/v1`, apiKey: RELAY_KEY, maxRetries: 0, fetch: viaWorker as typeof fetch });
  const tools = [{ type: "function" as const, name: "get_weather", description: "The weather.", parameters: CITY, strict: true }];
  const tag = newTag();
  const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: asked(script, tag) }];
  const first = await client.responses.stream({ model, input, tools }).finalResponse();
  const call = first.output.find((i) => i.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall | undefined;
  expect(call && [call.name, JSON.parse(call.arguments)]).toEqual(["get_weather", { city: "Paris" }]);
  input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: call!.call_id, output: "Sunny" });
  const stream = client.responses.stream({ model, input, tools });
  let deltas = "";
  stream.on("response.output_text.delta", (e) => (deltas += e.delta));
  const second = await stream.finalResponse();
  expect(second.output_text).toBe(TEXT);
  expect(deltas).toBe(TEXT);
  return tag;
}

describe.each(ROWS)("openai chat.completions through the stream object: %s", (model) => {
  const client = new OpenAI({ baseURL: `${ORIGIN}/v1`, apiKey: RELAY_KEY, maxRetries: 0, fetch: viaWorker as typeof fetch });
  const tools = [{ type: "function" as const, function: { name: "get_weather", description: "The weather.", parameters: CITY } }];

  /** One turn, streamed (the SDK's helper assembles the chunks) or not. */
  const turn = (messages: OpenAI.ChatCompletionMessageParam[], streamed: boolean): Promise<OpenAI.ChatCompletion> =>
    streamed ? client.chat.completions.stream({ model, messages, tools }).finalChatCompletion() : client.chat.completions.create({ model, messages, tools });

  test.each([true, false])("a tool over two turns, the first streamed: %s (the second the other way)", async (streamed) => {
    const tag = newTag();
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: asked("m-tool", tag) }];
    const first = await turn(messages, streamed);
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const message = first.choices[0]!.message;
    const call = message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect([call.function.name, JSON.parse(call.function.arguments)]).toEqual(["get_weather", { city: "Paris" }]);
    messages.push(message as OpenAI.ChatCompletionMessageParam, { role: "tool", tool_call_id: call.id, content: "Sunny" });
    const second = await turn(messages, !streamed);
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content).toBe(TEXT);
    await expectResultBack(tag, model);
  });
});

/** The AI SDK's tools of the m-tools script, each run recorded in `ran`. */
const weatherAndTime = (ran: string[]) => ({
  get_weather: tool({ inputSchema: jsonSchema<{ city: string }>(CITY), execute: async ({ city }) => (ran.push(`weather ${city}`), `Sunny in ${city}`) }),
  get_time: tool({ inputSchema: jsonSchema<{ city: string }>(CITY), execute: async ({ city }) => (ran.push(`time ${city}`), `Noon in ${city}`) }),
});

describe.each(ROWS)("the AI SDK's .chat() and @ai-sdk/anthropic, LangChain's default ChatOpenAI through the stream object: %s", (model) => {
  test("ai + @ai-sdk/openai .chat(): tools over three steps, each result sent back", async () => {
    const ran: string[] = [];
    const tag = newTag();
    const openai = createOpenAI({ baseURL: `${ORIGIN}/v1`, apiKey: RELAY_KEY, fetch: viaWorker as typeof fetch });
    const result = await generateText({ model: openai.chat(model), prompt: asked("m-tools", tag), tools: weatherAndTime(ran), stopWhen: stepCountIs(3) });
    expect(ran).toEqual(["weather Paris", "time Paris"]);
    expect(result.steps.map((s) => s.finishReason)).toEqual(["tool-calls", "tool-calls", "stop"]);
    expect(result.text).toBe(TEXT);
    const sent = await fakeGot(tag);
    expect(sent[2]).toContain("Noon in Paris");
  });

  test("LangChain's default ChatOpenAI (Chat Completions), streaming with bindTools: the call assembled", async () => {
    const chat = new ChatOpenAI({ model, apiKey: RELAY_KEY, streaming: true, maxRetries: 0, configuration: { baseURL: `${ORIGIN}/v1`, fetch: viaWorker as typeof fetch } });
    const bound = chat.bindTools([{ type: "function", function: { name: "get_weather", description: "The weather.", parameters: CITY } }]);
    let whole: Awaited<ReturnType<typeof bound.invoke>> | undefined;
    for await (const chunk of await bound.stream(asked("m-tool"))) whole = whole ? whole.concat(chunk) : chunk;
    expect(whole!.tool_calls!.map((c) => [c.name, c.args])).toEqual([["get_weather", { city: "Paris" }]]);
  });

  const anthropic = () => createAnthropic({ baseURL: `${ORIGIN}/v1`, apiKey: RELAY_KEY, fetch: viaWorker as typeof fetch });
  // (the SDK asks max_tokens = maxOutputTokens + budgetTokens: 2048, the rows' ceiling)
  const thinking = { anthropic: { thinking: { type: "enabled" as const, budgetTokens: 1024 } } };

  test("@ai-sdk/anthropic with thinking: tools over three steps, each result sent back", async () => {
    const ran: string[] = [];
    const tag = newTag();
    const result = await generateText({
      model: anthropic()(model),
      prompt: asked("m-tools", tag),
      tools: weatherAndTime(ran),
      stopWhen: stepCountIs(3),
      maxOutputTokens: 1024,
      providerOptions: thinking,
    });
    expect(ran).toEqual(["weather Paris", "time Paris"]);
    expect(result.text).toBe(TEXT);
    expect((await fakeGot(tag))[2]).toContain("Noon in Paris");
  });

  test("@ai-sdk/anthropic with thinking: a thinking turn with a call, its proof back to its maker", async () => {
    const ran: string[] = [];
    const tag = newTag();
    const result = await generateText({ model: anthropic()(model), prompt: asked("m-think", tag), tools: weatherAndTime(ran), stopWhen: stepCountIs(2), maxOutputTokens: 1024, providerOptions: thinking });
    expect(ran).toEqual(["weather Paris"]);
    expect(result.text).toBe(TEXT);
    if (model !== "gpt-fast") expect(result.steps[0]!.reasoningText).toBe("The weather is needed.");
    const [, sent] = await fakeGot(tag);
    if (PROOFS[model]) expect(sent).toContain(PROOFS[model]);
  });
});

describe.each(ROWS)("@anthropic-ai/sdk messages.stream through the stream object: %s", (model) => {
  test("thinking and a tool over two turns: the thinking (signed where the provider signs) sent back as it came", async () => {
    const [, sent] = await fakeGot(await messagesThinkingTool(model));
    // the second request carries the provider's own proof (unsealed from what the client got), and the tool result
    // (Gemini: its call's signature, from the redacted_thinking block the door wrote before the tool_use)
    if (PROOFS[model]) expect(sent).toContain(PROOFS[model]);
    expect(sent).toContain("Sunny");
  });
});

/** `@anthropic-ai/sdk` messages.stream with thinking and a tool over two turns on `model`; the tag. */
async function messagesThinkingTool(model: string): Promise<string> {
  const client = new Anthropic({ apiKey: RELAY_KEY, baseURL: ORIGIN, maxRetries: 0, fetch: viaWorker });
  const tools: Anthropic.Tool[] = [{ name: "get_weather", description: "The weather.", input_schema: CITY }];
  const tag = newTag();
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: asked("m-think", tag) }];
  const ask = () => client.messages.stream({ model, max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 1024 }, tools, messages }).finalMessage();
  const first = await ask();
  expect(first.stop_reason).toBe("tool_use");
  const use = first.content.find((b) => b.type === "tool_use");
  expect(use && [use.name, use.input]).toEqual(["get_weather", { city: "Paris" }]);
  const thinking = first.content.find((b) => b.type === "thinking");
  // (OpenAI Chat gives no reasoning; the others do)
  if (model === "gpt-fast") expect(thinking).toBeUndefined();
  else expect(thinking).toMatchObject({ thinking: "The weather is needed." });
  messages.push({ role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: use!.id, content: "Sunny" }] });
  const second = await ask();
  expect(second.stop_reason).toBe("end_turn");
  expect(second.content.filter((b) => b.type === "text").map((b) => b.text).join("")).toBe(TEXT);
  return tag;
}

describe.each(ROWS)("@google/genai generateContentStream through the stream object: %s", (model) => {
  const ai = new GoogleGenAI({ apiKey: RELAY_KEY, httpOptions: { baseUrl: ORIGIN, fetch: (input, init) => viaWorker(input as RequestInfo, init) } });
  const config = { tools: [{ functionDeclarations: [{ name: "get_weather", description: "The weather.", parametersJsonSchema: CITY }] }] };

  test("a function call over two turns", async () => {
    const tag = newTag();
    const contents: Content[] = [{ role: "user", parts: [{ text: asked("m-tool", tag) }] }];
    const parts: NonNullable<Content["parts"]> = [];
    for await (const chunk of await ai.models.generateContentStream({ model, contents, config })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    const call = parts.find((p) => p.functionCall)?.functionCall;
    expect(call && [call.name, call.args]).toEqual(["get_weather", { city: "Paris" }]);
    contents.push({ role: "model", parts }, { role: "user", parts: [{ functionResponse: { id: call!.id, name: call!.name!, response: { output: "Sunny" } } }] });
    let text = "";
    for await (const chunk of await ai.models.generateContentStream({ model, contents, config })) text += chunk.text ?? "";
    expect(text).toBe(TEXT);
    await expectResultBack(tag, model);
  });
});

// A Gemini 3 function call's thoughtSignature, which a Responses `function_call` item and a Messages
// `tool_use` block have no place for: each door writes it sealed, with the call's id, in an item of its
// own just before the call (a `reasoning` item's encrypted_content, a `redacted_thinking` block's data),
// and sent back it reaches Gemini on that call, not Google's placeholder `skip_thought_signature_validator`.
describe("a Gemini call's own signature back through the Responses and Messages doors", () => {
  test("openai responses.stream", async () => {
    await expectResultBack(await responsesTool("gemini-fast"), "gemini-fast");
  });
  test("@anthropic-ai/sdk messages.stream with thinking", async () => {
    const [, sent] = await fakeGot(await messagesThinkingTool("gemini-fast"));
    expect(sent).toContain(PROOFS["gemini-fast"]);
    expect(sent).not.toContain("skip_thought_signature_validator");
  });
});
