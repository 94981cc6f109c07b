// The Open Responses door's state (issue #46, SPEC §9-§10), in Node with the real `openai` SDK
// against the stateless relay: `include: ["reasoning.encrypted_content"]` gives reasoning items the
// relay's seal of their provider data, and a Claude thinking + tool turn sent back with `store: false`
// reaches the kit's Anthropic fake with its thinking block and signature (the fake, as Anthropic, refuses
// a tool-use turn without it when thinking is on); a forged seal is refused by name; without the seal key
// the relay says it is misconfigured; `store` is accepted and nothing kept, a reference refused saying why.
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

type Json = Record<string, any>;
const SIG = "EqQBCgIYAhIMissue46+state/Sig==";
const sse = (events: Json[]): string => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

/** Claude (4.6: adaptive thinking) thinking with its signature, then a call of get_weather. */
const THINK_THEN_CALL = sse([
  { type: "message_start", message: { id: "msg_s1", type: "message", role: "assistant", content: [], model: "claude-sonnet-4-6", usage: { input_tokens: 20, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants Paris's weather: call the tool." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIG } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_01Paris", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"location":"Paris"}' } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 30 } },
  { type: "message_stop" },
]);

const TOOLS = [{ type: "function" as const, name: "get_weather", strict: false, parameters: { type: "object", properties: { location: { type: "string" } } } }];
const SEAL_ENV = { RELAY_SEAL_KEY: "seal-key-of-the-state-test-0123456789abcdef" };

function setup(env: Json = SEAL_ENV) {
  const fake = fakeProvider("anthropic", { streams: { "claude-sonnet-4-6": parseCapture(THINK_THEN_CALL) } });
  const provider = anthropic({ apiKey: "k", baseURL: "https://api.anthropic.test", fetch: fake as unknown as typeof fetch });
  const relay = createRelay({ models: { claude: { provider, model: "claude-sonnet-4-6", allow: { thinking_level: true } } }, allowAnonymous: true, clientAddress: () => "203.0.113.46" });
  const client = new OpenAI({
    apiKey: "unused",
    baseURL: "https://relay.test/v1",
    maxRetries: 0,
    fetch: (input: RequestInfo | URL, init?: RequestInit) => relay.fetch(new Request(input as RequestInfo, init), env),
  });
  return { fake, relay, client };
}

const ASK = { model: "claude", tools: TOOLS, reasoning: { effort: "medium" as const }, store: false };
const USER = { role: "user" as const, content: "What's the weather in Paris?" };

/** The first turn, streamed with `responses.stream`: its final response. */
async function firstTurn(client: OpenAI, include: boolean) {
  const stream = client.responses.stream({ ...ASK, input: [USER], ...(include ? { include: ["reasoning.encrypted_content" as const] } : {}) });
  return await stream.finalResponse();
}

describe("include: reasoning.encrypted_content, stateless round trips (openai SDK → relay → Anthropic fake)", () => {
  test("a Claude thinking + tool turn round-trips with store: false: its thinking block and signature reach Anthropic again", async () => {
    const { fake, client } = setup();
    const first = await firstTurn(client, true);
    const reasoning = first.output.find((item) => item.type === "reasoning") as Json;
    const call = first.output.find((item) => item.type === "function_call") as Json;
    expect(reasoning.encrypted_content).toMatch(/^mmsp1\./);
    expect(reasoning.encrypted_content).not.toContain(SIG); // (sealed: the signature is not readable)
    expect((first as Json).store).toBe(false);
    const second = await client.responses.create({
      ...ASK,
      include: ["reasoning.encrypted_content"],
      input: [USER, ...(first.output as any[]), { type: "function_call_output", call_id: call.call_id, output: "Sunny, 21°C" }],
    });
    expect(second.status).toBe("completed");
    const sent = fake.requests.at(-1)!.json as Json;
    expect(sent.thinking?.type).toBe("adaptive");
    expect(sent.messages[1].content[0]).toMatchObject({ type: "thinking", thinking: "The user wants Paris's weather: call the tool.", signature: SIG });
    expect(sent.messages[1].content[1]).toMatchObject({ type: "tool_use", name: "get_weather" });
  });

  test("without include, reasoning items carry no encrypted_content and the thinking cannot go back (the turn goes with thinking off)", async () => {
    const { client, fake } = setup();
    const first = await firstTurn(client, false);
    expect(first.output.find((item) => item.type === "reasoning")).not.toHaveProperty("encrypted_content");
    const call = first.output.find((item) => item.type === "function_call") as Json;
    await client.responses.create({
      ...ASK,
      input: [USER, ...(first.output as any[]), { type: "function_call_output", call_id: call.call_id, output: "Sunny" }],
    });
    const sent = fake.requests.at(-1)!.json as Json;
    expect(sent.messages[1].content[0].type).toBe("tool_use");
    expect(sent.thinking?.type ?? "disabled").toBe("disabled");
  });

  test("an altered seal is refused naming encrypted_content; an unsealed value is the Responses API's (left out for Claude)", async () => {
    const { client, fake } = setup();
    const first = await firstTurn(client, true);
    const output = first.output as any[];
    const reasoning = output.find((item) => item.type === "reasoning");
    const call = output.find((item) => item.type === "function_call");
    const result = { type: "function_call_output", call_id: call.call_id, output: "Sunny" };
    const tail = reasoning.encrypted_content.at(-2) === "A" ? "B" : "A";
    const altered = { ...reasoning, encrypted_content: reasoning.encrypted_content.slice(0, -2) + tail + reasoning.encrypted_content.at(-1) };
    const asked = fake.requests.length;
    const refused = client.responses.create({ ...ASK, input: [USER, altered, call, result] });
    await expect(refused).rejects.toMatchObject({ status: 400, error: { param: "input.encrypted_content" } });
    expect(fake.requests.length).toBe(asked); // (refused before the provider is asked)
    const foreign = client.responses.create({ ...ASK, input: [USER, { ...reasoning, encrypted_content: "gAAAAA-openai-own" }, call, result] });
    expect((await foreign).status).toBe("completed"); // (not Claude's: left out, the turn sent with thinking off)
    const sent = fake.requests.at(-1)!.json as Json;
    expect(JSON.stringify(sent)).not.toContain("gAAAAA-openai-own");
    expect(sent.messages[1].content[0].type).toBe("tool_use");
  });

  test("include asked of a relay without RELAY_SEAL_KEY (nor BIND_SECRET): 500 naming the setting; an unknown include by name", async () => {
    const { client } = setup({});
    await expect(firstTurn(client, true)).rejects.toMatchObject({ status: 500, message: expect.stringContaining("RELAY_SEAL_KEY") });
    const { client: keyed } = setup();
    const odd = keyed.responses.create({ ...ASK, input: "x", include: ["message.output_text.logprobs"] });
    await expect(odd).rejects.toMatchObject({ status: 400, error: { param: "include[0]" } });
  });
});

describe("store on the stateless relay", () => {
  test("store (absent or true) is accepted and nothing kept: the resource says store: false", async () => {
    const { client } = setup();
    const { store: _, ...ask } = ASK;
    const response = await client.responses.create({ ...ask, input: [USER], store: true });
    expect((response as Json).store).toBe(false);
  });

  test("previous_response_id and item_reference are refused, saying why and what to send instead", async () => {
    const { client } = setup();
    const previous = client.responses.create({ ...ASK, input: "x", previous_response_id: "resp_0123456789abcdef0123456789abcdef" });
    await expect(previous).rejects.toMatchObject({ status: 400, error: { param: "previous_response_id", message: expect.stringContaining("store: false") } });
    const reference = client.responses.create({ ...ASK, input: [USER, { type: "item_reference", id: "rs_0123456789abcdef0123456789abcdef_0" }] });
    await expect(reference).rejects.toMatchObject({ status: 400, error: { param: "input[1]", message: expect.stringContaining("reasoning.encrypted_content") } });
  });
});
