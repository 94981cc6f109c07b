// Issue #37's pure parts: the estimates (usage-estimate.ts), a stream's cost and its ending error's
// usage (stream-cost.ts), the usage fields of an error read back (errors.ts: fromWireError /
// toWireError round trip), the quota book's decisions and the in-process ledger.
import { expect, test } from "vitest";
import { fromWireError, toWireError, UpstreamError } from "../../../../src/errors.ts";
import type { UniEvent } from "../../../../src/schema.ts";
import { inputEstimate, outputReserve, UsageMeter } from "../../../../src/relay/accounting/usage-estimate.ts";
import { metered, StreamCost } from "../../../../src/relay/accounting/stream-cost.ts";
import { type Claim, ProcessQuotas, QuotaBook } from "../../../../src/relay/accounting/quota.ts";

const delta = (item: object): UniEvent => ({ role: "assistant", event_type: "delta", content_items: [item as never], usage_metadata: null, finish_reason: null });
const stop = (usage: object): UniEvent => ({ role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage as never, finish_reason: "stop" });

test("the input estimate: UTF-8 bytes of the strings / 4 rounded up; an inline data item 1000; max_tokens within the row's", () => {
  const messages = [{ role: "user", content_items: [{ type: "text.done", text: "abcdefgh" }, { type: "text.done", text: "é" }] }];
  // "user" 4 + "text.done" 9 + "abcdefgh" 8 + "text.done" 9 + "é" 2 = 32 bytes → 8
  expect(inputEstimate(messages, {})).toBe(8);
  expect(inputEstimate(messages, { system_prompt: "1234" })).toBe(9);
  const image = [{ role: "user", content_items: [{ type: "inline_data.done", mime_type: "image/png", data: "A".repeat(1_000_000) }] }];
  expect(inputEstimate(image, {})).toBe(1 + 1000); // ("user": 1 token; the image's base64 is not counted)
  expect(outputReserve(100, 2048)).toBe(100);
  expect(outputReserve(undefined, 2048)).toBe(2048);
  expect(outputReserve(undefined, undefined)).toBe(16_384);
  expect(outputReserve(undefined, undefined, 3000)).toBe(3000);
  expect(outputReserve(5000, undefined, 3000)).toBe(5000);
});

test("a completed stream costs the provider's usage (input = cached + prompt, output = thoughts + response), not estimated", () => {
  const meter = new UsageMeter(99);
  meter.see(delta({ type: "text.delta", text: "Hello" }));
  meter.see(delta({ type: "text.done", text: "Hello" }));
  meter.see(stop({ cached_tokens: 2, prompt_tokens: 10, thoughts_tokens: 3, response_tokens: 4 }));
  expect(meter.spent()).toEqual({
    usage_metadata: { cached_tokens: 2, prompt_tokens: 10, thoughts_tokens: 3, response_tokens: 4 },
    usage_estimated: false,
    estimated: 0,
    input: 12,
    output: 7,
    stopped: false,
  });
});

test("a stream that ends early costs its input estimate and its fragments' bytes / 4 (each fragment once, not again in its .done), estimated", () => {
  const meter = new UsageMeter(5);
  meter.see(delta({ type: "text.delta", text: "12345678" }));
  meter.see(delta({ type: "text.delta", text: "9" }));
  meter.see(delta({ type: "text.done", text: "123456789" }));
  meter.see(delta({ type: "tool_call.done", name: "f", tool_call_id: "c", arguments: { a: 1 } })); // no deltas: the done counts ("f" + {"a":1})
  expect(meter.spent()).toEqual({
    usage_metadata: { cached_tokens: null, prompt_tokens: 5, thoughts_tokens: null, response_tokens: 5 }, // (9 + 1 + 7 bytes, / 4 up)
    usage_estimated: true,
    estimated: 10,
    input: 5,
    output: 5,
    stopped: true,
  });
});

test("a stream that ends early costs what the provider reported so far, each count it did not report estimated", () => {
  const meter = new UsageMeter(5);
  meter.see(delta({ type: "text.delta", text: "x".repeat(40) })); // 10 tokens by the estimate
  // Anthropic's message_start: the input (12, 3 of them cached), an early output count of 1
  const anthropic = { cached_tokens: 3, prompt_tokens: 12, thoughts_tokens: null, response_tokens: 1 };
  expect(meter.spent(anthropic)).toEqual({
    usage_metadata: { cached_tokens: 3, prompt_tokens: 12, thoughts_tokens: null, response_tokens: 10 },
    usage_estimated: true,
    estimated: 10, // the output only: the input is the provider's
    input: 15,
    output: 10,
    stopped: true,
  });
  // Gemini's counts on its last chunk: the output counted past what the fragments say
  const gemini = { cached_tokens: null, prompt_tokens: 7, thoughts_tokens: 20, response_tokens: 4 };
  expect(meter.spent(gemini)).toEqual({
    usage_metadata: { cached_tokens: null, prompt_tokens: 7, thoughts_tokens: 20, response_tokens: 4 },
    usage_estimated: true,
    estimated: 0,
    input: 7,
    output: 24,
    stopped: true,
  });
  // output alone reported: the input is the estimate
  expect(meter.spent({ cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: 2 })).toMatchObject({
    usage_metadata: { cached_tokens: null, prompt_tokens: 5, thoughts_tokens: null, response_tokens: 10 },
    estimated: 15,
    input: 5,
    output: 10,
  });
  // the stop event's usage, once it came, is what counts
  meter.see(stop({ cached_tokens: 0, prompt_tokens: 12, thoughts_tokens: null, response_tokens: 30 }));
  expect(meter.spent(anthropic)).toMatchObject({ usage_estimated: false, estimated: 0, input: 12, output: 30, stopped: false });
});

test("the ending error carries usage_metadata and usage_estimated; an UpstreamError reads them back and writes them again (round trip)", () => {
  const cost = new StreamCost({ id: "c", principal: "p", model: "m", input: 3 });
  cost.see(delta({ type: "text.delta", text: "abcd" }));
  const wire = cost.mark({ type: "StreamCancelled", message: "stopped" });
  expect(wire).toEqual({
    type: "StreamCancelled",
    message: "stopped",
    usage_metadata: { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 },
    usage_estimated: true,
  });
  const error = fromWireError({ error: wire });
  expect(error.usageMetadata).toEqual(wire.usage_metadata);
  expect(error.usage_metadata).toEqual(wire.usage_metadata);
  expect(error.usageEstimated).toBe(true);
  expect(error.usage_estimated).toBe(true);
  expect(toWireError(error)).toEqual(wire);
  // built by hand (no wire object): written from its fields
  const built = new UpstreamError({ client: "x", status: null, errorType: "StreamAbandoned", error: null, message: "m", usageMetadata: wire.usage_metadata as never, usageEstimated: false });
  expect(fromWireError(toWireError(built))).toMatchObject({ usageMetadata: wire.usage_metadata, usageEstimated: false });
  // not said, or not counts: null
  const plain = fromWireError({ error: { type: "X", message: "m", usage_metadata: { prompt_tokens: -1, response_tokens: "7" }, usage_estimated: "yes" } });
  expect(plain.usageMetadata).toEqual({ cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: null });
  expect(plain.usageEstimated).toBeNull();
  expect(fromWireError({ error: { type: "X", message: "m" } }).usageMetadata).toBeNull();
});

test("the stateless pipe settles once: at the end, on an error (passed on marked), or on a cancel", async () => {
  const settled: unknown[] = [];
  let pulls = 0;
  const events = new ReadableStream<UniEvent>({
    pull(c) {
      if (pulls++ === 0) c.enqueue(delta({ type: "text.delta", text: "abcd" }));
      else c.error(new Error("cut"));
    },
  }, { highWaterMark: 0 });
  const out = metered(events, new StreamCost({ id: "c", principal: "p", model: "m", input: 2 }), "up", (s) => settled.push(s));
  const reader = out.getReader();
  await reader.read();
  const error = await reader.read().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(UpstreamError);
  expect((error as UpstreamError).usageEstimated).toBe(true);
  expect(settled).toEqual([{ id: "c", principal: "p", model: "m", input: 2, output: 1, estimated: 3, stopped: true }]);
  await reader.cancel().catch(() => {});
  expect(settled.length).toBe(1);
  // a client gone: settled at the cancel
  const gone: unknown[] = [];
  const live = metered(new ReadableStream<UniEvent>({ pull() {} }), new StreamCost({ id: "d", principal: "p", model: "m", input: 2 }), "up", (s) => gone.push(s));
  await live.cancel("client gone");
  expect(gone).toMatchObject([{ id: "d", stopped: true, estimated: 2 }]);
});

const claim = (over: Partial<Claim>): Claim => ({ id: "a", principal: "p", model: "m", tokens: 10, input: 2, until: Infinity, quota: {}, ...over });

test("the quota book: concurrentStreams freed by a settlement, expired claims dropped, tokensPerDay counts the ledger and the open reservations", async () => {
  const book = new QuotaBook();
  expect(book.claim(claim({ id: "1", quota: { concurrentStreams: 1 }, until: 5000 }), 0, 0)).toBeNull();
  expect(book.claim(claim({ id: "2", quota: { concurrentStreams: 1 } }), 0, 1000)?.type).toBe("RateLimitError");
  expect(book.claim(claim({ id: "3", quota: { concurrentStreams: 1 } }), 0, 5000)).toBeNull(); // (1 expired at 5000)
  book.release("3");
  expect(book.claim(claim({ id: "4", quota: { tokensPerDay: 25 } }), 10, 6000)).toBeNull(); // 10 spent + 10 reserved ≤ 25
  const over = book.claim(claim({ id: "5", quota: { tokensPerDay: 25 } }), 10, 6000);
  expect(over?.type).toBe("BudgetExceeded");
  expect(over!.retryAfter).toBeCloseTo((86_400_000 - 6000) / 1000);
  // in a process: the ledger's tokens count against the day's budget
  const quotas = new ProcessQuotas();
  expect(await quotas.claim(claim({ id: "x", quota: { tokensPerDay: 15 } }))).toBeNull();
  await quotas.settle({ id: "x", principal: "p", model: "m", input: 2, output: 6, estimated: 0, stopped: false });
  expect((await quotas.claim(claim({ id: "y", quota: { tokensPerDay: 15 } })))?.type).toBe("BudgetExceeded"); // 8 + 10 > 15
  expect(await quotas.usage("p")).toMatchObject([{ principal: "p", model: "m", requests: 1, input_tokens: 2, output_tokens: 6, estimated_tokens: 0, stopped: 0 }]);
});
