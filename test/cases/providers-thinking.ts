// Issue #46, the providers' side: thinking a client can show (SPEC §9: `fidelity.summary: true` on
// thinking that is a summary: Claude 4 and later by the model `message_start` names, Gemini's
// thoughts, Responses `reasoning_summary_text`; raw reasoning without it), ids for Gemini's calls
// without one (unique in the message, the same on every read, sent back without them, each result
// with its call), and the builders following each model's documented rules, which the kit's fakes
// refuse as the real APIs do: Anthropic's thinking mode by model (`adaptive` from Claude 4.6,
// `enabled` with `budget_tokens` before), a tool-use turn with its own thinking block or thinking off,
// Gemini 3's calls signed or with Google's placeholder.
import fc from "fast-check";
import { SseEncoderStream, UniEventStream } from "../../dist/index.js";
import { anthropic, gemini, ProviderEventStream } from "../../dist/providers/index.js";
import { type Capture, fakeProvider } from "../../dist/testing/index.js";
import { assert, assertEqual, byteStream, type Case, rejects, settle, utf8, valuesStream } from "../harness.ts";
import { run } from "./providers.ts";

type Json = Record<string, any>;

const capture = (text: string): Capture => ({ status: 200, headers: [["content-type", "text/event-stream"]], body: utf8(text) });
const sse = (events: Json[], named = false): string =>
  events.map((e) => `${named ? `event: ${e.type}\n` : ""}data: ${JSON.stringify(e)}\n\n`).join("");

const SIG = "EqQBCgIYAhIMissue46+thinking/Sig==";

/** An Anthropic turn of `model`: a thinking block (with its signature_delta, or none as a gateway may send), then text. */
function claudeTurn(model: string, signed = true): string {
  return sse([
    { type: "message_start", message: { id: "msg_46", type: "message", role: "assistant", content: [], model, usage: { input_tokens: 9, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Two and two." } },
    ...(signed ? [{ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIG } }] : []),
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "4" } },
    { type: "content_block_stop", index: 1 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } },
    { type: "message_stop" },
  ], true);
}

/** Encoded as MMSP SSE and read back by UniEventStream: the message that comes out. */
async function mmspRoundTrip(events: Json[]): Promise<Json> {
  const u = new UniEventStream();
  const r = await settle(valuesStream(events).pipeThrough(new SseEncoderStream()).pipeThrough(u), u.message);
  assertEqual(r.error, undefined, "MMSP's reader takes the encoded events");
  return r.message;
}

/** A Gemini turn: a thought, then calls of `get_weather` without ids (the first signed), as Gemini sends parallel calls. */
const GEM_SIG = "CiQBissue46+gemini/call==";
function geminiCalls(cities: string[], model = "gemini-3-pro-preview"): string {
  return sse([
    { candidates: [{ content: { role: "model", parts: [{ text: "Weather for each city.", thought: true }] }, index: 0 }], modelVersion: model },
    {
      candidates: [{
        content: {
          role: "model",
          parts: cities.map((city, k) => ({ functionCall: { name: "get_weather", args: { city } }, ...(k === 0 ? { thoughtSignature: GEM_SIG } : {}) })),
        },
        finishReason: "STOP",
        index: 0,
      }],
      usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 10 },
      modelVersion: model,
    },
  ]);
}

const ANT_BASE = "https://api.anthropic.test";
const GEM_BASE = "https://gemini.test/v1beta";

/** Claude names across the table (anthropic/models.ts) and what each takes. */
const CLAUDES: [string, "adaptive" | "enabled"][] = [
  ["claude-3-7-sonnet-20250219", "enabled"],
  ["claude-opus-4-20250514", "enabled"],
  ["claude-opus-4-1", "enabled"],
  ["claude-sonnet-4-5", "enabled"],
  ["claude-haiku-4-5-20251001", "enabled"],
  ["claude-opus-4-6", "adaptive"],
  ["claude-sonnet-4-6", "adaptive"],
  ["claude-opus-4-7", "adaptive"],
  ["claude-sonnet-5", "adaptive"],
  ["anthropic.claude-opus-4-6-v1", "adaptive"],
  ["claude-sonnet-4-5@20250929", "enabled"],
  ["claude-mythos-preview", "adaptive"],
];

/** A fake Anthropic serving each model of `models` (a plain text answer), and the package's provider on it. */
function claudeOn(models: string[], options: Json = {}) {
  const streams = Object.fromEntries(models.map((m) => [m, capture(claudeTurn(m))]));
  const fake = fakeProvider("anthropic", { streams });
  return { fake, provider: anthropic({ apiKey: "k", baseURL: ANT_BASE, fetch: fake as typeof fetch, ...options }) };
}

const ask = { role: "user", content_items: [{ type: "text.done", text: "Weather in Paris and Tokyo?" }] };

export const cases: Case[] = [
  // ---- reasoning a client can show ------------------------------------------------------------------
  ["issue #46: Claude 4 and later give summarized thinking: fidelity.summary: true with the signature; Claude 3.7 Sonnet's full thinking and a compatible server's carry none", async () => {
    for (const [model, summary] of [["claude-sonnet-4-5", true], ["claude-opus-4-6", true], ["claude-3-7-sonnet-20250219", false], ["deepseek-reasoner", false]] as const) {
      const r = await run("anthropic", claudeTurn(model));
      const thinking = r.message.content_items[0];
      assertEqual(thinking.fidelity, { signature: SIG, ...(summary ? { summary: true } : {}), provider: "anthropic", model }, model);
      // the mark is on the fragment that carries the item's fidelity, as the signature is
      assertEqual(r.items.filter((i: Json) => i.fidelity).length, 2, `${model}: one fragment and the .done`);
      // MMSP's encoder and reader carry it unchanged
      assertEqual((await mmspRoundTrip(await settleEvents(model))).content_items[0].fidelity, thinking.fidelity);
    }
  }],
  ["issue #46: a Claude 4 thinking block that no signature came for (a gateway's) carries the mark alone, as the block ends", async () => {
    const r = await run("anthropic", claudeTurn("claude-sonnet-4-5", false));
    assertEqual(r.items.slice(0, 3), [
      { type: "thinking.delta", thinking: "Two and two." },
      { type: "thinking.delta", thinking: "", fidelity: { summary: true } },
      { type: "thinking.done", thinking: "Two and two.", fidelity: { summary: true } },
    ]);
    // (Claude 3.7: nothing to add)
    const full = await run("anthropic", claudeTurn("claude-3-7-sonnet-20250219", false));
    assertEqual(full.message.content_items[0], { type: "thinking.done", thinking: "Two and two." });
  }],
  ["issue #46: Gemini's thoughts are summaries: a signed thought carries summary with its signature; Responses reasoning_summary_text is a summary, reasoning_text and Chat's reasoning fields are not", async () => {
    const signed = sse([
      { candidates: [{ content: { role: "model", parts: [{ text: "Thinking.", thought: true, thoughtSignature: GEM_SIG }] }, index: 0 }], modelVersion: "gemini-3-flash" },
      { candidates: [{ content: { role: "model", parts: [{ text: "Hi." }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 3 } },
    ]);
    const g = await run("gemini", signed);
    assertEqual(g.message.content_items[0], { type: "thinking.done", thinking: "Thinking.", fidelity: { signature: GEM_SIG, summary: true, provider: "gemini", model: "gemini-3-flash" } });
    assertEqual(g.message.content_items[1], { type: "text.done", text: "Hi." });
    const responses = (kind: "reasoning_summary_text" | "reasoning_text") =>
      sse([
        { type: "response.created", response: { id: "resp_46", status: "in_progress", model: "gpt-5.1", output: [] } },
        { type: "response.output_item.added", output_index: 0, item: { id: "rs_46", type: "reasoning", summary: [] } },
        { type: `response.${kind}.delta`, item_id: "rs_46", output_index: 0, summary_index: 0, content_index: 0, delta: "Adding." },
        {
          type: "response.output_item.done",
          output_index: 0,
          item: kind === "reasoning_text"
            ? { id: "rs_46", type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "Adding." }] }
            : { id: "rs_46", type: "reasoning", summary: [{ type: "summary_text", text: "Adding." }] },
        },
        { type: "response.output_text.delta", item_id: "msg_46", output_index: 1, content_index: 0, delta: "4" },
        { type: "response.completed", response: { id: "resp_46", status: "completed", model: "gpt-5.1", output: [], usage: { input_tokens: 3, output_tokens: 2 } } },
      ]);
    const summary = await run("openai-responses", responses("reasoning_summary_text"));
    assertEqual(summary.message.content_items[0], { type: "thinking.done", thinking: "Adding.", fidelity: { channel: "summary", summary: true } });
    const raw = await run("openai-responses", responses("reasoning_text"));
    assertEqual(raw.message.content_items[0], { type: "thinking.done", thinking: "Adding." });
    const chat = sse([
      { id: "c", object: "chat.completion.chunk", model: "deepseek-reasoner", choices: [{ index: 0, delta: { role: "assistant", reasoning_content: "Adding." }, finish_reason: null }] },
      { id: "c", object: "chat.completion.chunk", model: "deepseek-reasoner", choices: [{ index: 0, delta: { content: "4" }, finish_reason: "stop" }], usage: { prompt_tokens: 3, completion_tokens: 2 } },
    ]) + "data: [DONE]\n\n";
    const c = await run("openai-chat", chat);
    assert(c.message.content_items[0].fidelity?.summary === undefined, `Chat's reasoning is raw: ${JSON.stringify(c.message.content_items[0])}`);
  }],
  ["issue #46: summarized thinking goes back to Anthropic as it came: the signature byte for byte, the mark not sent", async () => {
    const { provider } = claudeOn(["claude-sonnet-4-5"]);
    const r = await run("anthropic", claudeTurn("claude-sonnet-4-5"));
    const request = provider.request({ model: "claude-sonnet-4-5", messages: [ask, { role: "assistant", content_items: r.message.content_items }, ask] } as any);
    const body = await request.json();
    assertEqual(body.messages[1].content[0], { type: "thinking", thinking: "Two and two.", signature: SIG });
  }],

  // ---- Gemini's calls without ids ---------------------------------------------------------------------
  ["issue #46: Gemini calls without ids: ids made from the name, unique in the message (get_weather, get_weather_2, get_weather_3) and the same on a second read", async () => {
    const body = geminiCalls(["Paris", "Tokyo", "Lima"]);
    const ids = async () => (await run("gemini", body)).message.content_items.filter((i: Json) => i.type === "tool_call.done").map((i: Json) => i.tool_call_id);
    const first = await ids();
    assertEqual(first, ["get_weather", "get_weather_2", "get_weather_3"]);
    assertEqual(await ids(), first, "the same on every read");
    // an id Gemini gave is kept, and a made one never takes it
    const given = sse([
      {
        candidates: [{
          content: { role: "model", parts: [{ functionCall: { id: "get_weather_2", name: "get_weather", args: {} } }, { functionCall: { name: "get_weather", args: {} } }, { functionCall: { name: "get_weather", args: {} } }] },
          finishReason: "STOP",
          index: 0,
        }],
        usageMetadata: { promptTokenCount: 1 },
      },
    ]);
    const r = await run("gemini", given);
    assertEqual(r.message.content_items.map((i: Json) => i.tool_call_id), ["get_weather_2", "get_weather", "get_weather_3"]);
  }],
  ["issue #46: a round trip through the Gemini request builder: the calls go back without ids, each result with its call (in the calls' order, by name), accepted by the fake Gemini", async () => {
    const model = "gemini-3-pro-preview";
    const fake = fakeProvider("gemini", { streams: { [model]: capture(geminiCalls(["Paris", "Tokyo"])) } });
    const google = gemini({ apiKey: "k", baseURL: GEM_BASE, fetch: fake as typeof fetch });
    const read = google.stream({ model, messages: [ask] } as any);
    const { message } = await settle(read.readable, read.message);
    const calls = message.content_items.filter((i: Json) => i.type === "tool_call.done");
    assertEqual(calls.map((c: Json) => [c.tool_call_id, c.arguments.city]), [["get_weather", "Paris"], ["get_weather_2", "Tokyo"]]);
    // the client answers Tokyo first
    const results = [...calls].reverse().map((c: Json) => ({ type: "tool_result.done", tool_call_id: c.tool_call_id, text: `sunny in ${c.arguments.city}` }));
    const history = [ask, { role: "assistant", content_items: message.content_items }, { role: "user", content_items: results }];
    const next = google.stream({ model, messages: history } as any);
    const done = await settle(next.readable, next.message);
    const entry = fake.requests.at(-1)!;
    assertEqual([entry.status, done.error], [200, undefined], "the fake Gemini takes it");
    const sent = entry.json as Json;
    assertEqual(sent.contents[1].parts.filter((p: Json) => p.functionCall).map((p: Json) => p.functionCall), [
      { name: "get_weather", args: { city: "Paris" } },
      { name: "get_weather", args: { city: "Tokyo" } },
    ]);
    assertEqual(sent.contents[2].parts.map((p: Json) => p.functionResponse), [
      { name: "get_weather", response: { result: "sunny in Paris" } },
      { name: "get_weather", response: { result: "sunny in Tokyo" } },
    ]);
    // the same history to Anthropic: unique ids, each result answering its own call
    const { provider } = claudeOn(["claude-sonnet-4-5"]);
    const claude = await provider.request({ model: "claude-sonnet-4-5", messages: history } as any).json();
    assertEqual(claude.messages[1].content.map((b: Json) => b.id), ["get_weather", "get_weather_2"]);
    assertEqual(claude.messages[2].content.map((b: Json) => [b.tool_use_id, b.content[0].text]), [["get_weather_2", "sunny in Tokyo"], ["get_weather", "sunny in Paris"]]);
  }],
  ["issue #46: Gemini 3's calls carry their signature or Google's placeholder (the first call of each model step); the fake Gemini refuses a Gemini 3 call without one, and takes it from Gemini 2.5", async () => {
    const model = "gemini-3-pro-preview";
    const fake = fakeProvider("gemini", { streams: { [model]: capture(geminiCalls(["Paris"])), "gemini-2.5-flash": capture(geminiCalls(["Paris"], "gemini-2.5-flash")) } });
    const call = { type: "tool_call.done", name: "get_weather", tool_call_id: "toolu_01", arguments: { city: "Paris" } };
    const history = [ask, { role: "assistant", content_items: [call] }, { role: "user", content_items: [{ type: "tool_result.done", tool_call_id: "toolu_01", text: "sunny" }] }];
    const google = gemini({ apiKey: "k", baseURL: GEM_BASE, fetch: fake as typeof fetch });
    const built = await google.request({ model, messages: history } as any).json();
    assertEqual(built.contents[1].parts[0].thoughtSignature, "skip_thought_signature_validator");
    const sent = google.stream({ model, messages: history } as any);
    assertEqual((await settle(sent.readable, sent.message)).error, undefined, "the placeholder is taken");
    const post = (m: string) =>
      fake(`${GEM_BASE}/models/${m}:streamGenerateContent?alt=sse`, {
        method: "POST",
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "x" }] }, { role: "model", parts: [{ functionCall: { name: "get_weather", args: {} } }] }] }),
      });
    const refused = await post(model);
    const body = await refused.json();
    assertEqual([refused.status, body.error.status], [400, "INVALID_ARGUMENT"]);
    assert(/missing a thought_signature/.test(body.error.message), body.error.message);
    assertEqual((await post("gemini-2.5-flash")).status, 200, "Gemini 2.5 takes a call without one");
  }],

  // ---- Anthropic's thinking mode by model --------------------------------------------------------------
  ["issue #46: Anthropic's thinking by model: adaptive at the level's effort from Claude 4.6 on, enabled with the level's budget_tokens before; each request accepted by the fake Anthropic", async () => {
    const { fake, provider } = claudeOn(CLAUDES.map(([m]) => m));
    for (const [model, mode] of CLAUDES) {
      for (const level of ["low", "medium", "high", "xhigh", "max"]) {
        const body = await provider.request({ model, messages: [ask], config: { thinking_level: level } } as any).json();
        if (mode === "adaptive") {
          assertEqual([body.thinking, body.output_config], [{ type: "adaptive" }, { effort: level }], `${model} ${level}`);
        } else {
          assertEqual(body.thinking.type, "enabled", `${model} ${level}`);
          assertEqual(body.output_config, undefined, `${model}: no effort`);
          assert(body.thinking.budget_tokens >= 1024 && body.thinking.budget_tokens < body.max_tokens, `${model} ${level}: ${body.thinking.budget_tokens}`);
        }
        const events = provider.stream({ model, messages: [ask], config: { thinking_level: level } } as any);
        const r = await settle(events.readable, events.message);
        assertEqual([fake.requests.at(-1)!.status, r.error?.message], [200, undefined], `${model} ${level}: accepted`);
      }
    }
    const levels = async (model: string) => {
      const out: number[] = [];
      for (const level of ["low", "medium", "high", "xhigh", "max"]) out.push((await provider.request({ model, messages: [ask], config: { thinking_level: level } } as any).json()).thinking.budget_tokens);
      return out;
    };
    assertEqual(await levels("claude-sonnet-4-5"), [1024, 8192, 16384, 24576, 32000], "the table's budgets, at most half of the default max_tokens (64,000)");
    // none: disabled, in either mode; a summary asked for alone thinks at medium's budget (enabled) or as the model decides (adaptive)
    for (const [model] of CLAUDES) {
      assertEqual((await provider.request({ model, messages: [ask], config: { thinking_level: "none" } } as any).json()).thinking, { type: "disabled" });
    }
    const alone = async (model: string) => (await provider.request({ model, messages: [ask], config: { thinking_summary: true } } as any).json()).thinking;
    assertEqual(await alone("claude-sonnet-4-5"), { type: "enabled", budget_tokens: 8192, display: "summarized" });
    assertEqual(await alone("claude-opus-4-6"), { type: "adaptive", display: "summarized" });
  }],
  ["issue #46: budget_tokens within max_tokens: at most half of it and never below 1,024; at max_tokens ≤ 1,024 thinking cannot fit and goes disabled (the fake takes each)", async () => {
    const { fake, provider } = claudeOn(["claude-sonnet-4-5"]);
    const thinking = async (max_tokens: number, level = "high") =>
      (await provider.request({ model: "claude-sonnet-4-5", messages: [ask], config: { max_tokens, thinking_level: level } } as any).json()).thinking;
    assertEqual(await thinking(4096), { type: "enabled", budget_tokens: 2048 });
    assertEqual(await thinking(1500), { type: "enabled", budget_tokens: 1024 });
    assertEqual(await thinking(1025), { type: "enabled", budget_tokens: 1024 });
    assertEqual(await thinking(1024), { type: "disabled" });
    assertEqual(await thinking(100, "low"), { type: "disabled" });
    await fc.assert(fc.asyncProperty(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom("low", "medium", "high", "xhigh", "max"), async (max, level) => {
      const t = await thinking(max, level);
      if (t.type === "disabled") return max <= 1024;
      return t.budget_tokens >= 1024 && t.budget_tokens < max;
    }), { numRuns: 60 });
    for (const max of [1, 1024, 1025, 2047, 2048, 64000]) {
      const events = provider.stream({ model: "claude-sonnet-4-5", messages: [ask], config: { max_tokens: max, thinking_level: "max" } } as any);
      await settle(events.readable, events.message);
      assertEqual(fake.requests.at(-1)!.status, 200, `max_tokens ${max}`);
    }
  }],
  ["issue #46: anthropic({ thinkingMode }) forces the mode whatever the name says (a gateway's own name); another value is refused at the boundary", async () => {
    const forced = claudeOn(["gateway-model-x"], { thinkingMode: "adaptive" }).provider;
    const body = await forced.request({ model: "gateway-model-x", messages: [ask], config: { thinking_level: "high" } } as any).json();
    assertEqual([body.thinking, body.output_config], [{ type: "adaptive" }, { effort: "high" }]);
    const plain = claudeOn(["gateway-model-x"]).provider;
    assertEqual((await plain.request({ model: "gateway-model-x", messages: [ask], config: { thinking_level: "high" } } as any).json()).thinking, { type: "enabled", budget_tokens: 16384 });
    const enabled = claudeOn(["claude-opus-4-6"], { thinkingMode: "enabled" }).provider;
    assertEqual((await enabled.request({ model: "claude-opus-4-6", messages: [ask], config: { thinking_level: "low" } } as any).json()).thinking, { type: "enabled", budget_tokens: 1024 });
    const e = await rejects(async () => claudeOn([], { thinkingMode: "auto" }));
    assert(/thinkingMode/.test(e.message) && /"adaptive", "enabled"/.test(e.message), e.message);
  }],
  ["issue #46: a tool-use turn goes with its own thinking block, or with thinking off where the history has none (another provider's turn, or its thinking dropped); the fake Anthropic refuses the turn without it", async () => {
    const model = "claude-sonnet-4-5";
    const { fake, provider } = claudeOn([model]);
    const call = { type: "tool_call.done", name: "get_weather", tool_call_id: "toolu_01", arguments: { city: "Paris" } };
    const result = { role: "user", content_items: [{ type: "tool_result.done", tool_call_id: "toolu_01", text: "sunny" }] };
    const own = { type: "thinking.done", thinking: "Weather.", fidelity: { signature: SIG, summary: true, provider: "anthropic", model } };
    const foreign = { type: "thinking.done", thinking: "Weather.", fidelity: { signature: "CiQBgemini==", summary: true, provider: "gemini", model: "gemini-3-flash" } };
    // the signature must be one the fake issued: its capture carries SIG
    for (const [label, items, on] of [["own thinking", [own, call], true], ["another provider's thinking", [foreign, call], false], ["none", [call], false]] as const) {
      for (const config of [{ thinking_level: "high" }, { thinking_summary: true }]) {
        const history = [ask, { role: "assistant", content_items: items }, result];
        const body = await provider.request({ model, messages: history, config } as any).json();
        assertEqual(body.thinking.type, on ? "enabled" : "disabled", `${label} ${JSON.stringify(config)}`);
        const events = provider.stream({ model, messages: history, config } as any);
        const r = await settle(events.readable, events.message);
        assertEqual([fake.requests.at(-1)!.status, r.error?.message], [200, undefined], `${label}: accepted`);
      }
    }
    // adaptive too: thinking off, and no effort with it
    const six = claudeOn(["claude-opus-4-6"]).provider;
    const body = await six.request({ model: "claude-opus-4-6", messages: [ask, { role: "assistant", content_items: [call] }, result], config: { thinking_level: "high" } } as any).json();
    assertEqual([body.thinking, body.output_config], [{ type: "disabled" }, undefined]);
    // an earlier tool turn without thinking does not matter: only the last assistant turn
    const earlier = [ask, { role: "assistant", content_items: [call] }, result, { role: "assistant", content_items: [{ type: "text.done", text: "Sunny." }] }, ask];
    assertEqual((await provider.request({ model, messages: earlier, config: { thinking_level: "high" } } as any).json()).thinking.type, "enabled");
    const [status, refusal] = await post(fake, {
      model,
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [{ role: "user", content: "x" }, { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "f", input: {} }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "r" }] }],
    });
    assertEqual([status, refusal.type, refusal.error.type], [400, "error", "invalid_request_error"]);
    assert(refusal.error.message.startsWith("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`."), refusal.error.message);
  }],
  ["issue #46: the fake Anthropic refuses the thinking the real API refuses: adaptive before Claude 4.6, enabled from 4.7, a budget missing, below 1,024 or not below max_tokens", async () => {
    const { fake } = claudeOn(["claude-sonnet-4-5"]);
    const refusals: [Json, RegExp][] = [
      [{ model: "claude-sonnet-4-5", thinking: { type: "adaptive" } }, /^adaptive thinking is not supported on this model$/],
      [{ model: "claude-3-7-sonnet-20250219", thinking: { type: "adaptive" } }, /^adaptive thinking is not supported on this model$/],
      [{ model: "claude-opus-4-7", thinking: { type: "enabled", budget_tokens: 2048 } }, /^"thinking\.type\.enabled" is not supported for this model\. Use "thinking\.type\.adaptive"/],
      [{ model: "claude-sonnet-4-5", thinking: { type: "enabled" } }, /^thinking\.enabled\.budget_tokens: Field required$/],
      [{ model: "claude-sonnet-4-5", thinking: { type: "enabled", budget_tokens: 512 } }, /^thinking\.enabled\.budget_tokens: Input should be greater than or equal to 1024$/],
      [{ model: "claude-sonnet-4-5", max_tokens: 2048, thinking: { type: "enabled", budget_tokens: 2048 } }, /^`max_tokens` must be greater than `thinking\.budget_tokens`/],
    ];
    for (const [body, message] of refusals) {
      const [status, refusal] = await post(fake, { max_tokens: 4096, messages: [{ role: "user", content: "x" }], ...body });
      assertEqual([status, refusal.error.type], [400, "invalid_request_error"], JSON.stringify(body));
      assert(message.test(refusal.error.message), refusal.error.message);
    }
    // what it takes: enabled on 4.6 (deprecated, still taken), adaptive on 4.6, disabled anywhere
    for (const body of [{ model: "claude-opus-4-6", thinking: { type: "enabled", budget_tokens: 1024 } }, { model: "claude-opus-4-6", thinking: { type: "adaptive" } }, { model: "claude-sonnet-4-5", thinking: { type: "disabled" } }]) {
      const [status, refusal] = await post(fake, { max_tokens: 4096, messages: [{ role: "user", content: "x" }], ...body });
      assert(status !== 400, `${JSON.stringify(body)}: ${JSON.stringify(refusal)}`);
    }
  }],
];

/** A body POSTed to the fake Anthropic: its status and JSON. */
async function post(fake: (input: string, init: RequestInit) => Promise<Response>, body: Json): Promise<[number, Json]> {
  const res = await fake(`${ANT_BASE}/v1/messages`, { method: "POST", body: JSON.stringify(body) });
  const json = res.headers.get("content-type")?.includes("json") ? await res.json() : (await res.body?.cancel(), {});
  return [res.status, json];
}

/** The events an Anthropic turn of `model` reads to (the provider's stream, as `run` reads it). */
async function settleEvents(model: string): Promise<Json[]> {
  const stream = new ProviderEventStream("anthropic");
  const bytes = utf8(claudeTurn(model));
  const r = await settle(byteStream([bytes]).pipeThrough(stream), stream.message);
  return r.events;
}
