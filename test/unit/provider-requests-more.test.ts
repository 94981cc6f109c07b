// The Responses and Gemini request builders: MMSP's request → the provider's URL, headers and body,
// and a history read by the package's own readers sent back exactly (signatures, encrypted reasoning).
import { describe, expect, test } from "vitest";
import { UnsupportedParameterError } from "../../src/errors.ts";
import { anthropic } from "../../src/providers/anthropic/index.ts";
import { gemini } from "../../src/providers/gemini/index.ts";
import { UNSIGNED_CALL } from "../../src/providers/gemini/request.ts";
import { GeminiReader } from "../../src/providers/gemini/reader.ts";
import { openaiChat } from "../../src/providers/openai-chat/index.ts";
import { OpenaiChatReader } from "../../src/providers/openai-chat/reader.ts";
import { openaiResponses } from "../../src/providers/openai-responses/index.ts";
import type { MmspRequest } from "../../src/providers/request.ts";
import { ResponsesReader } from "../../src/providers/openai-responses/reader.ts";
import type { UniMessage } from "../../src/schema.ts";
import * as D from "../cases/providers/captures-openai-chat-dialects.ts";
import * as G from "../cases/providers/captures-gemini.ts";
import * as R from "../cases/providers/captures-openai-responses.ts";
import { runReader } from "./provider-reader-harness.ts";

const KEY = "sk-test-secret";
const user = (text: string): UniMessage => ({ role: "user", content_items: [{ type: "text.done", text }] });
/** The request `request()` builds, its body parsed (a Request's body is read once: a fresh build each time). */
const built = (make: typeof gemini, request: MmspRequest, baseURL?: string) => {
  const r = make({ apiKey: KEY, ...(baseURL ? { baseURL } : {}) }).request(request);
  return { url: r.url, headers: r.headers, body: r.text().then(JSON.parse) };
};
const responsesRequest = (request: MmspRequest, c: { apiKey: string; baseURL?: string }) => built(openaiResponses, request, c.baseURL);
const geminiRequest = (request: MmspRequest, c: { apiKey: string; baseURL?: string }) => built(gemini, request, c.baseURL);
const bodyOf = (r: { body: Promise<any> }) => r.body;

describe("responsesRequest", async () => {
  test("URL, bearer key in the header, config as MMSP maps it (plus top_p)", async () => {
    const r = responsesRequest({
      model: "gpt-5.1",
      messages: [user("Hi")],
      config: {
        system_prompt: "Be brief.",
        max_tokens: 100,
        temperature: 0.2,
        top_p: 0.9,
        thinking_level: "high",
        thinking_summary: true,
        tools: [{ name: "f", description: "d", parameters: { type: "object" } }],
        tool_choice: ["f"],
        fast_mode: true,
      },
    }, { apiKey: KEY, baseURL: "https://gateway.example/v1/" });
    expect(r.url).toBe("https://gateway.example/v1/responses");
    expect(r.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(await bodyOf(r)).toEqual({
      model: "gpt-5.1",
      store: false,
      instructions: "Be brief.",
      max_output_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: "high", summary: "concise" },
      include: ["reasoning.encrypted_content"],
      tools: [{ type: "function", name: "f", description: "d", parameters: { type: "object" } }],
      tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "f" }] },
      service_tier: "priority",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] }],
      stream: true,
    });
  });

  test("vercel/ai #14843: a read reasoning turn goes back with its encrypted_content and each summary as it came", async () => {
    const read = runReader(new ResponsesReader("openai-responses"), R.REASONING_SUMMARIES);
    const input = (await bodyOf(responsesRequest({ model: "m", messages: [user("2+2?"), read.message as UniMessage] }, { apiKey: KEY }))).input;
    expect(input.slice(1)).toEqual([
      {
        type: "reasoning",
        summary: [
          { type: "summary_text", text: "**Reading the question**\n\nThe user asks for a sum." },
          { type: "summary_text", text: "**Adding**\n\n2 + 2 is 4." },
        ],
        encrypted_content: R.ENCRYPTED,
      },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "4" }] },
    ]);
  });

  test("thinking without the summary channel goes back as reasoning_text content; lengths that do not fit keep it whole", async () => {
    const assistant: UniMessage = {
      role: "assistant",
      content_items: [
        { type: "thinking.done", thinking: "one\n\ntwo", fidelity: { part_lengths: [3, 3], encrypted_content: "e" } },
        { type: "thinking.done", thinking: "abc", fidelity: { channel: "summary", part_lengths: [1, 5], encrypted_content: "f" } },
        // with store: false the API takes no reasoning item without its encrypted_content (issue #36): left out
        { type: "thinking.done", thinking: "unverifiable", fidelity: { channel: "summary" } },
      ],
    };
    const input = (await bodyOf(responsesRequest({ model: "m", messages: [assistant] }, { apiKey: KEY }))).input;
    expect(input).toEqual([
      { type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "one" }, { type: "reasoning_text", text: "two" }], encrypted_content: "e" },
      { type: "reasoning", summary: [{ type: "summary_text", text: "abc" }], encrypted_content: "f" },
    ]);
  });

  test("tool calls, results with images, inline images and files, phases", async () => {
    const input = (await bodyOf(responsesRequest({
      model: "m",
      messages: [
        {
          role: "user",
          content_items: [
            { type: "text.done", text: "Look" },
            { type: "image_url.done", image_url: "https://x.example/a.png" },
            { type: "inline_data.done", data: new Uint8Array([1, 2]), mime_type: "image/png" },
            { type: "inline_data.done", data: new Uint8Array([3]), mime_type: "application/pdf" },
          ],
        },
        {
          role: "assistant",
          content_items: [
            { type: "text.done", text: "Checking.", fidelity: { phase: "commentary" } },
            { type: "tool_call.done", name: "f", tool_call_id: "call_1", arguments: { a: 1 } },
          ],
        },
        { role: "user", content_items: [{ type: "tool_result.done", text: "ok", tool_call_id: "call_1", images: ["https://x.example/r.png"] }] },
      ],
    }, { apiKey: KEY }))).input;
    expect(input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "Look" },
          { type: "input_image", image_url: "https://x.example/a.png" },
          { type: "input_image", image_url: "data:image/png;base64,AQI=" },
          { type: "input_file", filename: "file.pdf", file_data: "data:application/pdf;base64,Aw==" },
        ],
      },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking." }], phase: "commentary" },
      { type: "function_call", call_id: "call_1", name: "f", arguments: '{"a":1}' },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [{ type: "input_text", text: "ok" }, { type: "input_image", image_url: "https://x.example/r.png" }],
      },
    ]);
  });

  test("what the Responses API has no such thing for: UnsupportedParameterError naming it", async () => {
    const level = { thinking_level: "constructor" } as unknown as Record<string, unknown>;
    for (const config of [{ prompt_caching: "disable" as const }, { tts_config: [{ voice: "x" }] }, { embedding_config: {} }, level]) {
      expect(() => responsesRequest({ model: "m", messages: [], config }, { apiKey: KEY })).toThrow(UnsupportedParameterError);
    }
    const audio: UniMessage = { role: "user", content_items: [{ type: "inline_data.done", data: new Uint8Array(1), mime_type: "audio/wav" }] };
    expect(() => responsesRequest({ model: "m", messages: [audio] }, { apiKey: KEY })).toThrow(/content item inline_data.done \(audio\/wav/);
  });
});

describe("geminiRequest", async () => {
  test("the key in x-goog-api-key, never in the URL; config as MMSP maps it", async () => {
    const r = geminiRequest({
      model: "models/gemini-3-pro-preview",
      messages: [user("Hi")],
      config: {
        system_prompt: "Be brief.",
        max_tokens: 50,
        thinking_level: "medium",
        thinking_summary: true,
        tools: [{ name: "f", description: "d", parameters: { type: "object" } }],
        tool_choice: "required",
        image_config: { aspect_ratio: "16:9" },
      },
    }, { apiKey: KEY });
    expect(r.url).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
    expect(r.url).not.toContain(KEY);
    expect(r.headers.get("x-goog-api-key")).toBe(KEY);
    expect(await bodyOf(r)).toEqual({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      // gemini-3-pro has no MEDIUM: the nearest, ties up
      generationConfig: { maxOutputTokens: 50, thinkingConfig: { includeThoughts: true, thinkingLevel: "HIGH" }, imageConfig: { aspectRatio: "16:9" } },
      tools: [{ functionDeclarations: [{ name: "f", description: "d", parameters: { type: "object" } }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    });
  });

  test("Gemini 2.x thinks by budget", async () => {
    const r = geminiRequest({ model: "gemini-2.5-flash", messages: [], config: { thinking_level: "none" } }, { apiKey: KEY });
    expect((await bodyOf(r)).generationConfig).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
  });

  test("prism-php/prism #830: parallel calls read go back with the signature on the first only, byte for byte", async () => {
    const read = runReader(new GeminiReader("gemini"), G.PARALLEL_CALLS);
    const contents = (await bodyOf(geminiRequest({
      model: "gemini-3-pro-preview",
      messages: [user("Weather?"), read.message as UniMessage, {
        role: "user",
        content_items: [{ type: "tool_result.done", text: "sunny", tool_call_id: "get_weather" }, { type: "tool_result.done", text: "rain", tool_call_id: "call_2" }],
      }],
    }, { apiKey: KEY }))).contents;
    expect(contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "I need both cities.", thought: true },
        { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: G.SIGNATURE },
        { functionCall: { id: "call_2", name: "get_weather", args: { city: "Tokyo", units: ["c", "f"] } } },
      ],
    });
    expect(contents[2].parts).toEqual([
      { functionResponse: { name: "get_weather", response: { result: "sunny" } } },
      { functionResponse: { id: "call_2", name: "get_weather", response: { result: "rain" } } },
    ]);
  });

  test("a signature on an empty text part goes back on that part; a call nobody signed gets Google's placeholder", async () => {
    const read = runReader(new GeminiReader("gemini"), G.THOUGHTS_SIGNED);
    const parts = (await bodyOf(geminiRequest({ model: "gemini-3-flash", messages: [read.message as UniMessage] }, { apiKey: KEY }))).contents[0].parts;
    expect(parts[1]).toEqual({ text: "Autumn moonlight—\na worm digs silently", thoughtSignature: G.SIGNATURE });
    const foreign: UniMessage = { role: "assistant", content_items: [{ type: "tool_call.done", name: "f", tool_call_id: "toolu_1", arguments: {} }] };
    const call = (await bodyOf(geminiRequest({ model: "gemini-3-flash", messages: [foreign] }, { apiKey: KEY }))).contents[0].parts[0];
    expect(call).toEqual({ functionCall: { id: "toolu_1", name: "f", args: {} }, thoughtSignature: UNSIGNED_CALL });
  });

  test("images by URL and inline, thought images back as thoughts", async () => {
    const parts = (await bodyOf(geminiRequest({
      model: "m",
      messages: [{
        role: "user",
        content_items: [
          { type: "image_url.done", image_url: "data:image/png;base64,AQI=" },
          { type: "image_url.done", image_url: "https://x.example/cat.webp" },
          { type: "inline_data.done", data: new Uint8Array([1, 2]), mime_type: "audio/wav" },
        ],
      }, { role: "assistant", content_items: [{ type: "inline_thinking.done", data: new Uint8Array([7]), mime_type: "image/png", fidelity: { signature: "s" } }] }],
    }, { apiKey: KEY }))).contents;
    expect(parts[0].parts).toEqual([
      { inlineData: { mimeType: "image/png", data: "AQI=" } },
      { fileData: { mimeType: "image/webp", fileUri: "https://x.example/cat.webp" } },
      { inlineData: { mimeType: "audio/wav", data: "AQI=" } },
    ]);
    expect(parts[1].parts).toEqual([{ inlineData: { mimeType: "image/png", data: "Bw==" }, thought: true, thoughtSignature: "s" }]);
  });

  test("sampling parameters, fast mode, other caching: UnsupportedParameterError naming it", async () => {
    const cases = [["temperature", { temperature: 1 }], ["top_p", { top_p: 1 }], ["fast_mode", { fast_mode: true }], ["thinking_level", {
      thinking_level: "constructor",
    }]] as unknown as [string, Record<string, unknown>][];
    for (const [parameter, config] of cases) {
      let error: unknown;
      try {
        geminiRequest({ model: "m", messages: [], config }, { apiKey: KEY });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnsupportedParameterError);
      expect(error).toMatchObject({ client: "gemini", parameter });
    }
  });
});

describe("chatRequest: reasoning_details back to the provider", () => {
  /** The request text for a history whose assistant turn was read by the Chat reader from `capture`. */
  const replay = async (capture: string) => {
    const read = runReader(new OpenaiChatReader("openai-chat"), capture);
    expect(read.error).toBeUndefined();
    const text = await openaiChat({ apiKey: KEY }).request({ model: "m", messages: [user("Weather?"), read.message as UniMessage] }).text();
    return { read, text, body: JSON.parse(text) };
  };

  test("OpenRouter: a read turn's entries go back as the assistant message's reasoning_details, byte for byte, with no reasoning text beside them", async () => {
    const { read, text, body } = await replay(D.OPENROUTER_CLAUDE_TOOL);
    const entries = (read.message!.content_items[0] as unknown as { fidelity: { reasoning_details: unknown[] } }).fidelity.reasoning_details;
    expect(body.messages[1]).toEqual({
      role: "assistant",
      tool_calls: [{ id: "toolu_01A", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
      reasoning_details: entries,
    });
    expect(text).toContain(`"reasoning_details":${JSON.stringify(entries)}`);
  });

  test("an entry that came whole (encrypted) goes back with the bytes it came with, in the order read", async () => {
    const { text, body } = await replay(D.OPENROUTER_SUMMARY_ENCRYPTED);
    const wire = /"reasoning_details":\[(\{"type":"reasoning\.encrypted"[^}]*\})\]/.exec(D.OPENROUTER_SUMMARY_ENCRYPTED)![1]!;
    expect(text).toContain(wire);
    expect(body.messages[1].reasoning_details.map((e: { type: string }) => e.type)).toEqual(["reasoning.summary", "reasoning.encrypted"]);
    expect(body.messages[1]).not.toHaveProperty("reasoning");
    expect(body.messages[1]).not.toHaveProperty("reasoning_content");
  });

  test("Mistral: thinking read from content chunks goes back as a thinking chunk of the content, no reasoning field", async () => {
    const { body } = await replay(D.MISTRAL_THINKING);
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "thinking", thinking: [{ type: "text", text: "Two plus two is four." }] }, { type: "text", text: "The answer is 4." }],
    });
  });

  test("an entry's __proto__ member goes back as the data it was", async () => {
    const { text } = await replay(D.DETAILS_PROTO);
    expect(text).toContain('"reasoning_details":[{"__proto__":{"again":1},"type":"reasoning.text","text":"ab"');
  });
});

describe("a tool's output_schema (the package's member of MMSP's ToolSchema)", () => {
  const output_schema = { type: "object", properties: { forecast: { type: "string" } } };
  const request: MmspRequest = {
    model: "m",
    messages: [user("Weather?")],
    config: { tools: [{ name: "get_weather", description: "d", parameters: { type: "object" }, output_schema }] },
  };

  test("Gemini: the declaration's responseJsonSchema", async () => {
    const body = await bodyOf(built(gemini, request));
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: "get_weather", description: "d", parameters: { type: "object" }, responseJsonSchema: output_schema }] }]);
  });

  test.each([["openai-chat", openaiChat], ["openai-responses", openaiResponses], ["anthropic", anthropic]] as const)(
    "%s: no such member, the tool sent without it",
    async (_, make) => {
      const body = await bodyOf(built(make as typeof gemini, request));
      expect(body.tools).toHaveLength(1);
      expect(JSON.stringify(body)).not.toContain("forecast");
      expect(JSON.stringify(body)).not.toContain("output_schema");
    },
  );
});

describe("chatRequest: a plain list of names in tool_choice", () => {
  const tools = [{ name: "f", description: "d", parameters: { type: "object" } }, { name: "g", description: "d", parameters: { type: "object" } }];
  const sent = async (tool_choice: MmspRequest["config"] extends infer C ? C extends { tool_choice?: infer T } ? T : never : never) =>
    (await bodyOf(built(openaiChat as unknown as typeof gemini, { model: "m", messages: [user("Hi")], config: { tools, tool_choice } }))).tool_choice;

  test("is allowed_tools in mode auto, as MMSP's own openai_chat client sends it; the explicit modes are kept", async () => {
    const f = [{ type: "function", function: { name: "f" } }];
    expect(await sent(["f"])).toEqual({ type: "allowed_tools", allowed_tools: { mode: "auto", tools: f } });
    expect(await sent({ mode: "required", tools: ["f"] })).toEqual({ type: "allowed_tools", allowed_tools: { mode: "required", tools: f } });
    expect(await sent({ mode: "auto", tools: ["f"] })).toEqual({ type: "allowed_tools", allowed_tools: { mode: "auto", tools: f } });
  });
});
