// Open Responses through the real stream Durable Object (issue #41): the repository Worker's
// provider-backed models (worker/models.ts: claude-fast → Anthropic, gpt-fast → OpenAI Chat) against
// the scripted provider APIs: POST /v1/responses streamed; GET /v1/responses/<id>?stream=true&starting_after=n
// gives the same events after n (the stored UniEvents encoded again); the resource without stream=true;
// POST /v1/responses/<id>/cancel aborts the provider's request and the response ends `cancelled`.
// Then the stateless relay in workerd with the kit's fakeProvider for each of the four providers.
// Then real clients (issue #46) through the stream object, their fetch the Worker's: the AI SDK's
// `.responses()` (tools over two steps, reasoning with `store: false`) and the `openai` SDK's
// `responses.stream` with a tool over two turns (the scripted Anthropic API's `tool` script).
// (The spec's JSON Schemas are checked in Node, test/unit/open-responses.test.ts: ajv compiles code,
// which workerd does not allow.)
import { env } from "cloudflare:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { beforeAll, describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { createRelay } from "../../src/relay/index.ts";
import { anthropic, gemini, openaiChat, openaiResponses, type Provider } from "../../src/providers/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../src/testing/index.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import * as CHAT from "../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../cases/providers/captures-openai-responses.ts";
import { EDGE, newTag, ORIGIN, upstreamCancelled } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };
type Ev = { type: string; sequence_number: number } & Record<string, any>;

async function keyedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("x-relay-key", RELAY_KEY);
  return worker.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), keyed);
}

// The first DELETE of a test file's isolate can wait seconds in workerd under load (models.test.ts,
// cancel.test.ts): one stream created and stopped first, not timed.
beforeAll(async () => {
  const answer = await ask("claude-fast", newTag(), "endless");
  const reader = answer.body!.getReader();
  let text = "";
  while (!text.includes("response.output_text.delta")) text += new TextDecoder().decode((await reader.read()).value);
  const id = /"id":"(resp_[0-9a-f]{32})"/.exec(text)![1]!;
  await (await keyedFetch(`/v1/responses/${id}/cancel`, { method: "POST" })).arrayBuffer();
  await reader.cancel();
}, 30_000);

const ask = (model: string, tag: string, script = "text", extra: object = {}): Promise<Response> =>
  keyedFetch("/v1/responses", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, input: `tag:${tag} script:${script}`, stream: true, ...extra }),
  });

/** The spec's SSE framing → events (`event:` equal to `type`, no `id:`, `[DONE]` last). */
function parse(text: string): Ev[] {
  const records = text.split("\n\n").filter(Boolean);
  expect(records.at(-1)).toBe("data: [DONE]");
  return records.slice(0, -1).map((r) => {
    const lines = r.split("\n");
    expect(lines.length).toBe(2);
    const e = JSON.parse(lines[1]!.slice("data: ".length)) as Ev;
    expect(lines[0]).toBe(`event: ${e.type}`);
    return e;
  });
}
const bodyText = async (r: Response): Promise<string> => new TextDecoder().decode(await r.arrayBuffer());

/** Sequence numbers 0, 1, 2…, created and in_progress first, one terminal event last. */
function expectStateMachine(events: Ev[]): void {
  events.forEach((e, i) => expect(e.sequence_number).toBe(i));
  expect(events.slice(0, 2).map((e) => e.type)).toEqual(["response.created", "response.in_progress"]);
  expect(["response.completed", "response.incomplete", "response.failed"]).toContain(events.at(-1)!.type);
}

describe.each(["claude-fast", "gpt-fast"])("Open Responses through the stream object: %s", (model) => {
  test("streamed, then resumed after every sequence number: the same events; the resource without stream=true", async () => {
    const answer = await ask(model, newTag());
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = parse(await bodyText(answer));
    expectStateMachine(events);
    expect(events.at(-1)!.type).toBe("response.completed");
    const id = events[0]!.response.id as string;
    expect(id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(events.map((e) => (e.type === "response.output_text.delta" ? e.delta : "")).join("")).toBe("Hello, provider world!");
    for (const after of [0, 3, events.length - 2]) {
      const resumed = await keyedFetch(`/v1/responses/${id}?stream=true&starting_after=${after}`);
      expect(resumed.status).toBe(200);
      expect(parse(await bodyText(resumed))).toEqual(events.slice(after + 1));
    }
    const resource = await keyedFetch(`/v1/responses/${id}`);
    expect(resource.status).toBe(200);
    expect(await resource.json()).toEqual(events.at(-1)!.response);
  });

  test("cancel: POST /v1/responses/<id>/cancel aborts the provider's request within a second; the response ends cancelled", async () => {
    const tag = newTag();
    const answer = await ask(model, tag, "endless");
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    let text = "";
    while (!text.includes("response.output_text.delta")) text += new TextDecoder().decode((await reader.read()).value);
    const id = /"id":"(resp_[0-9a-f]{32})"/.exec(text)![1]!;
    const at = Date.now();
    const cancelled = await keyedFetch(`/v1/responses/${id}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    const resource = (await cancelled.json()) as Record<string, any>;
    expect(resource.status).toBe("cancelled");
    expect(resource.error.code).toBe("StreamCancelled");
    const abortedAt = await upstreamCancelled(tag, 2000);
    expect(abortedAt, "the provider's request was aborted").not.toBeNull();
    expect(abortedAt! - at).toBeLessThan(1000);
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    const events = parse(text);
    expect(events.at(-2)!.type).toBe("error");
    expect(events.at(-1)!.response.status).toBe("cancelled");
    // the resource holds what was delivered: the text so far in an incomplete message (issue #44)
    const delivered = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("");
    expect(delivered).not.toBe("");
    const said = { type: "message", status: "incomplete", role: "assistant", content: [{ type: "output_text", text: delivered, annotations: [] }] };
    expect(resource.output).toMatchObject([said]);
    expect(events.at(-1)!.response.output).toMatchObject([said]);
    const again = (await (await keyedFetch(`/v1/responses/${id}`)).json()) as Record<string, any>;
    expect(again.status).toBe("cancelled");
    expect(again.output).toMatchObject([said]);
  });

  test("a refusal is the spec's error shape: an unknown response id, an unsupported member", async () => {
    const missing = await keyedFetch(`/v1/responses/resp_${"0".repeat(32)}?stream=true`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error).toMatchObject({ type: "not_found", code: "NotFoundError" });
    // (a relay with stored responses: SPEC §10; none is kept by that id)
    const refused = await ask(model, newTag(), "text", { previous_response_id: "resp_1" });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as any).error).toMatchObject({ type: "not_found", param: "previous_response_id" });
    const unsupported = await ask(model, newTag(), "text", { include: ["message.output_text.logprobs"] });
    expect(unsupported.status).toBe(400);
    expect(((await unsupported.json()) as any).error).toMatchObject({ type: "invalid_request", param: "include[0]" });
  });
});

const KEY = "sk-workerd-open-responses";
const BACKENDS: [ProviderName, (fetch: typeof globalThis.fetch) => Provider, string][] = [
  ["anthropic", (fetch) => anthropic({ apiKey: KEY, baseURL: "https://p.test", fetch }), ANTHROPIC.TEXT],
  ["openai-chat", (fetch) => openaiChat({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }), CHAT.TEXT],
  ["gemini", (fetch) => gemini({ apiKey: KEY, baseURL: "https://p.test/v1beta", fetch }), GEMINI.TEXT],
  ["openai-responses", (fetch) => openaiResponses({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }), RESPONSES.TEXT],
];

test.each(BACKENDS)("the stateless relay in workerd answers POST /v1/responses from %s (streamed and whole)", async (name, make, capture) => {
  const fake = fakeProvider(name, { streams: { m: parseCapture(capture) }, key: KEY });
  const relay = createRelay({ models: { m: { provider: make(fake as unknown as typeof fetch), model: "m" } }, allowAnonymous: true });
  const post = (stream: boolean) =>
    relay.fetch(
      new Request(`${ORIGIN}/v1/responses`, {
        ...EDGE,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", instructions: "Be brief.", input: "Hi", stream }),
      }),
      {},
    );
  const events = parse(await bodyText(await post(true)));
  expectStateMachine(events);
  expect(events.at(-1)!.type).toBe("response.completed");
  const whole = (await (await post(false)).json()) as Record<string, any>;
  expect(whole.status).toBe("completed");
  expect(whole.instructions).toBe("Be brief.");
  expect(whole.output.length).toBe(events.at(-1)!.response.output.length);
});

describe("real clients through the stream object (issue #46)", () => {
  const viaWorker = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => worker.fetch(new Request(input, init), keyed);
  const WEATHER = { type: "object" as const, properties: { city: { type: "string" as const } }, required: ["city"], additionalProperties: false as const };

  test("ai + @ai-sdk/openai .responses(): a tool over two steps; reasoning with store: false reaches the app", async () => {
    const openai = createOpenAI({ baseURL: `${ORIGIN}/v1`, apiKey: RELAY_KEY, fetch: viaWorker as typeof fetch });
    const result = await generateText({
      model: openai.responses("claude-fast"),
      prompt: `tag:${newTag()} script:tool`,
      tools: { get_weather: tool({ inputSchema: jsonSchema<{ city: string }>(WEATHER), execute: async ({ city }) => `Sunny in ${city}` }) },
      stopWhen: stepCountIs(3),
    });
    expect(result.steps.length).toBe(2);
    expect(result.steps[0]!.toolCalls.map((c) => c.input)).toEqual([{ city: "Paris" }]);
    expect(result.text).toBe("Hello, provider world!");

    const streamed = streamText({
      model: openai.responses("claude-fast"),
      prompt: `tag:${newTag()} script:thinking`,
      providerOptions: { openai: { store: false } },
    });
    let reasoning = "";
    for await (const part of streamed.fullStream) if (part.type === "reasoning-delta") reasoning += part.text;
    expect(reasoning).toBe("A greeting is due.");
    expect(await streamed.text).toBe("Hello, provider world!");
  });

  test("openai responses.stream: a tool over two turns", async () => {
    const client = new OpenAI({ baseURL: `${ORIGIN}/v1`, apiKey: RELAY_KEY, fetch: viaWorker as typeof fetch });
    const tools = [{ type: "function" as const, name: "get_weather", description: "The weather.", parameters: WEATHER, strict: true }];
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: `tag:${newTag()} script:tool` }];
    const first = await client.responses.stream({ model: "claude-fast", input, tools }).finalResponse();
    const call = first.output.find((i) => i.type === "function_call") as { call_id: string; arguments: string } | undefined;
    expect(call?.arguments).toBe('{"city": "Paris"}');
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: call!.call_id, output: "Sunny" });
    const second = await client.responses.stream({ model: "claude-fast", input, tools }).finalResponse();
    expect(second.output_text).toBe("Hello, provider world!");
  });
});
