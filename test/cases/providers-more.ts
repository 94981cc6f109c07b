// OpenAI Responses and Gemini streams → UniEvents (mmsp-streams/providers, issue #27): each capture
// read whole and in random chunkings gives the exact events, message and error, and every converted
// stream is re-read by UniEventStream (providers.ts `run`). Each case is named after the bug it pins.
// The request side: the factories' Requests, the key kept to its header, refusals typed.
import fc from "fast-check";
import { EmptyResponseError, StreamProtocolError, UnsupportedParameterError, UpstreamError } from "../../dist/index.js";
import { fromProviderResponse, gemini, openaiResponses } from "../../dist/providers/index.js";
import { assert, assertEqual, assertError, type Case, rejects, settle, utf8 } from "../harness.ts";
import { cuts } from "../arbitraries.ts";
import { convert, errorOf, fakeFetch, items, type Name, run } from "./providers.ts";
import * as gem from "./providers/captures-gemini.ts";
import * as resp from "./providers/captures-openai-responses.ts";

type Json = Record<string, any>;

const bytes = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const thinking = (t: string, fidelity?: Json): Json => ({ type: "thinking.delta", thinking: t, ...(fidelity ? { fidelity } : {}) });
const text = (t: string): Json => ({ type: "text.delta", text: t });
/** The provenance a bound fidelity carries (SPEC §9 "Where each item came from"): the captures' model. */
const FROM_GEMINI = { provider: "gemini", model: "gemini-3-pro-preview" };
const tool = (name: string, id: string, args: string, fidelity?: Json): Json => ({ type: "tool_call.delta", name, tool_call_id: id, arguments: args, ...(fidelity ? { fidelity } : {}) });
const usage = (cached: number | null, prompt: number | null, thoughts: number | null, response: number | null) => ({
  cached_tokens: cached,
  prompt_tokens: prompt,
  thoughts_tokens: thoughts,
  response_tokens: response,
});

/** Every capture of these two providers, for the chunking property. */
const CAPTURES: [Name, string, string][] = [
  ...Object.entries(resp).filter(([, v]) => typeof v === "string" && v.startsWith("event:")).map(([k, v]) => ["openai-responses", k, v] as [Name, string, string]),
  ...Object.entries(gem).filter(([, v]) => typeof v === "string" && v.startsWith("data:")).map(([k, v]) => ["gemini", k, v] as [Name, string, string]),
];

const user = (t: string): any => ({ role: "user", content_items: [{ type: "text.done", text: t }] });

export const cases: Case[] = [
  // ---- OpenAI Responses ------------------------------------------------------------------------
  ["openai-responses: text; usage at response.completed, cached input apart from the prompt", async () => {
    const r = await run("openai-responses", resp.TEXT);
    assertEqual(r.items, [text("Hi"), text(" there"), text("!"), { type: "text.done", text: "Hi there!" }, { stop: "stop", usage: usage(4, 32, 0, 87) }]);
  }],
  ["openai-responses: vercel/ai #14843 — a reasoning item with two summaries keeps its encrypted_content (read at output_item.done)", async () => {
    const r = await run("openai-responses", resp.REASONING_SUMMARIES);
    const first = "**Reading the question**\n\nThe user asks for a sum.";
    const second = "**Adding**\n\n2 + 2 is 4.";
    const fidelity = { channel: "summary", summary: true, encrypted_content: resp.ENCRYPTED, part_lengths: [first.length, second.length], provider: "openai-responses", model: "gpt-5.1-2025-11-13" };
    assertEqual(r.items, [
      thinking("**Reading the question**"),
      thinking("\n\nThe user asks for a sum."),
      thinking("\n\n"),
      thinking(second),
      thinking("", fidelity),
      { type: "thinking.done", thinking: `${first}\n\n${second}`, fidelity },
      text("4"),
      { type: "text.done", text: "4" },
      { stop: "stop", usage: usage(0, 20, 128, 12) },
    ]);
  }],
  ["openai-responses: function calls, arguments by item; a turn that called functions finishes tool_call (MMSP writes stop)", async () => {
    const r = await run("openai-responses", resp.FUNCTION_CALLS);
    assertEqual(r.items, [
      tool("get_weather", "call_a", ""),
      tool("", "", '{"lo'),
      tool("", "", 'cation":'),
      tool("", "", '"Paris"}'),
      { type: "tool_call.done", name: "get_weather", tool_call_id: "call_a", arguments: { location: "Paris" } },
      tool("get_time", "call_b", ""),
      tool("", "", '{"tz":"CET"}'),
      { type: "tool_call.done", name: "get_time", tool_call_id: "call_b", arguments: { tz: "CET" } },
      { stop: "tool_call", usage: usage(0, 80, 0, 30) },
    ]);
  }],
  ["openai-responses: a call with no arguments → {}", async () => {
    const r = await run("openai-responses", resp.CALL_NO_ARGUMENTS);
    assertEqual(r.message.content_items, [{ type: "tool_call.done", name: "now", tool_call_id: "call_a", arguments: {} }]);
  }],
  ["openai-responses: a refusal part is the answer's text", async () => {
    const r = await run("openai-responses", resp.REFUSAL);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "I can't help with that." }]);
    assertEqual(r.message.finish_reason, "stop");
  }],
  ["openai-responses: error then response.failed → UpstreamError with the failure's code and message, after the valid events, no .done", async () => {
    const r = await run("openai-responses", resp.ERROR_THEN_FAILED);
    assertEqual(r.items, [text("Partial")]);
    assertError(r.error, UpstreamError, {
      errorType: "server_error",
      message: "The server had an error while processing your request.",
      status: null,
      client: "openai-responses",
      eventIndex: 4,
    });
  }],
  ["openai-responses: response.failed alone → the same (not \"ended without usage_metadata\")", async () => {
    const r = await run("openai-responses", resp.FAILED_ALONE);
    assertError(r.error, UpstreamError, { errorType: "rate_limit_exceeded", message: "Rate limit reached for gpt-5.1.", eventIndex: 1 });
  }],
  ["openai-responses: response.incomplete (max_output_tokens) → length", async () => {
    const r = await run("openai-responses", resp.INCOMPLETE);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "The first ten words" }]);
    assertEqual(r.message.finish_reason, "length");
  }],
  ["openai-responses: image generation results → inline_data, each image its own item, output_format of the call or the tool", async () => {
    const r = await run("openai-responses", resp.IMAGE_GENERATION);
    const png = bytes(resp.PNG_BASE64);
    assertEqual(r.items.slice(0, 4), [
      { type: "inline_data.delta", data: png, mime_type: "image/webp" },
      { type: "inline_data.done", data: png, mime_type: "image/webp" },
      { type: "inline_data.delta", data: png, mime_type: "image/png" },
      { type: "inline_data.done", data: png, mime_type: "image/png" },
    ]);
    assertEqual(r.message.content_items.length, 3);
  }],
  ["openai-responses: built-in and custom tool calls are skipped and said through onWarning; the answer is kept", async () => {
    const r = await run("openai-responses", resp.BUILTIN_AND_CUSTOM);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Sunny." }]);
    assertEqual(r.warnings.map((w) => [w.type, w.eventIndex]), [["skipped", 1], ["skipped", 6]]);
    assert(/web_search_call/.test(r.warnings[0]!.message) && /custom/.test(r.warnings[1]!.message), JSON.stringify(r.warnings));
  }],
  ["openai-responses: gpt-5's phase is the message's fidelity; keep-alives, unknown events and comments are skipped", async () => {
    const r = await run("openai-responses", resp.PHASE_KEEPALIVE);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Let me check.", fidelity: { phase: "commentary" } }]);
    assertEqual(r.warnings, []);
  }],
  ["openai-responses: a stream cut before response.completed → STOP-LAST at the body's end, no .done for the open item", async () => {
    const r = await run("openai-responses", resp.TRUNCATED);
    assertEqual(r.items, [text("Hello")]);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", byteOffset: utf8(resp.TRUNCATED).length, client: "openai-responses" });
    assert(/before response.completed/.test(r.error.message), r.error.message);
  }],

  // ---- Gemini ------------------------------------------------------------------------------------
  ["gemini: text parts join into one item; usage from usageMetadata (cached apart from the prompt), CRLF framing", async () => {
    const r = await run("gemini", gem.TEXT);
    assertEqual(r.items, [
      text("The sky"),
      text(" is blue"),
      text(" because of Rayleigh scattering."),
      { type: "text.done", text: "The sky is blue because of Rayleigh scattering." },
      { stop: "stop", usage: usage(4, 8, null, 11) },
    ]);
  }],
  ["gemini: thought parts → thinking; the thoughtSignature on the last, empty text part → that text's fidelity.signature byte for byte", async () => {
    const r = await run("gemini", gem.THOUGHTS_SIGNED);
    assertEqual(r.message.content_items, [
      { type: "thinking.done", thinking: "**Considering the question**\n\nThe user wants a haiku.", fidelity: { summary: true } },
      { type: "text.done", text: "Autumn moonlight—\na worm digs silently", fidelity: { signature: gem.SIGNATURE, ...FROM_GEMINI } },
    ]);
    assertEqual(r.message.usage_metadata, usage(null, 8, 230, 17));
  }],
  ["gemini: prism-php/prism #830 — parallel calls, each whole, the signature only on the first; vercel/ai #5116 — STOP after a call is tool_call", async () => {
    const r = await run("gemini", gem.PARALLEL_CALLS);
    assertEqual(r.items, [
      thinking("I need both cities."),
      { type: "thinking.delta", thinking: "", fidelity: { summary: true } }, // (Gemini's thoughts are summaries: the mark as the item ends)
      { type: "thinking.done", thinking: "I need both cities.", fidelity: { summary: true } },
      tool("get_weather", "get_weather", '{"city":"Paris"}', { signature: gem.SIGNATURE, ...FROM_GEMINI }),
      { type: "tool_call.done", name: "get_weather", tool_call_id: "get_weather", arguments: { city: "Paris" }, fidelity: { signature: gem.SIGNATURE, ...FROM_GEMINI } },
      tool("get_weather", "call_2", '{"city":"Tokyo","units":["c","f"]}'),
      { type: "tool_call.done", name: "get_weather", tool_call_id: "call_2", arguments: { city: "Tokyo", units: ["c", "f"] } },
      { stop: "tool_call", usage: usage(null, 40, 12, 30) },
    ]);
  }],
  ["gemini: vercel/ai #14358 — streamed partialArgs join into one call's arguments", async () => {
    const r = await run("gemini", gem.PARTIAL_ARGS);
    assertEqual(r.message.content_items, [{
      type: "tool_call.done",
      name: "write_file",
      tool_call_id: "write_file",
      arguments: { path: "notes/todo.md", body: "- milk\n- eggs", options: { overwrite: true, mode: 420 }, tags: ["home"], owner: null },
      fidelity: { signature: gem.SIGNATURE, ...FROM_GEMINI },
    }]);
    assertEqual(r.message.finish_reason, "tool_call");
  }],
  ["gemini: a streamed call cut before its end → STOP-LAST, the call never written", async () => {
    const r = await run("gemini", gem.TRUNCATED_CALL);
    assertEqual(r.items, []);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", client: "gemini" });
  }],
  ["gemini: inlineData → inline_data, each image its own item; thought inlineData → inline_thinking", async () => {
    const r = await run("gemini", gem.IMAGES);
    const png = bytes(gem.PNG_BASE64);
    assertEqual(r.message.content_items, [
      { type: "inline_thinking.done", data: png, mime_type: "image/png" },
      { type: "text.done", text: "Two versions:" },
      { type: "inline_data.done", data: png, mime_type: "image/png" },
      { type: "inline_data.done", data: png, mime_type: "image/png", fidelity: { signature: gem.SIGNATURE, ...FROM_GEMINI } },
    ]);
  }],
  ["gemini: the chunks of one audio stream are one item", async () => {
    const r = await run("gemini", gem.AUDIO);
    assertEqual(r.message.content_items, [
      { type: "inline_data.done", data: new Uint8Array([...bytes(gem.PCM_1), ...bytes(gem.PCM_2)]), mime_type: "audio/L16;codec=pcm;rate=24000" },
    ]);
  }],
  ["gemini: MAX_TOKENS → length", async () => {
    const r = await run("gemini", gem.MAX_TOKENS);
    assertEqual(r.message.finish_reason, "length");
  }],
  ["gemini: SAFETY with no content → EmptyResponseError naming the reason, finish unknown (not \"no content other than thinking\")", async () => {
    const r = await run("gemini", gem.SAFETY);
    assertError(r.error, EmptyResponseError, {
      finishReason: "unknown",
      usageMetadata: usage(null, 14, null, null),
      message: 'gemini returned no content (Gemini stopped the candidate with finishReason SAFETY; finish_reason="unknown").',
    });
  }],
  ["gemini: promptFeedback.blockReason → EmptyResponseError naming the block", async () => {
    const r = await run("gemini", gem.BLOCKED);
    assertError(r.error, EmptyResponseError, { finishReason: "unknown", message: /blockReason PROHIBITED_CONTENT: The prompt was blocked/ });
  }],
  ["gemini: code execution parts skipped and said; Vertex AI's count-less usageMetadata is not usage", async () => {
    const r = await run("gemini", gem.CODE_EXECUTION);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "It is 4." }]);
    assertEqual(r.message.usage_metadata, usage(null, 20, null, 9));
    assertEqual(r.warnings.map((w) => w.eventIndex), [0, 1]);
  }],
  ["gemini: an error inside the 200 stream → UpstreamError with Google's status as its type, after the valid events", async () => {
    const r = await run("gemini", gem.STREAM_ERROR);
    assertEqual(r.items, [text("Start")]);
    assertError(r.error, UpstreamError, { errorType: "UNAVAILABLE", status: 503, eventIndex: 1, client: "gemini", message: /overloaded/ });
  }],
  ["gemini: a stream that ends before a finishReason → STOP-LAST, no .done for the open item", async () => {
    const r = await run("gemini", gem.TRUNCATED);
    assertEqual(r.items, [text("Once upon"), text(" a time")]);
    // (CRLF framing: the place is the last record's end, its final LF read as part of the CRLF)
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", eventIndex: 2, client: "gemini" });
  }],

  // ---- every capture, under any chunking ---------------------------------------------------------
  ["providers: every Responses and Gemini capture gives the same events, message and error under any chunking", async () => {
    const whole = new Map<string, Json>();
    const seen = (r: Json) => ({ items: items(r.events), error: errorOf(r.error), message: r.message && { ...r.message, created_at: 0 }, warnings: r.warnings });
    for (const [provider, name, body] of CAPTURES) whole.set(provider + name, seen(await convert(provider, body)));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CAPTURES), cuts(4000), async ([provider, name, body], at) => {
        const n = utf8(body).length;
        assertEqual(seen(await convert(provider, body, at.map((c) => c % n))), whole.get(provider + name), name);
      }),
      { numRuns: 120 },
    );
    for (const [provider, name, body] of [["openai-responses", "REASONING_SUMMARIES", resp.REASONING_SUMMARIES], ["gemini", "PARTIAL_ARGS", gem.PARTIAL_ARGS]] as const) {
      const r = await convert(provider, body, Array.from(utf8(body), (_, i) => i));
      assertEqual(seen(r), whole.get(provider + name), `${name} byte by byte`);
    }
  }],

  // ---- the factories -----------------------------------------------------------------------------
  ["openaiResponses: request() → POST /responses, Bearer key, store false, reasoning asked encrypted; a read turn sent back exactly", async () => {
    const read = await run("openai-responses", resp.REASONING_SUMMARIES);
    const provider = openaiResponses({ apiKey: "sk-test", baseURL: "https://gateway.example/v1/" });
    assertEqual(provider.name, "openai-responses");
    const request = provider.request({ model: "gpt-5.1", messages: [user("2+2?"), read.message], config: { thinking_level: "low", max_tokens: 500 } });
    assertEqual(request.url, "https://gateway.example/v1/responses");
    assertEqual(request.headers.get("authorization"), "Bearer sk-test");
    const body = await request.json();
    assertEqual(body.include, ["reasoning.encrypted_content"]);
    assertEqual(body.store, false);
    assertEqual(body.input[1], {
      type: "reasoning",
      summary: [
        { type: "summary_text", text: "**Reading the question**\n\nThe user asks for a sum." },
        { type: "summary_text", text: "**Adding**\n\n2 + 2 is 4." },
      ],
      encrypted_content: resp.ENCRYPTED,
    });
  }],
  ["gemini: request() → streamGenerateContent?alt=sse with the key in x-goog-api-key, never in the URL; signatures sent back byte for byte", async () => {
    const read = await run("gemini", gem.PARALLEL_CALLS);
    const provider = gemini({ apiKey: "AIza-test" });
    const request = provider.request({ model: "gemini-3-pro-preview", messages: [user("Weather?"), read.message] });
    assertEqual(request.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
    assert(!request.url.includes("AIza-test"), "the key is not in the URL");
    assertEqual(request.headers.get("x-goog-api-key"), "AIza-test");
    const body = await request.json();
    assertEqual(body.contents[1].parts.map((p: Json) => p.thoughtSignature), [undefined, gem.SIGNATURE, undefined]);
    assertError(await rejects(() => provider.request({ model: "m", messages: [], config: { temperature: 1 } })), UnsupportedParameterError, { parameter: "temperature", client: "gemini" });
  }],
  ["gemini, openaiResponses: stream() reads the answer; refusals typed by status with the provider's own type and message", async () => {
    const ok = fakeFetch(() => new Response(gem.TEXT, { headers: { "content-type": "text/event-stream" } }));
    const events = gemini({ apiKey: "AIza-test", fetch: ok.fetch }).stream({ model: "gemini-3-flash", messages: [user("Hi")] });
    const r = await settle(events.readable, events.message);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "The sky is blue because of Rayleigh scattering." }]);
    assertEqual(ok.seen[0]!.request.headers.get("x-goog-api-key"), "AIza-test");
    const refused = async (provider: Name, status: number, body: unknown) =>
      rejects(fromProviderResponse(provider, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })).message);
    const quota = { error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" } };
    assertError(await refused("gemini", 429, quota), UpstreamError, { status: 429, errorType: "RESOURCE_EXHAUSTED", message: /Resource has been exhausted/ });
    const badKey = { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } };
    assertError(await refused("gemini", 400, badKey), UpstreamError, { status: 400, errorType: "InvalidRequestError", client: "gemini" });
    const openaiKey = { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } };
    assertError(await refused("openai-responses", 401, openaiKey), UpstreamError, { status: 401, errorType: "AuthenticationError", message: "Incorrect API key provided." });
  }],
];
