// Structured output (issue #46: Open Responses' `text.format` → each provider's own): UniConfig's
// `output_format` and `verbosity` in each request builder — OpenAI Chat's `response_format` and
// `verbosity`, the Responses API's `text.format` and `text.verbosity`, Anthropic's
// `output_config.format` (a schema only; `json_object` and `verbosity` refused by name), Gemini's
// `responseMimeType` + `responseJsonSchema` — and the kit's fakes, which take the built bodies and
// refuse the malformed forms as the real APIs do (src/testing/format-rules.ts).
import { describe, expect, test } from "vitest";
import { UnsupportedParameterError } from "../../src/errors.ts";
import { anthropic, gemini, openaiChat, openaiResponses } from "../../src/providers/index.ts";
import type { MmspRequest, UniConfig } from "../../src/providers/request.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../src/testing/index.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import * as CHAT from "../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../cases/providers/captures-openai-responses.ts";

const KEY = "sk-structured";
const SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
const asking = (config: UniConfig): MmspRequest => ({ model: "m", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config });

const PROVIDERS = {
  "openai-chat": { make: openaiChat, capture: CHAT.TEXT, baseURL: "https://p.test/v1" },
  "openai-responses": { make: openaiResponses, capture: RESPONSES.TEXT, baseURL: "https://p.test/v1" },
  anthropic: { make: anthropic, capture: ANTHROPIC.TEXT, baseURL: "https://p.test" },
  gemini: { make: gemini, capture: GEMINI.TEXT, baseURL: "https://p.test/v1beta" },
} as const;

/** The body a provider's builder makes of `config`, and the fake's answer to it. */
async function sent(name: ProviderName, config: UniConfig): Promise<{ body: Record<string, any>; status: number }> {
  const { make, capture, baseURL } = PROVIDERS[name];
  const fake = fakeProvider(name, { streams: { m: parseCapture(capture) }, key: KEY });
  const provider = make({ apiKey: KEY, baseURL, fetch: fake as unknown as typeof fetch });
  const request = provider.request(asking(config));
  const body = JSON.parse(await request.clone().text());
  const answer = await fake(request);
  await answer.arrayBuffer();
  return { body, status: answer.status };
}

const jsonSchema: UniConfig = { output_format: { type: "json_schema", name: "weather", schema: SCHEMA, strict: true } };

describe("each builder's structured output, taken by the provider's fake", () => {
  test("OpenAI Chat: response_format json_schema / json_object, verbosity", async () => {
    const a = await sent("openai-chat", { ...jsonSchema, verbosity: "low" });
    expect(a.status).toBe(200);
    expect(a.body.response_format).toEqual({ type: "json_schema", json_schema: { name: "weather", schema: SCHEMA, strict: true } });
    expect(a.body.verbosity).toBe("low");
    expect((await sent("openai-chat", { output_format: { type: "json_object" } })).body.response_format).toEqual({ type: "json_object" });
  });

  test("Responses: text.format with a name (output when none was given), text.verbosity", async () => {
    const a = await sent("openai-responses", { output_format: { type: "json_schema", schema: SCHEMA }, verbosity: "high" });
    expect(a.status).toBe(200);
    expect(a.body.text).toEqual({ format: { type: "json_schema", name: "output", schema: SCHEMA }, verbosity: "high" });
  });

  test("Anthropic: output_config.format json_schema; json_object and verbosity refused by name", async () => {
    const a = await sent("anthropic", jsonSchema);
    expect(a.status).toBe(200);
    expect(a.body.output_config).toEqual({ format: { type: "json_schema", schema: SCHEMA } });
    for (const config of [{ output_format: { type: "json_object" } }, { verbosity: "low" }] as UniConfig[]) {
      const key = Object.keys(config)[0]!;
      expect(() => anthropic({ apiKey: KEY }).request(asking(config))).toThrow(UnsupportedParameterError);
      expect(() => anthropic({ apiKey: KEY }).request(asking(config))).toThrow(key);
    }
  });

  test("Gemini: responseMimeType application/json with responseJsonSchema", async () => {
    const a = await sent("gemini", jsonSchema);
    expect(a.status).toBe(200);
    expect(a.body.generationConfig).toMatchObject({ responseMimeType: "application/json", responseJsonSchema: SCHEMA });
    const b = await sent("gemini", { output_format: { type: "json_object" } });
    expect(b.body.generationConfig).toEqual({ responseMimeType: "application/json" });
  });

  test("a malformed output_format is refused by name before anything is sent", () => {
    for (const make of [openaiChat, openaiResponses, anthropic, gemini]) {
      expect(() => make({ apiKey: KEY }).request(asking({ output_format: { type: "json_schema" } as never }))).toThrow(/output_format/);
    }
  });
});

describe("the fakes refuse malformed structured output as the real APIs do", () => {
  const post = async (name: ProviderName, path: string, body: object) => {
    const fake = fakeProvider(name, { streams: { m: parseCapture(PROVIDERS[name].capture) } });
    const answer = await fake(new Request(`https://p.test${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
    return { status: answer.status, text: await answer.text() };
  };
  const messages = [{ role: "user", content: "Hi" }];
  test.each([
    ["openai-chat", "/v1/chat/completions", { model: "m", stream: true, messages, response_format: { type: "json_schema", json_schema: { schema: SCHEMA } } }, "json_schema.name"],
    ["openai-responses", "/v1/responses", { model: "m", stream: true, input: "Hi", text: { format: { type: "json_schema", schema: SCHEMA } } }, "text.format.name"],
    ["anthropic", "/v1/messages", { model: "m", stream: true, max_tokens: 10, messages, output_config: { format: { type: "json_object" } } }, "output_config.format"],
    [
      "gemini",
      "/v1beta/models/m:streamGenerateContent?alt=sse",
      { contents: [{ role: "user", parts: [{ text: "Hi" }] }], generationConfig: { responseJsonSchema: SCHEMA } },
      "response_mime_type",
    ],
  ] as const)("%s", async (name, path, body, says) => {
    const { status, text } = await post(name, path, body);
    expect(status).toBe(400);
    expect(text).toContain(says);
  });
});
