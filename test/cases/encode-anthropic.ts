// AnthropicMessagesEncoderStream (issue #47, encoder stages): the package's own `anthropic` reader
// reading the encoder's output gives back the events it was given — every shared provider capture read
// into UniEvents and re-encoded, random Anthropic streams, random public streams — and the exact bytes
// of the Messages stream (message_start's usage, thinking + signature_delta, redacted_thinking,
// input_json_delta, message_delta's stop_reason and usage, event: error).
import fc from "fast-check";
import { holds } from "../property.ts";
import { anthropicMessage, AnthropicMessagesEncoderStream, anthropicMessagesError } from "../../dist/encode.js";
import { EmptyResponseError, StreamProtocolError, UpstreamError } from "../../dist/index.js";
import { assert, assertEqual, assertError, type Case, collect } from "../harness.ts";
import { anthropicStream, streamEvents } from "../arbitraries.ts";
import { convert, type Name } from "./providers.ts";
import * as ANT from "./providers/captures-anthropic.ts";
import * as CHAT from "./providers/captures-openai-chat.ts";
import * as DIALECTS from "./providers/captures-openai-chat-dialects.ts";
import * as GEMINI from "./providers/captures-gemini.ts";
import * as RESPONSES from "./providers/captures-openai-responses.ts";

type Json = Record<string, any>;

/** An error named by its class, as MMSP names them (toWireError: `RateLimitError`). */
class RateLimitError extends Error {}

const MODEL = "claude-sonnet-4-5"; // (the Anthropic captures' model: the re-read fidelity names it again)

/** UniEvents (then `error`, if any, as the source's error) through the encoder: the text it writes. */
export async function encodeAnthropic(events: Json[], error?: unknown, options: Json = { id: "msg_1", model: MODEL }): Promise<string> {
  let i = 0;
  const source = new ReadableStream<Json>({
    pull(c) {
      // (one at a time: an error given at once would drop the events still queued)
      if (i < events.length) c.enqueue(events[i++]!);
      else if (error === undefined) c.close();
      else c.error(error);
    },
  }, { highWaterMark: 0 });
  const chunks = await collect(source.pipeThrough(new AnthropicMessagesEncoderStream(options) as any));
  const dec = new TextDecoder();
  return chunks.map((c) => dec.decode(c as Uint8Array)).join("");
}

/** What a re-read must give back: each text, thinking and tool-call `.done`, and the stop. */
function whole(events: Json[], sameProvider: boolean): Json[] {
  const out: Json[] = [];
  for (const e of events) {
    if (e.event_type === "stop") out.push({ stop: e.finish_reason, usage: e.usage_metadata });
    for (const item of e.content_items as Json[]) {
      if (!["text.done", "thinking.done", "tool_call.done"].includes(item.type)) continue;
      // (an item that says nothing is no content block)
      if (item.text === "" || (item.thinking === "" && typeof item.fidelity?.signature !== "string")) continue;
      // (another provider's item comes back as Anthropic's: its signature is kept, the rest of its fidelity is not)
      const { fidelity, ...rest } = item;
      const signature = fidelity?.signature;
      out.push(sameProvider ? item : { ...rest, ...(item.type === "thinking.done" && typeof signature === "string" ? { signature } : {}) });
    }
  }
  return out;
}

/** What the encoder writes for a stop: unknown → end_turn (read back: stop); a null prompt or response count → 0. */
function expected(events: Json[], sameProvider: boolean): Json[] {
  return whole(events, sameProvider).map((x) =>
    "stop" in x
      ? {
        stop: x.stop === "unknown" ? "stop" : x.stop,
        usage: { ...x.usage, prompt_tokens: x.usage.prompt_tokens ?? 0, response_tokens: x.usage.response_tokens ?? 0 },
      }
      : x
  );
}

/** What the fragments said, joined by kind (an answer that failed: its open item has no `.done`). */
function said(events: Json[]): Json {
  const out = { text: "", thinking: "", arguments: "" };
  for (const e of events) {
    for (const item of e.content_items as Json[]) {
      if (item.type === "text.delta") out.text += item.text;
      else if (item.type === "thinking.delta") out.thinking += item.thinking;
      else if (item.type === "tool_call.delta") out.arguments += item.arguments;
    }
  }
  return out;
}

/**
 * Reads `body` as `provider`, re-encodes it, reads that back: the same whole items and stop; an answer
 * of nothing Messages can say (only images…) the package's EmptyResponseError; a failed one, what its
 * fragments said and the error's message.
 */
async function roundTrip(provider: Name, body: string, strict = provider === "anthropic"): Promise<void> {
  const first = await convert(provider, body);
  const model = provider === "anthropic" ? /"model":"([^"]*)"/.exec(body)?.[1] : undefined;
  await checkRoundTrip(first.events, first.error, strict, model);
}

async function checkRoundTrip(events: Json[], error: any, same: boolean, model = MODEL): Promise<void> {
  const again = await convert("anthropic", await encodeAnthropic(events, error, { id: "msg_1", model }));
  if (error === undefined) {
    const want = expected(events, same);
    if (!want.some((x) => x.type === "text.done" || x.type === "tool_call.done")) {
      assertError(again.error, EmptyResponseError);
      return;
    }
    assertEqual(again.error, undefined, "no error after a whole answer");
    assertEqual(whole(again.events, same), want, "the re-read gives the same items and stop");
  } else {
    assertEqual(said(again.events), said(events), "the re-read says what the failed answer said");
    assertError(again.error, UpstreamError);
    assertEqual(again.error.message, error.message, "the error's message comes back");
  }
}

const captures: [Name, string, string][] = [];
for (const [provider, module] of [["anthropic", ANT], ["openai-chat", CHAT], ["openai-chat", DIALECTS], ["gemini", GEMINI], ["openai-responses", RESPONSES]] as const) {
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "string" && /^(event|data):/m.test(value)) captures.push([provider, name, value]);
  }
}

const usage = (cached: number | null, prompt: number | null, thoughts: number | null, response: number | null) => ({
  cached_tokens: cached,
  prompt_tokens: prompt,
  thoughts_tokens: thoughts,
  response_tokens: response,
});
const ev = (item: Json): Json => ({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null });
const stopEv = (finish: string, u: Json): Json => ({ role: "assistant", event_type: "stop", content_items: [], usage_metadata: u, finish_reason: finish });
const data = (text: string): Json[] => text.split("\n\n").filter((f) => f !== "").map((f) => JSON.parse(f.split("\n")[1]!.slice("data: ".length)));

export const cases: Case[] = [
  ["every shared provider capture, read and re-encoded, reads back as the same items, stop and error", async () => {
    assert(captures.length > 40, "the captures were found");
    for (const [provider, name, body] of captures) {
      try {
        await roundTrip(provider, body);
      } catch (e) {
        throw new Error(`${provider} ${name}: ${(e as Error).message}`);
      }
    }
  }],
  ["a random Anthropic stream, read and re-encoded, reads back as the same items and stop (property)", async () => {
    // (each item's content and thinking signatures; not the fidelity of the random stream's mixed blocks —
    // a text block with a signature_delta, a thinking_delta in a text block — which no Messages block carries)
    await holds(fc.asyncProperty(anthropicStream, (body) => roundTrip("anthropic", body, false)), { numRuns: 150 });
  }],
  ["a random public stream, encoded, reads back as its text, thinking and tool-call items (property)", async () => {
    await holds(
      fc.asyncProperty(streamEvents, async (events: Json[]) => {
        await checkRoundTrip(events, undefined, false);
      }),
      { numRuns: 150 },
    );
  }],
  ["the bytes: message_start with usage, thinking + signature_delta, text, tool_use + input_json_delta, message_delta, message_stop", async () => {
    const text = await encodeAnthropic([
      ev({ type: "thinking.delta", thinking: "Hm" }),
      ev({ type: "thinking.delta", thinking: "m.", fidelity: { signature: "c2ln+/=" } }),
      ev({ type: "thinking.done", thinking: "Hmm.", fidelity: { signature: "c2ln+/=", provider: "gemini" } }),
      ev({ type: "text.delta", text: "Hi" }),
      ev({ type: "text.done", text: "Hi" }),
      ev({ type: "tool_call.delta", name: "f", tool_call_id: "toolu_1", arguments: "" }),
      ev({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: '{"a":' }),
      ev({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: "1}" }),
      ev({ type: "tool_call.done", name: "f", tool_call_id: "toolu_1", arguments: { a: 1 } }),
      stopEv("tool_call", usage(7, 20, 3, 4)),
    ], undefined, { id: "msg_x", model: "m", inputTokens: 25 });
    assert(text.startsWith("event: message_start\ndata: "), "the API's framing: event line, data line");
    assertEqual(data(text), [
      {
        type: "message_start",
        message: {
          id: "msg_x",
          type: "message",
          role: "assistant",
          model: "m",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 25, output_tokens: 0 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Hm" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "m." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2ln+/=" } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hi" } },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_1", name: "f", input: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"a":' } },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "1}" } },
      { type: "content_block_stop", index: 2 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 7, input_tokens: 20, cache_read_input_tokens: 7, output_tokens_details: { thinking_tokens: 3 } },
      },
      { type: "message_stop" },
    ]);
    const names = text.split("\n\n").filter((f) => f).map((f) => f.split("\n")[0]);
    assertEqual(names, data(text).map((d) => `event: ${d.type}`), "each event's name is its type");
  }],
  ["a thinking item _REDACTED_THINKING with a signature is the redacted_thinking block it was read from; split or without one, thinking", async () => {
    const blocks = async (parts: string[], fidelity?: Json) =>
      data(
        await encodeAnthropic([
          ...parts.map((p) => ev({ type: "thinking.delta", thinking: p })),
          ev({ type: "thinking.done", thinking: parts.join(""), ...(fidelity ? { fidelity } : {}) }),
          ev({ type: "text.delta", text: "x" }),
          ev({ type: "text.done", text: "x" }),
          stopEv("stop", usage(null, 1, null, 1)),
        ]),
      ).filter((d) => d.index === 0);
    assertEqual(await blocks(["_REDACTED", "_THINKING"], { signature: "opaque" }), [
      { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "opaque" } },
      { type: "content_block_stop", index: 0 },
    ]);
    assertEqual((await blocks(["_REDACTED_THINKING"]))[0].content_block, { type: "thinking", thinking: "", signature: "" }, "no signature: thinking");
    assertEqual((await blocks(["_REDACTED_THINKING"]))[1].delta, { type: "thinking_delta", thinking: "_REDACTED_THINKING" });
    assertEqual((await blocks(["_RE", "X"], { signature: "s" })).map((d) => d.delta ?? d.content_block), [
      { type: "thinking", thinking: "", signature: "" },
      { type: "thinking_delta", thinking: "_REX" },
      { type: "signature_delta", signature: "s" },
      undefined,
    ], "text that is no mark: a thinking block, what waited written at once");
  }],
  ["stop_reason: stop → end_turn, length → max_tokens, tool_call → tool_use, unknown → end_turn; null counts left out", async () => {
    const last = async (finish: string, u: Json) => data(await encodeAnthropic([ev({ type: "text.done", text: "a" }), stopEv(finish, u)])).at(-2)!;
    assertEqual((await last("stop", usage(null, null, null, null))).delta.stop_reason, "end_turn");
    assertEqual((await last("length", usage(null, null, null, null))).delta.stop_reason, "max_tokens");
    assertEqual((await last("tool_call", usage(null, null, null, null))).delta.stop_reason, "tool_use");
    assertEqual((await last("unknown", usage(null, null, null, null))).delta.stop_reason, "end_turn");
    assertEqual((await last("stop", usage(null, null, null, null))).usage, { output_tokens: 0 });
    assertEqual((await last("stop", usage(0, 5, null, 2))).usage, { output_tokens: 2, input_tokens: 5, cache_read_input_tokens: 0 });
  }],
  ["an error on the writable side is event: error with Anthropic's shape, and nothing after it", async () => {
    const text = await encodeAnthropic([ev({ type: "text.delta", text: "Par" })], new RateLimitError("slow down"));
    assertEqual(data(text).slice(-1), [{ type: "error", error: { type: "rate_limit_error", message: "slow down" } }]);
    assert(text.endsWith('event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}\n\n'));
    const cut = await encodeAnthropic([ev({ type: "text.delta", text: "Par" })]);
    assertEqual(data(cut).at(-1)!.error.type, "api_error", "an input that ends without its stop event: an error, not a message_stop");
  }],
  ["anthropicMessagesError: the upstream's own type, the package's, the status's; the status", () => {
    const overloaded = new UpstreamError({ client: "anthropic", status: null, errorType: "overloaded_error", error: { type: "overloaded_error", message: "Overloaded" }, message: "Overloaded" } as any);
    assertEqual(anthropicMessagesError(overloaded), { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
    const gemini = new UpstreamError({ client: "gemini", status: 503, errorType: null, error: { code: 503, message: "busy", status: "UNAVAILABLE" }, message: "busy" } as any);
    assertEqual(anthropicMessagesError(gemini), { status: 503, body: { type: "error", error: { type: "overloaded_error", message: "busy" } } });
    const notFound = new UpstreamError({ client: "openai-chat", status: 404, errorType: null, error: { message: "no model" }, message: "no model" } as any);
    assertEqual(anthropicMessagesError(notFound).body.error.type, "not_found_error");
    assertEqual(anthropicMessagesError(new RateLimitError("slow")), { status: 429, body: { type: "error", error: { type: "rate_limit_error", message: "slow" } } });
    const broken = new StreamProtocolError({ client: "gemini", detail: "bad", rule: "KIND", eventIndex: 0, preview: "" } as any);
    assertEqual(anthropicMessagesError(broken).status, 500);
    assertEqual(anthropicMessagesError(broken).body.error.type, "api_error");
    assertEqual(anthropicMessagesError("x"), { status: 500, body: { type: "error", error: { type: "api_error", message: "x" } } });
  }],
  ["the options are checked where the encoder or the message is made: a TypeError or RangeError naming the wrong one", async () => {
    const threw = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e as Error;
      }
      throw new Error("no error");
    };
    const e1 = threw(() => new AnthropicMessagesEncoderStream({ inputTokens: -1 } as any));
    assert(e1 instanceof RangeError && /AnthropicMessagesEncoderStream: options\.inputTokens/.test(e1.message), e1.message);
    const e2 = threw(() => new AnthropicMessagesEncoderStream({ modle: "m" } as any));
    assert(e2 instanceof TypeError && /unknown option "modle".*"model"|model/.test(e2.message), e2.message);
    const e3 = threw(() => anthropicMessage([], { id: 7 } as any));
    assert(e3 instanceof TypeError && /anthropicMessage: options\.id/.test(e3.message), e3.message);
    const e4 = threw(() => anthropicMessage([]));
    assert(e4 instanceof TypeError && /without their stop event/.test(e4.message), e4.message);
    const message = anthropicMessage([ev({ type: "text.done", text: "a" }), stopEv("length", usage(1, 2, null, 3))] as any[], { id: "msg_2", model: "m", inputTokens: 9 });
    assertEqual(message, {
      id: "msg_2",
      type: "message",
      role: "assistant",
      model: "m",
      content: [{ type: "text", text: "a" }],
      stop_reason: "max_tokens",
      stop_sequence: null,
      usage: { input_tokens: 2, output_tokens: 3, cache_read_input_tokens: 1 },
    });
  }],
  ["an item Messages has no block for is left out and said through onWarning; the blocks after it keep their indexes from 0", async () => {
    const warnings: string[] = [];
    const image = new Uint8Array([1, 2]);
    const text = await encodeAnthropic([
      ev({ type: "inline_data.delta", data: image, mime_type: "image/png" }),
      ev({ type: "inline_data.done", data: image, mime_type: "image/png" }),
      ev({ type: "text.delta", text: "a" }),
      ev({ type: "text.done", text: "a" }),
      stopEv("stop", usage(null, 1, null, 1)),
    ], undefined, { model: "m", onWarning: (w: string) => warnings.push(w) });
    assertEqual(warnings, ["Anthropic Messages has no content block for inline_data.done: left out."]);
    assertEqual(data(text).filter((d) => d.type === "content_block_start").map((d) => d.index), [0]);
  }],
];
