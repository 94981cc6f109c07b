// Same API in, same provider out (issue #47): the Chat Completions door in front of an OpenAI Chat target
// passes a streamed request through as written (members the relay does not map, `prompt_cache_key`,
// the output limit in the member the client used) but for the key, the row's model, the reserved
// output and `stream_options.include_usage` (forced on, so the relay charges the provider's counts; the
// usage chunk taken out again for a client that did not ask for it), and answers in the provider's own
// bytes; a fallback to another API, a kept request and one not streamed are answered encoded. In Node:
// `openai` pointed at the stateless relay, the kit's fakes behind it.
import fc from "fast-check";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { anthropic, openaiChat } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { withoutUsageChunk } from "../../../../src/relay/doors/chat-completions/pass-through.ts";
import { holds } from "../../../property.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import { relayFetch } from "./door-relay.ts";
import { recorded, settledUsage } from "./pass-through-kit.ts";

const ORIGIN = "https://relay.test";
const KEY = "sk-openai-chat-pass-through-KEY";
const ANTHROPIC_KEY = "sk-ant-chat-pass-through-KEY";
const RELAY_KEY = "sk-relay-chat-pass-through-app";
const ENV = { RELAY_KEYS: JSON.stringify({ app: RELAY_KEY }) };

/** OpenAI's refusal of a busy API (its error codes guide: 503 "The engine is currently overloaded"). */
const overloaded = () =>
  Response.json({
    error: { message: "The engine is currently overloaded, please try again later.", type: "server_error", param: null, code: null },
  }, { status: 503 });

function setup() {
  const fake = fakeProvider("openai-chat", {
    streams: { "gpt-target": parseCapture(CHAT.TEXT), "gpt-slow": { capture: parseCapture(CHAT.TEXT), stallMs: Infinity } },
    key: KEY,
  });
  // (what the fake sent back, each answer's bytes as text; not "gpt-slow"'s, which never ends)
  const { sent, fetch: recording } = recorded(fake, (body) => !body.includes('"gpt-slow"'));
  const provider = openaiChat({ apiKey: KEY, baseURL: "https://api.openai.test/v1", fetch: recording });
  const down = openaiChat({ apiKey: KEY, baseURL: "https://down.openai.test/v1", fetch: () => Promise.resolve(overloaded()) });
  const claudeFake = fakeProvider("anthropic", { streams: { "claude-target": parseCapture(ANTHROPIC.TEXT) }, key: ANTHROPIC_KEY });
  const claude = anthropic({ apiKey: ANTHROPIC_KEY, baseURL: "https://api.anthropic.test", fetch: claudeFake as unknown as typeof fetch });
  const relay = createRelay({
    models: {
      "gpt-5": { provider, model: "gpt-target" },
      "gpt-capped": { provider, model: "gpt-target", config: { max_tokens: 300 } },
      "gpt-tuned": { provider, model: "gpt-target", config: { thinking_level: "high", temperature: 0.5, tools: [LOOKUP] } },
      "gpt-slow": { provider, model: "gpt-slow" },
      "gpt-fallback": [{ provider: down, model: "gpt-target" }, { provider: claude, model: "claude-target" }],
    },
  });
  const client = new OpenAI({
    apiKey: RELAY_KEY,
    baseURL: `${ORIGIN}/v1`,
    fetch: relayFetch(relay, ENV),
    maxRetries: 0,
  });
  const usage = () => settledUsage(relayFetch(relay, ENV), `${ORIGIN}/v1/usage`, { authorization: `Bearer ${RELAY_KEY}` });
  return { fake, claudeFake, sent, client, usage };
}

/** A row's own tool (its operator's: added to the client's). */
const LOOKUP = { name: "lookup", description: "Looks a word up.", parameters: { type: "object", properties: { word: { type: "string" } } } };

/** A request with members the relay does not map (they go along when passed through) and prompt caching's key. */
const WRITTEN = {
  model: "gpt-5",
  stream: true as const,
  stream_options: { include_usage: true },
  max_tokens: 200,
  messages: [{ role: "system" as const, content: "You are terse." }, { role: "user" as const, content: "Say hello" }],
  prompt_cache_key: "project-42",
  seed: 7,
  logit_bias: { "1734": -100 },
};

/** The provider's answer without its usage chunk (what a client that did not ask for it gets). */
const withoutUsage = (text: string): string =>
  text.split(/(?<=\n\n)/).filter((event) => !(event.includes('"choices":[]') && event.includes('"usage":{'))).join("");

describe("the Chat Completions door passes a streamed request through to an OpenAI Chat target", () => {
  test("the provider receives the client's body (but the key, the model, the reserve); the client receives the provider's bytes", async () => {
    const { fake, sent, client } = setup();
    const answer = await client.chat.completions.create(WRITTEN as unknown as OpenAI.ChatCompletionCreateParamsStreaming).asResponse();
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(sent).toHaveLength(1);
    expect(text).toBe(sent[0]); // (byte for byte: the provider's ids, its model, its fingerprint, its usage chunk)
    const asked = fake.requests[0]!;
    expect(asked.json).toEqual({ ...WRITTEN, model: "gpt-target" }); // (max_tokens as the client wrote it: within the reserve)
    expect(asked.headers.authorization).toBe("[redacted]"); // (the provider's key, not the client's)
    expect(JSON.stringify(asked)).not.toContain(RELAY_KEY);
  });

  test("without include_usage: the relay asks for the usage chunk, charges its counts, and the client does not get it", async () => {
    const { fake, sent, client, usage } = setup();
    const { stream_options: _, ...plain } = WRITTEN;
    const answer = await client.chat.completions.create(plain as unknown as OpenAI.ChatCompletionCreateParamsStreaming).asResponse();
    const text = await answer.text();
    expect((fake.requests[0]!.json as { stream_options: unknown }).stream_options).toEqual({ include_usage: true });
    expect(sent[0]).toContain('"usage":{"prompt_tokens":19');
    expect(text).toBe(withoutUsage(sent[0]!)); // (every other event as the provider wrote it)
    expect(text).not.toContain('"usage":{');
    expect(text).toMatch(/data: \[DONE\]\n\n$/);
    expect(await usage()).toMatchObject([{
      principal: "app",
      model: "gpt-5",
      requests: 1,
      input_tokens: 19,
      output_tokens: 10,
      estimated_tokens: 0,
    }]);
  });

  test("the SDK's ChatCompletionStream reads the provider's answer", async () => {
    const { client } = setup();
    const final = await client.chat.completions.stream(WRITTEN as unknown as OpenAI.ChatCompletionCreateParamsStreaming)
      .finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe("Hello there!");
    expect(final.model).toBe("gpt-4o-mini"); // (the provider's own)
    expect(final.usage!.total_tokens).toBe(29);
  });

  test("a row's config holds as on the mapped path: its settings where the client set none, the client's within them, its tools before the client's", async () => {
    const { fake, client } = setup();
    const own = { type: "function" as const, function: { name: "add", parameters: { type: "object" }, strict: true } };
    await (await client.chat.completions.create({ ...WRITTEN, model: "gpt-tuned", tools: [own] }).asResponse()).text();
    await (await client.chat.completions.create({ ...WRITTEN, model: "gpt-tuned", temperature: 0.2, reasoning_effort: "low" }).asResponse())
      .text();
    const [tuned, lower] = fake.requests.map((r) => r.json as Record<string, unknown>);
    expect(tuned).toEqual({
      ...WRITTEN,
      model: "gpt-target",
      reasoning_effort: "high", // (the row's thinking_level, as the builder writes it)
      temperature: 0.5,
      tools: [{ type: "function", function: LOOKUP }, own], // (the client's own as written: its strict kept)
    });
    expect(lower).toMatchObject({ temperature: 0.2, reasoning_effort: "low", seed: 7 });
    expect(lower.tools).toEqual([{ type: "function", function: LOOKUP }]); // (the row's tools: the operator's, in every request)
    const over = await client.chat.completions.create({ ...WRITTEN, model: "gpt-tuned", temperature: 0.9 }).catch((e: unknown) => e);
    expect(over).toBeInstanceOf(OpenAI.BadRequestError);
  });

  test("the output limit: in the client's member, lowered to the reserve; max_completion_tokens when the client sent none", async () => {
    const { fake, client } = setup();
    const ask = { model: "gpt-capped", stream: true as const, messages: [{ role: "user" as const, content: "Hi" }] };
    await (await client.chat.completions.create({ ...ask, max_tokens: 200 }).asResponse()).text();
    await (await client.chat.completions.create({ ...ask, max_completion_tokens: 250 }).asResponse()).text();
    await (await client.chat.completions.create(ask).asResponse()).text();
    const bodies = fake.requests.map((r) => r.json as Record<string, unknown>);
    expect(bodies[0]).toMatchObject({ max_tokens: 200 });
    expect(bodies[0]).not.toHaveProperty("max_completion_tokens");
    expect(bodies[1]).toMatchObject({ max_completion_tokens: 250 });
    expect(bodies[1]).not.toHaveProperty("max_tokens");
    expect(bodies[2]).toMatchObject({ max_completion_tokens: 300 }); // (the row's ceiling: what the relay reserved)
  });

  test("the row's ceilings still hold: a higher output limit, a reasoning effort and a fast tier the row does not allow, refused before any provider is asked", async () => {
    const { fake, client } = setup();
    const ask = { model: "gpt-capped", stream: true as const, messages: [{ role: "user" as const, content: "Hi" }] };
    for (const over of [{ max_tokens: 8192 }, { reasoning_effort: "high" as const }, { service_tier: "priority" as const }]) {
      const refused = await client.chat.completions.create({ ...ask, ...over }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    }
    // and the members the relay still checks on a passed body: one choice, no stored completions
    for (const [member, value] of [["n", 2], ["store", true]] as const) {
      const refused = await client.chat.completions.create({ ...ask, [member]: value }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as { param?: string }).param).toBe(member);
    }
    expect(fake.requests).toHaveLength(0);
  });

  test("a fallback to an Anthropic target before any byte: the answer is encoded by the door, the client's members not sent there", async () => {
    const { claudeFake, client } = setup();
    const final = await client.chat.completions.stream(
      { ...WRITTEN, model: "gpt-fallback" } as unknown as OpenAI.ChatCompletionCreateParamsStreaming,
    )
      .finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe("Hello!");
    expect(final.model).toBe("gpt-fallback"); // (the row's name: the door's encoding)
    const body = JSON.stringify(claudeFake.requests[0]!.json);
    expect(body).not.toContain("prompt_cache_key");
    expect(body).not.toContain("seed");
  });

  test("a request kept (x-mmsp-keep: 1) and one not streamed are answered encoded; there a member the relay does not map is refused by name", async () => {
    const { fake, sent, client } = setup();
    const { seed: _, logit_bias: _p, ...mapped } = WRITTEN;
    const kept = await client.chat.completions.create(mapped as OpenAI.ChatCompletionCreateParamsStreaming, {
      headers: { "x-mmsp-keep": "1" },
    })
      .asResponse();
    const text = await kept.text();
    expect(text).not.toBe(sent[0]);
    expect(text).toContain('"model":"gpt-5"');
    const whole = await client.chat.completions.create({ ...mapped, stream: false, stream_options: undefined });
    expect(whole.model).toBe("gpt-5");
    expect(whole.choices[0]!.message.content).toBe("Hello there!");
    const refused = await client.chat.completions.create({ ...WRITTEN, stream: false, stream_options: undefined }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as { param?: string }).param).toBe("seed");
    expect(fake.requests).toHaveLength(2);
  });

  test("Stop: the client going away mid-stream aborts the provider's request", async () => {
    const { fake, client } = setup();
    const controller = new AbortController();
    const stream = client.chat.completions.stream({ model: "gpt-slow", messages: [{ role: "user", content: "Hi" }] }, {
      signal: controller.signal,
    });
    let text = "";
    stream.on("content", (delta) => {
      text += delta;
      controller.abort();
    });
    await stream.done().catch(() => {});
    expect(text.length).toBeGreaterThan(0);
    expect(await fake.requests[0]!.ended).toBe("aborted");
  });
});

describe("withoutUsageChunk: the provider's bytes without the usage chunk", () => {
  /** The staged reference: the events split one by one, each other event written as its own chunk (as before the batching). */
  const oneByOne = (text: string): string[] => {
    const out: string[] = [];
    let held = text;
    for (let end = /\r?\n\r?\n/.exec(held); end !== null; end = /\r?\n\r?\n/.exec(held)) {
      const event = held.slice(0, end.index + end[0].length);
      held = held.slice(event.length);
      out.push(event);
    }
    if (held !== "") out.push(held);
    return out.filter((event) => !/^data: \{"choices":\[\],"usage":\{/m.test(event));
  };
  const event = fc.oneof(
    fc.string({ maxLength: 30 }).map((s) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `${s} 🙂 naïve` } }], usage: null })}`
    ),
    fc.nat({ max: 99 }).map((n) => `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: n, completion_tokens: 1 } })}`),
    fc.constant(": keep-alive"),
    fc.constant("data: [DONE]"),
  );
  const sse = fc.tuple(fc.array(fc.tuple(event, fc.constantFrom("\n\n", "\r\n\r\n", "\n\r\n")), { maxLength: 12 }), fc.boolean()).map((
    [events, cut],
  ) => {
    const text = events.map(([e, end]) => e + end).join("");
    return cut && text.length > 3 ? text.slice(0, -1) : text; // (a last event without its blank line: written as it is)
  });

  test("the same bytes as the events taken one by one, for any chunking (a character's bytes split too); one chunk out per chunk in at most (and the end)", async () => {
    await holds(
      fc.asyncProperty(sse, fc.array(fc.nat(), { maxLength: 6 }), async (text, cuts) => {
        const bytes = new TextEncoder().encode(text);
        const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((from, i) => bytes.subarray(from, i < at.length ? at[i] : bytes.length)).filter((c) => c.length > 0);
        const source = new ReadableStream<Uint8Array>({
          start(c) {
            for (const chunk of chunks) c.enqueue(chunk);
            c.close();
          },
        });
        const out: string[] = [];
        const decoder = new TextDecoder();
        for await (const chunk of withoutUsageChunk(source) as unknown as AsyncIterable<Uint8Array>) {
          out.push(decoder.decode(chunk, { stream: true }));
        }
        expect(out.join("")).toBe(oneByOne(text).join(""));
        expect(out.length).toBeLessThanOrEqual(chunks.length + 1); // (+ the flush: a last event without its blank line)
      }),
      { numRuns: 300 },
    );
  });
});
