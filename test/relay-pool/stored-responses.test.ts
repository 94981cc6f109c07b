// Stored responses on the Durable Object relay (issue #46, SPEC §10 "Stored responses"), in workerd:
// the repository Worker (claude-fast → the scripted Anthropic, whose `thinking` script answers a
// thinking block with its signature, then text) with the real `openai` SDK and the AI SDK's
// `@ai-sdk/openai` `.responses()`. A response asked with `store` (absent: OpenAI's default) is kept:
// `previous_response_id` and `item_reference` bring its input and output back (the thinking with its
// signature, which the seal carried: RELAY_SEAL_KEY), for the same principal only (404 for another's);
// GET /v1/responses/<id> answers the whole resource, also once the stream's own object has forgotten it;
// a large response is split across storage rows and read back whole.
import { env, runInDurableObject } from "cloudflare:test";
import OpenAI from "openai";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText } from "ai";
import { describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { CHUNK_CHARS, durableResponses } from "../../src/relay/stream/responses.ts";
import { newTag, ORIGIN } from "./relay.ts";

/** providers.ts's THINKING_SIGNATURE (that module runs in Node, beside the pool: not importable here). */
const THINKING_SIGNATURE = "EqQBCgIYAhIMscripted+anthropic/signature==";
const KEYS = { alice: "alice-key-of-stored-responses", bob: "bob-key-of-stored-responses" };
// (the seal's key is the bindings' own, vitest.config.ts: the stream's object seals with it, as the Worker and its objects share one env)
const keyedEnv = { ...env, RELAY_KEYS: JSON.stringify(KEYS) };

/** The bodies the clients posted (what the AI SDK sends is checked). */
const posted: string[] = [];
const fetchAs = (key: string) => async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const request = new Request(input as RequestInfo, init);
  if (request.method === "POST") posted.push(await request.clone().text());
  request.headers.set("authorization", `Bearer ${key}`);
  return worker.fetch(request, keyedEnv);
};
const clientOf = (key: string): OpenAI => new OpenAI({ apiKey: key, baseURL: `${ORIGIN}/v1`, maxRetries: 0, fetch: fetchAs(key) });

/** What the scripted provider saw of `tag`: how many requests, the last one's body. */
async function provider(tag: string): Promise<{ count: number; body: string }> {
  return (await (await fetch(`http://upstream.test/__provider?tag=${tag}`)).json()) as { count: number; body: string };
}

describe("stored responses (the openai SDK)", () => {
  test("responses.stream over two turns with previous_response_id: the first turn's thinking (signature) and answer reach the provider again", async () => {
    const tag = newTag();
    const client = clientOf(KEYS.alice);
    const first = await client.responses.stream({ model: "claude-fast", input: `tag:${tag} script:thinking` }).finalResponse();
    expect(first.status).toBe("completed");
    expect((first as unknown as { store: boolean }).store).toBe(true);
    expect(first.output_text).toBe("Hello, provider world!");
    const second = await client.responses.stream({ model: "claude-fast", previous_response_id: first.id, input: `tag:${tag} And now?` })
      .finalResponse();
    expect(second.status).toBe("completed");
    expect(second.previous_response_id).toBe(first.id);
    const saw = await provider(tag);
    expect(saw.count).toBe(2);
    const messages = JSON.parse(saw.body).messages as { role: string; content: { type: string; signature?: string; text?: string }[] }[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]!.content[0]).toMatchObject({ type: "thinking", signature: THINKING_SIGNATURE });
    expect(messages[1]!.content.at(-1)).toMatchObject({ type: "text", text: "Hello, provider world!" });

    // GET: the whole resource, the same principal's only (another's is no response to it)
    const got = await client.responses.retrieve(first.id);
    expect({ id: got.id, status: got.status, text: got.output_text, store: (got as unknown as { store: boolean }).store }).toEqual({
      id: first.id,
      status: "completed",
      text: "Hello, provider world!",
      store: true,
    });
    expect(got.output.map((item) => [item.type, item.id])).toEqual(first.output.map((item) => [item.type, item.id]));
    expect(got.output[0]).not.toHaveProperty("encrypted_content"); // (not asked for: include)
    await expect(clientOf(KEYS.bob).responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    const foreign = clientOf(KEYS.bob).responses.create({ model: "claude-fast", previous_response_id: first.id, input: "x" });
    await expect(foreign).rejects.toMatchObject({ status: 404, error: { param: "previous_response_id" } });

    // the stream's own object forgets it (what its alarm does after STREAM_TTL_S): the kept resource stays
    const streamId = first.id.slice("resp_".length);
    await runInDurableObject(keyedEnv.STREAMS.get(keyedEnv.STREAMS.idFromName(streamId)), (_instance, state) => state.storage.deleteAll());
    const after = await fetchAs(KEYS.alice)(`${ORIGIN}/v1/responses/${first.id}`);
    expect(after.status).toBe(200);
    expect(((await after.json()) as { id: string; output: unknown[] }).output).toEqual(got.output);
  });

  test("a tool over two turns with previous_response_id: the call kept, its output sent alone (the client's own tool, no allow in the row)", async () => {
    const tag = newTag();
    const client = clientOf(KEYS.alice);
    const tools = [{
      type: "function" as const,
      name: "get_weather",
      description: "The weather of a city.",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
      strict: true,
    }];
    const first = await client.responses.stream({ model: "claude-fast", input: `tag:${tag} script:tool`, tools }).finalResponse();
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather" });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: "Paris" });
    const second = await client.responses.stream({
      model: "claude-fast",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "Sunny, 21 °C" }],
      tools,
    }).finalResponse();
    expect(second.status).toBe("completed");
    expect(second.output_text.length).toBeGreaterThan(0);
    const saw = await provider(tag);
    expect(saw.count).toBe(2);
    const sent = JSON.parse(saw.body).messages as { role: string; content: { type: string; name?: string; content?: unknown }[] }[];
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1]!.content.at(-1)).toMatchObject({ type: "tool_use", name: "get_weather" });
    expect(sent[2]!.content[0]).toMatchObject({ type: "tool_result" });
  });

  test("store: false keeps nothing: a reference to it is a 404", async () => {
    const client = clientOf(KEYS.alice);
    const first = await client.responses.create({ model: "claude-fast", input: `tag:${newTag()}`, store: false });
    expect((first as unknown as { store: boolean }).store).toBe(false);
    await expect(client.responses.create({ model: "claude-fast", previous_response_id: first.id, input: "x" })).rejects.toMatchObject({
      status: 404,
    });
  });
});

test("the AI SDK's .responses() over two steps with its default settings (store, item_reference): the reasoning goes back whole", async () => {
  const tag = newTag();
  const openai = createOpenAI({ apiKey: KEYS.alice, baseURL: `${ORIGIN}/v1`, fetch: fetchAs(KEYS.alice) });
  const model = openai.responses("claude-fast");
  const messages: any[] = [{ role: "user", content: `tag:${tag} script:thinking` }];
  const first = await generateText({ model, messages });
  expect(first.text).toBe("Hello, provider world!");
  expect(first.reasoningText).toBe("A greeting is due."); // (the thinking as the AI SDK shows it: Claude's is a summary, SPEC §9)
  messages.push(...first.response.messages, { role: "user", content: `tag:${tag} And now?` });
  posted.length = 0;
  const second = await generateText({ model, messages });
  // (its default: the reasoning item by reference, as OpenAI keeps it)
  expect(JSON.parse(posted[0]!).input).toContainEqual({ type: "item_reference", id: first.reasoning[0]?.providerMetadata?.openai?.itemId });
  expect(second.text.length).toBeGreaterThan(0);
  const saw = await provider(tag);
  expect(saw.count).toBe(2);
  const sent = JSON.parse(saw.body).messages as { role: string; content: { type: string; signature?: string }[] }[];
  expect(sent[1]!.content[0]).toMatchObject({ type: "thinking", signature: THINKING_SIGNATURE });
});

/** fakes.ts's Gemini thought signature (the matrix fakes' `m-…` scripts: the Gemini row's call is signed with it). */
const GEMINI_PROOF = "CiQBmatrixGeminiThoughtSignature0123456789==";

test("by value with store: a Gemini call's signature from the kept response (a call sent without its reasoning items too); another principal's ids go as they are", async () => {
  const tag = newTag();
  const tools = [{
    type: "function" as const,
    name: "get_weather",
    description: "The weather of a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
    strict: true,
  }];
  const user = { role: "user" as const, content: `tag:${tag} script:m-tool` };
  const first = await clientOf(KEYS.alice).responses.stream({ model: "gemini-fast", input: [user], tools }).finalResponse();
  const output = first.output as unknown as Record<string, unknown>[];
  const call = output.find((item) => item.type === "function_call")!;
  // (no include: the reasoning item the door wrote before the call shows no encrypted_content)
  expect(output.at(-2)).toMatchObject({ type: "reasoning", summary: [] });
  expect(output.at(-2)).not.toHaveProperty("encrypted_content");
  const result = { type: "function_call_output" as const, call_id: call.call_id as string, output: "Sunny" };
  const ask = (key: string, input: unknown[]) =>
    clientOf(key).responses.stream({ model: "gemini-fast", input: input as OpenAI.Responses.ResponseInput, tools }).finalResponse();
  // the call alone (its reasoning items left out): the kept reasoning item before it comes back with it
  await ask(KEYS.alice, [user, call, result]);
  // another principal sending alice's items: no error, nothing of hers (Gemini gets its placeholder)
  await ask(KEYS.bob, [user, ...output, result]);
  const [, own, other] = (await (await fetch(`http://upstream.test/__fake?tag=${tag}`)).json()) as string[];
  expect(own).toContain(GEMINI_PROOF);
  expect(other).not.toContain(GEMINI_PROOF);
  expect(other).toContain("skip_thought_signature_validator");
});

test("a response larger than a storage row is split across rows and read back whole", async () => {
  const keeper = durableResponses(keyedEnv.STREAMS, 60_000);
  const id = `resp_${"ab".repeat(16)}`;
  const big = "é".repeat(CHUNK_CHARS * 2 + 17);
  const kept = { id, input: [{ type: "message", role: "user", content: big }], resource: { id, output: [] } };
  await keeper.put("carol", kept);
  expect(await keeper.get("carol", id)).toEqual(kept);
  expect(await keeper.get("dave", id)).toBeNull();
  const rows = await runInDurableObject(keyedEnv.STREAMS.get(keyedEnv.STREAMS.idFromName("responses carol")), (_i, state) =>
    state.storage.sql.exec("SELECT COUNT(*) AS n FROM kept_responses WHERE id = ?", id).one().n);
  expect(rows).toBe(3);
});

test("what is kept is checked where it is read: a kept text that is no JSON is an error naming the response, not a response", async () => {
  const keeper = durableResponses(keyedEnv.STREAMS, 60_000);
  const id = `resp_${"cd".repeat(16)}`;
  // (only the relay's own code reaches the responses' object: its JSON is not parsed again each time it is kept)
  const stub = keyedEnv.STREAMS.get(keyedEnv.STREAMS.idFromName("responses erin"));
  const put = await stub.fetch(`https://responses.relay/responses/put?ttl_ms=60000&id=${id}&part=`, { method: "POST", body: '{"id":' });
  expect(put.status).toBe(204);
  await expect(keeper.get("erin", id)).rejects.toThrow(`the kept response ${id} is no JSON`);
  // (an empty body keeps nothing)
  const empty = await stub.fetch(`https://responses.relay/responses/put?ttl_ms=60000&id=${id}&part=`, { method: "POST", body: "" });
  expect(empty.status).toBe(400);
});
