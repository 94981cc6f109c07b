// AnthropicMessagesEncoderStream (issue #47, encoder stages), in Node: checked by the client, not by
// ourselves. Every shared provider capture, read into UniEvents by the package and written by the
// encoder, is read by the official `@anthropic-ai/sdk` (`messages.stream()`'s MessageStream, over a
// fetch that answers the encoder's bytes) into the same final message — text, thinking with its
// signature, redacted thinking, tool calls and their input, usage, stop reason — as the package's own
// reader gave, and into exactly the message `anthropicMessage()` writes from the same events; a failed
// answer is the SDK's APIError with the package's message. A property does the same on random streams.
import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { AnthropicMessagesEncoderStream, anthropicMessage, type AnthropicMessagesEncoderOptions } from "../../src/encode.ts";
import type { StreamedMessage, UniEvent } from "../../src/index.ts";
import { ProviderEventStream } from "../../src/providers/index.ts";
import type { ProviderName } from "../../src/testing/index.ts";
import { anthropicStream, streamEvents } from "../arbitraries.ts";
import { CAPTURES as captures } from "./encoder-captures.ts";

type Json = Record<string, any>;
const OPTIONS: AnthropicMessagesEncoderOptions = { id: "msg_test", model: "claude-sonnet-4-5" };


/** A capture read by the package: its events, its message, its error. */
async function read(provider: ProviderName, body: string): Promise<{ events: UniEvent[]; message?: Json; error?: any }> {
  const bytes = new TextEncoder().encode(body);
  const reader = new ProviderEventStream(provider);
  const message = reader.message.then((m) => m as Json, () => undefined);
  const events: UniEvent[] = [];
  const r = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(bytes), c.close()) }).pipeThrough(reader).getReader();
  try {
    for (let x = await r.read(); !x.done; x = await r.read()) events.push(x.value);
  } catch (error) {
    return { events, error };
  }
  return { events, message: await message };
}

/** The events (then `error` as the source's error) through the encoder: its bytes. */
async function encode(events: readonly unknown[], error?: unknown): Promise<Uint8Array> {
  let i = 0;
  const source = new ReadableStream<UniEvent>({
    pull(c) {
      if (i < events.length) c.enqueue(events[i++] as UniEvent);
      else if (error === undefined) c.close();
      else c.error(error);
    },
  }, { highWaterMark: 0 });
  return new Uint8Array(await new Response(source.pipeThrough(new AnthropicMessagesEncoderStream(OPTIONS))).arrayBuffer());
}

/** The official SDK's `messages.stream()` over a fetch that answers `bytes` as the API does. */
function sdkStream(bytes: Uint8Array) {
  const client = new Anthropic({
    apiKey: "k",
    maxRetries: 0,
    fetch: async () => new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: { "content-type": "text/event-stream", "request-id": "req_1" } }),
  });
  return client.messages.stream({ model: OPTIONS.model!, max_tokens: 1024, messages: [{ role: "user", content: "Hi" }] });
}

/** An SDK message as the package's items, usage and finish reason (SPEC §9's maps). */
function fromSdk(m: Json): Json {
  const items = (m.content as Json[]).map((b) =>
    b.type === "text"
      ? { type: "text.done", text: b.text }
      : b.type === "thinking"
      ? { type: "thinking.done", thinking: b.thinking, signature: b.signature || undefined }
      : b.type === "redacted_thinking"
      ? { type: "redacted_thinking", data: b.data }
      : { type: "tool_call.done", name: b.name, tool_call_id: b.id, arguments: b.input }
  );
  const u = m.usage;
  const thoughts = u.output_tokens_details?.thinking_tokens ?? null;
  const finish = { end_turn: "stop", stop_sequence: "stop", max_tokens: "length", tool_use: "tool_call" }[m.stop_reason as string] ?? "unknown";
  return {
    items,
    usage: { cached_tokens: u.cache_read_input_tokens ?? null, prompt_tokens: u.input_tokens, thoughts_tokens: thoughts, response_tokens: u.output_tokens - (thoughts ?? 0) },
    finish,
  };
}

/**
 * The package's message as the encoder says it: its text, thinking and tool-call items (an item that
 * says nothing is no block; a signature only on thinking; `_REDACTED_THINKING` with a signature the
 * redacted block it was read from), unknown → stop, a null prompt or response count 0.
 */
function fromPackage(m: Json): Json {
  const items = (m.content_items as Json[]).flatMap((x): Json[] => {
    const signature = typeof x.fidelity?.signature === "string" ? x.fidelity.signature : undefined;
    if (x.type === "text.done") return x.text === "" ? [] : [{ type: "text.done", text: x.text }];
    if (x.type === "thinking.done" && x.thinking === "_REDACTED_THINKING" && signature) return [{ type: "redacted_thinking", data: signature }];
    if (x.type === "thinking.done") return x.thinking === "" && !signature ? [] : [{ type: "thinking.done", thinking: x.thinking, signature }];
    if (x.type === "tool_call.done") return [{ type: "tool_call.done", name: x.name, tool_call_id: x.tool_call_id, arguments: x.arguments }];
    return [];
  });
  const u = m.usage_metadata;
  return {
    items,
    usage: { ...u, prompt_tokens: u.prompt_tokens ?? 0, response_tokens: u.response_tokens ?? 0 },
    finish: m.finish_reason === "unknown" ? "stop" : m.finish_reason,
  };
}

/** The SDK's final message without what the SDK adds itself (`parsed_output` for structured outputs, `stop_details`). */
const bare = ({ parsed_output: _p, stop_details: _s, ...message }: Json): Json => message;

describe("@anthropic-ai/sdk's MessageStream reads every shared provider capture, re-encoded, as the package's reader did", () => {
  expect(captures.length).toBeGreaterThan(40);
  test.each(captures)("%s", (_name, provider, body) => sameFinalMessage(provider, body));
});

test("a random Anthropic stream, read and re-encoded: the SDK's final message is the package's (property)", async () => {
  await fc.assert(fc.asyncProperty(anthropicStream, (body) => sameFinalMessage("anthropic", body)), { numRuns: 150 });
});

/** Reads `body` as `provider`, encodes the events: the SDK's final message (or error) is the package's. */
async function sameFinalMessage(provider: ProviderName, body: string): Promise<void> {
  const r = await read(provider, body);
  const stream = sdkStream(await encode(r.events, r.error));
  if (r.error !== undefined) {
    const e = await stream.finalMessage().then(() => undefined, (e: unknown) => e);
    expect(e).toBeInstanceOf(Anthropic.APIError);
    expect((e as Json).error?.error?.message).toBe(r.error.message);
    return;
  }
  const final = await stream.finalMessage();
  expect(fromSdk(final)).toEqual(fromPackage(r.message!));
  expect(bare(final)).toEqual(anthropicMessage(r.events, OPTIONS));
  expect(anthropicMessage(r.message as StreamedMessage, OPTIONS), "from the reader's message as from its events").toEqual(bare(final));
}

test("a random public stream: the SDK's final message is the package's message and anthropicMessage()'s (property)", async () => {
  await fc.assert(
    fc.asyncProperty(streamEvents, async (events: Json[]) => {
      const says = fromPackage({
        content_items: events.flatMap((e) => e.content_items as Json[]),
        usage_metadata: events.at(-1)!.usage_metadata,
        finish_reason: events.at(-1)!.finish_reason,
      });
      const stream = sdkStream(await encode(events));
      if (!says.items.some((x: Json) => x.type !== "thinking.done")) {
        // (nothing but thinking or items Messages has no block for: still a message to the SDK, the package's reader calls it empty)
        expect(fromSdk(await stream.finalMessage()).items).toEqual(says.items);
        return;
      }
      const final = await stream.finalMessage();
      expect(fromSdk(final)).toEqual(says);
      expect(bare(final)).toEqual(anthropicMessage(events as unknown as UniEvent[], OPTIONS));
    }),
    { numRuns: 100 },
  );
});

test("message_start carries the message shell and a usage the SDK's message_delta counts land in", async () => {
  const stream = sdkStream(await encode([{ role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: 4, prompt_tokens: 9, thoughts_tokens: null, response_tokens: 2 }, finish_reason: "stop" }]));
  const starts: Json[] = [];
  stream.on("streamEvent", (e) => void (e.type === "message_start" && starts.push(structuredClone(e.message))));
  const final = await stream.finalMessage();
  expect(starts[0]).toMatchObject({ id: "msg_test", model: "claude-sonnet-4-5", usage: { input_tokens: 0, output_tokens: 0 } });
  expect(final.usage).toEqual({ input_tokens: 9, cache_read_input_tokens: 4, output_tokens: 2 });
  expect(final.stop_reason).toBe("end_turn");
});
