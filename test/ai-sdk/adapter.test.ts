// mmsp-streams/ai-sdk against the real AI SDK (`ai`, a devDependency): every chunk the adapter writes
// passes the SDK's own uiMessageChunkSchema; readUIMessageStream over the adapter's output builds the
// expected UIMessage for every built-in sample (and for the streams no sample has: a single-fragment
// tool call, inline thinking, fidelity on media, a protocol error); toMmspMessages of that UIMessage
// is the package's own `await message` (the round trip keeps fidelity); DefaultChatTransport reads
// toUIMessageStreamResponse; a provider-stamped item (issue #36) keeps fidelity.provider/model through it all.
// Imports the built dist/ (npm run build first).
//
// Run: npx vitest run --project ai-sdk
import { readdirSync, readFileSync } from "node:fs";
import { DefaultChatTransport, readUIMessageStream, UI_MESSAGE_STREAM_HEADERS as AI_HEADERS, uiMessageChunkSchema, type UIMessage as AiUIMessage } from "ai";
import { describe, expect, test } from "vitest";
import {
  toMmspMessages,
  toUIMessageStreamResponse,
  UIMessageChunkStream,
  UIMessageConversionError,
  type UIMessageChunk,
} from "../../dist/ai-sdk/index.js";
import { MmspError, StreamProtocolError, UniEventStream, UpstreamError, type DoneItem, type UniEvent, type UniMessage } from "../../dist/index.js";
import { anthropic, gemini, openaiChat } from "../../dist/providers/index.js";
import { fakeProvider, parseCapture } from "../../dist/testing/index.js";
import * as F from "../fixtures.ts";
import * as ANT from "../cases/providers/captures-anthropic.ts";
import * as CHAT from "../cases/providers/captures-openai-chat-dialects.ts";
import * as GEM from "../cases/providers/captures-gemini.ts";

const root = new URL("../../", import.meta.url);
const SAMPLES = readdirSync(new URL("samples/", root)).filter((f) => f.endsWith(".sse")).map((f) => f.slice(0, -4));
const sampleText = (name: string): string => readFileSync(new URL(`samples/${name}.sse`, root), "utf8");

interface Run {
  chunks: UIMessageChunk[];
  message?: UniMessage;
  error?: unknown;
}

/** SSE text → UniEventStream → UIMessageChunkStream: every chunk, and the package's own outcome. */
async function run(sseText: string, options = { messageId: "m-1" }): Promise<Run> {
  const events = new UniEventStream({ client: "test-upstream" });
  const body = new Response(sseText).body!.pipeThrough(events).pipeThrough(new UIMessageChunkStream(options));
  const chunks: UIMessageChunk[] = [];
  for await (const c of body) chunks.push(c);
  return events.message.then(
    (message) => ({ chunks, message }),
    (error) => ({ chunks, error }),
  );
}

/** Each chunk through the AI SDK's own chunk schema. */
async function checkChunks(chunks: UIMessageChunk[]): Promise<void> {
  const schema = uiMessageChunkSchema();
  for (const chunk of chunks) {
    const result = await schema.validate!(chunk);
    expect(result.success, `${JSON.stringify(chunk).slice(0, 200)}: ${JSON.stringify((result as { error?: unknown }).error)?.slice(0, 400)}`).toBe(true);
  }
}

/** The last UIMessage readUIMessageStream builds from the chunks, and the errors it reported. */
async function readBack(chunks: UIMessageChunk[]): Promise<{ message: AiUIMessage | undefined; errors: string[] }> {
  const errors: string[] = [];
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  let message: AiUIMessage | undefined;
  for await (const m of readUIMessageStream({ stream: stream as ReadableStream<never>, onError: (e) => errors.push(String((e as Error).message ?? e)) }))
    message = structuredClone(m);
  return { message, errors };
}

const dataUrl = (bytes: Uint8Array, mime: string): string => `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`;
const pm = (fidelity: unknown) => (fidelity && Object.keys(fidelity).length > 0 ? { providerMetadata: { mmsp: fidelity } } : {});

/** What the UIMessage's parts must be, built from the message's done items (independently of the adapter). */
function expectedParts(items: DoneItem[]): unknown[] {
  return items.map((item, i) => {
    switch (item.type) {
      case "text.done":
        return { type: "text", text: item.text, state: "done", ...pm(item.fidelity) };
      case "thinking.done":
        return { type: "reasoning", id: `reasoning-${i}`, text: item.thinking, state: "done", ...pm(item.fidelity) };
      case "tool_call.done":
        return { type: `tool-${item.name}`, toolCallId: item.tool_call_id, state: "input-available", input: item.arguments, ...(item.fidelity && Object.keys(item.fidelity).length ? { callProviderMetadata: { mmsp: item.fidelity } } : {}) };
      case "inline_data.done":
        return { type: "file", mediaType: item.mime_type, url: dataUrl(item.data, item.mime_type), ...pm(item.fidelity) };
      case "inline_thinking.done":
        return { type: "reasoning-file", mediaType: item.mime_type, url: dataUrl(item.data, item.mime_type), ...pm(item.fidelity) };
      case "embedding.done":
        return { type: "data-embedding", id: `embedding-${i}`, data: { embedding: item.embedding } };
      default:
        throw new Error(`unexpected ${item.type}`);
    }
  });
}

const FINISH = { stop: "stop", length: "length", tool_call: "tool-calls", unknown: "other" } as const;

/** The whole check for a stream that ends well: schema, UIMessage, round trip. */
async function checkComplete(r: Run): Promise<AiUIMessage> {
  expect(r.error, String(r.error)).toBeUndefined();
  const message = r.message!;
  await checkChunks(r.chunks);
  expect(r.chunks[0]).toEqual({ type: "start", messageId: "m-1" });
  expect(r.chunks.at(-1)).toEqual({
    type: "finish",
    finishReason: FINISH[message.finish_reason!],
    messageMetadata: { mmsp: { usage_metadata: message.usage_metadata, finish_reason: message.finish_reason, created_at: message.created_at } },
  });
  const { message: ui, errors } = await readBack(r.chunks);
  expect(errors).toEqual([]);
  expect(ui!.id).toBe("m-1");
  expect(ui!.role).toBe("assistant");
  expect(ui!.parts).toEqual(expectedParts(message.content_items));
  expect(ui!.metadata).toEqual({ mmsp: { usage_metadata: message.usage_metadata, finish_reason: message.finish_reason, created_at: message.created_at } });
  // the round trip: the UIMessage back to MMSP is the message itself, fidelity included
  expect(toMmspMessages([ui!])).toStrictEqual([message]);
  return ui!;
}

describe("every built-in sample, through the real AI SDK", () => {
  test("the samples are the ones this suite expects", () => {
    expect(SAMPLES.sort()).toEqual(["audio", "chat", "embeddings", "error", "image", "tool-call"]);
  });

  for (const name of SAMPLES.filter((n) => n !== "error")) {
    test(`sample ${name}: chunks pass uiMessageChunkSchema; readUIMessageStream builds the message; toMmspMessages gives it back`, async () => {
      const r = await run(sampleText(name));
      const ui = await checkComplete(r);
      if (name === "chat" || name === "tool-call") {
        const reasoning = ui.parts.find((p) => p.type === "reasoning") as { providerMetadata?: { mmsp?: { signature?: string } } };
        expect(reasoning.providerMetadata?.mmsp?.signature).toMatch(/^E/); // the thinking signature travels
      }
    });
  }

  test("sample chat: one id per group; text arrives as deltas between its start and end", async () => {
    const r = await run(sampleText("chat"));
    const types = r.chunks.map((c) => c.type);
    expect(types[0]).toBe("start");
    expect(types.filter((t) => t === "reasoning-start")).toHaveLength(1);
    expect(types.filter((t) => t === "text-start")).toHaveLength(1);
    const textIds = new Set(r.chunks.filter((c) => c.type.startsWith("text-")).map((c) => (c as { id: string }).id));
    expect(textIds.size).toBe(1);
    // the signature-only fragment (thinking "") adds no empty delta
    expect(r.chunks.some((c) => c.type === "reasoning-delta" && c.delta === "")).toBe(false);
    const deltas = r.chunks.filter((c) => c.type === "text-delta").map((c) => (c as { delta: string }).delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe((r.message!.content_items.find((i) => i.type === "text.done") as { text: string }).text);
  });

  test("sample tool-call: tool-input-start, the argument text as deltas, then tool-input-available with the parsed object", async () => {
    const r = await run(sampleText("tool-call"));
    const call = r.message!.content_items.find((i) => i.type === "tool_call.done")!;
    const toolChunks = r.chunks.filter((c) => c.type.startsWith("tool-"));
    expect(toolChunks[0]).toEqual({ type: "tool-input-start", toolCallId: call.tool_call_id, toolName: call.name });
    expect(toolChunks.at(-1)).toEqual({ type: "tool-input-available", toolCallId: call.tool_call_id, toolName: call.name, input: call.arguments });
    const text = toolChunks.filter((c) => c.type === "tool-input-delta").map((c) => c.inputTextDelta).join("");
    expect(JSON.parse(text)).toEqual(call.arguments);
    expect(r.chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });
  });

  test("sample error: the text so far, then one error chunk (the upstream's message) and the end; no finish", async () => {
    const r = await run(sampleText("error"));
    expect(r.error).toBeInstanceOf(UpstreamError);
    await checkChunks(r.chunks);
    expect(r.chunks.at(-1)).toEqual({ type: "error", errorText: (r.error as Error).message });
    expect(r.chunks.filter((c) => c.type === "error")).toHaveLength(1);
    expect(r.chunks.some((c) => c.type === "finish")).toBe(false);
    const { message, errors } = await readBack(r.chunks);
    expect(errors).toEqual([(r.error as Error).message]);
    expect(message!.parts).toEqual([{ type: "text", text: "The three largest moons of Jupiter are Ganymede, Callisto and", state: "streaming" }]);
  });
});

describe("streams no sample has", () => {
  test("a single-fragment tool call (name, id and the whole arguments in one delta)", async () => {
    const args = { city: "Paris", days: [1, 2] };
    const r = await run(F.sse([F.delta(F.tool("forecast", "call_9", JSON.stringify(args))), F.delta(F.toolDone("forecast", "call_9", args)), F.stop("tool_call")]));
    await checkComplete(r);
    expect(r.chunks.filter((c) => c.type === "tool-input-delta")).toEqual([{ type: "tool-input-delta", toolCallId: "call_9", inputTextDelta: JSON.stringify(args) }]);
  });

  test("a tool call with empty arguments (\"\" counts as {})", async () => {
    const r = await run(F.sse([F.delta(F.tool("now", "c1", "")), F.delta(F.toolDone("now", "c1", {})), F.stop("tool_call")]));
    await checkComplete(r);
    expect(r.chunks.some((c) => c.type === "tool-input-delta")).toBe(false);
  });

  test("inline thinking → reasoning-file; fidelity on text, a tool call and an image travels and comes back", async () => {
    const png = "iVBORw0KGgo=";
    const r = await run(
      F.sse([
        F.delta(F.inline(png, "image/png", "inline_thinking")),
        F.delta(F.inlineDone(png, "image/png", "inline_thinking")),
        F.delta(F.text("Hi", { phase: "final_answer" })),
        F.delta(F.text(" there")),
        F.delta(F.textDone("Hi there", { phase: "final_answer" })),
        F.delta({ ...F.tool("f", "t1", '{"a":'), fidelity: { thought_signature: "c2ln" } }),
        F.delta(F.tool("", "", "1}")),
        F.delta({ ...F.toolDone("f", "t1", { a: 1 }), fidelity: { thought_signature: "c2ln" } }),
        F.delta(F.inline("AAEC", "image/png", "inline_data", { id: "img-1" })),
        F.delta(F.inlineDone("AAEC", "image/png", "inline_data", { id: "img-1" })),
        F.stop("unknown"),
      ]),
    );
    const ui = await checkComplete(r);
    expect(ui.parts.map((p) => p.type)).toEqual(["reasoning-file", "text", "tool-f", "file"]);
    expect(r.chunks.at(-1)).toMatchObject({ finishReason: "other" });
  });

  test("a protocol error mid-stream: the valid chunks, then an error chunk naming the rule's violation, then the end", async () => {
    const r = await run(F.sse([F.delta(F.text("Hel")), F.delta(F.text("lo")), F.delta(F.thinking("hmm")), F.delta(F.thinkingDone("hmm")), F.stop()]));
    expect(r.error).toBeInstanceOf(StreamProtocolError);
    expect((r.error as StreamProtocolError).rule).toBe("NO-INTERLEAVE");
    await checkChunks(r.chunks);
    expect(r.chunks.map((c) => c.type)).toEqual(["start", "text-start", "text-delta", "text-delta", "error"]);
    expect(r.chunks.at(-1)).toEqual({ type: "error", errorText: (r.error as Error).message });
    expect((r.chunks.at(-1) as { errorText: string }).errorText).toMatch(/^test-upstream broke the streaming protocol: /);
    const { message, errors } = await readBack(r.chunks);
    expect(errors).toHaveLength(1);
    expect(message!.parts).toEqual([{ type: "text", text: "Hello", state: "streaming" }]);
  });

  test("onError chooses the error text (e.g. to keep details from a browser)", async () => {
    const events = new UniEventStream();
    const chunks: UIMessageChunk[] = [];
    const body = new Response(sampleText("error")).body!.pipeThrough(events).pipeThrough(new UIMessageChunkStream({ onError: (e) => `failed: ${(e as Error).name}` }));
    for await (const c of body) chunks.push(c);
    await events.message.catch(() => {});
    expect(chunks.at(-1)).toEqual({ type: "error", errorText: "failed: UpstreamError" });
  });

  test("a generated message id when none is given (msg-…, different each time)", async () => {
    const a = new UIMessageChunkStream();
    const b = new UIMessageChunkStream();
    expect(a.messageId).toMatch(/^msg-[0-9a-zA-Z]{16}$/);
    expect(a.messageId).not.toBe(b.messageId);
    const reader = a.readable.getReader();
    expect((await reader.read()).value).toEqual({ type: "start", messageId: a.messageId });
  });

  test("input that is not a checked stream: an error chunk, the end, and the write fails (the source is cancelled)", async () => {
    const stream = new UIMessageChunkStream({ messageId: "x" });
    let cancelled: unknown = "not cancelled";
    const source = new ReadableStream<UniEvent>({
      start(c) {
        c.enqueue(F.delta(F.textDone("no deltas first")) as unknown as UniEvent);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const piped = source.pipeThrough(stream);
    const chunks: UIMessageChunk[] = [];
    for await (const c of piped) chunks.push(c);
    expect(chunks.map((c) => c.type)).toEqual(["start", "error"]);
    expect((chunks[1] as { errorText: string }).errorText).toMatch(/text\.done without its deltas/);
    expect(cancelled).toBeInstanceOf(TypeError);
  });

  test("an input that ends without the stop event ends with an error chunk", async () => {
    const stream = new UIMessageChunkStream({ messageId: "x" });
    const w = stream.writable.getWriter();
    const all = (async () => {
      const out: UIMessageChunk[] = [];
      for await (const c of stream.readable) out.push(c);
      return out;
    })();
    await w.write(F.delta(F.text("a")) as unknown as UniEvent);
    await w.close();
    const chunks = await all;
    expect(chunks.map((c) => c.type)).toEqual(["start", "text-start", "text-delta", "error"]);
    expect((chunks.at(-1) as { errorText: string }).errorText).toMatch(/ended before its stop event/);
  });
});

describe("where each item came from (issue #36)", () => {
  /** A provider's stream (the package's reader, on a fake of that provider answering `capture`) → the adapter's chunks. */
  async function fromProvider(name: "anthropic" | "openai-chat" | "gemini", capture: string): Promise<Run> {
    const fake = fakeProvider(name, { streams: { m: parseCapture(capture) } });
    const factory = { anthropic, "openai-chat": openaiChat, gemini }[name];
    const baseURL = { anthropic: "https://api.anthropic.test", "openai-chat": "https://api.openai.test/v1", gemini: "https://gemini.test/v1beta" }[name];
    const events = factory({ apiKey: "k", baseURL, fetch: fake as typeof fetch }).stream({ model: "m", messages: [] });
    const chunks: UIMessageChunk[] = [];
    for await (const c of events.readable.pipeThrough(new UIMessageChunkStream({ messageId: "m-1" }))) chunks.push(c);
    return { chunks, message: await events.message };
  }

  const cases = [
    ["anthropic", ANT.THINKING, "a signed thinking block"],
    ["anthropic", ANT.REDACTED, "redacted thinking"],
    ["openai-chat", CHAT.OPENROUTER_CLAUDE_TOOL, "OpenRouter reasoning_details"],
    ["gemini", GEM.PARALLEL_CALLS, "a signed function call"],
  ] as const;
  for (const [name, capture, what] of cases) {
    test(`${name}, ${what}: fidelity.provider and fidelity.model survive chunks → UIMessage → toMmspMessages, byte for byte`, async () => {
      const r = await fromProvider(name, capture);
      const ui = await checkComplete(r);
      const stamped = r.message!.content_items.filter((i) => "fidelity" in i && i.fidelity && "provider" in i.fidelity);
      expect(stamped.length, "the reader stamped a bound item").toBeGreaterThan(0);
      for (const item of stamped) {
        const fidelity = (item as { fidelity: Record<string, unknown> }).fidelity;
        expect(fidelity.provider).toBe(name);
        expect(typeof fidelity.model).toBe("string");
      }
      // each item's fidelity as the provider's reader wrote it, member order and all
      const [back] = toMmspMessages([ui]);
      const fidelities = (m: UniMessage) => m.content_items.map((i) => JSON.stringify((i as { fidelity?: unknown }).fidelity));
      expect(fidelities(back!)).toEqual(fidelities(r.message!));
    });
  }
});

describe("stream behaviour", () => {
  /** A source of `n` text deltas (then done and stop) that counts how many events were pulled. */
  function countingSource(n: number) {
    const events = [...Array.from({ length: n }, (_, i) => F.delta(F.text(`${i} `))), F.delta(F.textDone(Array.from({ length: n }, (_, i) => `${i} `).join(""))), F.stop()];
    const state = { pulled: 0, cancelled: false as boolean, reason: undefined as unknown };
    let resolveCancel!: () => void;
    const cancelled = new Promise<void>((r) => (resolveCancel = r));
    const source = new ReadableStream<UniEvent>(
      {
        pull(c) {
          if (state.pulled < events.length) c.enqueue(events[state.pulled++] as unknown as UniEvent);
          else c.close();
        },
        cancel(reason) {
          state.cancelled = true;
          state.reason = reason;
          resolveCancel();
        },
      },
      { highWaterMark: 0 },
    );
    return { source, state, cancelled };
  }
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  };

  test("backpressure: with nobody reading, only a few events are pulled from the source", async () => {
    const { source, state } = countingSource(200);
    const readable = source.pipeThrough(new UIMessageChunkStream({ messageId: "x" }));
    const reader = readable.getReader();
    await reader.read();
    await reader.read();
    await settle();
    expect(state.pulled).toBeLessThan(6);
    const before = state.pulled;
    for (let i = 0; i < 50; i++) await reader.read();
    await settle();
    expect(state.pulled).toBeGreaterThan(before + 40);
    expect(state.pulled).toBeLessThan(before + 56);
    await reader.cancel();
  });

  test("cancelling the chunks cancels the source, with the reason", async () => {
    const { source, state, cancelled } = countingSource(1000);
    const reader = source.pipeThrough(new UIMessageChunkStream({ messageId: "x" })).getReader();
    for (let i = 0; i < 5; i++) await reader.read();
    await reader.cancel(new Error("user pressed stop"));
    await cancelled;
    expect(state.cancelled).toBe(true);
    expect(String(state.reason)).toMatch(/user pressed stop/);
    expect(state.pulled).toBeLessThan(20);
  });

  test("the Response body: cancelling it cancels the source", async () => {
    const { source, cancelled } = countingSource(1000);
    const res = toUIMessageStreamResponse(source.pipeThrough(new UIMessageChunkStream({ messageId: "x" })));
    const reader = res.body!.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel();
    await cancelled;
  });
});

describe("toUIMessageStreamResponse", () => {
  test("the AI SDK's headers, SSE framing with [DONE]; DefaultChatTransport reads it back chunk for chunk", async () => {
    const r = await run(sampleText("tool-call"));
    const res = toUIMessageStreamResponse(new Response(sampleText("tool-call")).body!.pipeThrough(new UniEventStream()).pipeThrough(new UIMessageChunkStream({ messageId: "m-1" })), {
      headers: { "access-control-allow-origin": "*" },
    });
    for (const [k, v] of Object.entries(AI_HEADERS)) expect(res.headers.get(k), k).toBe(v);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const text = await res.clone().text();
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    expect(text.split("\n\n").filter(Boolean)).toHaveLength(r.chunks.length + 1);
    let request: { url: string; body: unknown } | undefined;
    const transport = new DefaultChatTransport({
      api: "http://relay.invalid/api/chat",
      body: { model: "m", config: {} },
      fetch: async (url, init) => ((request = { url: String(url), body: JSON.parse(String(init!.body)) }), res),
    });
    const stream = await transport.sendMessages({
      chatId: "c",
      messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "hi" }] }],
      trigger: "submit-message",
      messageId: undefined,
      abortSignal: undefined,
    });
    const got: unknown[] = [];
    for await (const c of stream) got.push(c);
    expect(got).toEqual(r.chunks);
    expect(request!.body).toMatchObject({ id: "c", trigger: "submit-message", model: "m", config: {}, messages: [{ role: "user" }] });
  });

  test("status and headers from init; a readable that errors becomes an error chunk and [DONE]", async () => {
    let pulls = 0;
    const failing = new ReadableStream<UIMessageChunk>(
      {
        pull(c) {
          if (pulls++ === 0) c.enqueue({ type: "start", messageId: "a" });
          else c.error(new Error("boom"));
        },
      },
      { highWaterMark: 0 },
    );
    const res = toUIMessageStreamResponse(failing, { status: 201, headers: { "x-extra": "1" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-extra")).toBe("1");
    expect(await res.text()).toBe('data: {"type":"start","messageId":"a"}\n\ndata: {"type":"error","errorText":"boom"}\n\ndata: [DONE]\n\n');
  });
});

describe("toMmspMessages", () => {
  const img = "data:image/png;base64,AAEC";
  test("user text and files: an image → image_url.done (any URL), another file with a data: URL → inline_data.done", () => {
    const out = toMmspMessages([
      {
        id: "u1",
        role: "user",
        parts: [
          { type: "text", text: "Look" },
          { type: "file", mediaType: "image/png", url: img },
          { type: "file", mediaType: "image/jpeg", url: "https://example.com/a.jpg" },
          { type: "file", mediaType: "text/plain", url: "data:text/plain,a%20b%C3%A9" },
          { type: "file", mediaType: "application/pdf", url: "data:application/pdf;base64,JVBERg==" },
        ],
      },
    ]);
    expect(out).toStrictEqual([
      {
        role: "user",
        content_items: [
          { type: "text.done", text: "Look" },
          { type: "image_url.done", image_url: img },
          { type: "image_url.done", image_url: "https://example.com/a.jpg" },
          { type: "inline_data.done", data: new TextEncoder().encode("a bé"), mime_type: "text/plain" },
          { type: "inline_data.done", data: Uint8Array.from([0x25, 0x50, 0x44, 0x46]), mime_type: "application/pdf" },
        ],
      },
    ]);
  });

  test("tool parts with outputs: tool_call.done in the assistant message, tool_result.done in a user message after it; steps split", () => {
    const out = toMmspMessages([
      { id: "u", role: "user", parts: [{ type: "text", text: "Weather?" }] },
      {
        id: "a",
        role: "assistant",
        parts: [
          { type: "step-start" },
          { type: "tool-get_weather", toolCallId: "c1", state: "output-available", input: { city: "Paris" }, output: { temp: 18 }, callProviderMetadata: { mmsp: { sig: "s" } } },
          { type: "dynamic-tool", toolName: "lookup", toolCallId: "c2", state: "output-error", input: {}, errorText: "no such thing" },
          { type: "tool-noop", toolCallId: "c3", state: "output-available", input: {}, output: "done" },
          { type: "step-start" },
          { type: "text", text: "18 °C in Paris." },
          { type: "tool-partial", toolCallId: "c4", state: "input-streaming", input: { ci: "Pa" } },
        ],
      },
    ]);
    expect(out).toStrictEqual([
      { role: "user", content_items: [{ type: "text.done", text: "Weather?" }] },
      {
        role: "assistant",
        content_items: [
          { type: "tool_call.done", name: "get_weather", arguments: { city: "Paris" }, tool_call_id: "c1", fidelity: { sig: "s" } },
          { type: "tool_call.done", name: "lookup", arguments: {}, tool_call_id: "c2" },
          { type: "tool_call.done", name: "noop", arguments: {}, tool_call_id: "c3" },
        ],
      },
      {
        role: "user",
        content_items: [
          { type: "tool_result.done", text: '{"temp":18}', tool_call_id: "c1" },
          { type: "tool_result.done", text: "no such thing", tool_call_id: "c2" },
          { type: "tool_result.done", text: "done", tool_call_id: "c3" },
        ],
      },
      { role: "assistant", content_items: [{ type: "text.done", text: "18 °C in Paris." }] },
    ]);
  });

  test("an unconvertible part is a UIMessageConversionError naming the message, the part and its type; or skipped on request", () => {
    const messages = [
      { id: "u", role: "user" as const, parts: [{ type: "text", text: "a" }] },
      { id: "a", role: "assistant" as const, parts: [{ type: "text", text: "b" }, { type: "source-url", sourceId: "s", url: "https://x" }] },
    ];
    let error: unknown;
    try {
      toMmspMessages(messages);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UIMessageConversionError);
    expect(error).toBeInstanceOf(MmspError); // the shared base class, across the two entries
    expect(error).toMatchObject({ messageIndex: 1, partIndex: 1, partType: "source-url" });
    expect((error as Error).message).toMatch(/^toMmspMessages: messages\[1\]\.parts\[1\] \(type "source-url"\) cannot be converted to MMSP: /);
    expect(toMmspMessages(messages, { unconvertibleParts: "skip" })).toStrictEqual([
      { role: "user", content_items: [{ type: "text.done", text: "a" }] },
      { role: "assistant", content_items: [{ type: "text.done", text: "b" }] },
    ]);
    expect(() => toMmspMessages([{ id: "s", role: "system", parts: [{ type: "text", text: "be brief" }] }])).toThrow(/messages\[0\] \(role "system"\)/);
    expect(() => toMmspMessages([{ id: "a", role: "assistant", parts: [{ type: "file", mediaType: "image/png", url: "https://x/y.png" }] }])).toThrow(/parts\[0\] \(type "file"\)/);
    expect(() => toMmspMessages([{ id: "a", role: "assistant", parts: [{ type: "tool-f", toolCallId: "c", state: "input-available", input: [1] }] }])).toThrow(/not a JSON object/);
  });
});

test("the core entry does not carry the adapter (it is the subpath mmsp-streams/ai-sdk)", async () => {
  const core = await import("../../dist/index.js");
  for (const name of ["UIMessageChunkStream", "toMmspMessages", "toUIMessageStreamResponse", "UIMessageConversionError"]) expect(core).not.toHaveProperty(name);
});

describe("options are checked at construction", () => {
  test("UIMessageChunkStream", () => {
    // the package's one option checker: the same message format as every other export's
    expect(() => new UIMessageChunkStream({ messageId: "" })).toThrow(new RangeError('UIMessageChunkStream: options.messageId must be a non-empty string; received ""'));
    expect(() => new UIMessageChunkStream({ messageId: "" })).toThrow(RangeError);
    expect(() => new UIMessageChunkStream({ messageId: 5 as never })).toThrow(TypeError);
    expect(() => new UIMessageChunkStream({ messageId: 5 as never })).toThrow(/options\.messageId must be a non-empty string; received 5$/);
    expect(() => new UIMessageChunkStream({ onError: "x" as never })).toThrow(/options\.onError must be a function; received "x"$/);
    expect(() => new UIMessageChunkStream({ messageID: "a" } as never)).toThrow(/unknown option "messageID" \(did you mean "messageId"\?\); the options are messageId, onError$/);
    expect(() => new UIMessageChunkStream(7 as never)).toThrow(TypeError);
  });
  test("toMmspMessages and toUIMessageStreamResponse", () => {
    expect(() => toMmspMessages([], { unconvertibleParts: "drop" as never })).toThrow(
      /toMmspMessages: options\.unconvertibleParts must be one of "error", "skip"; received "drop" \(did you mean "skip"\?\)$/,
    );
    expect(() => toMmspMessages({} as never)).toThrow(/toMmspMessages: uiMessages must be an array of UIMessage; received an object$/);
    expect(() => toUIMessageStreamResponse("data" as never)).toThrow(/toUIMessageStreamResponse: readable must be a ReadableStream of UI message chunks; received "data"$/);
  });
});
