// Issue #38's spans in workerd: the real @opentelemetry/sdk-trace-base (its in-memory exporter) runs
// here as in Node. A relay made in the test (createRelay({ tracer }), stateless: the repository
// Worker has no tracer) asks the scripted providers (providers.ts) through this isolate's fetch: a
// 429 then a success (a fallback event), a cut mid-text continued (a continuation event), a stall
// (error status StreamStalled); attribute by attribute, no content and no key.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { expect, test } from "vitest";
import { fromResponse } from "../../src/index.ts";
import { anthropic, openaiChat } from "../../src/providers/index.ts";
import { createRelay } from "../../src/relay/index.ts";
import { EDGE, newTag } from "./relay.ts";

const KEY = "sk-ant-test-KEY-must-not-leak-0001";
const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("relay-pool");
const claude = anthropic({ apiKey: KEY, baseURL: "http://upstream.test/anthropic" });
const gpt = openaiChat({ apiKey: "sk-test-KEY-must-not-leak-0002", baseURL: "http://upstream.test/openai/v1" });
const relay = createRelay({
  models: {
    fast: [
      { provider: claude, model: "claude-haiku-4-5", continueOnFailure: true },
      { provider: gpt, model: "gpt-4.1-mini" },
      { provider: claude, model: "claude-sonnet-4-5" },
    ],
  },
  allowAnonymous: true,
  tracer,
});
const env = { STALL_S: "1", FIRST_EVENT_S: "0.5" };

/** The span of one stream of "fast" with the scripted providers' `script`, read to its end. */
async function spanOf(script: string) {
  exporter.reset();
  const tag = newTag();
  const answer = await relay.fetch(
    new Request("https://relay.test/v1/stream", {
      ...EDGE,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "fast",
        messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:${script}` }] }],
        config: { max_tokens: 64 },
      }),
    }),
    env,
  );
  await fromResponse(answer, { client: "relay" }).message.catch(() => {});
  const spans = exporter.getFinishedSpans();
  expect(spans).toHaveLength(1);
  const span = spans[0]!;
  const all = JSON.stringify([span.attributes, span.events, span.status]);
  expect(all.includes(tag), "no message content in the span").toBe(false);
  expect(all.includes("KEY"), "no key in the span").toBe(false);
  return span;
}

test("a 429 then a success: chat <model>, the GenAI attributes one by one, a gen_ai.fallback event", async () => {
  const span = await spanOf("refuse-first");
  expect(span.name).toBe("chat fast");
  expect(span.kind).toBe(2); // CLIENT
  const at = span.attributes;
  expect(at["gen_ai.operation.name"]).toBe("chat");
  expect(at["gen_ai.provider.name"]).toBe("openai");
  expect(at["gen_ai.request.model"]).toBe("fast");
  expect(at["gen_ai.response.model"]).toBe("gpt-4.1-mini");
  expect(at["gen_ai.request.max_tokens"]).toBe(64);
  expect(at["gen_ai.usage.input_tokens"]).toBe(12);
  expect(at["gen_ai.usage.output_tokens"]).toBe(6);
  expect(at["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
  expect(at["gen_ai.response.time_to_first_chunk"]).toBeGreaterThanOrEqual(0);
  expect(span.events.map((e) => e.name)).toEqual(["gen_ai.fallback"]);
  expect(span.events[0]!.attributes).toEqual({
    "gen_ai.fallback.from": "anthropic:claude-haiku-4-5",
    "gen_ai.fallback.to": "openai-chat:gpt-4.1-mini",
    "error.type": "rate_limit_error", // (the provider's own type)
  });
  expect(span.status.code).toBe(0); // UNSET
});

test("a cut mid-text continued: a gen_ai.continuation event, the continuing model as the response's", async () => {
  const span = await spanOf("cut-first");
  expect(span.events.map((e) => e.name)).toEqual(["gen_ai.continuation"]);
  expect(span.events[0]!.attributes).toMatchObject({
    "gen_ai.fallback.from": "anthropic:claude-haiku-4-5",
    "gen_ai.fallback.to": "anthropic:claude-sonnet-4-5",
    "gen_ai.continuation.prefix_chars": "Hello, provider".length,
  });
  expect(span.attributes["gen_ai.response.model"]).toBe("claude-sonnet-4-5");
  expect(span.status.code).toBe(0);
});

test("a stall with no target to continue: error status with the error's type", async () => {
  const span = await spanOf("stall");
  expect(span.status).toMatchObject({ code: 2, message: "StreamStalled" });
  expect(span.attributes["error.type"]).toBe("StreamStalled");
});
