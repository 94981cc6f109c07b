// A Gemini 3 call's thought signature through the Open Responses door (issues #46 and #47, SPEC §9
// "Where each item came from"), in Node with the real `openai` SDK against the stateless relay and the
// kit's Gemini fake (which refuses a signature it never issued): the door writes the call's signature
// sealed, with the call's id, as the `encrypted_content` of an empty reasoning item just before the
// `function_call` (shown where `include` asks); sent back, it reaches Gemini on that call again instead
// of Google's placeholder; an altered one is refused by name; after a fallback another provider is not
// sent it. Every event and the resource are the spec's (test/fixtures/open-responses-schema.ts).
import Ajv from "ajv";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import { responseResource, streamingEvents } from "../../../fixtures/open-responses-schema.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import { providerFor } from "./door-relay.ts";

type Json = Record<string, any>;
const KEY = "sk-unit-call-signature-KEY";
const SEAL_ENV = { RELAY_SEAL_KEY: "seal-key-of-the-call-signature-test-0123456789" };
const MODEL = "gemini-3-pro-preview";

const ajv = new Ajv({ strict: false, allErrors: true });
const checkResource = ajv.compile(responseResource);
const checkers = Object.fromEntries(Object.entries(streamingEvents).map(([type, s]) => [type, ajv.compile(s)]));

/** Fails unless every event is the spec's, numbered 0, 1, 2…, each item done before the next is added. */
function expectSpecEvents(events: Json[]): void {
  let open: number | null = null;
  events.forEach((e, i) => {
    const check = checkers[e.type];
    expect(check, e.type).toBeDefined();
    expect(check!(e), `${e.type}: ${ajv.errorsText(check!.errors)}`).toBe(true);
    expect(e.sequence_number).toBe(i);
    if (e.type === "response.output_item.added") {
      expect(open).toBeNull();
      open = e.output_index;
    } else if (e.type === "response.output_item.done") {
      expect(e.output_index).toBe(open);
      open = null;
    } else if ("output_index" in e) expect(e.output_index).toBe(open);
  });
  expect(checkResource(events.at(-1)!.response), ajv.errorsText(checkResource.errors)).toBe(true);
}

const TOOLS = [{ type: "function" as const, name: "get_weather", strict: false, parameters: { type: "object", properties: { location: { type: "string" } } } }];
const ASK = { model: "gemini", tools: TOOLS, reasoning: { effort: "medium" as const }, store: false, include: ["reasoning.encrypted_content" as const] };
const USER = { role: "user" as const, content: "What's the weather in Paris?" };

/** A stateless relay: the row's Gemini target (`down`: 503), then (`fallback`) Anthropic's with foreign thinking as text. */
function setup(fallback = false) {
  const state = { down: false };
  const gemini = fakeProvider("gemini", { streams: { [MODEL]: parseCapture(GEMINI.SIGNED_CALL) }, key: KEY });
  const overloaded = () => Response.json({ error: { code: 503, message: "Overloaded", status: "UNAVAILABLE" } }, { status: 503 });
  const geminiFetch = ((input: RequestInfo | URL, init?: RequestInit) => state.down ? Promise.resolve(overloaded()) : gemini(input, init)) as typeof fetch;
  const anthropic = fakeProvider("anthropic", { streams: { "claude-model": parseCapture(ANTHROPIC.TEXT) }, key: KEY });
  const allow = { thinking_level: true };
  const relay = createRelay({
    models: {
      gemini: [
        { provider: providerFor("gemini", KEY, geminiFetch), model: MODEL, allow },
        ...(fallback
          ? [{ provider: providerFor("anthropic", KEY, anthropic as unknown as typeof fetch), model: "claude-model", allow, foreignThinking: "text" as const }]
          : []),
      ],
    },
    allowAnonymous: true,
    clientAddress: () => "203.0.113.47",
  });
  const client = new OpenAI({
    apiKey: "unused",
    baseURL: "https://relay.test/v1",
    maxRetries: 0,
    fetch: (input: RequestInfo | URL, init?: RequestInit) => relay.fetch(new Request(input as RequestInfo, init), SEAL_ENV),
  });
  return { client, gemini, anthropic, state };
}

/** The first turn streamed (its events checked against the spec), and the input that sends its output back with the result. */
async function firstTurn(client: OpenAI) {
  const events: Json[] = [];
  const stream = client.responses.stream({ ...ASK, input: [USER] });
  stream.on("event", (e) => events.push(e as Json));
  const first = await stream.finalResponse();
  expectSpecEvents(events);
  const output = first.output as Json[];
  const call = output.find((item) => item.type === "function_call")!;
  const input = [USER, ...output, { type: "function_call_output", call_id: call.call_id, output: "Sunny" }] as OpenAI.Responses.ResponseInput;
  return { output, input, events };
}

describe("a Gemini 3 call's thought signature through the stateless Open Responses door, with include", () => {
  test("an empty reasoning item just before the function_call carries it sealed; sent back, Gemini gets it on that call", async () => {
    const { client, gemini } = setup();
    const { output, input, events } = await firstTurn(client);
    expect(output.map((item) => item.type)).toEqual(["reasoning", "reasoning", "function_call"]);
    const carrier = output[1]!;
    // (as OpenAI writes a reasoning item with nothing to show: `summary: []`, no content, no part of it streamed)
    expect(Object.keys(carrier).sort()).toEqual(["encrypted_content", "id", "summary", "type"]);
    expect(carrier.summary).toEqual([]);
    expect(events.filter((e) => e.item_id === carrier.id)).toEqual([]);
    expect(carrier.encrypted_content).toMatch(/^mmsp1\./);
    expect(JSON.stringify(output)).not.toContain(GEMINI.SIGNATURE);
    await client.responses.create({ ...ASK, input });
    expect(gemini.requests).toHaveLength(2);
    const model = (gemini.requests[1]!.json as Json).contents[1];
    expect(model.parts.find((p: Json) => p.functionCall)).toMatchObject({ functionCall: { name: "get_weather" }, thoughtSignature: GEMINI.SIGNATURE });
    // (the carrier is no thought of the model's, and the call goes with its own signature, not the placeholder)
    expect(model.parts.filter((p: Json) => p.thought === true).map((p: Json) => p.text)).toEqual(["The weather is needed."]);
    expect(JSON.stringify(model)).not.toContain("skip_thought_signature_validator");
    // (the whole answer of a request not streamed carries it too)
    const whole = await client.responses.create({ ...ASK, input: [USER] });
    expect(whole.output.map((item) => [item.type, (item as Json).encrypted_content?.slice(0, 6)])).toEqual([
      ["reasoning", undefined],
      ["reasoning", "mmsp1."],
      ["function_call", undefined],
    ]);
    expect(whole.output[1]).not.toHaveProperty("content");
  });

  test("an altered carrier is refused naming encrypted_content, before any provider is asked", async () => {
    const { client, gemini } = setup();
    const { input } = await firstTurn(client);
    const carrier = input[2] as Json;
    const text: string = carrier.encrypted_content;
    const altered = { ...carrier, encrypted_content: text.slice(0, -2) + (text.at(-2) === "A" ? "B" : "A") + text.at(-1) };
    const refused = client.responses.create({ ...ASK, input: input.map((item) => (item === carrier ? altered : item)) as OpenAI.Responses.ResponseInput });
    await expect(refused).rejects.toMatchObject({ status: 400, error: { param: "input.encrypted_content" } });
    expect(gemini.requests).toHaveLength(1);
  });

  test("after a fallback to Anthropic the carrier is not sent to it; the call goes without Gemini's signature", async () => {
    const { client, anthropic, state } = setup(true);
    const { input } = await firstTurn(client);
    state.down = true;
    await client.responses.create({ ...ASK, input });
    expect(anthropic.requests).toHaveLength(1);
    const sent = JSON.stringify(anthropic.requests[0]!.json);
    expect(sent).toContain('"tool_use"');
    expect(sent).toContain("The weather is needed."); // (Gemini's thought, as text: the row's foreignThinking)
    for (const leaked of [GEMINI.SIGNATURE, "mmsp1.", "_REDACTED_THINKING", "redacted_thinking"]) expect(sent).not.toContain(leaked);
  });

  test("without include (nothing kept on the stateless relay) no carrier is written: the call goes back with Google's placeholder", async () => {
    const { client, gemini } = setup();
    const { include: _, ...ask } = ASK;
    const first = await client.responses.create({ ...ask, input: [USER] });
    expect(first.output.map((item) => item.type)).toEqual(["reasoning", "function_call"]);
    const call = first.output.find((item) => item.type === "function_call")!;
    await client.responses.create({
      ...ask,
      input: [USER, ...(first.output as Json[]), { type: "function_call_output", call_id: (call as Json).call_id, output: "Sunny" }] as OpenAI.Responses.ResponseInput,
    });
    expect(JSON.stringify(gemini.requests[1]!.json)).toContain("skip_thought_signature_validator");
  });
});
