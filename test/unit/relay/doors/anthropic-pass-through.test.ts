// Same API in, same provider out (issue #47): the Messages door in front of an Anthropic target passes
// the client's request through as written (its betas, cache_control, members the relay does not know)
// but for the key, the model, the reserved output and the members that cost more (checked against the
// row), and answers in the provider's own bytes while the relay reads them (usage charged from the
// provider's counts); a fallback to an OpenAI target, and a request kept, are answered encoded. In
// Node: `@anthropic-ai/sdk` pointed at the stateless relay, the kit's fakes behind it.
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, test } from "vitest";
import { anthropic, openaiChat, openaiResponses } from "../../../../src/providers/index.ts";
import { createRelay, type Relay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import * as RESPONSES from "../../../cases/providers/captures-openai-responses.ts";
import { relayFetch } from "./door-relay.ts";
import { recorded, settledUsage } from "./pass-through-kit.ts";

const ORIGIN = "https://relay.test";
const KEY = "sk-ant-pass-through-KEY";
const OPENAI_KEY = "sk-openai-pass-through-KEY";
const RELAY_KEY = "sk-relay-pass-through-app";
const ENV = { RELAY_KEYS: JSON.stringify({ app: RELAY_KEY }) };
const BETAS = "prompt-caching-2024-07-31,context-management-2025-06-27";

/** Anthropic's refusal of an overloaded API (its errors reference: 529 overloaded_error). */
const overloaded = () =>
  Response.json({
    type: "error",
    error: { type: "overloaded_error", message: "Overloaded" },
  }, { status: 529, headers: { "request-id": "req_pass_1" } });

/** `@anthropic-ai/sdk` asking `relay` in process, with `env`. */
const clientOf = (relay: Relay, env: object = ENV): Anthropic =>
  new Anthropic({ apiKey: RELAY_KEY, baseURL: ORIGIN, fetch: relayFetch(relay, env), maxRetries: 0 });

function setup() {
  const fake = fakeProvider("anthropic", {
    streams: {
      "claude-target": parseCapture(ANTHROPIC.TEXT),
      "claude-tools": parseCapture(ANTHROPIC.TOOL_USE),
    },
    key: KEY,
  });
  const { sent, fetch: recording } = recorded(fake); // (what the fake sent back, each answer's bytes as text)
  const provider = anthropic({
    apiKey: KEY,
    baseURL: "https://api.anthropic.test",
    fetch: recording,
  });
  const down = anthropic({
    apiKey: KEY,
    baseURL: "https://down.anthropic.test",
    fetch: () => Promise.resolve(overloaded()),
  });
  const chatFake = fakeProvider("openai-chat", {
    streams: { "gpt-text": parseCapture(CHAT.TEXT) },
    key: OPENAI_KEY,
  });
  const chat = openaiChat({
    apiKey: OPENAI_KEY,
    baseURL: "https://api.openai.test/v1",
    fetch: chatFake as unknown as typeof fetch,
  });
  const relay = createRelay({
    models: {
      "claude-sonnet-4-5": {
        provider,
        model: "claude-target",
      },
      "claude-capped": {
        provider,
        model: "claude-tools",
        config: { max_tokens: 300 },
      },
      "claude-thinking": { provider, model: "claude-target", config: { thinking_level: "low", temperature: 0.5 } },
      "claude-fallback": [{ provider: down, model: "claude-target" }, {
        provider: chat,
        model: "gpt-text",
      }],
    },
  });
  const client = clientOf(relay);
  const usage = () => settledUsage(relayFetch(relay, ENV), `${ORIGIN}/v1/usage`, { "x-api-key": RELAY_KEY });
  return { relay, fake, chatFake, sent, client, usage };
}

/** Claude Code's kind of request: system blocks with a cache breakpoint, a member the relay does not know. */
const CACHED = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  stream: true as const,
  system: [
    { type: "text" as const, text: "You are Claude Code." },
    {
      type: "text" as const,
      text: "The project's long context.",
      cache_control: { type: "ephemeral" as const },
    },
  ],
  messages: [{
    role: "user" as const,
    content: [{
      type: "text" as const,
      text: "Hi",
      cache_control: { type: "ephemeral" as const },
    }],
  }],
  context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
};

describe("the Messages door passes a streamed request through to an Anthropic target", () => {
  test("the provider receives the client's body and betas (but the key and model); the client receives the provider's bytes", async () => {
    const { fake, sent, client } = setup();
    const answer = await client.messages.create(
      CACHED as unknown as Anthropic.MessageCreateParamsStreaming,
      {
        headers: { "anthropic-beta": BETAS, "anthropic-version": "2023-01-01" },
      },
    ).asResponse();
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(sent).toHaveLength(1);
    expect(text).toBe(sent[0]); // (byte for byte: the provider's ping, its ids, its model)
    const asked = fake.requests[0]!;
    const body = asked.json as Record<string, unknown>;
    const { model: _model, ...rest } = CACHED;
    expect(body).toEqual({ ...rest, model: "claude-target" }); // (the row's model; all else as written)
    expect(asked.headers["anthropic-beta"]!.split(",")).toEqual(
      expect.arrayContaining(BETAS.split(",")),
    );
    expect(asked.headers["anthropic-version"]).toBe("2023-01-01"); // (the client's, not the provider's default)
    expect(asked.headers["x-api-key"]).toBe("[redacted]"); // (the provider's key, not the client's)
    expect(JSON.stringify(asked)).not.toContain(RELAY_KEY);
  });

  test("a row's config holds as on the mapped path: its thinking and temperature where the client set none, the client's within them", async () => {
    const { fake, client } = setup();
    const { model: _model, ...rest } = CACHED;
    await (await client.messages.create({ ...CACHED, model: "claude-thinking" } as Anthropic.MessageCreateParamsStreaming).asResponse()).text();
    // (the builder's members for the row's thinking_level and temperature, as the mapped path asks them; the rest as written)
    expect(fake.requests[0]!.json).toEqual({
      ...rest,
      model: "claude-target",
      temperature: 0.5,
      thinking: { type: "adaptive" },
      output_config: { effort: "low" },
    });
    const off = { ...CACHED, model: "claude-thinking", temperature: 0.2, thinking: { type: "disabled" as const } };
    await (await client.messages.create(off as Anthropic.MessageCreateParamsStreaming).asResponse()).text();
    expect(fake.requests[1]!.json).toEqual({ ...off, model: "claude-target" }); // (within the row's: the client's own)
    const over = await client.messages.create({ ...CACHED, model: "claude-thinking", temperature: 0.9 } as Anthropic.MessageCreateParamsStreaming)
      .catch((e: unknown) => e);
    expect(over).toBeInstanceOf(Anthropic.BadRequestError);
  });

  test("the SDK's MessageStream reads the provider's answer; the quota is charged the provider's counts", async () => {
    const { client, usage } = setup();
    const stream = client.beta.messages.stream(
      {
        ...CACHED,
        betas: BETAS.split(","),
      } as unknown as Parameters<typeof client.beta.messages.stream>[0],
    );
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "Hello!" }]);
    expect(message.usage).toMatchObject({
      input_tokens: 25,
      output_tokens: 15,
    });
    expect(await usage()).toMatchObject([{
      principal: "app",
      model: "claude-sonnet-4-5",
      requests: 1,
      input_tokens: 25,
      output_tokens: 15,
      estimated_tokens: 0,
    }]);
  });

  test("the row's ceilings still hold: its output ceiling and the costlier members, refused before any provider is asked", async () => {
    const { fake, client } = setup();
    const ask = {
      model: "claude-capped",
      messages: [{ role: "user" as const, content: "Weather?" }],
    };
    await client.messages.stream({ ...ask, max_tokens: 200 }).finalMessage();
    expect((fake.requests[0]!.json as { max_tokens: number }).max_tokens).toBe(
      200,
    ); // (the reserve: the client's, within the row's)
    const over = await client.messages.stream({ ...ask, max_tokens: 8192 })
      .finalMessage().catch((e: unknown) => e);
    expect(over).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((over as Error).message)).toContain("max_tokens");
    const thinking = await client.messages.stream({
      ...ask,
      max_tokens: 250,
      thinking: { type: "enabled", budget_tokens: 1024 },
    })
      .finalMessage().catch((e: unknown) => e);
    expect(thinking).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((thinking as Error).message)).toContain("thinking");
    const fast = await client.messages.stream(
      {
        ...ask,
        max_tokens: 200,
        speed: "fast",
      } as unknown as Anthropic.MessageStreamParams,
    )
      .finalMessage().catch((e: unknown) => e);
    expect(fast).toBeInstanceOf(Anthropic.BadRequestError);
    expect(fake.requests).toHaveLength(1);
  });

  test("a fallback to an OpenAI target before any byte: the answer is encoded by the door, the client's members not sent there", async () => {
    const { chatFake, client } = setup();
    const stream = client.messages.stream(
      {
        ...CACHED,
        model: "claude-fallback",
      } as unknown as Anthropic.MessageStreamParams,
    );
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: "text", text: "Hello there!" }]);
    expect(message.model).toBe("claude-fallback");
    expect(message.id).toMatch(/^msg_[0-9a-f]{32}$/);
    const body = chatFake.requests[0]!.json as Record<string, unknown>;
    expect(body.model).toBe("gpt-text");
    expect(JSON.stringify(body)).not.toContain("context_management");
  });

  test("a request kept (x-mmsp-keep: 1) and one not streamed are answered encoded, not in the provider's bytes", async () => {
    const { sent, client } = setup();
    const kept = await client.messages.create(
      {
        ...CACHED,
        context_management: undefined,
      } as unknown as Anthropic.MessageCreateParamsStreaming,
      {
        headers: { "x-mmsp-keep": "1" },
      },
    ).asResponse();
    const text = await kept.text();
    expect(text).not.toBe(sent[0]);
    expect(text).toContain('"model":"claude-sonnet-4-5"'); // (the row's name: the door's encoding)
    const whole = await client.messages.create(
      {
        ...CACHED,
        stream: false,
        context_management: undefined,
      } as unknown as Anthropic.MessageCreateParamsNonStreaming,
    );
    expect(whole.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(whole.content).toEqual([{ type: "text", text: "Hello!" }]);
    // a member the relay does not know is refused by name when the request is not passed through
    const refused = await client.messages.create(
      {
        ...CACHED,
        stream: false,
      } as unknown as Anthropic.MessageCreateParamsNonStreaming,
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((refused as Error).message)).toContain("context_management");
  });

  test("Stop: the client going away mid-stream aborts the provider's request", async () => {
    const fake = fakeProvider("anthropic", {
      streams: { "claude-slow": { capture: parseCapture(ANTHROPIC.TEXT), stallMs: Infinity } },
      key: KEY,
    });
    const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake as unknown as typeof fetch });
    const client = clientOf(createRelay({ models: { "claude-slow": { provider, model: "claude-slow" } } }));
    const controller = new AbortController();
    const stream = client.messages.stream({ model: "claude-slow", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] }, {
      signal: controller.signal,
    });
    let text = "";
    stream.on("text", (t) => {
      text += t;
      controller.abort();
    });
    await stream.done().catch(() => {});
    expect(text.length).toBeGreaterThan(0);
    expect(await fake.requests[0]!.ended).toBe("aborted");
  });

  test("Stop: a client's body cancelled, its request never aborted (as through Miniflare), aborts the provider's request", async () => {
    const fake = fakeProvider("anthropic", {
      streams: { "claude-slow": { capture: parseCapture(ANTHROPIC.TEXT), stallMs: Infinity } },
      key: KEY,
    });
    const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake as unknown as typeof fetch });
    const relay = createRelay({ models: { "claude-slow": { provider, model: "claude-slow" } } });
    const answer = await relay.fetch(
      new Request(`${ORIGIN}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": RELAY_KEY, "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "claude-slow", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Hi" }] }),
      }),
      ENV,
    );
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    expect((await reader.read()).done).toBe(false); // (the provider's first bytes, passed through)
    await reader.cancel("the client went away");
    expect(await fake.requests[0]!.ended).toBe("aborted");
  });

  test("the provider's bytes are read at the client's pace: nothing is read ahead of what the client reads", async () => {
    // the provider's answer one SSE event per chunk, each given when the reader pulls it (counted)
    const events = ANTHROPIC.TEXT.split(/(?<=\n\n)/);
    let pulled = 0;
    const paced = () => {
      const utf8 = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (pulled === events.length) return controller.close();
          controller.enqueue(utf8.encode(events[pulled++]!));
        },
      }, { highWaterMark: 0 });
      return Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
    };
    const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: paced });
    const relay = createRelay({ models: { "claude-paced": { provider, model: "claude-paced" } } });
    const answer = await relay.fetch(
      new Request(`${ORIGIN}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": RELAY_KEY, "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-paced", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Hi" }] }),
      }),
      ENV,
    );
    const reader = answer.body!.getReader();
    const utf8 = new TextDecoder();
    let text = utf8.decode((await reader.read()).value, { stream: true });
    const read = pulled; // (up to the first event the relay reads: message_start … the first text delta)
    expect(read).toBeLessThan(events.length);
    // (every task queued so far runs: a reader running ahead of the client would read the whole answer now)
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    expect(pulled).toBe(read);
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += utf8.decode(r.value, { stream: true });
    expect(text).toBe(ANTHROPIC.TEXT); // (then every byte, as the provider wrote it)
    expect(pulled).toBe(events.length);
  });

  test("a history carrying a value the relay sealed goes encoded: the seal is opened for its maker, never sent to Anthropic as written", async () => {
    const claudeFake = fakeProvider("anthropic", { streams: { "claude-target": parseCapture(ANTHROPIC.TEXT) }, key: KEY });
    const responsesFake = fakeProvider("openai-responses", {
      streams: { "reasoning-model": parseCapture(RESPONSES.REASONING_SUMMARIES) },
      key: OPENAI_KEY,
    });
    const claude = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: claudeFake as unknown as typeof fetch });
    const responses = openaiResponses({
      apiKey: OPENAI_KEY,
      baseURL: "https://api.openai.test/v1",
      fetch: responsesFake as unknown as typeof fetch,
    });
    const relay = createRelay({
      models: {
        "claude-sonnet-4-5": { provider: claude, model: "claude-target", allow: { thinking_level: true } },
        "claude-elsewhere": { provider: responses, model: "reasoning-model", allow: { thinking_level: true } },
      },
    });
    const client = clientOf(relay, { ...ENV, RELAY_SEAL_KEY: "relay-seal-key-for-the-pass-through-tests-0123456789" });
    const ask = { max_tokens: 4096, thinking: { type: "enabled" as const, budget_tokens: 2048 } };
    const first = await client.messages.stream({ ...ask, model: "claude-elsewhere", messages: [{ role: "user", content: "2 + 2?" }] })
      .finalMessage();
    const thinking = first.content.find((b) => b.type === "thinking");
    expect(thinking?.type === "thinking" && thinking.signature).toMatch(/^mmsp1\./); // (another provider's proof, sealed)
    const second = await client.messages.stream({
      max_tokens: 4096,
      thinking: { type: "adaptive" } as unknown as Anthropic.ThinkingConfigParam, // (as the target model takes it)
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "2 + 2?" }, { role: "assistant", content: first.content }, {
        role: "user",
        content: "And 3 + 3?",
      }],
    }).finalMessage();
    expect(second.id).toMatch(/^msg_[0-9a-f]{32}$/); // (the door's encoding, not the provider's bytes)
    expect(second.content).toEqual([{ type: "text", text: "Hello!" }]);
    expect(JSON.stringify(claudeFake.requests[0]!.json)).not.toContain("mmsp1.");
  });
});
