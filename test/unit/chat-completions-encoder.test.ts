// ChatCompletionsEncoderStream (issue #47's encoder stages), in Node: exact chunks; every shared
// provider capture read into UniEvents and written by the encoder is read by the official `openai`
// SDK's ChatCompletionStream (through a fetch that answers the encoder's bytes) into the same final
// message as the package's reader gives, and by the package's own Chat reader into the same message
// (a round trip); a property does both on random UniEvent streams; the error chunk and error shape;
// the non-streamed `chat.completion`.
import fc from "fast-check";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { chatCompletion, chatCompletionsError, ChatCompletionsEncoderStream, type ChatCompletionsEncoderOptions } from "../../src/encode.ts";
import { EmptyResponseError, UpstreamError } from "../../src/errors.ts";
import type { UniEvent, UniMessage } from "../../src/index.ts";
import { streamEvents } from "../arbitraries.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import { CAPTURES, readProvider } from "./encoder-captures.ts";

type Rec = Record<string, unknown>;

/** Events through the encoder: the body's text. */
async function encode(events: UniEvent[], options: ChatCompletionsEncoderOptions = {}, fail?: unknown): Promise<string> {
  const source = new ReadableStream<UniEvent>({
    start: (c) => {
      for (const e of events) c.enqueue(e);
      if (fail === undefined) c.close();
      else c.error(fail);
    },
  });
  return await new Response(source.pipeThrough(new ChatCompletionsEncoderStream({ id: "chatcmpl-1", model: "m", created: 7, ...options }))).text();
}

/** The SDK's final completion of a body, read through `chat.completions.stream()` against a fetch answering it. */
async function sdkFinal(body: string) {
  const client = new OpenAI({
    apiKey: "unused",
    baseURL: "http://chat.test/v1",
    maxRetries: 0,
    fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
  });
  return await client.chat.completions.stream({ model: "m", messages: [{ role: "user", content: "hi" }] }).finalChatCompletion();
}

const n = (v: number | null | undefined): number => v ?? 0;

/** What a Chat client can hold of a message: content, tool calls, usage, finish. */
function chatView(m: UniMessage) {
  const texts = m.content_items.flatMap((i) => (i.type === "text.done" ? [i.text] : []));
  const u = m.usage_metadata;
  return {
    // (Chat cannot tell empty text from none)
    content: texts.join("") || null,
    tool_calls: m.content_items.flatMap((i) => (i.type === "tool_call.done" ? [{ id: i.tool_call_id, name: i.name, arguments: i.arguments }] : [])),
    usage: {
      prompt_tokens: n(u?.cached_tokens) + n(u?.prompt_tokens),
      completion_tokens: n(u?.thoughts_tokens) + n(u?.response_tokens),
      cached: n(u?.cached_tokens),
      reasoning: n(u?.thoughts_tokens),
    },
    finish_reason: ({ stop: "stop", length: "length", tool_call: "tool_calls", unknown: "stop" } as Rec)[m.finish_reason ?? "unknown"],
  };
}

/** The SDK's final completion, in the same view. */
function sdkView(c: Awaited<ReturnType<typeof sdkFinal>>) {
  const choice = c.choices[0]!;
  return {
    content: choice.message.content ?? null,
    tool_calls: (choice.message.tool_calls ?? []).map((t) => {
      const fn = (t as { function: { name: string; arguments: string } }).function;
      return { id: t.id, name: fn.name, arguments: JSON.parse(fn.arguments || "{}") };
    }),
    usage: {
      prompt_tokens: c.usage?.prompt_tokens,
      completion_tokens: c.usage?.completion_tokens,
      cached: c.usage?.prompt_tokens_details?.cached_tokens,
      reasoning: c.usage?.completion_tokens_details?.reasoning_tokens,
    },
    finish_reason: choice.finish_reason,
  };
}

/**
 * What survives a Chat round trip: text, thinking text, tool calls, usage (as Chat counts it), finish.
 * (A Chat dialect's own `reasoning_details` entries go back as they are after the thinking streamed
 * in the string field: a reader that takes the entries' text as the thinking, as the package's does,
 * reads that text twice — the thinking is compared only without such entries.)
 */
function roundView(m: UniMessage, original = true) {
  const v = chatView(m);
  const thinking = m.content_items.flatMap((i) => (i.type === "thinking.done" ? [i.thinking] : [])).join("");
  const entries = original && m.content_items.some((i) => "fidelity" in i && Array.isArray((i.fidelity as Rec | undefined)?.reasoning_details));
  return { ...v, thinking: entries ? "(not compared)" : thinking };
}

/** A message a Chat reader refuses as empty: no text and no tool call (only thinking, images, audio, vectors). */
const empty = (m: UniMessage): boolean => !m.content_items.some((i) => (i.type === "text.done" && i.text) || i.type === "tool_call.done");

/** The package's Chat reader reading the encoder's body gives back the message (or refuses it as empty, as it should). */
async function expectRoundTrip(body: string, message: UniMessage): Promise<void> {
  const back = await readProvider("openai-chat", body);
  if (empty(message)) return expect(back.error).toBeInstanceOf(EmptyResponseError);
  expect(back.error).toBeUndefined();
  const view = roundView(back.message!, false);
  const want = roundView(message);
  if (want.thinking === "(not compared)") view.thinking = want.thinking;
  expect(view).toEqual(want);
}

describe("ChatCompletionsEncoderStream", () => {
  test("writes the chunks: the role first, content, reasoning, a tool call by index, the finish, the usage chunk, [DONE]", async () => {
    const d = (item: Rec): UniEvent => ({ role: "assistant", event_type: "delta", content_items: [item as never], usage_metadata: null, finish_reason: null });
    const body = await encode([
      d({ type: "thinking.delta", thinking: "Hm" }),
      d({ type: "thinking.done", thinking: "Hm" }),
      d({ type: "text.delta", text: "Hi" }),
      d({ type: "text.done", text: "Hi" }),
      d({ type: "tool_call.delta", name: "f", tool_call_id: "call_1", arguments: '{"a":' }),
      d({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: "1}" }),
      d({ type: "tool_call.done", name: "f", tool_call_id: "call_1", arguments: { a: 1 } }),
      {
        role: "assistant",
        event_type: "stop",
        content_items: [],
        usage_metadata: { cached_tokens: 2, prompt_tokens: 3, thoughts_tokens: 4, response_tokens: 5 },
        finish_reason: "tool_call",
      },
    ], { includeUsage: true });
    const chunk = (delta: Rec, finish: string | null = null) =>
      `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":${
        JSON.stringify(delta)
      },"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]}\n\n`;
    expect(body).toBe(
      chunk({ role: "assistant", content: "" }) +
        chunk({ reasoning_content: "Hm" }) +
        chunk({ content: "Hi" }) +
        chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: '{"a":' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }) +
        chunk({}, "tool_calls") +
        `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[],"usage":${
          JSON.stringify({
            prompt_tokens: 5,
            completion_tokens: 9,
            total_tokens: 14,
            prompt_tokens_details: { cached_tokens: 2 },
            completion_tokens_details: { reasoning_tokens: 4 },
          })
        }}\n\n` +
        "data: [DONE]\n\n",
    );
    // without includeUsage: no usage chunk
    expect(await encode([{ role: "assistant", event_type: "stop", content_items: [], usage_metadata: null, finish_reason: "length" }])).toBe(
      chunk({ role: "assistant", content: "" }) + chunk({}, "length") + "data: [DONE]\n\n",
    );
  });

  test("thinking goes in the field its item names, else the option's; a signature goes as a reasoning_details entry with its maker's format", async () => {
    const d = (item: Rec): UniEvent => ({ role: "assistant", event_type: "delta", content_items: [item as never], usage_metadata: null, finish_reason: null });
    const stop: UniEvent = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: null, finish_reason: "stop" };
    const fidelity = { signature: "sig==", provider: "anthropic", model: "claude" };
    const body = await encode([
      d({ type: "thinking.delta", thinking: "a", fidelity: { reasoning_field: "reasoning" } }),
      d({ type: "thinking.delta", thinking: "b" }),
      d({ type: "thinking.done", thinking: "ab", fidelity: { reasoning_field: "reasoning" } }),
      d({ type: "thinking.delta", thinking: "c" }),
      d({ type: "thinking.delta", thinking: "", fidelity }),
      d({ type: "thinking.done", thinking: "c", fidelity }),
      stop,
    ], { reasoningField: "reasoning" });
    const deltas = body.split("\n\n").filter((l) => l.startsWith("data: {")).map((l) => JSON.parse(l.slice(6)).choices[0]?.delta);
    expect(deltas.slice(1, -1)).toEqual([
      { reasoning: "a" },
      { reasoning: "b" },
      { reasoning: "c" },
      { reasoning_details: [{ type: "reasoning.text", text: "", signature: "sig==", format: "anthropic-claude-v1" }] },
    ]);
  });

  for (const [name, provider, capture] of CAPTURES) {
    test(`${name}: the SDK's final completion and the package's Chat reader hold what the package read`, async () => {
      const read = await readProvider(provider, capture);
      if (!read.message) return; // (a capture of a failure: the error cases below)
      const body = await encode(read.events, { includeUsage: true });
      expect(sdkView(await sdkFinal(body))).toEqual(chatView(read.message));
      await expectRoundTrip(body, read.message);
    });
  }

  test("a property: random UniEvent streams read by the SDK and by the package's Chat reader give back the message", async () => {
    await fc.assert(
      fc.asyncProperty(streamEvents, async (wire) => {
        // (the arbitraries' inline data is base64 text: bytes in a UniEvent; Chat leaves it out anyway)
        const events = wire.map((e) => ({
          ...e,
          content_items: (e.content_items as Rec[]).map((i) => ("data" in i ? { ...i, data: new Uint8Array() } : i)),
        })) as unknown as UniEvent[];
        const message: UniMessage = {
          role: "assistant",
          content_items: events.flatMap((e) => e.content_items.filter((i) => i.type.endsWith(".done"))) as UniMessage["content_items"],
          usage_metadata: events.at(-1)!.usage_metadata,
          finish_reason: events.at(-1)!.finish_reason,
        };
        const body = await encode(events, { includeUsage: true });
        expect(sdkView(await sdkFinal(body))).toEqual(chatView(message));
        await expectRoundTrip(body, message);
      }),
      { numRuns: 60 },
    );
  });

  test("an error on the writable side is the {error} chunk then [DONE]: the package's reader raises it, the SDK throws it", async () => {
    const first: UniEvent = { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null };
    class RateLimitError extends Error {}
    const body = await encode([first], {}, new RateLimitError("slow down"));
    expect(body.endsWith(
      `data: {"error":{"message":"slow down","type":"rate_limit_exceeded","param":null,"code":"RateLimitError"}}\n\ndata: [DONE]\n\n`,
    )).toBe(true);
    const back = await readProvider("openai-chat", body);
    expect(back.error).toBeInstanceOf(UpstreamError);
    expect((back.error as UpstreamError).message).toBe("slow down");
    await expect(sdkFinal(body)).rejects.toThrow(/slow down/);
    // a stream that ends before its stop event is no whole answer
    expect(await encode([first])).toMatch(/data: \{"error":\{"message":"the stream ended before its stop event"/);
  });

  test("the options are checked at the boundary: an unknown one and a wrong value are named", () => {
    expect(() => new ChatCompletionsEncoderStream({ includeUsuage: true } as never)).toThrow(/unknown option "includeUsuage".*includeUsage/);
    expect(() => new ChatCompletionsEncoderStream({ reasoningField: "thinking" as never })).toThrow(RangeError);
    expect(() => new ChatCompletionsEncoderStream({ created: -1 })).toThrow(RangeError);
    expect(() => chatCompletion({ role: "assistant", content_items: [] }, { model: 5 as never })).toThrow(TypeError);
  });

  test("chatCompletionsError: the status each error stands for, OpenAI's type, an OpenAI error relayed as it was read", () => {
    expect(chatCompletionsError(new UpstreamError({ client: "x", status: 404, errorType: "NotFoundError", error: { type: "NotFoundError", message: "no" }, message: "no" })))
      .toEqual({ status: 404, body: { error: { message: "no", type: "invalid_request_error", param: null, code: "NotFoundError" } } });
    const openai = { message: "bad key", type: "invalid_request_error", param: null, code: "invalid_api_key" };
    expect(chatCompletionsError(new UpstreamError({ client: "x", status: 401, errorType: "invalid_request_error", error: openai, message: "bad key" })))
      .toEqual({ status: 401, body: { error: openai } });
    expect(chatCompletionsError("boom")).toEqual({ status: 500, body: { error: { message: "boom", type: "server_error", param: null, code: "Error" } } });
  });

  test("chatCompletion: the non-streamed answer holds what the SDK's stream holds, and the reasoning", async () => {
    const read = await readProvider("anthropic", ANTHROPIC.THINKING);
    const whole = chatCompletion(read.message!, { id: "chatcmpl-1", model: "m", created: 7 });
    const streamed = await sdkFinal(await encode(read.events, { includeUsage: true }));
    expect(whole.object).toBe("chat.completion");
    const choice = whole.choices[0] as { message: Rec; finish_reason: string };
    expect(choice.message.content).toBe(streamed.choices[0]!.message.content);
    expect(choice.finish_reason).toBe(streamed.choices[0]!.finish_reason);
    expect(whole.usage).toEqual({ ...streamed.usage });
    expect(choice.message.reasoning_content).toBe(read.message!.content_items.flatMap((i) => (i.type === "thinking.done" ? [i.thinking] : [])).join(""));
    expect(choice.message.reasoning_details).toEqual([{ type: "reasoning.text", text: "", signature: ANTHROPIC.SIGNATURE, format: "anthropic-claude-v1" }]);
  });
});
