// Issue #38: the provider factories take an OpenTelemetry tracer (`anthropic({ …, tracer })`): one span
// `chat <model>` per direct stream(), the same attributes as the relay's (providers/tracing.ts, one
// implementation), checked with the real @opentelemetry/sdk-trace-base in-memory exporter.
import { readFileSync } from "node:fs";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect, test } from "vitest";
import { anthropic, openaiChat } from "../../src/providers/index.ts";
import { fakeProvider, parseCapture } from "../../src/testing/index.ts";

const capture = parseCapture(readFileSync(new URL("../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const chatCapture = parseCapture(readFileSync(new URL("../../samples/providers/openai-chat.sse", import.meta.url), "utf8"));
const KEY = "sk-ant-a-KEY-000000";
const question = { role: "user" as const, content_items: [{ type: "text.done" as const, text: "What is the secret word?" }] };

function traced() {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("provider-test");
  return { exporter, tracer };
}

test("anthropic({ tracer }): one span per stream(), chat <model>, the GenAI attributes one by one, no content or key", async () => {
  const { exporter, tracer } = traced();
  const claude = anthropic({ apiKey: KEY, baseURL: "https://a.test", fetch: fakeProvider("anthropic", { streams: { m: capture } }), tracer });
  const events = claude.stream({ model: "m", messages: [question], config: { max_tokens: 64 } });
  const m = await events.message;
  const [span, ...more] = exporter.getFinishedSpans();
  expect(more).toHaveLength(0);
  expect(span!.name).toBe("chat m");
  expect(span!.kind).toBe(2); // CLIENT
  const at = span!.attributes;
  expect(at["gen_ai.operation.name"]).toBe("chat");
  expect(at["gen_ai.provider.name"]).toBe("anthropic");
  expect(at["gen_ai.request.model"]).toBe("m");
  expect(at["gen_ai.request.max_tokens"]).toBe(64);
  const u = m.usage_metadata!;
  expect(at["gen_ai.usage.input_tokens"]).toBe((u.cached_tokens ?? 0) + (u.prompt_tokens ?? 0));
  expect(at["gen_ai.usage.output_tokens"]).toBe((u.thoughts_tokens ?? 0) + (u.response_tokens ?? 0));
  expect(at["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
  expect(at["gen_ai.response.time_to_first_chunk"]).toBeGreaterThanOrEqual(0);
  expect(span!.status.code).toBe(0);
  const all = JSON.stringify([at, span!.events]);
  expect(all.includes("secret word")).toBe(false);
  expect(all.includes("KEY")).toBe(false);
});

test("a Request built by the provider's request() names its model too; a refusal ends the span with error status and its type", async () => {
  const { exporter, tracer } = traced();
  const fake = fakeProvider("openai-chat", { streams: { ok: chatCapture, busy: { capture: chatCapture, refuse: 429 } } });
  const gpt = openaiChat({ apiKey: "sk-o-KEY-0000000000", baseURL: "https://o.test/v1", fetch: fake, tracer });
  await gpt.stream(gpt.request({ model: "ok", messages: [question] })).message;
  await gpt.stream({ model: "busy", messages: [question] }).message.catch(() => {});
  const [ok, busy] = exporter.getFinishedSpans();
  expect([ok!.name, ok!.attributes["gen_ai.provider.name"], ok!.status.code]).toEqual(["chat ok", "openai", 0]);
  expect(busy!.name).toBe("chat busy");
  expect(busy!.status.code).toBe(2); // ERROR
  expect(busy!.attributes["error.type"]).toBe(busy!.status.message);
  expect(busy!.attributes["error.type"]).toBeTypeOf("string");
});

test("a stop() ends the span with StreamCancelled; a tracer that is no Tracer is refused by name", async () => {
  const { exporter, tracer } = traced();
  const fake = fakeProvider("anthropic", { streams: { m: { capture, stallMs: Infinity, cutAfterEvents: 6 } } });
  const claude = anthropic({ apiKey: KEY, baseURL: "https://a.test", fetch: fake, tracer });
  const events = claude.stream({ model: "m", messages: [question] });
  const reader = events.readable.getReader();
  await reader.read();
  await events.stop();
  await events.message.catch(() => {});
  const [span] = exporter.getFinishedSpans();
  expect(span!.attributes["error.type"]).toBe("StreamCancelled");
  expect(() => anthropic({ apiKey: KEY, tracer: {} as never })).toThrow(/tracer/);
});
