// Issue #49's fused stateless path, in Node: a provider's reader and a door's encoder in one loop per
// provider chunk (providers/batches.ts: the provider's own reader giving one array of events per chunk;
// stream/encoding.ts `encodedBody`: the chunk's events encoded and written as one string) writes exactly
// the bytes the staged path wrote: the same reader one event per read (ProviderEventStream's), then
// the door's encoder core as its own stage (MMSP: the SSE and NDJSON encoder streams the stateless
// MMSP door used). For random provider answers (Anthropic, OpenAI Chat, Gemini: text, a tool call),
// chunked at random, whole or cut (the connection errors, or the body ends early), metered as the
// stateless path meters them (the same settlement); for every door's encoding, streamed and whole.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { NdjsonEncoderStream, SseEncoderStream } from "../../../../src/encode.ts";
import { streamedEvents } from "../../../../src/internal/answer-events.ts";
import { CoreStream } from "../../../../src/internal/core-stream.ts";
import type { UniEvent } from "../../../../src/index.ts";
import { flattened } from "../../../../src/relay/reads.ts";
import { PROVIDERS } from "../../../../src/providers/names.ts";
import { ProviderBatchStream, ProviderReaderStream } from "../../../../src/providers/read.ts";
import { metered, StreamCost } from "../../../../src/relay/accounting/stream-cost.ts";
import type { Settlement } from "../../../../src/relay/accounting/quota.ts";
import { messagesEncoding, messagesMetaText } from "../../../../src/relay/doors/anthropic-messages/encoding.ts";
import { chatCompletionsEncoding, chatMetaText } from "../../../../src/relay/doors/chat-completions/encoding.ts";
import { geminiEncoding } from "../../../../src/relay/doors/gemini/encoding.ts";
import { metaText, openResponsesEncoding } from "../../../../src/relay/doors/open-responses/encoding.ts";
import { messageIdMeta, uiChatEncoding } from "../../../../src/relay/doors/ui-chat/encoding.ts";
import { type DoorEncoding, type EncodingContext, mmspEncoding, sealedEvents } from "../../../../src/relay/stream/encoding.ts";
import { encodedBody } from "../../../../src/relay/stream/encoded-body.ts";
import { encodedAnswer } from "../../../../src/relay/stream/door-answer.ts";
import { MMSP_KEEP_ALIVE } from "../../../../src/relay/stream/client-format.ts";
import { through } from "../../../../src/relay/through.ts";
import { holds } from "../../../property.ts";

type Json = Record<string, unknown>;
type Upstream = "anthropic" | "openai-chat" | "gemini";

const sse = (messages: [string | null, unknown][]): string =>
  messages.map(([event, data]) =>
    (event ? `event: ${event}\n` : "") + `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`
  )
    .join("");

/** `json` cut into `n` fragments (some may be empty). */
const fragments = (json: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => json.slice(Math.floor((i * json.length) / n), Math.floor(((i + 1) * json.length) / n)));

/** A provider's streamed answer: `texts` as text deltas, then a tool call with `args` in `parts` fragments, if any. */
function answerOf(upstream: Upstream, texts: string[], tool: { args: Json; parts: number } | null): string {
  const argsJson = tool ? JSON.stringify(tool.args) : "";
  if (upstream === "anthropic") {
    const m: [string, unknown][] = [
      ["message_start", {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-x",
          content: [],
          usage: { input_tokens: 12, output_tokens: 1 },
        },
      }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ...texts.map((
        text,
      ): [string, unknown] => ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }]),
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ];
    if (tool) {
      m.push(["content_block_start", {
        type: "content_block_start",
        index: 1,
        content_block: { type: "tool_use", id: "toolu_1", name: "lookup", input: {} },
      }]);
      for (const f of fragments(argsJson, tool.parts)) {
        m.push(["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: f } }]);
      }
      m.push(["content_block_stop", { type: "content_block_stop", index: 1 }]);
    }
    m.push(["message_delta", {
      type: "message_delta",
      delta: { stop_reason: tool ? "tool_use" : "end_turn" },
      usage: { output_tokens: 40 },
    }]);
    m.push(["message_stop", { type: "message_stop" }]);
    return sse(m);
  }
  if (upstream === "openai-chat") {
    const chunk = (delta: Json, finish_reason: string | null = null) => ({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1767225600,
      model: "gpt-x",
      choices: [{ index: 0, delta, finish_reason }],
    });
    const m: [null, unknown][] = [
      [null, chunk({ role: "assistant", content: "" })],
      ...texts.map((content): [null, unknown] => [null, chunk({ content })]),
    ];
    if (tool) {
      m.push([null, chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "lookup", arguments: "" } }] })]);
      for (const f of fragments(argsJson, tool.parts)) m.push([null, chunk({ tool_calls: [{ index: 0, function: { arguments: f } }] })]);
    }
    m.push([null, chunk({}, tool ? "tool_calls" : "stop")]);
    m.push([null, { ...chunk({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: 40, total_tokens: 52 } }]);
    m.push([null, "[DONE]"]);
    return sse(m);
  }
  const usageMetadata = { promptTokenCount: 12, candidatesTokenCount: 40, totalTokenCount: 52 };
  const part = (p: Json, finishReason?: string) => ({
    candidates: [{ content: { role: "model", parts: [p] }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata,
    modelVersion: "gemini-x",
  });
  const m: [null, unknown][] = texts.map((text) => [null, part({ text })]);
  if (tool) m.push([null, part({ functionCall: { name: "lookup", args: tool.args } })]);
  m.push([null, part({ text: "" }, "STOP")]);
  return sse(m);
}

/** How the answer's bytes come: its chunks' ends, and a cut (the connection errors, or the body ends) at a byte, or none. */
interface Delivery {
  cuts: number[];
  cut: { at: number; how: "error" | "end" } | null;
}

/** A fresh body of `bytes` as `delivery` says. */
function bodyOf(bytes: Uint8Array, { cuts, cut }: Delivery): ReadableStream<Uint8Array> {
  const last = cut ? cut.at % (bytes.length + 1) : bytes.length;
  const ends = [...new Set(cuts.map((c) => c % (last + 1)))].filter((c) => c > 0).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const end of [...ends, last]) {
    if (end > from) chunks.push(bytes.slice(from, end));
    from = Math.max(from, end);
  }
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) return controller.enqueue(chunks[i++]!);
      if (cut?.how === "error") controller.error(new TypeError("terminated"));
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

const TICKET = { id: "claim-1", principal: "p", model: "m", input: 12 };

/** The provider's answer read one event per read (staged), metered as the stateless path meters it. */
function readOne(upstream: Upstream, bytes: Uint8Array, delivery: Delivery, settled: Settlement[]): ReadableStream<UniEvent> {
  const events = streamedEvents(bodyOf(bytes, delivery), "https://provider.test/v1", new ProviderReaderStream(PROVIDERS[upstream], {}, {}));
  events.message.catch(() => {});
  return metered(events.readable, new StreamCost(TICKET), upstream, (s) => void settled.push(s));
}

/** The same answer read one array of events per chunk (fused), metered the same way. */
function readBatches(upstream: Upstream, bytes: Uint8Array, delivery: Delivery, settled: Settlement[]): ReadableStream<UniEvent[]> {
  const events = streamedEvents(bodyOf(bytes, delivery), "https://provider.test/v1", new ProviderBatchStream(PROVIDERS[upstream], {}, {}));
  events.message.catch(() => {});
  return metered(events.readable, new StreamCost(TICKET), upstream, (s) => void settled.push(s));
}

/** The staged door: the encoding's sealing step, then its encoder core as its own stage, each output framed; its end after the last. */
async function stagedDoor(events: ReadableStream<UniEvent>, encoding: DoorEncoding, context: EncodingContext): Promise<string> {
  const reader = through(sealedEvents(events, encoding, context), new CoreStream(encoding.core(context))).getReader();
  let text = "";
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      await encoding.settle?.(r.value, context);
      if (!encoding.keep || encoding.keep(r.value, context)) text += encoding.frame(r.value);
    }
  } catch {
    // (an encoder core without `abort`: its stage errors; the fused writer then writes the end only)
  }
  return text + encoding.end;
}

const ID = "0123456789abcdef0123456789abcdef";
const DOORS: [string, DoorEncoding, string | null][] = [
  ["open-responses", openResponsesEncoding as DoorEncoding, metaText({ model: "m-1", createdAt: 1_800_000_000, echo: {} })],
  ["chat-completions", chatCompletionsEncoding as DoorEncoding, chatMetaText({ model: "m-1", created: 1_800_000_000, includeUsage: true })],
  ["anthropic-messages", messagesEncoding as DoorEncoding, messagesMetaText({ model: "m-1", inputTokens: 12 })],
  ["gemini", geminiEncoding as DoorEncoding, encodeURIComponent("m-1")],
  ["ui-chat", uiChatEncoding as DoorEncoding, messageIdMeta("msg-1")],
];

const answers = fc.record({
  upstream: fc.constantFrom<Upstream>("anthropic", "openai-chat", "gemini"),
  texts: fc.array(fc.string({ minLength: 1, maxLength: 12, unit: "grapheme" }), { minLength: 1, maxLength: 24 }),
  tool: fc.option(
    fc.record({
      args: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer())),
      parts: fc.integer({ min: 1, max: 6 }),
    }),
    { nil: null },
  ),
  delivery: fc.record({
    cuts: fc.array(fc.nat(), { maxLength: 12 }),
    cut: fc.option(fc.record({ at: fc.nat(), how: fc.constantFrom<"error" | "end">("error", "end") }), { nil: null, freq: 3 }),
  }),
});

describe("the fused stateless path writes what the staged path wrote, byte for byte (issue #49)", () => {
  // (the events' created_at and the encoders' timestamps: one clock for both paths)
  beforeAll(() => void vi.useFakeTimers({ toFake: ["Date"], now: 1_800_000_000_000 }));
  afterAll(() => void vi.useRealTimers());

  test("MMSP's door (SSE, NDJSON): the provider's batches through MMSP's encoding, against the reader stage then the encoder stream", async () => {
    await holds(
      fc.asyncProperty(answers, fc.constantFrom<"sse" | "ndjson">("sse", "ndjson"), async ({ upstream, texts, tool, delivery }, format) => {
        const bytes = new TextEncoder().encode(answerOf(upstream, texts, tool));
        const [before, after]: Settlement[][] = [[], []];
        const stage = format === "sse" ? new SseEncoderStream({ keepAliveMs: 15_000 }) : new NdjsonEncoderStream();
        const staged = await new Response(through(readOne(upstream, bytes, delivery, before), stage)).text();
        const encoding = mmspEncoding(format, "text/event-stream");
        const fused = await new Response(
          encodedBody(readBatches(upstream, bytes, delivery, after), encoding, { id: "", meta: null, after: null }),
        ).text();
        expect(fused).toBe(staged);
        expect(after).toEqual(before);
        expect(before).toHaveLength(1);
      }),
      { numRuns: 150 },
    );
  });

  for (const [name, encoding, meta] of DOORS) {
    test(`${name}: streamed, and whole where the API has a whole answer`, async () => {
      {
        const context: EncodingContext = { id: ID, meta, after: null };
        await holds(
          fc.asyncProperty(answers, async ({ upstream, texts, tool, delivery }) => {
            const bytes = new TextEncoder().encode(answerOf(upstream, texts, tool));
            const [before, after]: Settlement[][] = [[], []];
            const staged = await stagedDoor(readOne(upstream, bytes, delivery, before), encoding, context);
            const fused = await (await encodedAnswer(readBatches(upstream, bytes, delivery, after), encoding, context, false)).text();
            expect(fused).toBe(staged);
            expect(after).toEqual(before);
            if (!encoding.whole) return;
            const wholeStaged = await encoding.whole(sealedEvents(readOne(upstream, bytes, delivery, []), encoding, context), context);
            const wholeFused = await encodedAnswer(readBatches(upstream, bytes, delivery, []), encoding, context, true);
            expect([wholeFused.status, await wholeFused.text()]).toEqual([wholeStaged.status, await wholeStaged.text()]);
          }),
          { numRuns: 80 },
        );
      }
    });
  }

  test("the batches are the provider's chunks: one read per chunk, the same events in the same order as read one by one", async () => {
    await holds(
      fc.asyncProperty(answers, async ({ upstream, texts, tool, delivery }) => {
        const bytes = new TextEncoder().encode(answerOf(upstream, texts, tool));
        const one: unknown[] = [];
        const batches: UniEvent[][] = [];
        const collect = async <T>(readable: ReadableStream<T>, into: T[]) => {
          const reader = readable.getReader();
          try {
            for (let r = await reader.read(); !r.done; r = await reader.read()) into.push(r.value);
            return "end";
          } catch (e) {
            return `${(e as Error).name}: ${(e as Error).message}`;
          }
        };
        const endOne = await collect(readOne(upstream, bytes, delivery, []), one);
        const endBatches = await collect(readBatches(upstream, bytes, delivery, []), batches);
        expect(batches.flat()).toEqual(one);
        expect(batches.every((b) => b.length > 0)).toBe(true);
        expect(endBatches).toBe(endOne);
        const flat: unknown[] = [];
        expect(await collect(flattened(readBatches(upstream, bytes, delivery, [])), flat)).toBe(endOne);
        expect(flat).toEqual(one);
      }),
      { numRuns: 100 },
    );
  });
});

describe("the fused MMSP door keeps a silent stream alive as the SSE encoder stage did", () => {
  test("`: keep-alive` after 15 s without output, none while events flow, the timer gone at the end", async () => {
    vi.useFakeTimers();
    try {
      let source!: ReadableStreamDefaultController<UniEvent[]>;
      const events = new ReadableStream<UniEvent[]>({ start: (c) => void (source = c) });
      const body = encodedBody(events, mmspEncoding("sse", "text/event-stream"), { id: "", meta: null, after: null }, MMSP_KEEP_ALIVE);
      const reader = body.getReader();
      const utf8 = new TextDecoder();
      const next = reader.read();
      await vi.advanceTimersByTimeAsync(14_999);
      expect(vi.getTimerCount()).toBe(1); // (nothing written yet: the keep-alive waits)
      await vi.advanceTimersByTimeAsync(1);
      expect(utf8.decode((await next).value)).toBe(": keep-alive\n\n");
      const delta = {
        role: "assistant",
        event_type: "delta",
        content_items: [{ type: "text.delta", text: "Hi" }],
        usage_metadata: null,
        finish_reason: null,
      };
      const read = reader.read();
      await vi.advanceTimersByTimeAsync(10_000);
      source.enqueue([delta as UniEvent]);
      expect(utf8.decode((await read).value)).toBe(`data: ${JSON.stringify(delta)}\n\n`);
      const quiet = reader.read();
      await vi.advanceTimersByTimeAsync(14_999); // (15 s since the event, not since the last keep-alive)
      source.close();
      expect(utf8.decode((await quiet).value)).toBe("data: [DONE]\n\n");
      expect((await reader.read()).done).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
