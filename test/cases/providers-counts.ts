// Issue #44, SPEC §9 and §10: a provider's usage count is kept only when it is a whole number ≥ 0
// within MAX_TOKEN_COUNT (a hundred million); any other (-1000000, 1e300, 1.5, "12"…) is `null` in the stop
// event and in `reportedUsage`, with an `"invalid"` warning, for every provider, the counts made from
// it (prompt − cached…) too. A relay settles with these counts (a hostile one handed tokens back).
import { gemini, ProviderEventStream } from "../../dist/providers/index.js";
import { assert, assertEqual, type Case, utf8 } from "../harness.ts";
import { fakeFetch, run } from "./providers.ts";

type Json = Record<string, any>;

const data = (v: Json | string): string => `data: ${typeof v === "string" ? v : JSON.stringify(v)}\n\n`;
const named = (e: Json): string => `event: ${e.type}\n${data(e)}`;

// ---- bodies, one per provider, whose usage is given -------------------------------------------------

const chatChunk = (delta: Json, finish: string | null = null): Json => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-x",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
/** Chat: "Hi", a finish, then `usage` (record 2), then [DONE]. */
const chatBody = (usage: unknown): string =>
  data(chatChunk({ role: "assistant", content: "Hi" })) + data(chatChunk({}, "stop")) +
  data({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "gpt-x", choices: [], usage }) + data("[DONE]");

const respResponse = (status: string, usage: unknown): Json => ({ id: "resp_1", object: "response", status, model: "gpt-x", output: [], usage });
/** Responses: "Hi", then `response.completed` with `usage` (record 3). */
const respBody = (usage: unknown): string =>
  [
    { type: "response.created", response: respResponse("in_progress", null) },
    { type: "response.output_item.added", output_index: 0, item: { id: "msg_1", type: "message", role: "assistant", content: [] } },
    { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hi" },
    { type: "response.completed", response: respResponse("completed", usage) },
  ].map((e, i) => named({ ...e, sequence_number: i })).join("");

/** Anthropic: `message_start` with `start` (record 0), "Hi", `message_delta` with `end` (record 5). */
const antBody = (start: unknown, end: unknown): string =>
  [
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-x", content: [], usage: start } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: end },
    { type: "message_stop" },
  ].map(named).join("");

const gemChunk = (text: string, usage: unknown, finish?: string): Json => ({
  candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
  usageMetadata: usage,
  modelVersion: "gemini-x",
});
/** Gemini: one chunk, "Hi" and `usage` (its counts written at the end: event 1). */
const gemBody = (usage: unknown): string => data(gemChunk("Hi", usage, "STOP"));

/** What no count is (SPEC §9): a whole number ≥ 0 within a hundred million tokens is; none of these. */
const HOSTILE: unknown[] = [-1_000_000, 1e300, 1.5, "12", 1_000_000_001, true, { n: 3 }, [4], -0.5];

const u = (cached: number | null, prompt: number | null, thoughts: number | null, response: number | null) => ({
  cached_tokens: cached,
  prompt_tokens: prompt,
  thoughts_tokens: thoughts,
  response_tokens: response,
});

/** Reads `body` as `provider`'s stream: its stop event's usage, the message's, and the `"invalid"` warnings. */
async function counts(provider: "openai-chat" | "openai-responses" | "anthropic" | "gemini", body: string) {
  const r = await run(provider, body);
  assertEqual(r.error, undefined, `${provider}: the answer reads whole`);
  const stop = r.items.at(-1) as Json;
  assertEqual(r.message.usage_metadata, stop.usage, "the message's usage is the stop event's");
  return { usage: stop.usage, warnings: r.warnings.filter((w: Json) => w.type === "invalid"), others: r.warnings.filter((w: Json) => w.type !== "invalid") };
}

/** One `"invalid"` warning at `eventIndex`, naming `members`. */
function saidInvalid(warnings: Json[], eventIndex: number, members: string[], what: string): void {
  assertEqual(warnings.map((w) => w.eventIndex), [eventIndex], `${what}: one "invalid" warning, at the event that carried the count`);
  for (const m of members) assert(warnings[0]!.message.includes(m), `${what}: the warning names ${m}: ${warnings[0]!.message}`);
  assert(/not a whole number of tokens from 0 to 100000000\b/.test(warnings[0]!.message), warnings[0]!.message);
}

const show = (v: unknown): string => (typeof v === "number" ? String(v) : JSON.stringify(v));

const countCases: Case[] = [
  ["counts: openai-chat: a prompt_tokens that is no count → null and an \"invalid\" warning, the other counts kept", async () => {
    for (const bad of HOSTILE) {
      const r = await counts("openai-chat", chatBody({ prompt_tokens: bad, completion_tokens: 2 }));
      assertEqual(r.usage, u(null, null, null, 2), show(bad));
      saidInvalid(r.warnings, 2, ["prompt_tokens"], show(bad));
      assertEqual(r.others, [], "no other warning");
    }
  }],
  ["counts: openai-chat: a hostile cached or reasoning count → null, and so is the count made from it; a part above its total leaves 0", async () => {
    let r = await counts("openai-chat", chatBody({ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: -1_000_000 } }));
    assertEqual(r.usage, u(null, null, null, 5), "cached −1000000: not 1000010 prompt tokens");
    saidInvalid(r.warnings, 2, ["cached_tokens", "prompt_tokens"], "cached");
    r = await counts("openai-chat", chatBody({ prompt_tokens: 10, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 2.5 } }));
    assertEqual(r.usage, u(null, 10, null, null), "reasoning 2.5");
    saidInvalid(r.warnings, 2, ["thoughts_tokens", "response_tokens"], "reasoning");
    // a muddled report, each count valid: the part counts, its total never goes below 0 (nothing handed back)
    r = await counts("openai-chat", chatBody({ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 50 } }));
    assertEqual(r.usage, u(50, 0, null, 5), "cached 50 of a prompt of 10");
    assertEqual(r.warnings, []);
  }],
  ["counts: openai-responses: an input_tokens that is no count → null and an \"invalid\" warning", async () => {
    for (const bad of HOSTILE) {
      const r = await counts("openai-responses", respBody({ input_tokens: bad, output_tokens: 2 }));
      assertEqual(r.usage, u(0, null, 0, 2), show(bad));
      saidInvalid(r.warnings, 3, ["prompt_tokens"], show(bad));
    }
    const r = await counts("openai-responses", respBody({ input_tokens: 10, output_tokens: 2, input_tokens_details: { cached_tokens: -5 } }));
    assertEqual(r.usage, u(null, null, 0, 2), "cached −5: not 15 prompt tokens");
    saidInvalid(r.warnings, 3, ["cached_tokens", "prompt_tokens"], "cached");
  }],
  ["counts: anthropic: message_start's input_tokens that is no count → null and an \"invalid\" warning; message_delta's output kept", async () => {
    for (const bad of HOSTILE) {
      const r = await counts("anthropic", antBody({ input_tokens: bad, output_tokens: 1 }, { output_tokens: 3 }));
      assertEqual(r.usage, u(null, null, null, 3), show(bad));
      saidInvalid(r.warnings, 0, ["prompt_tokens"], show(bad));
    }
    // message_delta's output count invalid, its input again valid (gateways report it there)
    let r = await counts("anthropic", antBody({ input_tokens: 7, output_tokens: 1 }, { input_tokens: 7, output_tokens: -3 }));
    assertEqual(r.usage, u(null, 7, null, null), "output −3");
    saidInvalid(r.warnings, 4, ["response_tokens"], "output");
    // two counts each within bounds whose sum is not
    r = await counts("anthropic", antBody({ input_tokens: 600_000_000, cache_creation_input_tokens: 600_000_000, output_tokens: 1 }, { output_tokens: 3 }));
    assertEqual(r.usage, u(null, null, null, 3), "input + cache creation past the bound");
    saidInvalid(r.warnings, 0, ["prompt_tokens"], "sum");
    // a later valid piece is kept over an earlier invalid one, an invalid one never overwrites a valid one
    r = await counts("anthropic", antBody({ input_tokens: -1, output_tokens: 1 }, { input_tokens: 9, output_tokens: 3 }));
    assertEqual(r.usage, u(null, 9, null, 3), "message_delta's input");
    r = await counts("anthropic", antBody({ input_tokens: 9, output_tokens: 1 }, { input_tokens: 1e300, output_tokens: 3 }));
    assertEqual(r.usage, u(null, 9, null, 3), "message_start's input stays");
  }],
  ["counts: gemini: a count that is no count → null and an \"invalid\" warning (said at the end, where Gemini's counts are written)", async () => {
    for (const bad of HOSTILE) {
      let r = await counts("gemini", gemBody({ promptTokenCount: 5, candidatesTokenCount: bad }));
      assertEqual(r.usage, u(null, 5, null, null), `candidates ${show(bad)}`);
      saidInvalid(r.warnings, 1, ["response_tokens"], show(bad));
      r = await counts("gemini", gemBody({ promptTokenCount: bad, candidatesTokenCount: 2 }));
      assertEqual(r.usage, u(null, null, null, 2), `prompt ${show(bad)}`);
      saidInvalid(r.warnings, 1, ["prompt_tokens"], show(bad));
    }
    const r = await counts("gemini", gemBody({ promptTokenCount: 5, cachedContentTokenCount: -100, candidatesTokenCount: 2 }));
    assertEqual(r.usage, u(null, null, null, 2), "cached −100: not 105 prompt tokens");
  }],
  ["counts: reportedUsage holds null for a count that is no count (Anthropic's written, Gemini's held), before the end and after", async () => {
    // a body that stops after its first records and stays open: what was reported so far
    const open = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(utf8(text));
        },
      });
    const ant = new ProviderEventStream("anthropic");
    ant.message.catch(() => {});
    const antReader = open(antBody({ input_tokens: -1_000_000, cache_read_input_tokens: 4, output_tokens: 1 }, {}).split("event: content_block_stop")[0]!)
      .pipeThrough(ant).getReader();
    await antReader.read();
    assertEqual(ant.reportedUsage, u(4, null, null, null), "anthropic: input −1000000 not reported");
    await antReader.cancel();

    const gem = new ProviderEventStream("gemini");
    gem.message.catch(() => {});
    const gemReader = open(data(gemChunk("Hel", { promptTokenCount: 1e300, candidatesTokenCount: 1 }))).pipeThrough(gem).getReader();
    await gemReader.read();
    assertEqual(gem.reportedUsage, u(null, null, null, 1), "gemini: promptTokenCount 1e300 not reported");
    await gemReader.cancel();
  }],
];

countCases.push(["counts: a factory's stream(): reportedUsage after a Stop and the stop event's usage hold null for a count that is none, with the warning", async () => {
  // Gemini's counts are held until its end: a stopped answer reports them as they are, checked
  const chunk = data(gemChunk("Hi", { promptTokenCount: -1_000_000, candidatesTokenCount: 1 }));
  const waiting = fakeFetch(() =>
    new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(utf8(chunk)) }), { headers: { "content-type": "text/event-stream" } })
  );
  const request = { model: "gemini-x", messages: [{ role: "user" as const, content_items: [{ type: "text.done" as const, text: "Hi" }] }] };
  const stopped = gemini({ apiKey: "gem-test-0123456789", fetch: waiting.fetch }).stream(request);
  stopped.message.catch(() => {});
  const reader = stopped.readable.getReader();
  await reader.read();
  await stopped.stop();
  assertEqual(stopped.reportedUsage, u(null, null, null, 1), "after a Stop: promptTokenCount −1000000 not reported");
  // the whole answer through the factory: the warning comes through its onWarning
  const warnings: Json[] = [];
  const whole = fakeFetch(() => new Response(gemBody({ promptTokenCount: 1e300, candidatesTokenCount: 2 }), { headers: { "content-type": "text/event-stream" } }));
  const events = gemini({ apiKey: "gem-test-0123456789", fetch: whole.fetch }).stream(request, { onWarning: (w: Json) => warnings.push(w) });
  const message = await events.message;
  assertEqual(message.usage_metadata, u(null, null, null, 2));
  assertEqual(events.reportedUsage, message.usage_metadata);
  assertEqual(warnings.map((w) => w.type), ["invalid"]);
}]);

export const cases: Case[] = countCases;
