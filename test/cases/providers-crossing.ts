// Issue #36 (SPEC §9 "Where each item came from"): a conversation that changes provider. A turn is
// recorded from each of the four providers through its fake (thinking with what only that provider
// can verify, two tool calls), answered with two tool results and an image, and continued on each of
// the four: 16 requests, each built by the package and accepted by that provider's fake, which
// refuses what the real API refuses (a signature it never issued, a tool result without its call,
// ids it does not take). The streams are written from each API's streaming reference; ids and
// signatures are ours. A fifth turn comes through a compatible Chat server (OpenRouter's
// `reasoning_details`, SPEC §9 "The Chat dialects"): its entries go back whole to Chat, nowhere else.
import { anthropic, gemini, openaiChat, openaiResponses } from "../../dist/providers/index.js";
import { type Capture, fakeProvider } from "../../dist/testing/index.js";
import { assert, assertEqual, type Case, rejects, settle, utf8 } from "../harness.ts";

type Json = Record<string, any>;
type Name = "openai-chat" | "openai-responses" | "anthropic" | "gemini";
const NAMES: Name[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];

const capture = (text: string): Capture => ({ status: 200, headers: [["content-type", "text/event-stream"]], body: utf8(text) });
const data = (events: Json[], named = false): string =>
  events.map((e) => `${named ? `event: ${e.type}\n` : ""}data: ${JSON.stringify(e)}\n\n`).join("");

// ---- what each provider made: the bound strings it issued ---------------------------------------

const ANT_SIG = "EqQBCgIYAhIMx1Crossing+Anthropic/Sig==";
const RESP_ENC = "gAAAAABcrossing-responses+encrypted/content==";
const GEM_THOUGHT_SIG = "CiQBcrossing+gemini/thought==";
const GEM_CALL_SIG = "CiQBcrossing+gemini/call==";
/** OpenRouter's entries for a Claude turn (its "Reasoning Tokens" reference): a thinking block's signature, a redacted block's data. */
const ROUTED_SIG = "EqQBCgIYAhIMcrossing+openrouter/claude==";
const ROUTED_DATA = "EmwKAhgBEgyCrossing+openrouter/redacted==";
/** The strings only each provider can verify, as its turn carried them. */
const BOUND: Record<Name, string[]> = {
  "openai-chat": [],
  "openai-responses": [RESP_ENC],
  anthropic: [ANT_SIG],
  gemini: [GEM_THOUGHT_SIG, GEM_CALL_SIG],
};

const MODEL: Record<Name, string> = {
  "openai-chat": "gpt-4o-mini",
  "openai-responses": "gpt-5.1",
  anthropic: "claude-sonnet-4-5",
  gemini: "gemini-3-pro-preview",
};

/** Anthropic: thinking with its signature_delta, then two tool_use blocks. */
const ANTHROPIC_TURN = data([
  {
    type: "message_start",
    message: { id: "msg_x", type: "message", role: "assistant", content: [], model: MODEL.anthropic, usage: { input_tokens: 50, output_tokens: 1 } },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "I need the weather and the time." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: ANT_SIG } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_01Weather", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city":"Paris"}' } },
  { type: "content_block_stop", index: 1 },
  { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_01Time", name: "get_time", input: {} } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"tz":"CET"}' } },
  { type: "content_block_stop", index: 2 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 40 } },
  { type: "message_stop" },
], true);

/** OpenAI Chat: reasoning_content, then two parallel calls (one id in a compatible server's spelling). */
const chatChunk = (delta: Json, finish_reason: string | null = null): Json => ({
  id: "chatcmpl-x",
  object: "chat.completion.chunk",
  model: MODEL["openai-chat"],
  choices: [{ index: 0, delta, finish_reason }],
});
const CHAT_TURN = data([
  chatChunk({ role: "assistant", reasoning_content: "I need the weather and the time." }),
  chatChunk({ tool_calls: [{ index: 0, id: "call_weather01", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] }),
  chatChunk({ tool_calls: [{ index: 1, id: "functions.get_time:1", type: "function", function: { name: "get_time", arguments: '{"tz":"CET"}' } }] }),
  chatChunk({}, "tool_calls"),
  { id: "chatcmpl-x", object: "chat.completion.chunk", model: MODEL["openai-chat"], choices: [], usage: { prompt_tokens: 50, completion_tokens: 40 } },
]) + "data: [DONE]\n\n";

/** OpenAI Responses: a reasoning item (its summary, its encrypted_content at output_item.done), two function calls. */
const RESPONSES_SNAPSHOT = "gpt-5.1-2025-11-13";
const response = (status: string, usage: Json | null = null): Json => ({ id: "resp_x", object: "response", status, model: RESPONSES_SNAPSHOT, output: [], usage });
const call = (id: string, index: number, callId: string, name: string, args: string): Json[] => [
  { type: "response.output_item.added", output_index: index, item: { id, type: "function_call", arguments: "", call_id: callId, name } },
  { type: "response.function_call_arguments.delta", item_id: id, output_index: index, delta: args },
  { type: "response.output_item.done", output_index: index, item: { id, type: "function_call", arguments: args, call_id: callId, name } },
];
const RESPONSES_TURN = data([
  { type: "response.created", response: response("in_progress") },
  { type: "response.output_item.added", output_index: 0, item: { id: "rs_x", type: "reasoning", summary: [] } },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_x", output_index: 0, summary_index: 0, delta: "I need the weather and the time." },
  {
    type: "response.output_item.done",
    output_index: 0,
    item: { id: "rs_x", type: "reasoning", summary: [{ type: "summary_text", text: "I need the weather and the time." }], encrypted_content: RESP_ENC },
  },
  ...call("fc_1", 1, "call_r1", "get_weather", '{"city":"Paris"}'),
  ...call("fc_2", 2, "call_r2", "get_time", '{"tz":"CET"}'),
  {
    type: "response.completed",
    response: response("completed", {
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 10 },
    }),
  },
], true);

/** Gemini: a signed thought, then two calls of one function without ids (the first signed), as Gemini sends parallel calls. */
const GEMINI_TURN = data([
  {
    candidates: [{ content: { role: "model", parts: [{ text: "I need the weather twice.", thought: true, thoughtSignature: GEM_THOUGHT_SIG }] }, index: 0 }],
    modelVersion: MODEL.gemini,
  },
  {
    candidates: [{
      content: {
        role: "model",
        parts: [
          { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: GEM_CALL_SIG },
          { functionCall: { name: "get_weather", args: { city: "Tokyo" } } },
        ],
      },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: { promptTokenCount: 50, candidatesTokenCount: 40, thoughtsTokenCount: 10 },
    modelVersion: MODEL.gemini,
  },
]);

/** OpenAI Chat through OpenRouter (Claude): `reasoning_details` (a `reasoning.text` entry streamed in pieces, its signature on
 * the last piece; a `reasoning.encrypted` entry), `reasoning` beside them as OpenRouter sends it, then two parallel calls. */
const ROUTED_MODEL = "anthropic/claude-sonnet-4.5";
const routed = (delta: Json, finish_reason: string | null = null): Json => ({
  id: "gen-1767225600-crossing",
  provider: "Anthropic",
  model: ROUTED_MODEL,
  object: "chat.completion.chunk",
  created: 1767225600,
  choices: [{ index: 0, delta, finish_reason, native_finish_reason: finish_reason }],
});
const claudeText = (text: string, signature?: string): Json => ({
  type: "reasoning.text",
  text,
  ...(signature ? { signature } : {}),
  format: "anthropic-claude-v1",
  index: 0,
});
const ROUTED_TURN = data([
  routed({ role: "assistant", content: "", reasoning: "I need the weather", reasoning_details: [claudeText("I need the weather")] }),
  routed({ role: "assistant", content: "", reasoning: " and the time.", reasoning_details: [claudeText(" and the time.")] }),
  routed({ role: "assistant", content: "", reasoning: null, reasoning_details: [claudeText("", ROUTED_SIG)] }),
  routed({
    role: "assistant",
    content: "",
    reasoning: null,
    reasoning_details: [{ type: "reasoning.encrypted", data: ROUTED_DATA, format: "anthropic-claude-v1", index: 1 }],
  }),
  routed({ tool_calls: [{ index: 0, id: "toolu_01Weather", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] }),
  routed({ tool_calls: [{ index: 1, id: "toolu_01Time", type: "function", function: { name: "get_time", arguments: '{"tz":"CET"}' } }] }),
  routed({}, "tool_calls"),
  { ...routed({}), choices: [], usage: { prompt_tokens: 50, completion_tokens: 40, completion_tokens_details: { reasoning_tokens: 12 } } },
]) + "data: [DONE]\n\n";
/** The entries as OpenRouter asks them back: each one whole (its pieces joined), in order. */
const ROUTED_ENTRIES = [
  { type: "reasoning.text", text: "I need the weather and the time.", format: "anthropic-claude-v1", index: 0, signature: ROUTED_SIG },
  { type: "reasoning.encrypted", data: ROUTED_DATA, format: "anthropic-claude-v1", index: 1 },
];

const TURN: Record<Name, string> = {
  "openai-chat": CHAT_TURN,
  "openai-responses": RESPONSES_TURN,
  anthropic: ANTHROPIC_TURN,
  gemini: GEMINI_TURN,
};

/** A turn the matrix continues: who made it, on which model, and what only its maker can verify. */
interface Source {
  name: Name;
  label: string;
  model: string;
  /** The model its stream named (Responses names the dated snapshot that answered). */
  named: string;
  bound: string[];
}
const SOURCES: Source[] = [
  ...NAMES.map((name) => ({ name, label: name, model: MODEL[name], named: name === "openai-responses" ? RESPONSES_SNAPSHOT : MODEL[name], bound: BOUND[name] })),
  { name: "openai-chat", label: "openai-chat (OpenRouter reasoning_details)", model: ROUTED_MODEL, named: ROUTED_MODEL, bound: [ROUTED_SIG, ROUTED_DATA] },
];

// ---- the fakes and the package's providers on them -----------------------------------------------

const BASE: Record<Name, string> = {
  "openai-chat": "https://api.openai.test/v1",
  "openai-responses": "https://api.openai.test/v1",
  anthropic: "https://api.anthropic.test",
  gemini: "https://gemini.test/v1beta",
};

function providerOn(name: Name, options: Json = {}) {
  // (the Chat fake is also the compatible server that issued the routed turn: it takes its entries back)
  const streams = { [MODEL[name]]: capture(TURN[name]), ...(name === "openai-chat" ? { [ROUTED_MODEL]: capture(ROUTED_TURN) } : {}) };
  const fake = fakeProvider(name, { streams });
  const settings = { apiKey: "k", baseURL: BASE[name], fetch: fake as typeof fetch, ...options };
  const factory = { "openai-chat": openaiChat, "openai-responses": openaiResponses, anthropic, gemini }[name];
  return { fake, provider: factory(settings as any) };
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const question = { role: "user", content_items: [{ type: "text.done", text: "Weather and time in Paris?" }, { type: "inline_data.done", data: PNG, mime_type: "image/png" }] };

/** The turn `name` answers on `model` (read by the package from its fake), and the history that answers its calls. */
async function recorded(name: Name, model = MODEL[name]): Promise<Json[]> {
  const { provider } = providerOn(name);
  const events = provider.stream({ model, messages: [question] } as any);
  const { message, error } = await settle(events.readable, events.message);
  assert(error === undefined, `${name}: the recorded turn read whole: ${error}`);
  const calls = message.content_items.filter((i: Json) => i.type === "tool_call.done");
  assertEqual(calls.length, 2, `${name}: two calls`);
  const results = calls.map((c: Json, k: number) => ({
    type: "tool_result.done",
    tool_call_id: c.tool_call_id,
    text: `result ${k}`,
    ...(k === 0 ? { images: ["https://img.example/radar.png"] } : {}),
  }));
  return [question, { role: "assistant", content_items: message.content_items }, { role: "user", content_items: results }];
}

/** The request `to` is sent with `history` (built by the package), its body text, and whether the fake accepted it. */
async function continueOn(to: Name, history: Json[], options: Json = {}) {
  const { fake, provider } = providerOn(to, options);
  const events = provider.stream({ model: MODEL[to], messages: history } as any);
  const { error } = await settle(events.readable, events.message);
  const entry = fake.requests.at(-1)!;
  return { status: entry.status, body: entry.body, json: entry.json as Json, error };
}

export const cases: Case[] = [
  ["issue #36: a turn recorded from each provider continues on each (16 pairs, and a Chat turn with reasoning_details on each of the four): accepted by the target's fake; same provider byte for byte, no foreign signature across", async () => {
    for (const from of SOURCES) {
      const history = await recorded(from.name, from.model);
      // where each item came from: the bound fidelity names its provider and the model the stream named
      const items = history[1].content_items as Json[];
      const thought = items.find((i) => i.type === "thinking.done" && i.thinking !== "")!.thinking;
      for (const item of items) {
        if (item.fidelity && BOUND_KEYS.some((k) => item.fidelity[k] != null)) {
          assertEqual(item.fidelity.provider, from.name, `${from.label}: fidelity.provider`);
          assertEqual(item.fidelity.model, from.named, `${from.label}: fidelity.model`);
        }
      }
      for (const to of NAMES) {
        const r = await continueOn(to, history);
        const pair = `${from.label} → ${to}`;
        assertEqual([r.status, r.error?.message], [200, undefined], `${pair} accepted`);
        for (const bound of from.bound) {
          assertEqual(r.body.includes(bound), from.name === to, `${pair}: ${bound} ${from.name === to ? "sent back" : "never sent"}`);
        }
        // another provider's thinking is left out whole (foreignThinking: "drop"), not only its signature
        if (from.bound.length > 0) assertEqual(r.body.includes(thought), from.name === to, `${pair}: the thinking's text`);
        if (from.model === ROUTED_MODEL && to === "openai-chat") {
          // the entries go back as the assistant message's reasoning_details: whole, in order, byte for byte as read
          const read = history[1].content_items.find((i: Json) => i.type === "thinking.done").fidelity.reasoning_details;
          assertEqual(read, ROUTED_ENTRIES, "the entries as read");
          const assistant = r.json.messages.find((m: Json) => m.role === "assistant");
          assertEqual(assistant.reasoning_details, ROUTED_ENTRIES, `${pair}: the message's reasoning_details`);
          assert(r.body.includes(`"reasoning_details":${JSON.stringify(read)}`), `${pair}: byte for byte`);
        }
      }
    }
  }],
  ["issue #36: Gemini's calls without ids go to Anthropic with ids unique and valid, the results following; resent, the same ids", async () => {
    const history = await recorded("gemini");
    const first = await continueOn("anthropic", history);
    const uses = first.json.messages[1].content.filter((b: Json) => b.type === "tool_use").map((b: Json) => b.id);
    const results = first.json.messages[2].content.filter((b: Json) => b.type === "tool_result").map((b: Json) => b.tool_use_id);
    assertEqual(uses.length, 2);
    assert(uses[0] !== uses[1], `unique ids: ${uses}`);
    assertEqual(results, uses, "each result answers its call");
    const again = await continueOn("anthropic", history);
    assertEqual(again.body, first.body, "a resend sends the same request");
    // the Chat id in a compatible server's spelling is made valid for Anthropic
    const chat = await continueOn("anthropic", await recorded("openai-chat"));
    const ids = chat.json.messages[1].content.filter((b: Json) => b.type === "tool_use").map((b: Json) => b.id);
    assertEqual(ids, ["call_weather01", "functions_get_time_1"]);
  }],
  ["issue #36: another provider's thinking is left out by default, sent as plain text with foreignThinking: \"text\"", async () => {
    const history = await recorded("anthropic");
    const dropped = await continueOn("gemini", history);
    assert(!dropped.body.includes("I need the weather and the time."), "dropped");
    const text = await continueOn("gemini", history, { foreignThinking: "text" });
    assertEqual(text.json.contents[1].parts[0], { text: "I need the weather and the time." });
    const model = await continueOn("openai-chat", history, { foreignThinking: "text" });
    assertEqual(model.json.messages[1].content, [{ type: "text", text: "I need the weather and the time." }]);
    await rejects(async () => continueOn("openai-chat", history, { foreignThinking: "keep" }), "an unknown value is refused");
  }],
  ["issue #36: the fakes refuse what the real APIs refuse (a signature never issued, reasoning_details never issued, a result without its call, a nameless functionResponse)", async () => {
    const post = async (name: Name, body: Json) => {
      const { fake } = providerOn(name);
      const path = name === "gemini" ? `/models/${MODEL.gemini}:streamGenerateContent?alt=sse` : { "openai-chat": "/chat/completions", "openai-responses": "/responses", anthropic: "/v1/messages" }[name];
      const res = await fake(BASE[name] + path, { method: "POST", body: JSON.stringify({ model: MODEL[name], ...body }) });
      return [res.status, await res.json()] as const;
    };
    const [s1, b1] = await post("anthropic", { messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "x", signature: "forged" }] }] });
    assertEqual([s1, b1.error.type], [400, "invalid_request_error"]);
    assert(/Invalid `signature`/.test(b1.error.message), b1.error.message);
    const [s2, b2] = await post("anthropic", { messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "r" }] }] });
    assert(s2 === 400 && /corresponding `tool_use`/.test(b2.error.message), b2.error.message);
    const [s3, b3] = await post("openai-responses", { store: false, input: [{ type: "reasoning", summary: [] }] });
    assert(s3 === 400 && /encrypted_content/.test(b3.error.message), b3.error.message);
    const [s4, b4] = await post("gemini", { contents: [{ role: "user", parts: [{ functionResponse: { name: "", response: {} } }] }] });
    assertEqual([s4, b4.error.status], [400, "INVALID_ARGUMENT"]);
    const [s5, b5] = await post("openai-chat", { messages: [{ role: "tool", tool_call_id: "call_x", content: "r" }] });
    assert(s5 === 400 && /role 'tool'/.test(b5.error.message), b5.error.message);
    // a compatible server's reasoning_details: its own go back (the matrix), a signature or data it never issued is refused
    for (const entry of [{ ...ROUTED_ENTRIES[0], signature: "forged" }, { ...ROUTED_ENTRIES[1], data: ANT_SIG }]) {
      const [s6, b6] = await post("openai-chat", { messages: [{ role: "assistant", content: "", reasoning_details: [entry] }] });
      assertEqual([s6, b6.error.type], [400, "invalid_request_error"]);
      assert(/reasoning_details\[0\]\.(signature|data)/.test(b6.error.message), b6.error.message);
    }
  }],
  ["issue #36: an image in an assistant turn to a provider whose assistant messages take none: UnsupportedParameterError naming the item and the provider", async () => {
    const { provider } = providerOn("anthropic");
    const history = [question, { role: "assistant", content_items: [{ type: "inline_data.done", data: PNG, mime_type: "image/png" }] }];
    const e = await rejects(async () => provider.request({ model: MODEL.anthropic, messages: history } as any));
    assertEqual([e.name, e.client], ["UnsupportedParameterError", "anthropic"]);
    assert(/messages\[1\]\.content_items\[0\]/.test(e.message), e.message);
  }],
];

const BOUND_KEYS = ["signature", "encrypted_content", "reasoning_details"];
