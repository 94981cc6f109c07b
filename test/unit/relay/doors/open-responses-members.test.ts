// The Open Responses door's members (issue #46): every member of the spec's CreateResponseBody and of
// real clients' default requests classified — what asks for nothing accepted, what the relay can do
// done, the rest refused by name (`param`) — and custom tools (Codex's apply_patch): given to the
// provider as a function of one string, the call written back as custom_tool_call (its input events),
// its custom_tool_call_output sent back as the tool's result; hosted tools refused naming the tool.
import Ajv from "ajv";
import { describe, expect, test } from "vitest";
import { openaiChat } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import { errorBody, responseResource, streamingEvents } from "../../../fixtures/open-responses-schema.ts";

const ajv = new Ajv({ strict: false, allErrors: true });
const checkResource = ajv.compile(responseResource);
const checkError = ajv.compile(errorBody);
const KEY = "sk-members";
const ORIGIN = "https://relay.test";
/** A seal key: `include: ["reasoning.encrypted_content"]` asks the relay to seal (a relay without one says so: open-responses-state.test.ts). */
const SEALING = { RELAY_SEAL_KEY: "seal-key-of-the-members-test-0123456789" };

/** A Chat call of apply_patch (the custom tool's one string, as its function's JSON argument). */
const PATCH = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch";
const CUSTOM_CALL = CHAT.sse([
  { id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id: "call_patch", type: "function", function: { name: "apply_patch", arguments: JSON.stringify({ input: PATCH }) } }] }, finish_reason: null }] },
  { id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
]);

function setup() {
  const fake = fakeProvider("openai-chat", { streams: { text: parseCapture(CHAT.TEXT), patch: parseCapture(CUSTOM_CALL) }, key: KEY });
  const provider = openaiChat({ apiKey: KEY, baseURL: "https://p.test/v1", fetch: fake as unknown as typeof fetch });
  const relay = createRelay({ models: { text: { provider, model: "text" }, patch: { provider, model: "patch" } }, allowAnonymous: true, clientAddress: () => "203.0.113.7" });
  const ask = (body: object) =>
    relay.fetch(new Request(`${ORIGIN}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }), SEALING);
  return { fake, ask };
}

describe("members that ask for nothing are accepted (the clients' defaults)", () => {
  test.each([
    ["the Agents SDK's include: []", { include: [] }],
    ["LangChain's text: {}", { text: {} }],
    ["Codex's prompt_cache_key and client_metadata", { prompt_cache_key: "k", client_metadata: { x: "y" } }],
    ["include: reasoning.encrypted_content", { include: ["reasoning.encrypted_content"] }],
    ["the hosted tools' include values (none ever occurs: the relay runs no hosted tool)", {
      include: ["web_search_call.action.sources", "file_search_call.results", "message.input_image.image_url"],
    }],
    ["store (true and false)", { store: true }],
    ["the rest at their defaults", {
      background: false,
      stream_options: { include_obfuscation: false },
      metadata: { a: "b" },
      user: "u",
      safety_identifier: "s",
      parallel_tool_calls: true,
      truncation: "disabled",
      service_tier: "auto",
      top_logprobs: 0,
      presence_penalty: 0,
      frequency_penalty: 0,
      text: { format: { type: "text" }, verbosity: "medium" },
    }],
  ])("%s", async (_, members) => {
    const { ask } = setup();
    const answer = await ask({ model: "text", input: "Hi", ...members });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const body = await answer.json();
    expect(checkResource(body), ajv.errorsText(checkResource.errors)).toBe(true);
  });
});

describe("what the relay cannot do is refused by name", () => {
  test.each([
    [{ background: true }, "background"],
    [{ truncation: "auto" }, "truncation"],
    [{ service_tier: "priority" }, "service_tier"],
    [{ top_logprobs: 5 }, "top_logprobs"],
    [{ parallel_tool_calls: "no" }, "parallel_tool_calls"],
    [{ prompt_cache_key: 7 }, "prompt_cache_key"],
    [{ include: "reasoning.encrypted_content" }, "include"],
    [{ include: ["reasoning.encrypted_content", "file_search_call.results", "nope"] }, "include[2]"],
    [{ max_tool_calls: 3 }, "max_tool_calls"],
    [{ presence_penalty: 0.5 }, "presence_penalty"],
    [{ frequency_penalty: -1 }, "frequency_penalty"],
    [{ stream_options: "yes" }, "stream_options"],
    [{ metadata: ["a"] }, "metadata"],
    [{ safety_identifier: 7 }, "safety_identifier"],
    [{ include: ["message.output_text.logprobs"] }, "include[0]"],
    [{ previous_response_id: "resp_1" }, "previous_response_id"],
    [{ conversation: "conv_1" }, "conversation"],
    [{ text: { format: { type: "grammar" } } }, "text.format"],
    [{ tools: [{ type: "web_search" }] }, "tools[0]"],
    [{ tools: [{ type: "function", name: "f", defer_loading: true }] }, "tools[0].defer_loading"],
    [{ tools: [{ type: "custom", name: "g", format: { type: "grammar", syntax: "lark", definition: "x" } }] }, "tools[0].format"],
    [{ input: [{ type: "item_reference", id: "msg_1" }] }, "input[0]"],
  ])("%j → 400 naming %s", async (members, param) => {
    const { ask, fake } = setup();
    const answer = await ask({ model: "text", input: "Hi", ...members });
    expect(answer.status).toBe(400);
    const json = (await answer.json()) as { error: { param: string; message: string } };
    expect(checkError(json), ajv.errorsText(checkError.errors)).toBe(true);
    expect(json.error.param).toBe(param);
    expect(fake.requests).toHaveLength(0);
  });

  test("a hosted tool's refusal names the tool", async () => {
    const { ask } = setup();
    const json = (await (await ask({ model: "text", input: "Hi", tools: [{ type: "code_interpreter", container: { type: "auto" } }] })).json()) as any;
    expect(json.error.message).toContain("code_interpreter");
  });
});

describe("custom tools (free-form input: Codex's apply_patch)", () => {
  const tools = [{ type: "custom", name: "apply_patch", description: "Apply a patch." }];

  test("given to the provider as a function of one string; its call comes back as custom_tool_call with its input events", async () => {
    const { ask, fake } = setup();
    const answer = await ask({ model: "patch", input: "Add a.txt", tools, stream: true });
    expect(answer.status).toBe(200);
    const sentTools = (fake.requests.at(-1)!.json as any).tools;
    expect(sentTools[0].function).toMatchObject({ name: "apply_patch", parameters: { type: "object", required: ["input"] } });
    const events = (await answer.text()).split("\n\n").filter((r) => r.startsWith("event:")).map((r) => JSON.parse(r.split("\n")[1]!.slice(6)));
    const types = events.map((e) => e.type);
    expect(types).toContain("response.custom_tool_call_input.delta");
    expect(events.find((e) => e.type === "response.custom_tool_call_input.done").input).toBe(PATCH);
    expect(types).not.toContain("response.function_call_arguments.delta");
    const item = events.filter((e) => e.type === "response.output_item.done").at(-1).item;
    expect(item).toMatchObject({ type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: PATCH });
    // (custom tools and their calls are OpenAI's, beyond the spec's document: only the events it has without them are checked)
    for (const e of events.filter((e) => streamingEvents[e.type] && !("response" in e) && !("item" in e))) {
      expect(ajv.validate(streamingEvents[e.type]!, e), e.type).toBe(true);
    }
  });

  test("custom_tool_call and custom_tool_call_output input items go back as the call and its result", async () => {
    const { ask, fake } = setup();
    const input = [
      { role: "user", content: "Add a.txt" },
      { type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: PATCH },
      { type: "custom_tool_call_output", call_id: "call_patch", output: "Done: a.txt" },
    ];
    const answer = await ask({ model: "text", input, tools });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const messages = (fake.requests.at(-1)!.json as any).messages;
    const call = messages.find((m: any) => m.tool_calls)?.tool_calls[0];
    expect(call.function.name).toBe("apply_patch");
    expect(JSON.parse(call.function.arguments)).toEqual({ input: PATCH });
    expect(messages.find((m: any) => m.role === "tool")).toMatchObject({ content: "Done: a.txt" });
  });
});
