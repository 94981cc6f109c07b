// Issue #35, SPEC §9: the provider's own end decides what is whole (usage or a finish reason the
// provider never sent is filled in and said through onWarning; a blocked prompt names its reason
// whatever else is missing), and a 2xx body that is no stream of the provider read is NOT-A-STREAM
// with the MMSP reader's diagnosis (a JSON error document: the provider's refusal, status 200).
// Every body is read whole, byte by byte and in random chunkings, with the same outcome.
import fc from "fast-check";
import { EmptyResponseError, StreamProtocolError, UniEventStream, UpstreamError } from "../../dist/index.js";
import { fromProviderResponse, openaiChat } from "../../dist/providers/index.js";
import { assert, assertEqual, assertError, type Case, settle, utf8 } from "../harness.ts";
import { cuts } from "../arbitraries.ts";
import { convert, errorOf, fakeFetch, items, type Name, run } from "./providers.ts";
import * as w from "./providers/captures-whole.ts";

type Json = Record<string, any>;

const NONE = { cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: null };
const PROVIDERS: Name[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];
/** What the diagnosis calls each provider's stream, and the factory it names. */
const STREAM_NAME: Record<Name, [RegExp, string]> = {
  "openai-chat": [/^an OpenAI Chat Completions stream/, "openaiChat"],
  "openai-responses": [/^an OpenAI Responses stream/, "openaiResponses"],
  anthropic: [/^an Anthropic Messages stream/, "anthropic"],
  gemini: [/^a Google Gemini stream/, "gemini"],
};

/** Every body of this file with the provider it is read as, for the chunking property. */
const BODIES: [Name, string, string][] = [
  ["openai-chat", "CHAT_NO_FINISH", w.CHAT_NO_FINISH],
  ["openai-chat", "CHAT_NO_USAGE_NO_DONE", w.CHAT_NO_USAGE_NO_DONE],
  ["anthropic", "ANT_NO_USAGE", w.ANT_NO_USAGE],
  ["anthropic", "ANT_NO_FINISH", w.ANT_NO_FINISH],
  ["openai-responses", "RESP_NO_USAGE", w.RESP_NO_USAGE],
  ["gemini", "GEM_NO_USAGE", w.GEM_NO_USAGE],
  ["gemini", "GEM_BLOCKED_NO_USAGE", w.GEM_BLOCKED_NO_USAGE],
  ...PROVIDERS.flatMap((p): [Name, string, string][] => [
    [p, "empty", ""],
    [p, "HTML_PAGE", w.HTML_PAGE],
    [p, "MMSP_STREAM", w.MMSP_STREAM],
    [p, "CHAT_COMPLETION_DOCUMENT", w.CHAT_COMPLETION_DOCUMENT],
    [p, "error document", JSON.stringify(w.ERROR_DOCUMENTS[p], null, p === "gemini" ? 2 : undefined)],
    ...PROVIDERS.filter((q) => q !== p).map((q): [Name, string, string] => [p, `${q} stream`, w.STREAMS[q]]),
  ]),
];

/** The body read through the provider's Response (status 200), whole. */
async function response(provider: Name, body: string, type = "text/event-stream") {
  const { readable, message } = fromProviderResponse(provider, new Response(body, { headers: { "content-type": type } }));
  return settle(readable, message);
}

/** A body that is no stream: NOT-A-STREAM at event 0, byte 0, blaming the provider, with no event before it. */
function notAStream(r: Json, provider: Name, what: RegExp): void {
  assertEqual(r.events, [], "no event before the error");
  assertError(r.error, StreamProtocolError, { rule: "NOT-A-STREAM", eventIndex: 0, byteOffset: 0, client: provider });
  assert(r.error.message.startsWith(`${provider} broke the streaming protocol: `), r.error.message);
  assert(what.test(r.error.detail), `${r.error.detail} should match ${what}`);
  assert(!/STOP-LAST|<no event>/.test(r.error.message), r.error.message);
}

export const cases: Case[] = [
  // ---- whole answers -----------------------------------------------------------------------------
  ["openai-chat: content, usage and [DONE] but no finish_reason → finish unknown and a \"missing\" warning", async () => {
    const r = await run("openai-chat", w.CHAT_NO_FINISH);
    assertEqual(r.error, undefined);
    assertEqual(r.items.at(-1), { stop: "unknown", usage: { cached_tokens: null, prompt_tokens: 7, thoughts_tokens: null, response_tokens: 2 } });
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Hi" }]);
    assertEqual(r.warnings.map((x) => [x.type, x.eventIndex]), [["missing", 4]]);
    assert(/without a finish reason/.test(r.warnings[0]!.message) && /"unknown"/.test(r.warnings[0]!.message), r.warnings[0]!.message);
  }],
  ["openai-chat: a finish reason then a clean end, no usage and no [DONE] → whole: four null counts and a warning", async () => {
    const r = await run("openai-chat", w.CHAT_NO_USAGE_NO_DONE);
    assertEqual(r.error, undefined);
    assertEqual(r.items, [{ type: "text.delta", text: "Hi" }, { type: "text.done", text: "Hi" }, { stop: "stop", usage: NONE }]);
    assertEqual(r.warnings.map((x) => x.type), ["missing"]);
  }],
  ["anthropic: message_stop reached with no usage anywhere → four null counts and a warning", async () => {
    const r = await run("anthropic", w.ANT_NO_USAGE);
    assertEqual(r.error, undefined);
    assertEqual(r.items.at(-1), { stop: "stop", usage: NONE });
    assertEqual(r.warnings.map((x) => [x.type, x.eventIndex]), [["missing", 6]]);
  }],
  ["anthropic: message_stop with no message_delta → finish unknown and a warning; the usage of message_start kept", async () => {
    const r = await run("anthropic", w.ANT_NO_FINISH);
    assertEqual(r.error, undefined);
    assertEqual(r.items.at(-1), { stop: "unknown", usage: { cached_tokens: null, prompt_tokens: 9, thoughts_tokens: null, response_tokens: null } });
    assertEqual(r.warnings.map((x) => x.type), ["missing"]);
    assert(/anthropic reached its end without a finish reason/.test(r.warnings[0]!.message), r.warnings[0]!.message);
  }],
  ["openai-responses: response.completed with usage null → four null counts and a warning", async () => {
    const r = await run("openai-responses", w.RESP_NO_USAGE);
    assertEqual(r.error, undefined);
    assertEqual(r.items.at(-1), { stop: "stop", usage: NONE });
    assertEqual(r.message.content_items, [{ type: "text.done", text: "Hi" }]);
    assertEqual(r.warnings.map((x) => x.type), ["missing"]);
  }],
  ["gemini: the 2024 API's answer without usageMetadata → whole, four null counts and a warning (was \"ended without usage_metadata\")", async () => {
    const r = await run("gemini", w.GEM_NO_USAGE);
    assertEqual(r.error, undefined);
    assertEqual(r.message.content_items, [{ type: "text.done", text: "The sky is blue." }]);
    assertEqual(r.items.at(-1), { stop: "stop", usage: NONE });
    assertEqual(r.warnings.map((x) => [x.type, x.eventIndex]), [["missing", 2]]);
  }],
  ["gemini: a blocked prompt with no candidates and no usage → EmptyResponseError naming the block reason, no warning", async () => {
    const r = await run("gemini", w.GEM_BLOCKED_NO_USAGE);
    assertEqual(r.items, []);
    assertError(r.error, EmptyResponseError, { finishReason: "unknown", usageMetadata: NONE, client: "gemini", message: /blockReason SAFETY/ });
    assertEqual(r.warnings, []);
  }],

  // ---- bodies that are no stream of the provider ---------------------------------------------------
  ["providers: an empty 2xx body → NOT-A-STREAM \"an empty body\", for each provider (was STOP-LAST <no event>)", async () => {
    for (const p of PROVIDERS) notAStream(await convert(p, ""), p, /^an empty body/);
  }],
  ["providers: a 2xx HTML page → NOT-A-STREAM naming its title, for each provider", async () => {
    for (const p of PROVIDERS) {
      const r = await response(p, w.HTML_PAGE, "text/html; charset=utf-8");
      notAStream(r, p, /^an HTML page titled "Sign in & Corporate Proxy" \(Content-Type: text\/html; charset=utf-8\).*the provider's API/);
    }
  }],
  ["providers: a 2xx JSON error document → the provider's UpstreamError with status 200 (fromProviderResponse) or null (ProviderEventStream)", async () => {
    const expected: Record<Name, [string, RegExp]> = {
      "openai-chat": ["insufficient_quota", /current quota/],
      "openai-responses": ["invalid_request_error", /does not exist/],
      anthropic: ["overloaded_error", /^Overloaded$/],
      gemini: ["RESOURCE_EXHAUSTED", /exhausted/],
    };
    for (const p of PROVIDERS) {
      const body = JSON.stringify(w.ERROR_DOCUMENTS[p], null, p === "gemini" ? 2 : undefined); // (Google's errors come pretty-printed)
      const [errorType, message] = expected[p];
      const r = await response(p, body, "application/json");
      assertEqual(r.events, []);
      assertError(r.error, UpstreamError, { client: p, status: 200, errorType, message });
      assertEqual(r.error.error, (w.ERROR_DOCUMENTS[p] as Json).error, "the error object as sent");
      const direct = await convert(p, body);
      assertError(direct.error, UpstreamError, { client: p, status: null, errorType, message });
    }
  }],
  ["providers: a 2xx JSON document that is no error (a non-streaming chat.completion) → NOT-A-STREAM that says a stream must be asked for", async () => {
    for (const p of PROVIDERS) {
      const r = await response(p, w.CHAT_COMPLETION_DOCUMENT, "application/json");
      notAStream(r, p, /^a whole OpenAI chat\.completion .*"stream": true/);
    }
  }],
  ["providers: MMSP's own stream read as a provider's → NOT-A-STREAM naming it, with UniEventStream to read it", async () => {
    for (const p of PROVIDERS) notAStream(await convert(p, w.MMSP_STREAM), p, /^an MMSP UniEvent stream, not .*UniEventStream/);
  }],
  ["providers: another provider's stream (an OpenAI Chat stream read as anthropic…) → NOT-A-STREAM naming it and its reader", async () => {
    for (const p of PROVIDERS) {
      for (const q of PROVIDERS.filter((x) => x !== p)) {
        const [name, factory] = STREAM_NAME[q];
        const r = await convert(p, w.STREAMS[q]);
        notAStream(r, p, name);
        assert(r.error.detail.includes(`use \`${factory}\``) && r.error.detail.includes(`new ProviderEventStream("${q}")`), r.error.detail);
      }
    }
  }],
  ["providers: a provider's stream cut before its end stays STOP-LAST (its own stream is no mistake)", async () => {
    const cut = w.ANT_NO_FINISH.slice(0, w.ANT_NO_FINISH.indexOf("event: content_block_delta"));
    const r = await convert("anthropic", cut);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", client: "anthropic" });
  }],
  ["providers: a provider's stream() answered with a 200 HTML page or JSON error → the same NOT-A-STREAM / UpstreamError", async () => {
    const html = fakeFetch(() => new Response(w.HTML_PAGE, { headers: { "content-type": "text/html" } }));
    const a = openaiChat({ apiKey: "sk-test", fetch: html.fetch }).stream({ model: "m", messages: [] });
    notAStream(await settle(a.readable, a.message), "openai-chat", /^an HTML page titled .*\(Content-Type: text\/html\)/);
    const json = fakeFetch(() => new Response(JSON.stringify(w.ERROR_DOCUMENTS["openai-chat"]), { headers: { "content-type": "application/json" } }));
    const b = openaiChat({ apiKey: "sk-test", fetch: json.fetch }).stream({ model: "m", messages: [] });
    assertError((await settle(b.readable, b.message)).error, UpstreamError, { status: 200, errorType: "insufficient_quota" });
  }],
  ["UniEventStream: a provider's stream says which reader of mmsp-streams/providers reads it (one diagnosis)", async () => {
    for (const p of PROVIDERS) {
      const u = new UniEventStream();
      const { error } = await settle(new Response(w.STREAMS[p]).body!.pipeThrough(u), u.message);
      assertError(error, StreamProtocolError, { rule: "NOT-A-STREAM" });
      assert(error.message.includes(`use \`${STREAM_NAME[p][1]}\``), error.message);
    }
  }],

  // ---- every body, under any chunking ------------------------------------------------------------
  ["providers: every whole-answer and no-stream body gives the same events, message, error and warnings whole, byte by byte and in any chunking", async () => {
    const seen = (r: Json) => ({ items: items(r.events), error: errorOf(r.error), message: r.message && { ...r.message, created_at: 0 }, warnings: r.warnings });
    const whole = new Map<string, Json>();
    for (const [provider, name, body] of BODIES) whole.set(provider + name, seen(await convert(provider, body)));
    for (const [provider, name, body] of BODIES) {
      const r = await convert(provider, body, Array.from(utf8(body), (_, i) => i));
      assertEqual(seen(r), whole.get(provider + name), `${provider} ${name} byte by byte`);
    }
    const chunked = BODIES.filter(([, , body]) => body.length > 0);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...chunked), cuts(4000), async ([provider, name, body], at) => {
        const n = utf8(body).length;
        assertEqual(seen(await convert(provider, body, at.map((c) => c % n))), whole.get(provider + name), `${provider} ${name}`);
      }),
      { numRuns: 150 },
    );
  }],
];
