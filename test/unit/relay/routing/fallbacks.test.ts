// Issue #38 in Node, stateless: a models row as a list of targets (fallback.ts), continuation after
// the first token (continuation.ts), the stall watchdog (watchdog.ts), the spans (tracing.ts, with the
// real @opentelemetry/sdk-trace-base), against the kit's fake providers (refuse, cut, stall, prefix).
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { fromResponse } from "../../../../src/index.ts";
import { anthropic, openaiChat, ProviderEventStream } from "../../../../src/providers/index.ts";
import { createRelay, type RelayModel, type RelayModels } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";

const capture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const chatCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/openai-chat.sse", import.meta.url), "utf8"));
const sse = (events: object[]): string => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const toolCapture = parseCapture(sse([
  { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city":' } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
  { type: "message_stop" },
]));
/** The whole text of the sample answer, as the provider's own reader reads it. */
const fullText = async (): Promise<string> => {
  const stream = new ProviderEventStream("anthropic");
  void new Response(capture.body as BodyInit).body!.pipeTo(stream.writable);
  const m = await stream.message;
  return (m.content_items[0] as { text: string }).text;
};

type Faults = Record<string, unknown>;
function target(kind: "anthropic" | "openai-chat", faults: Faults = {}, extra: Partial<RelayModel> = {}, model = "m") {
  const streams = { [model]: { capture: kind === "anthropic" ? (faults.tool ? toolCapture : capture) : chatCapture, ...faults, tool: undefined } };
  delete (streams[model] as Faults).tool;
  const fake = fakeProvider(kind, { streams: streams as never });
  const provider = kind === "anthropic"
    ? anthropic({ apiKey: "sk-ant-a-KEY-000000", baseURL: "https://a.test", fetch: fake })
    : openaiChat({ apiKey: "sk-o-KEY-0000000000", baseURL: "https://o.test/v1", fetch: fake });
  return { fake, row: { provider, model, ...extra } as RelayModel };
}
const post = (model = "fb") =>
  new Request("https://relay.test/v1/stream", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config: { max_tokens: 64 } }),
  });
const relayOf = (models: RelayModels, tracer?: never) => createRelay({ models, allowAnonymous: true, clientAddress: () => "203.0.113.9", ...(tracer ? { tracer } : {}) });
const read = (answer: Response) => fromResponse(answer, { client: "relay" });

test("a 429 then a success: the second target serves, x-mmsp-provider names it", async () => {
  const a = target("anthropic", { refuse: 429 });
  const b = target("openai-chat");
  const answer = await relayOf({ fb: [a.row, b.row] }).fetch(post(), {});
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
  await read(answer).message;
  expect([a.fake.requests.length, b.fake.requests.length]).toEqual([1, 1]);
});

test("an unreachable first target: the next one serves", async () => {
  const down = anthropic({ apiKey: "sk-ant-a-KEY-000000", baseURL: "https://down.test", fetch: () => Promise.reject(new TypeError("fetch failed")) });
  const b = target("openai-chat");
  const answer = await relayOf({ fb: [{ provider: down, model: "m" }, b.row] }).fetch(post(), {});
  expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
  await read(answer).message;
});

test("a first target silent past FIRST_EVENT_S: aborted, the next one serves", async () => {
  const a = target("anthropic", { cutAfterEvents: 0, stallMs: Infinity });
  const b = target("openai-chat");
  const answer = await relayOf({ fb: [a.row, b.row] }).fetch(post(), { FIRST_EVENT_S: "0.05" });
  expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
  await read(answer).message;
  expect(a.fake.requests[0]!.aborted).not.toBeNull();
});

test("what a retry cannot mend is not retried (400, 404): the first refusal is the answer, no second request", async () => {
  for (const status of [400, 404, 413]) {
    const a = target("anthropic", { refuse: status });
    const b = target("openai-chat");
    const answer = await relayOf({ fb: [a.row, b.row] }).fetch(post(), {});
    expect(answer.status).toBe(status);
    expect(b.fake.requests).toHaveLength(0);
  }
});

test("the last target's refusal is the relay's answer", async () => {
  const a = target("anthropic", { refuse: 503 });
  const b = target("anthropic", { refuse: 429 });
  expect((await relayOf({ fb: [a.row, b.row] }).fetch(post(), {})).status).toBe(429);
});

test("a cut mid-text continued: one text.done, the first target's part then the second's, nothing repeated or lost", async () => {
  const a = target("anthropic", { cutAfterEvents: 9 }, { continueOnFailure: true });
  const b = target("anthropic");
  const answer = await relayOf({ fb: [a.row, b.row] }).fetch(post(), {});
  const { readable, message } = read(answer);
  const events: { content_items: { type: string }[] }[] = [];
  const reader = readable.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
  const m = await message;
  expect(m.content_items).toHaveLength(1);
  expect((m.content_items[0] as { text: string }).text).toBe(await fullText());
  expect(events.filter((e) => e.content_items[0]?.type === "text.done")).toHaveLength(1);
  const asked = b.fake.requests[0]!.json as { messages: { role: string; content: { text: string }[] }[] };
  const prefix = asked.messages.at(-1)!;
  expect(prefix.role).toBe("assistant");
  expect((await fullText()).startsWith(prefix.content.map((p) => p.text).join(""))).toBe(true);
});

test("a body that ends cleanly mid-text (no message_stop: STOP-LAST, as workerd delivers a cut) is continued too", async () => {
  const records = new TextDecoder().decode(capture.body).split(/(?<=\n\n)/);
  const upToText = records.findIndex((r) => r.includes('"text_delta"'));
  const truncated = parseCapture(records.slice(0, upToText + 2).join(""));
  const a = target("anthropic", { capture: truncated }, { continueOnFailure: true });
  const b = target("anthropic");
  const { readable, message } = read(await relayOf({ fb: [a.row, b.row] }).fetch(post(), {}));
  const events = [];
  const reader = readable.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
  const m = await message;
  expect((m.content_items[0] as { text: string }).text).toBe(await fullText());
  expect(b.fake.requests).toHaveLength(1);
  // the stop event's output: the second target's own count plus the first's text before the cut (estimated, 4 bytes a token)
  const alone = await read(await relayOf({ fb: target("anthropic").row }).fetch(post(), {})).message;
  const asked = b.fake.requests[0]!.json as { messages: { content: { text: string }[] }[] };
  const before = asked.messages.at(-1)!.content.map((p) => p.text).join("");
  expect(before.length).toBeGreaterThan(0);
  const second = alone.usage_metadata!.response_tokens!; // (the fake's capture reports the same count continued or not)
  expect(events.at(-1)!.usage_metadata!.response_tokens).toBe(second + Math.ceil(new TextEncoder().encode(before).length / 4));
  // and its input: the second target's plus the first's, as its message_start reported it (both were asked the request)
  const input = alone.usage_metadata!.prompt_tokens!;
  expect(input).toBeGreaterThan(0);
  expect(events.at(-1)!.usage_metadata!.prompt_tokens).toBe(input + input);
});

test("without continueOnFailure a cut mid-text ends with the error, no second request", async () => {
  const a = target("anthropic", { cutAfterEvents: 9 });
  const b = target("anthropic");
  await expect(read(await relayOf({ fb: [a.row, b.row] }).fetch(post(), {})).message).rejects.toThrow(/cannot reach the provider/);
  expect(b.fake.requests).toHaveLength(0);
});

test("a cut mid-tool-call ends with the typed error and no second request", async () => {
  const a = target("anthropic", { tool: true, cutAfterEvents: 3 }, { continueOnFailure: true });
  const b = target("anthropic");
  const answer = await relayOf({ fb: [a.row, b.row] }).fetch(post(), {});
  const error = await read(answer).message.catch((e) => e);
  expect(error.name).toBe("UpstreamError");
  expect(error.errorType).toBe("UpstreamUnavailable");
  expect(b.fake.requests).toHaveLength(0);
});

test("a target that cannot continue a prefix (OpenAI's own API) is not asked to: the error stands", async () => {
  const a = target("anthropic", { cutAfterEvents: 9 }, { continueOnFailure: true });
  const b = target("openai-chat");
  await expect(read(await relayOf({ fb: [a.row, b.row] }).fetch(post(), {})).message).rejects.toThrow();
  expect(b.fake.requests).toHaveLength(0);
});

test("an OpenAI-compatible server with continueFinalMessage continues, asked with vLLM's parameters", async () => {
  const a = target("anthropic", { cutAfterEvents: 9 }, { continueOnFailure: true });
  const chatFake = fakeProvider("openai-chat", { streams: { m: chatCapture } });
  const vllm = openaiChat({ apiKey: "sk-o-KEY-0000000000", baseURL: "https://o.test/v1", fetch: chatFake, continueFinalMessage: true });
  const answer = await relayOf({ fb: [a.row, { provider: vllm, model: "m" }] }).fetch(post(), {});
  await read(answer).message.catch(() => {});
  expect(chatFake.requests[0]!.json).toMatchObject({ continue_final_message: true, add_generation_prompt: false });
});

test("a stall mid-stream (STALL_S): the provider's request aborted, the stream ends with StreamStalled", async () => {
  const a = target("anthropic", { cutAfterEvents: 6, stallMs: Infinity });
  const answer = await relayOf({ fb: a.row }).fetch(post(), { STALL_S: "0.05" });
  const error = await read(answer).message.catch((e) => e);
  expect(error.errorType).toBe("StreamStalled");
  expect(a.fake.requests[0]!.aborted).not.toBeNull();
});

test("stallMs on a provider's stream(): StreamStalled, blaming the provider", async () => {
  const fake = fakeProvider("anthropic", { streams: { m: { capture, cutAfterEvents: 4, stallMs: Infinity } } });
  const claude = anthropic({ apiKey: "sk-ant-a-KEY-000000", baseURL: "https://a.test", fetch: fake });
  const events = claude.stream({ model: "m", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] }, { stallMs: 40 });
  const error = await events.message.catch((e) => e);
  expect([error.name, error.errorType, error.client]).toEqual(["UpstreamError", "StreamStalled", "anthropic"]);
  expect(() => new ProviderEventStream("anthropic", { stallMs: -1 })).toThrow(/stallMs/);
});

test("the client going away during a fallback stops it: no target asked after", async () => {
  const a = target("anthropic", { cutAfterEvents: 0, stallMs: Infinity });
  const b = target("openai-chat");
  const gone = new AbortController();
  const request = new Request(post(), { signal: gone.signal });
  const answering = relayOf({ fb: [a.row, b.row] }).fetch(request, { FIRST_EVENT_S: "5" });
  setTimeout(() => gone.abort(), 30);
  await answering.catch(() => {});
  await new Promise((r) => setTimeout(r, 50));
  expect(a.fake.requests[0]!.aborted).not.toBeNull();
  expect(b.fake.requests).toHaveLength(0);
});

test("spans (the real @opentelemetry/sdk-trace-base): chat <model>, the GenAI attributes one by one, a fallback event, no content or key", async () => {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("relay-test");
  const a = target("anthropic", { refuse: 529 });
  const b = target("anthropic", {}, {}, "claude-b");
  const answer = await createRelay({ models: { fb: [a.row, b.row] }, allowAnonymous: true, clientAddress: () => "203.0.113.9", tracer }).fetch(post(), {});
  await read(answer).message;
  const [span] = exporter.getFinishedSpans();
  expect(span!.name).toBe("chat fb");
  expect(span!.kind).toBe(2); // CLIENT
  const at = span!.attributes;
  expect(at["gen_ai.operation.name"]).toBe("chat");
  expect(at["gen_ai.provider.name"]).toBe("anthropic");
  expect(at["gen_ai.request.model"]).toBe("fb");
  expect(at["gen_ai.response.model"]).toBe("claude-b");
  expect(at["gen_ai.request.max_tokens"]).toBe(64);
  expect(typeof at["gen_ai.usage.input_tokens"]).toBe("number");
  expect(typeof at["gen_ai.usage.output_tokens"]).toBe("number");
  expect(at["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
  expect(at["gen_ai.response.time_to_first_chunk"]).toBeGreaterThanOrEqual(0);
  expect(span!.events.map((e) => e.name)).toEqual(["gen_ai.fallback"]);
  expect(span!.events[0]!.attributes).toMatchObject({ "gen_ai.fallback.from": "anthropic:m", "gen_ai.fallback.to": "anthropic:claude-b" });
  expect(span!.status.code).not.toBe(2);
  const all = JSON.stringify([at, span!.events]);
  expect(all.includes("Hi")).toBe(false);
  expect(all.includes("KEY")).toBe(false);
});

test("a span of a stream that fails: error status with the error's type", async () => {
  const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import("@opentelemetry/sdk-trace-base");
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("relay-test");
  const a = target("anthropic", { cutAfterEvents: 6, stallMs: Infinity });
  await read(await createRelay({ models: { fb: a.row }, allowAnonymous: true, clientAddress: () => "203.0.113.9", tracer }).fetch(post(), { STALL_S: "0.05" })).message.catch(() => {});
  const [span] = exporter.getFinishedSpans();
  expect(span!.status.code).toBe(2);
  expect(span!.attributes["error.type"]).toBe("StreamStalled");
});
