// Provider streams → UniEvents (mmsp-streams/providers, issue #27): each capture read whole and in
// random chunkings gives the exact events, message and error, and every converted stream, encoded as
// MMSP SSE, passes UniEventStream's checks. The request side: each factory's Request, its refusals,
// the key kept to its origin, stop() and cancel.
import fc from "fast-check";
import {
  ConnectionError,
  EmptyResponseError,
  SseEncoderStream,
  StreamProtocolError,
  ToolCallArgumentParseError,
  UniEventStream,
  UnsupportedParameterError,
  UpstreamError,
} from "../../dist/index.js";
import { anthropic, fromProviderResponse, openaiChat, ProviderEventStream } from "../../dist/providers/index.js";
import { assert, assertEqual, assertError, byteStream, type Case, rejects, settle, splitAt, utf8, valuesStream } from "../harness.ts";
import { cuts } from "../arbitraries.ts";
import * as ant from "./providers/captures-anthropic.ts";
import * as chat from "./providers/captures-openai-chat.ts";

type Json = Record<string, any>;
export type Name = "openai-chat" | "anthropic" | "openai-responses" | "gemini";

/** Reads `body` through the provider's stream, whole or cut at `at`. */
export async function convert(provider: Name, body: string, at?: number[]) {
  const warnings: Json[] = [];
  const stream = new ProviderEventStream(provider, { onWarning: (w: Json) => warnings.push(w) });
  const bytes = utf8(body);
  const r = await settle(byteStream(at ? splitAt(bytes, at) : [bytes]).pipeThrough(stream), stream.message);
  return { ...r, warnings };
}

/** The items of the events (and the stop as `{ stop, usage }`), each event checked to carry a created_at. */
export function items(events: Json[]): Json[] {
  return events.map((e) => {
    assert(typeof e.created_at === "number", "every event carries created_at");
    return e.event_type === "stop" ? { stop: e.finish_reason, usage: e.usage_metadata } : e.content_items[0];
  });
}

/** What an error is, for comparing chunkings: class, rule, place, message. */
export const errorOf = (e: any) => (e === undefined ? undefined : { name: e.name, rule: e.rule, eventIndex: e.eventIndex, byteOffset: e.byteOffset, message: e.message });

/**
 * Encodes the converted events as MMSP SSE and reads them back through UniEventStream: the same events
 * and message when the conversion finished; when it failed, the events before its error and no more,
 * ending as a truncated stream (STOP-LAST), so no grammar rule broke before the error.
 */
async function reread(events: Json[], failed: boolean): Promise<void> {
  const u = new UniEventStream();
  const r = await settle(valuesStream(events).pipeThrough(new SseEncoderStream()).pipeThrough(u), u.message);
  assertEqual(r.events, events, "UniEventStream reads the converted events back unchanged");
  if (failed) assertError(r.error, StreamProtocolError, { rule: "STOP-LAST" });
  else assertEqual(r.error, undefined, "the converted stream passes UniEventStream's checks");
}

/** Converts a capture whole, checks the re-read, and returns what came out. */
export async function run(provider: Name, body: string) {
  const r = await convert(provider, body);
  if (r.error !== undefined) assert(r.messageError === r.error, "message rejects with the readable's error");
  await reread(r.events, r.error !== undefined);
  return { items: items(r.events), error: r.error, message: r.message, warnings: r.warnings };
}

/** The provenance a bound fidelity carries (SPEC §9 "Where each item came from"): the captures' model. */
const FROM_ANTHROPIC = { provider: "anthropic", model: "claude-sonnet-4-5" };
const USAGE_CHAT = { cached_tokens: null, prompt_tokens: 19, thoughts_tokens: null, response_tokens: 10 };
const tool = (name: string, id: string, args: string) => ({ type: "tool_call.delta", name, tool_call_id: id, arguments: args });
const more = (args: string) => tool("", "", args);

/** Every capture, for the chunking property. */
const CAPTURES: [Name, string, string][] = [
  ...Object.entries(ant).filter(([, v]) => typeof v === "string" && v.startsWith("event:")).map(([k, v]) => ["anthropic", k, v] as [Name, string, string]),
  ...Object.entries(chat).filter(([, v]) => typeof v === "string" && v.startsWith("data:")).map(([k, v]) => ["openai-chat", k, v] as [Name, string, string]),
];

export const cases: Case[] = [
  // ---- Anthropic ------------------------------------------------------------------------------
  ["anthropic: text with a ping between the deltas; usage from message_start + message_delta", async () => {
    const r = await run("anthropic", ant.TEXT);
    assertEqual(r.items, [
      { type: "text.delta", text: "Hello" },
      { type: "text.delta", text: "!" },
      { type: "text.done", text: "Hello!" },
      { stop: "stop", usage: { cached_tokens: null, prompt_tokens: 25, thoughts_tokens: null, response_tokens: 15 } },
    ]);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Hello!" }]);
    assertEqual(r.message.finish_reason, "stop");
  }],
  ["anthropic: text then a tool_use whose input streams in pieces → tool_call, finish tool_call", async () => {
    const r = await run("anthropic", ant.TOOL_USE);
    const args = '{"location": "San Francisco, CA", "unit": "fahrenheit"}';
    assertEqual(r.items, [
      { type: "text.delta", text: "Okay, let's check the weather for San Francisco, CA:" },
      { type: "text.done", text: "Okay, let's check the weather for San Francisco, CA:" },
      tool("get_weather", "toolu_01T1x1fJ34qAmk2tNTrN7Up6", ""),
      more('{"location":'),
      more(' "San Francisc'),
      more('o, CA", "unit": "fah'),
      more('renheit"}'),
      { type: "tool_call.done", name: "get_weather", tool_call_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", arguments: JSON.parse(args) },
      { stop: "tool_call", usage: { cached_tokens: 0, prompt_tokens: 472, thoughts_tokens: null, response_tokens: 89 } },
    ]);
  }],
  ["anthropic: thinking + signature_delta → fidelity.signature byte for byte (anthropic-sdk-python #1598); cache and thinking tokens", async () => {
    const r = await run("anthropic", ant.THINKING);
    const thought = "Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3";
    assertEqual(r.message.content_items, [
      { type: "thinking.done", thinking: thought, fidelity: { signature: ant.SIGNATURE, summary: true, ...FROM_ANTHROPIC } },
      { type: "text.done", text: "27 * 453 = 12,231" },
    ]);
    assertEqual(r.message.usage_metadata, { cached_tokens: 1200, prompt_tokens: 95, thoughts_tokens: 250, response_tokens: 60 });
    assertEqual(r.items[2], { type: "thinking.delta", thinking: "", fidelity: { signature: ant.SIGNATURE, summary: true, ...FROM_ANTHROPIC } }, "the signature rides an empty fragment");
  }],
  ["anthropic: redacted_thinking → thinking \"_REDACTED_THINKING\" with its data as the signature", async () => {
    const r = await run("anthropic", ant.REDACTED);
    assertEqual(r.message.content_items, [
      { type: "thinking.done", thinking: "_REDACTED_THINKING", fidelity: { signature: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP", ...FROM_ANTHROPIC } },
      { type: "text.done", text: "Done." },
    ]);
  }],
  ["anthropic: event: error mid-stream → UpstreamError after the valid events, no .done for the open text", async () => {
    const r = await run("anthropic", ant.ERROR_MID_STREAM);
    assertEqual(r.items, [{ type: "text.delta", text: "Partial" }]);
    assertError(r.error, UpstreamError, { errorType: "overloaded_error", message: "Overloaded", status: null, client: "anthropic", eventIndex: 3 });
  }],
  ["anthropic: a stream cut before message_stop → STOP-LAST, no .done for the open item", async () => {
    const r = await run("anthropic", ant.TRUNCATED);
    assertEqual(r.items, [{ type: "text.delta", text: "Half an ans" }]);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", eventIndex: 3, byteOffset: utf8(ant.TRUNCATED).length, client: "anthropic" });
    assert(/before message_stop/.test(r.error.message), r.error.message);
  }],
  ["anthropic: tool input cut by max_tokens → ToolCallArgumentParseError in place of the .done", async () => {
    const r = await run("anthropic", ant.TOOL_CUT_BY_MAX_TOKENS);
    assertEqual(r.items, [tool("write_file", "toolu_01A", ""), more('{"path": "a.txt", "content": "lorem ip')]);
    assertError(r.error, ToolCallArgumentParseError, { toolName: "write_file", toolCallId: "toolu_01A", client: "anthropic", rule: "DONE-CONTENT" });
  }],
  ["anthropic: a tool call with no input → arguments {}", async () => {
    const r = await run("anthropic", ant.TOOL_NO_ARGS);
    assertEqual(r.message.content_items, [{ type: "tool_call.done", name: "get_time", tool_call_id: "toolu_01B", arguments: {} }]);
    assertEqual(r.message.finish_reason, "tool_call");
  }],
  ["anthropic: stop_reason refusal with no content → EmptyResponseError naming the reason, finish unknown", async () => {
    const r = await run("anthropic", ant.REFUSAL_ALONE);
    assertEqual(r.items, []);
    assertError(r.error, EmptyResponseError, {
      finishReason: "unknown",
      usageMetadata: { cached_tokens: null, prompt_tokens: 12, thoughts_tokens: null, response_tokens: 0 },
      message: 'anthropic returned no content (stop_reason "refusal"; finish_reason="unknown").',
    });
  }],
  ["anthropic: server_tool_use and its result skipped with warnings; pause_turn keeps the text, finish unknown", async () => {
    const r = await run("anthropic", ant.SERVER_TOOL_PAUSE);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Let me search for that." }]);
    assertEqual(r.message.finish_reason, "unknown");
    assertEqual(r.warnings.map((w) => [w.type, w.eventIndex]), [["skipped", 4], ["skipped", 7]]);
    assert(/server_tool_use/.test(r.warnings[0]!.message) && /web_search_tool_result/.test(r.warnings[1]!.message), JSON.stringify(r.warnings));
  }],
  ["anthropic: pause_turn with only a server tool → EmptyResponseError naming pause_turn", async () => {
    const r = await run("anthropic", ant.PAUSE_TURN_ALONE);
    assertError(r.error, EmptyResponseError, { finishReason: "unknown", message: /stop_reason "pause_turn"/ });
  }],
  ["anthropic: a duplicate message_start, a gateway's own event and a comment are tolerated (vercel/ai #18331)", async () => {
    const r = await run("anthropic", ant.DUPLICATE_MESSAGE_START);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Hi" }]);
    assertEqual(r.message.usage_metadata, { cached_tokens: null, prompt_tokens: 50, thoughts_tokens: null, response_tokens: 2 }, "the first message_start's usage kept");
    assertEqual(r.warnings.length, 1);
  }],
  ["anthropic: citations_delta is skipped with a warning; the text is kept", async () => {
    const r = await run("anthropic", ant.CITATIONS);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "The answer is x." }]);
    assertEqual(r.warnings.length, 1);
    assert(/citations_delta/.test(r.warnings[0]!.message), r.warnings[0]!.message);
  }],
  ["anthropic: a delta of a block that never began is a protocol error (SCHEMA), located", async () => {
    const body = ant.sse([{ type: "message_start", message: { usage: { input_tokens: 1 } } }, { type: "content_block_delta", index: 4, delta: { type: "text_delta", text: "x" } }]);
    const r = await convert("anthropic", body);
    assertError(r.error, StreamProtocolError, { rule: "SCHEMA", eventIndex: 1, client: "anthropic" });
  }],

  // ---- OpenAI Chat ----------------------------------------------------------------------------
  ["openai-chat: text, finish stop, usage in the last chunk with no choices", async () => {
    const r = await run("openai-chat", chat.TEXT);
    assertEqual(r.items, [
      { type: "text.delta", text: "Hello" },
      { type: "text.delta", text: " there!" },
      { type: "text.done", text: "Hello there!" },
      { stop: "stop", usage: USAGE_CHAT },
    ]);
  }],
  ["openai-chat: interleaved parallel tool calls keep their arguments apart, each its own group in index order (maximhq/bifrost #1829; MMSP ignores tool_calls[].index)", async () => {
    const r = await run("openai-chat", chat.PARALLEL_TOOLS_INTERLEAVED);
    assertEqual(r.items, [
      // call 0 streams live as it arrives (its header came with no arguments); call 1 waits for it, whole
      tool("get_weather", "call_aaa", ""),
      more('{"city": '),
      more('"Paris"}'),
      { type: "tool_call.done", name: "get_weather", tool_call_id: "call_aaa", arguments: { city: "Paris" } },
      tool("get_time", "call_bbb", '{"tz": '),
      more('"Europe/Paris"}'),
      { type: "tool_call.done", name: "get_time", tool_call_id: "call_bbb", arguments: { tz: "Europe/Paris" } },
      { stop: "tool_call", usage: { ...USAGE_CHAT, response_tokens: 40 } },
    ]);
  }],
  ["openai-chat: parallel calls sent out of index order in one chunk are written in index order", async () => {
    const r = await run("openai-chat", chat.PARALLEL_TOOLS_ONE_CHUNK);
    assertEqual(r.message.content_items, [
      { type: "tool_call.done", name: "a", tool_call_id: "call_1", arguments: { x: 1 } },
      { type: "tool_call.done", name: "b", tool_call_id: "call_2", arguments: { y: 2 } },
    ]);
  }],
  ["openai-chat: tool calls without an index (compatible servers): a named fragment begins the next call, a repeated header is no second call", async () => {
    const r = await run("openai-chat", chat.TOOLS_WITHOUT_INDEX);
    assertEqual(r.message.content_items, [
      { type: "tool_call.done", name: "first", tool_call_id: "call_x", arguments: { a: 1 } },
      { type: "tool_call.done", name: "second", tool_call_id: "call_y", arguments: { b: 2 } },
    ]);
  }],
  ["openai-chat: both reasoning fields in one delta → the thinking once, no reasoning_field (a replay sends both, as MMSP)", async () => {
    const r = await run("openai-chat", chat.REASONING_BOTH_FIELDS);
    assertEqual(r.message.content_items, [{ type: "thinking.done", thinking: "Same thought." }, { type: "text.done", text: "Ok." }]);
  }],
  ["openai-chat: reasoning_content → thinking with fidelity.reasoning_field; cached and reasoning tokens taken out", async () => {
    const r = await run("openai-chat", chat.REASONING_CONTENT);
    assertEqual(r.message.content_items, [
      { type: "thinking.done", thinking: "The user greets me.", fidelity: { reasoning_field: "reasoning_content" } },
      { type: "text.done", text: "Hi!" },
    ]);
    assertEqual(r.message.usage_metadata, { cached_tokens: 1024, prompt_tokens: 176, thoughts_tokens: 25, response_tokens: 5 });
  }],
  ["openai-chat: OpenRouter's reasoning field → thinking with reasoning_field \"reasoning\"", async () => {
    const r = await run("openai-chat", chat.REASONING);
    assertEqual(r.message.content_items[0], { type: "thinking.done", thinking: "Short thought.", fidelity: { reasoning_field: "reasoning" } });
  }],
  ["openai-chat: delta.refusal is the answer's text", async () => {
    const r = await run("openai-chat", chat.REFUSAL);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "I'm sorry, I cannot help with that." }]);
    assertEqual(r.message.finish_reason, "stop");
  }],
  ["openai-chat: a chunk carrying error → UpstreamError after the valid events", async () => {
    const r = await run("openai-chat", chat.ERROR_MID_STREAM);
    assertEqual(r.items, [{ type: "text.delta", text: "Partial" }]);
    assertError(r.error, UpstreamError, { errorType: "server_error", client: "openai-chat", eventIndex: 2, message: /server had an error/ });
  }],
  ["openai-chat: a stream cut inside its tool call → STOP-LAST; the call streamed live so far, with no .done", async () => {
    const r = await run("openai-chat", chat.TRUNCATED);
    assertEqual(r.items, [{ type: "text.delta", text: "Let me look." }, { type: "text.done", text: "Let me look." }, tool("lookup", "call_c", '{"q": "a')]);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", eventIndex: 2, client: "openai-chat" });
  }],
  ["openai-chat: finish and usage, then a clean end without [DONE] → a whole answer (servers that omit [DONE], SPEC §9)", async () => {
    const r = await run("openai-chat", chat.NO_DONE);
    assertEqual(r.items, [{ type: "text.delta", text: "Hi" }, { type: "text.done", text: "Hi" }, { stop: "stop", usage: USAGE_CHAT }]);
    assertEqual(r.error, undefined);
    assertEqual(r.warnings, []);
  }],
  ["openai-chat: tool arguments cut by length → ToolCallArgumentParseError", async () => {
    const r = await run("openai-chat", chat.TOOL_CUT_BY_LENGTH);
    assertError(r.error, ToolCallArgumentParseError, { toolName: "write_file", toolCallId: "call_d", rule: "DONE-CONTENT" });
  }],
  ["openai-chat: a call with empty arguments → {}", async () => {
    const r = await run("openai-chat", chat.TOOL_NO_ARGS);
    assertEqual(r.message.content_items, [{ type: "tool_call.done", name: "get_time", tool_call_id: "call_e", arguments: {} }]);
  }],
  ["openai-chat: no usage chunk, then [DONE] → a whole answer, usage four nulls and a \"missing\" warning (SPEC §9; was MMSP's \"ended without usage_metadata\")", async () => {
    const r = await run("openai-chat", chat.NO_USAGE);
    const none = { cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: null };
    assertEqual(r.items, [{ type: "text.delta", text: "Hi" }, { type: "text.done", text: "Hi" }, { stop: "stop", usage: none }]);
    assertEqual(r.warnings.map((w) => [w.type, w.eventIndex]), [["missing", 3]]);
    assert(/without reporting usage/.test(r.warnings[0]!.message) && /include_usage/.test(r.warnings[0]!.message), r.warnings[0]!.message);
  }],
  ["openai-chat: content_filter → finish stop", async () => {
    const r = await run("openai-chat", chat.CONTENT_FILTER);
    assertEqual(r.message.finish_reason, "stop");
  }],
  ["openai-chat: a record that is not JSON → StreamProtocolError JSON at its place", async () => {
    const body = "data: {not json}\n\n";
    const r = await convert("openai-chat", body);
    assertError(r.error, StreamProtocolError, { rule: "JSON", eventIndex: 0, byteOffset: 0, client: "openai-chat" });
  }],

  // ---- every capture, under any chunking ---------------------------------------------------------
  ["providers: every capture gives the same events, message and error under any chunking", async () => {
    const whole = new Map<string, unknown>();
    for (const [provider, name, body] of CAPTURES) {
      const r = await convert(provider, body);
      whole.set(name + provider, { items: items(r.events), error: errorOf(r.error), message: r.message, warnings: r.warnings });
    }
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...CAPTURES), cuts(4000), async ([provider, name, body], at) => {
        const n = utf8(body).length;
        const r = await convert(provider, body, at.map((c) => c % n));
        const got = { items: items(r.events), error: errorOf(r.error), message: r.message, warnings: r.warnings };
        const expected = whole.get(name + provider) as Json;
        // created_at differs run to run: compare the message without it
        assertEqual({ ...got, message: got.message && { ...got.message, created_at: 0 } }, { ...expected, message: expected.message && { ...expected.message, created_at: 0 } }, name);
      }),
      { numRuns: 120 },
    );
    // byte by byte, the hardest chunking, for one capture of each
    for (const [provider, body] of [["anthropic", ant.THINKING], ["openai-chat", chat.PARALLEL_TOOLS_INTERLEAVED]] as const) {
      const bytes = utf8(body);
      const r = await convert(provider, body, Array.from(bytes, (_, i) => i));
      assertEqual(items(r.events), (whole.get((provider === "anthropic" ? "THINKING" : "PARALLEL_TOOLS_INTERLEAVED") + provider) as Json).items);
    }
  }],

  // ---- the boundary ----------------------------------------------------------------------------
  ["providers: ProviderEventStream checks its provider and options", async () => {
    assertError(await rejects(() => new ProviderEventStream("antropic" as Name)), RangeError, { message: /did you mean "anthropic"/ });
    assertError(await rejects(() => new ProviderEventStream(42 as unknown as Name)), TypeError);
    assertError(await rejects(() => new ProviderEventStream("anthropic", { format: "sse" } as Json)), TypeError, { message: /unknown option "format"/ });
    assertError(await rejects(() => new ProviderEventStream("anthropic", { maxDepth: 0 })), RangeError);
  }],
  ["providers: a UTF-8 error in a provider's body is the UTF8 rule (strict, as the MMSP reader)", async () => {
    const stream = new ProviderEventStream("openai-chat");
    const bytes = new Uint8Array([...utf8('data: {"choices":[{"index":0,"delta":{"content":"'), 0xff, ...utf8('"}}]}\n\n')]);
    const r = await settle(byteStream([bytes]).pipeThrough(stream), stream.message);
    assertError(r.error, StreamProtocolError, { rule: "UTF8" });
  }],

  // ---- refusals --------------------------------------------------------------------------------
  ["providers: refusals → UpstreamError with the status, MMSP's type by status and the provider's message", async () => {
    const refused = async (provider: Name, status: number, body: unknown) => {
      const { message } = fromProviderResponse(provider, new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }));
      return rejects(message);
    };
    assertError(await refused("anthropic", 401, ant.REFUSALS[401]), UpstreamError, { status: 401, errorType: "AuthenticationError", message: "invalid x-api-key", client: "anthropic" });
    assertError(await refused("anthropic", 404, ant.REFUSALS[404]), UpstreamError, { status: 404, errorType: "NotFoundError" });
    assertError(await refused("anthropic", 429, ant.REFUSALS[429]), UpstreamError, { status: 429, errorType: "rate_limit_error" });
    assertError(await refused("anthropic", 529, ant.REFUSALS[529]), UpstreamError, { status: 529, errorType: "overloaded_error", message: "Overloaded" });
    assertError(await refused("openai-chat", 400, chat.REFUSALS[400]), UpstreamError, { status: 400, errorType: "InvalidRequestError" });
    assertError(await refused("openai-chat", 401, chat.REFUSALS[401]), UpstreamError, { status: 401, errorType: "AuthenticationError" });
    assertError(await refused("openai-chat", 403, chat.REFUSALS[401]), UpstreamError, { status: 403, errorType: "AuthenticationError" });
    assertError(await refused("openai-chat", 404, chat.REFUSALS[404]), UpstreamError, { status: 404, errorType: "NotFoundError" });
    assertError(await refused("openai-chat", 413, { error: { message: "too large" } }), UpstreamError, { status: 413, errorType: "InvalidRequestError" });
    assertError(await refused("openai-chat", 429, chat.REFUSALS[429]), UpstreamError, { status: 429, errorType: "requests", message: /Rate limit reached/ });
  }],
  ["providers: a refusal that is an HTML page → HTTPError described by its title (the package's diagnosis), status kept", async () => {
    const page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>";
    const { readable, message } = fromProviderResponse("anthropic", new Response(page, { status: 502, headers: { "content-type": "text/html" } }));
    const e = await rejects(message);
    assertError(e, UpstreamError, { status: 502, errorType: "HTTPError", message: /^HTTP 502: an HTML page titled "502 Bad Gateway"/ });
    assertError(await rejects(readable.getReader().read()), UpstreamError, { status: 502 });
  }],

  // ---- the factories ---------------------------------------------------------------------------
  ...factoryCases(),
];

const user = (text: string): any => ({ role: "user", content_items: [{ type: "text.done", text }] });

/** A fetch that records each request and answers with `answer`. */
export function fakeFetch(answer: (request: Request, init?: RequestInit) => Response | Promise<Response>) {
  const seen: { request: Request; init?: RequestInit }[] = [];
  const fetch = async (request: Request, init?: RequestInit) => {
    seen.push({ request, init });
    return answer(request, init);
  };
  return { fetch: fetch as unknown as typeof globalThis.fetch, seen };
}

function factoryCases(): Case[] {
  return [
    ["openaiChat: request() → POST /chat/completions, Bearer key, stream_options.include_usage, MMSP's config mapped", async () => {
      const provider = openaiChat({ apiKey: "sk-test", baseURL: "https://gateway.example/v1/", headers: { "x-team": "a", Authorization: "other" } });
      assertEqual(provider.name, "openai-chat");
      const request = provider.request({
        model: "gpt-4o-mini",
        messages: [
          { role: "user", content_items: [{ type: "text.done", text: "Look" }, { type: "image_url.done", image_url: "https://img.example/a.png" }, { type: "inline_data.done", data: new Uint8Array([1, 2, 3]), mime_type: "image/png" }] },
          { role: "assistant", content_items: [{ type: "thinking.done", thinking: "hmm", fidelity: { reasoning_field: "reasoning_content" } }, { type: "tool_call.done", name: "f", tool_call_id: "call_1", arguments: { a: 1 } }] },
          { role: "user", content_items: [{ type: "tool_result.done", tool_call_id: "call_1", text: "42" }] },
        ],
        config: { system_prompt: "Be brief.", max_tokens: 100, temperature: 0.2, top_p: 0.9, thinking_level: "high", tools: [{ name: "f", description: "d", parameters: { type: "object" } }], tool_choice: "auto" },
      });
      assertEqual(request.method, "POST");
      assertEqual(request.url, "https://gateway.example/v1/chat/completions");
      assertEqual(request.headers.get("authorization"), "Bearer sk-test", "the key's header is the provider's, not the one given in headers");
      assertEqual(request.headers.get("x-team"), "a");
      assertEqual(await request.json(), {
        model: "gpt-4o-mini",
        stream: true,
        stream_options: { include_usage: true },
        max_completion_tokens: 100,
        temperature: 0.2,
        top_p: 0.9,
        tools: [{ type: "function", function: { name: "f", description: "d", parameters: { type: "object" } } }],
        tool_choice: "auto",
        reasoning_effort: "high",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "text", text: "Look" }, { type: "image_url", image_url: { url: "https://img.example/a.png" } }, { type: "image_url", image_url: { url: "data:image/png;base64,AQID" } }] },
          { role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } }], reasoning_content: "hmm" },
          { role: "tool", tool_call_id: "call_1", content: "42" },
        ],
      });
    }],
    ["anthropic: request() → POST /v1/messages, x-api-key and version, thinking sent back exactly (signature, redacted_thinking)", async () => {
      const provider = anthropic({ apiKey: "sk-ant-test", version: "2023-06-01" });
      const request = provider.request({
        model: "claude-sonnet-4-5",
        messages: [
          { role: "user", content_items: [{ type: "text.done", text: "Hi" }, { type: "image_url.done", image_url: "data:image/jpeg;base64,/9j/4A==" }, { type: "inline_data.done", data: new Uint8Array([37, 80, 68, 70]), mime_type: "application/pdf" }] },
          {
            role: "assistant",
            content_items: [
              { type: "thinking.done", thinking: "plan", fidelity: { signature: ant.SIGNATURE } },
              { type: "thinking.done", thinking: "_REDACTED_THINKING", fidelity: { signature: "EmwKAhgB" } },
              { type: "text.done", text: "Calling." },
              { type: "tool_call.done", name: "get_weather", tool_call_id: "toolu_1", arguments: { city: "Paris" } },
            ],
          },
          { role: "user", content_items: [{ type: "tool_result.done", tool_call_id: "toolu_1", text: "sunny", images: ["https://img.example/sun.png"] }] },
        ],
        config: { system_prompt: "sys", temperature: 1, top_p: 0.5, thinking_level: "medium", tools: [{ name: "get_weather", description: "w", parameters: { type: "object" } }], tool_choice: ["get_weather"] },
      });
      assertEqual(request.url, "https://api.anthropic.com/v1/messages");
      assertEqual(request.headers.get("x-api-key"), "sk-ant-test");
      assertEqual(request.headers.get("anthropic-version"), "2023-06-01");
      assertEqual(request.headers.get("authorization"), null, "the key travels in x-api-key only");
      assertEqual(await request.json(), {
        model: "claude-sonnet-4-5",
        stream: true,
        max_tokens: 64000,
        system: "sys",
        temperature: 1,
        top_p: 0.5,
        // (Claude Sonnet 4.5 takes no adaptive thinking: enabled, at medium's budget; issue #46)
        thinking: { type: "enabled", budget_tokens: 8192 },
        tools: [{ name: "get_weather", description: "w", input_schema: { type: "object" } }],
        tool_choice: { type: "tool", name: "get_weather" },
        messages: [
          { role: "user", content: [{ type: "text", text: "Hi" }, { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4A==" } }, { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERg==" } }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "plan", signature: ant.SIGNATURE },
              { type: "redacted_thinking", data: "EmwKAhgB" },
              { type: "text", text: "Calling." },
              { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "sunny" }, { type: "image", source: { type: "url", url: "https://img.example/sun.png" } }] }] },
        ],
      });
    }],
    ["providers: UnsupportedParameterError for what a provider has no such thing for", async () => {
      const claude = anthropic({ apiKey: "k" });
      const gpt = openaiChat({ apiKey: "k" });
      const req = (config: Json): any => ({ model: "m", messages: [user("x")], config });
      // (a tool choice naming tools the request does not have)
      assertError(await rejects(() => claude.request(req({ tool_choice: ["a", "b"] }))), UnsupportedParameterError, { parameter: "tool_choice", client: "anthropic" });
      assertError(await rejects(() => gpt.request(req({ thinking_summary: true }))), UnsupportedParameterError, { parameter: "thinking_summary", client: "openai-chat" });
      assertError(await rejects(() => gpt.request(req({ thinking_level: "max" }))), UnsupportedParameterError, { parameter: "thinking_level" });
      assertError(await rejects(() => gpt.request(req({ top_k: 3 }))), UnsupportedParameterError, { parameter: "top_k" });
      for (const level of ["constructor", "extreme"]) {
        assertError(await rejects(() => gpt.request(req({ thinking_level: level }))), UnsupportedParameterError, { parameter: "thinking_level" });
        assertError(await rejects(() => claude.request(req({ thinking_level: level }))), UnsupportedParameterError, { parameter: "thinking_level" });
      }
      const named = { model: "m", messages: [{ role: "user", content_items: [{ type: "inline_data.done", data: new Uint8Array([1]), mime_type: "constructor" }] }] };
      assertError(await rejects(() => gpt.request(named as never)), UnsupportedParameterError, { parameter: /\(constructor\)/ });
      assertError(await rejects(() => claude.request(req({ prompt_caching: "disable" }))), UnsupportedParameterError, { parameter: "prompt_caching" });
      assertError(await rejects(() => claude.request(req({ image_config: {} }))), UnsupportedParameterError, { parameter: "image_config" });
      const csv = { model: "m", messages: [{ role: "user", content_items: [{ type: "inline_data.done", data: new Uint8Array([1]), mime_type: "text/csv" }] }] };
      assertError(await rejects(() => claude.request(csv as Json as never)), UnsupportedParameterError, { parameter: /inline_data\.done \(text\/csv\)/ });
      assertError(await rejects(() => gpt.request({ model: "", messages: [] })), TypeError);
      assertError(await rejects(() => anthropic({ apiKey: "k", baseURL: "ftp://x" })), RangeError);
      assertError(await rejects(() => anthropic({} as never)), TypeError, { message: /apiKey is required/ });
    }],
    ["providers: stream() fetches the request and reads the answer; the message as fromProviderResponse's", async () => {
      const { fetch, seen } = fakeFetch(() => new Response(chat.TEXT, { headers: { "content-type": "text/event-stream" } }));
      const provider = openaiChat({ apiKey: "sk-test", fetch });
      const { readable, message, snapshot } = provider.stream({ model: "gpt-4o-mini", messages: [user("Hi")] });
      const r = await settle(readable, message);
      assertEqual(r.error, undefined);
      assertEqual(r.message.content_items, [{ type: "text.done", text: "Hello there!" }]);
      assertEqual(snapshot().content_items.length, 1);
      assertEqual(seen.length, 1);
      assertEqual(seen[0]!.request.url, "https://api.openai.com/v1/chat/completions");
      assertEqual([seen[0]!.request.redirect, seen[0]!.init?.redirect], ["manual", "manual"], "no redirect followed: the key's header would go along");
    }],
    ["providers: the key goes nowhere else — not to another origin's Request, not past a redirect, not into a refusal's message", async () => {
      const key = "sk-proj-secret";
      const { fetch } = fakeFetch(() => new Response(JSON.stringify(chat.REFUSALS[401]), { status: 401 }));
      const provider = openaiChat({ apiKey: key, fetch });
      const e = await rejects(provider.stream({ model: "m", messages: [user("x")] }).message);
      assertError(e, UpstreamError, { status: 401, errorType: "AuthenticationError" });
      assert(!e.message.includes(key) && !JSON.stringify(e.error).includes(key), `the key is cut out: ${e.message}`);
      assertError(await rejects(() => provider.stream(new Request("https://elsewhere.example/v1/chat/completions", { method: "POST" }))), TypeError, { message: /elsewhere\.example/ });
      const pasted = await rejects(() => openaiChat({ apiKey: "sk-proj-secret…" }));
      assertError(pasted, RangeError, { message: /cannot carry at index 14/ });
      assert(!pasted.message.includes("sk-proj"), `a key that cannot be sent is not shown: ${pasted.message}`);
      const moved = fakeFetch(() => new Response(null, { status: 307, headers: { location: "https://elsewhere.example/" } }));
      const redirected = await rejects(anthropic({ apiKey: key, fetch: moved.fetch }).stream({ model: "m", messages: [user("x")] }).message);
      assertError(redirected, UpstreamError, { status: 307, errorType: "HTTPError", message: /redirect, which is not followed/ });
      assertEqual(moved.seen.length, 1, "the redirect was not followed");
    }],
    ["providers: a connection cut mid-body is a ConnectionError after every event before it — fromProviderResponse and stream()", async () => {
      const bytes = utf8(chat.TEXT);
      const at = chat.TEXT.indexOf("\n\n", chat.TEXT.indexOf("Hello")) + 2; // the role, then "Hello"; then the cut
      const cut = () =>
        new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(bytes.slice(0, at)),
          pull: (c) => c.error(new TypeError("terminated")), // (undici's word for a body cut mid-way)
        });
      const sse = { headers: { "content-type": "text/event-stream" } };
      const check = (got: Awaited<ReturnType<typeof settle>>, who: string) => {
        assertError(got.error, ConnectionError, { host: "api.openai.com", bytesRead: at, eventsRead: got.events.length });
        assert(got.events.length > 0, `${who}: the events before the cut are delivered`);
        assertError(got.error.cause, TypeError, { message: "terminated" });
        assertEqual(got.messageError, got.error, `${who}: message rejects with the same error`);
      };
      const response = new Response(cut(), sse);
      Object.defineProperty(response, "url", { value: "https://api.openai.com/v1/chat/completions" });
      const r = fromProviderResponse("openai-chat", response);
      check(await settle(r.readable, r.message), "fromProviderResponse");
      const { fetch } = fakeFetch(() => new Response(cut(), sse));
      const s = openaiChat({ apiKey: "k", fetch }).stream({ model: "m", messages: [user("x")] });
      check(await settle(s.readable, s.message), "stream()");
      // a fetch that fails before any answer stays the ConnectionError of the fetch (no bytes read)
      const down = fakeFetch(() => Promise.reject(Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } })));
      const d = openaiChat({ apiKey: "k", fetch: down.fetch }).stream({ model: "m", messages: [user("x")] });
      const e = await rejects(d.message);
      assertError(e, ConnectionError, { host: "api.openai.com", code: "ECONNREFUSED", bytesRead: undefined });
    }],
    ["providers: stop() aborts the request and ends the read with StreamCancelled, as fromFetch's does; cancelling the readable cancels the provider's body", async () => {
      let cancelled: unknown;
      let signal: AbortSignal | undefined;
      const endless = () =>
        new ReadableStream<Uint8Array>({
          // the first two chunks (the role, then "Hello"), and then nothing: a generation still running
          start: (c) => c.enqueue(utf8(chat.TEXT.slice(0, chat.TEXT.indexOf("\n\n", chat.TEXT.indexOf("Hello")) + 2))),
          cancel: (reason) => void (cancelled = reason ?? "cancelled"),
        });
      const { fetch } = fakeFetch((_, init) => {
        signal = init?.signal ?? undefined;
        return new Response(endless(), { headers: { "content-type": "text/event-stream" } });
      });
      const provider = openaiChat({ apiKey: "k", fetch });
      const a = provider.stream({ model: "m", messages: [user("x")] });
      const reader = a.readable.getReader();
      await reader.read(); // the first event arrived
      const stopped = a.stop();
      assert(stopped instanceof Promise, "stop() returns a Promise, as fromFetch's does");
      await stopped;
      // one meaning of a Stop (SPEC §8): the same typed error as fromFetch's stop(), on the readable and on message
      const e = await rejects(a.message);
      assertError(e, UpstreamError, { errorType: "StreamCancelled", status: null, client: "openai-chat" });
      assertEqual(await reader.read().then(() => undefined, (x) => x), e, "the readable ends with the same error");
      assert(signal?.aborted === true, "the fetch's signal aborted");
      assertEqual(a.snapshot().content_items.length, 1, "snapshot() keeps what arrived");

      cancelled = undefined;
      const b = provider.stream({ model: "m", messages: [user("x")] });
      const rb = b.readable.getReader();
      await rb.read();
      await rb.cancel(new Error("leaving"));
      for (let i = 0; i < 10 && cancelled === undefined; i++) await new Promise((r) => setTimeout(r, 5));
      assert(cancelled !== undefined, "the cancel reached the provider's body");
    }],
  ];
}
