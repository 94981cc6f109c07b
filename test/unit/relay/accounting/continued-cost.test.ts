// Issue #47 "same quotas, fallbacks, continuation", SPEC §10 "Principals and quotas" and "Fallbacks":
// a continued answer is charged each provider request's own input, in Node library mode (the stateless
// relay, its ledger in the process): a continuation request counts from the moment it is sent, as one
// request's input plus the prefix it carries (routing/continuation.ts `requestInput`), until its target
// counts it; a request whose target never counted its input is charged its estimate, marked estimated.
// Never one earlier request's input for two: the principal's quota is never under-charged.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { fromResponse } from "../../../../src/index.ts";
import { anthropic, openaiChat } from "../../../../src/providers/index.ts";
import { createRelay, type RelayModel } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import { inputEstimate, textTokens } from "../../../../src/relay/accounting/usage-estimate.ts";
import { snapshotOf, StreamCost, withRequest } from "../../../../src/relay/accounting/stream-cost.ts";
import type { UniEvent } from "../../../../src/schema.ts";

const ORIGIN = "https://relay.test";
const KEY = "alice-key-0123456789";
const ENV = { RELAY_KEYS: JSON.stringify({ alice: KEY }) };
const anthropicCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));
const chatCapture = parseCapture(readFileSync(new URL("../../../../samples/providers/openai-chat.sse", import.meta.url), "utf8"));
const MESSAGES = [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }];
/** The input the anthropic capture's `message_start` reports (one request's, as its provider counts it). */
const CLAUDE_INPUT = 18;

const post = () =>
  new Request(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-relay-key": KEY },
    body: JSON.stringify({ model: "c", messages: MESSAGES }),
  });
type Row = { input_tokens: number; output_tokens: number; estimated_tokens: number; requests: number; stopped: number };
const usageOf = async (relay: ReturnType<typeof createRelay>): Promise<Row[]> =>
  ((await (await relay.fetch(new Request(`${ORIGIN}/v1/usage`, { headers: { "x-relay-key": KEY } }), ENV)).json()) as { data: Row[] }).data;

const claude = (fetch: ReturnType<typeof fakeProvider>, extra: Partial<RelayModel> = {}): RelayModel =>
  ({ provider: anthropic({ apiKey: "sk-ant-KEY-00000000", baseURL: "https://a.test", fetch }), model: "m", ...extra }) as RelayModel;
/** An OpenAI-compatible Chat server that continues a final assistant message (vLLM's `continue_final_message`). */
const vllm = (fetch: ReturnType<typeof fakeProvider>, extra: Partial<RelayModel> = {}): RelayModel =>
  ({
    provider: openaiChat({ apiKey: "sk-o-KEY-000000000", baseURL: "https://o.test/v1", fetch, continueFinalMessage: true }),
    model: "m",
    ...extra,
  }) as RelayModel;

/** The prefix a continuing target was asked with (its final assistant message's text). */
const prefixOf = (json: unknown): string => {
  const last = (json as { messages: { content: string | { text: string }[] }[] }).messages.at(-1)!.content;
  return typeof last === "string" ? last : last.map((p) => p.text).join("");
};

async function settled(relay: ReturnType<typeof createRelay>): Promise<Row> {
  const answer = await relay.fetch(post(), ENV);
  expect(answer.status).toBe(200);
  await fromResponse(answer, { client: "relay" }).message.catch(() => {});
  for (let i = 0; i < 50 && (await usageOf(relay)).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const rows = await usageOf(relay);
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

test("a continuation cut before its target counted anything is charged its own input (one request's and its prefix), with the first request's", async () => {
  const first = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, cutAfterEvents: 9 } } });
  const second = fakeProvider("openai-chat", { streams: { m: { capture: chatCapture, cutAfterEvents: 4 } } }); // (Chat counts at its end only)
  const relay = createRelay({ models: { c: [claude(first, { continueOnFailure: true }), vllm(second)] } });
  const row = await settled(relay);
  expect(second.requests).toHaveLength(1);
  const prefix = prefixOf(second.requests[0]!.json);
  expect(prefix.length).toBeGreaterThan(0);
  const continuation = CLAUDE_INPUT + textTokens(prefix); // (one request's input as its provider counted it, and the prefix)
  expect(row).toMatchObject({ requests: 1, stopped: 1, input_tokens: CLAUDE_INPUT + continuation });
  expect(row.estimated_tokens).toBeGreaterThanOrEqual(continuation); // (the continuation's input is the relay's estimate)
});

test("a continuation that streams text and is cut before its target counted its input: its estimate, with the first request's count", async () => {
  const first = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, cutAfterEvents: 9 } } });
  const second = fakeProvider("openai-chat", { streams: { m: { capture: chatCapture, cutAfterEvents: 12, chunking: "events" } } });
  const relay = createRelay({ models: { c: [claude(first, { continueOnFailure: true }), vllm(second)] } });
  const answer = await relay.fetch(post(), ENV);
  const read = await fromResponse(answer, { client: "relay" }).message.catch((e: unknown) => e);
  expect(read).toBeInstanceOf(Error); // (the continuation cut too: the stream ends with its error)
  const rows = await usageOf(relay);
  const prefix = prefixOf(second.requests[0]!.json);
  const continuation = CLAUDE_INPUT + textTokens(prefix);
  expect(rows[0]).toMatchObject({ requests: 1, stopped: 1, input_tokens: CLAUDE_INPUT + continuation });
  expect(rows[0]!.estimated_tokens).toBeGreaterThanOrEqual(continuation);
});

test("a first request whose target never counted its input is charged its estimate beside the continuation's own count", async () => {
  const first = fakeProvider("openai-chat", { streams: { m: { capture: chatCapture, cutAfterEvents: 4 } } });
  const second = fakeProvider("anthropic", { streams: { m: anthropicCapture } });
  const relay = createRelay({ models: { c: [vllm(first, { continueOnFailure: true }), claude(second)] } });
  const row = await settled(relay);
  expect(second.requests).toHaveLength(1);
  const estimate = inputEstimate(MESSAGES, {});
  expect(row).toMatchObject({ requests: 1, stopped: 0, input_tokens: CLAUDE_INPUT + estimate });
  expect(row.estimated_tokens).toBeGreaterThanOrEqual(estimate);
});

test("a fallback past a target that took the request (its answer cut before any event) charges that request's estimate too", async () => {
  const first = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, cutAfterEvents: 0 } } });
  const second = fakeProvider("anthropic", { streams: { m: anthropicCapture } });
  const relay = createRelay({ models: { c: [claude(first), claude(second)] } });
  const row = await settled(relay);
  expect([first.requests.length, second.requests.length]).toEqual([1, 1]);
  const estimate = inputEstimate(MESSAGES, {});
  expect(row).toMatchObject({ requests: 1, stopped: 0, input_tokens: CLAUDE_INPUT + estimate });
  expect(row.estimated_tokens).toBeGreaterThanOrEqual(estimate);
});

test("past such a fallback, an answer cut before its stop event is settled with that request's estimate too", async () => {
  const first = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, cutAfterEvents: 0 } } });
  const second = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, cutAfterEvents: 9 } } });
  const relay = createRelay({ models: { c: [claude(first), claude(second)] } });
  const row = await settled(relay);
  const estimate = inputEstimate(MESSAGES, {});
  expect(row).toMatchObject({ requests: 1, stopped: 1, input_tokens: CLAUDE_INPUT + estimate });
});

test("a refusal after a fallback moved past a request its provider took: that request is charged, its estimate", async () => {
  const first = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, cutAfterEvents: 0 } } });
  const second = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, refuse: 503 } } });
  const relay = createRelay({ models: { c: [claude(first), claude(second)] } });
  expect((await relay.fetch(post(), ENV)).status).toBe(503);
  const estimate = inputEstimate(MESSAGES, {});
  for (let i = 0; i < 50 && (await usageOf(relay)).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(await usageOf(relay)).toMatchObject([{ input_tokens: estimate, output_tokens: 0, estimated_tokens: estimate }]);
});

test("a fallback past a refusal (the provider took nothing) charges only the serving request", async () => {
  const first = fakeProvider("anthropic", { streams: { m: { capture: anthropicCapture, refuse: 529 } } });
  const second = fakeProvider("anthropic", { streams: { m: anthropicCapture } });
  const relay = createRelay({ models: { c: [claude(first), claude(second)] } });
  const row = await settled(relay);
  expect(second.requests).toHaveLength(1);
  expect(row).toMatchObject({ requests: 1, stopped: 0, input_tokens: CLAUDE_INPUT });
});

test("a continuation in flight is counted in the stored cost as its own input (sent), not as one earlier request's", () => {
  const ticket = { id: "c", principal: "p", model: "m", input: 2 };
  const usage = (prompt: number) => ({ cached_tokens: null, prompt_tokens: prompt, thoughts_tokens: null, response_tokens: null });
  const cost = new StreamCost(ticket);
  cost.follow(() => usage(12));
  expect(cost.snapshot().settlement.input).toBe(12);
  cost.sent(12 + 40); // (one request's input and a prefix of 40 tokens)
  const stored = cost.snapshot();
  expect(stored.settlement).toMatchObject({ input: 12 + 52 });
  expect(stored.settlement.estimated).toBeGreaterThanOrEqual(52);
  expect(stored.asked).toBe(12);
  expect(snapshotOf(JSON.stringify(stored))).toEqual(stored);
  // a take-up's request sent: its own input too; never less than one request's
  expect(withRequest(stored, 12 + 7).settlement.input).toBe(64 + 19);
  expect(withRequest(stored, 3).settlement.input).toBe(64 + 12);
  cost.see({ role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "a" }] } as unknown as UniEvent);
  expect(cost.snapshot().settlement.input).toBe(12); // (its target answered: what serving reports stands; see continuation.ts)
});
