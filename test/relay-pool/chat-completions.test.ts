// The Chat Completions door in workerd (issue #47): the official `openai` SDK's chat.completions.create
// against the repository Worker, through the real stream Durable Object (worker/models.ts: claude-fast
// → Anthropic, gpt-fast → OpenAI Chat, the scripted provider APIs), streamed and not; then the
// stateless relay with the kit's fakeProvider for each of the four providers, tools over two turns.
import { env } from "cloudflare:test";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { createRelay } from "../../src/relay/index.ts";
import { anthropic, gemini, openaiChat, openaiResponses, type Provider } from "../../src/providers/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../src/testing/index.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import * as CHAT from "../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../cases/providers/captures-openai-responses.ts";
import { EDGE, newTag, ORIGIN } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
/** providers.ts's THINKING_SIGNATURE (that module runs in Node, beside the pool: not importable here). */
const SCRIPTED_SIGNATURE = "EqQBCgIYAhIMscripted+anthropic/signature==";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };

/** The SDK with the relay's key as its API key (Authorization: Bearer), its requests to the Worker, its streams kept (x-mmsp-keep: 1). */
const client = new OpenAI({
  apiKey: RELAY_KEY,
  baseURL: `${ORIGIN}/v1`,
  maxRetries: 0,
  defaultHeaders: { "x-mmsp-keep": "1" },
  fetch: (input: RequestInfo | URL, init?: RequestInit) => worker.fetch(new Request(input as RequestInfo, init), keyed),
});

describe("same API in, same provider out: a streamed request not kept, behind gpt-fast (OpenAI Chat), is passed through", () => {
  /** The SDK without x-mmsp-keep: a streamed request is answered where it is asked. */
  const direct = new OpenAI({
    apiKey: RELAY_KEY,
    baseURL: `${ORIGIN}/v1`,
    maxRetries: 0,
    fetch: (input: RequestInfo | URL, init?: RequestInit) => worker.fetch(new Request(input as RequestInfo, init), keyed),
  });

  for (const includeUsage of [true, false]) {
    test(`the provider's own chunks (its id), the scripted text${includeUsage ? ", its usage chunk" : "; no usage chunk, not asked for"}`, async () => {
      const stream = await direct.chat.completions.create({
        model: "gpt-fast",
        messages: [{ role: "user", content: `tag:${newTag()} script:text` }],
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      let text = "";
      let usage: OpenAI.CompletionUsage | null | undefined;
      const ids = new Set<string>();
      for await (const chunk of stream) {
        ids.add(chunk.id);
        text += chunk.choices[0]?.delta.content ?? "";
        usage = chunk.usage ?? usage;
      }
      expect(text).toBe("Hello, provider world!");
      expect([...ids]).toEqual(["chatcmpl-1"]); // (the scripted provider's: the door writes chatcmpl- and 32 hex digits)
      if (includeUsage) expect(usage).toEqual({ prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 });
      else expect(usage).toBeUndefined();
    });
  }
});

describe.each(["claude-fast", "gpt-fast"])(
  "chat.completions through the stream object: %s",
  (model) => {
    test("streamed with include_usage, then not: the scripted text, finish_reason stop, usage", async () => {
      const content = `tag:${newTag()} script:text`;
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: "system", content: "Be brief." }, {
          role: "user",
          content,
        }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let finish: string | null = null;
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        expect(chunk.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
        text += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
        usage = chunk.usage ?? usage;
      }
      expect(text).toBe("Hello, provider world!");
      expect(finish).toBe("stop");
      expect(usage!.total_tokens).toBeGreaterThan(0);
      const whole = await client.chat.completions.create({
        model,
        messages: [{ role: "user", content: `tag:${newTag()} script:text` }],
      });
      expect(whole.choices[0]!.message.content).toBe("Hello, provider world!");
      expect(whole.model).toBe(model);
    });

    test("kept (x-mmsp-keep: 1): Content-Location names the stream, each event's last chunk carries its id; without: neither", async () => {
      const ask = (keep: boolean) =>
        worker.fetch(
          new Request(`${ORIGIN}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${RELAY_KEY}`, ...(keep ? { "x-mmsp-keep": "1" } : {}) },
            body: JSON.stringify({ model, messages: [{ role: "user", content: `tag:${newTag()} script:text` }], stream: true }),
          }),
          keyed,
        );
      const kept = await ask(true);
      expect(kept.status).toBe(200);
      const location = kept.headers.get("content-location") ?? "";
      expect(location).toMatch(/^\/v1\/streams\/[0-9a-f]{32}$/);
      const text = new TextDecoder().decode(await kept.arrayBuffer());
      expect(text).toMatch(/^id: \d+$/m);
      expect(text).toContain(`"id":"chatcmpl-${location.slice("/v1/streams/".length)}"`);
      expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
      const passing = await ask(false);
      expect(passing.headers.get("content-location")).toBeNull();
      expect(new TextDecoder().decode(await passing.arrayBuffer())).not.toMatch(/^id: /m);
    });

    test("a refusal is OpenAI's error, read by the SDK as its typed error", async () => {
      const refused = await client.chat.completions.create({
        model,
        messages: [{ role: "user", content: "Hi" }],
        stop: ["x"],
      }).catch((e) => e);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect(refused.param).toBe("stop");
    });
  },
);

test("a kept stream with Claude's thinking, resumed through GET /v1/streams/<id>: its signature sealed there too (one sealing step)", async () => {
  const model = "claude-fast"; // (the scripted thinking is Anthropic's)
  const answer = await worker.fetch(
    new Request(`${ORIGIN}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${RELAY_KEY}`, "x-mmsp-keep": "1" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: `tag:${newTag()} script:thinking` }], stream: true }),
    }),
    keyed,
  );
  const location = answer.headers.get("content-location")!;
  const first = await answer.text();
  for (const last of [null, "0"]) {
    const resumed = await worker.fetch(
      new Request(`${ORIGIN}${location}`, {
        headers: { authorization: `Bearer ${RELAY_KEY}`, ...(last === null ? {} : { "last-event-id": last }) },
      }),
      keyed,
    );
    expect(resumed.status).toBe(200);
    const text = await resumed.text();
    for (const body of [first, text]) {
      expect(body).toMatch(/"reasoning_details":\[\{"type":"reasoning\.encrypted","data":"mmsp1\.[A-Za-z0-9_-]+"/);
      expect(body).not.toContain(SCRIPTED_SIGNATURE);
      expect(body).not.toContain("mmsp-pending.");
    }
  }
});

const KEY = "sk-workerd-chat-completions";
const BACKENDS: [
  ProviderName,
  (fetch: typeof globalThis.fetch) => Provider,
  string,
  string,
][] = [
  [
    "anthropic",
    (fetch) => anthropic({ apiKey: KEY, baseURL: "https://p.test", fetch }),
    ANTHROPIC.TOOL_USE,
    ANTHROPIC.TEXT,
  ],
  [
    "openai-chat",
    (fetch) => openaiChat({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }),
    CHAT.PARALLEL_TOOLS_INTERLEAVED, // (OpenAI's own shape, the role first: a streamed request is passed through to this target)
    CHAT.TEXT,
  ],
  [
    "gemini",
    (fetch) => gemini({ apiKey: KEY, baseURL: "https://p.test/v1beta", fetch }),
    GEMINI.PARALLEL_CALLS,
    GEMINI.TEXT,
  ],
  [
    "openai-responses",
    (fetch) => openaiResponses({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }),
    RESPONSES.FUNCTION_CALLS,
    RESPONSES.TEXT,
  ],
];

const WEATHER = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "The weather",
    parameters: {
      type: "object",
      properties: { location: { type: "string" } },
    },
  },
};

test.each(BACKENDS)(
  "the stateless relay in workerd: openai tools over two turns from %s, streamed then not",
  async (name, make, tools, text) => {
    const fake = fakeProvider(name, {
      streams: {
        "tool-model": parseCapture(tools),
        "text-model": parseCapture(text),
      },
      key: KEY,
    });
    const provider = make(fake as unknown as typeof fetch);
    const relay = createRelay({
      models: {
        tools: { provider, model: "tool-model" },
        answer: { provider, model: "text-model" },
      },
      allowAnonymous: true,
    });
    const sdk = new OpenAI({
      apiKey: "unused",
      baseURL: `${ORIGIN}/v1`,
      maxRetries: 0,
      fetch: (input: RequestInfo | URL, init?: RequestInit) =>
        relay.fetch(
          new Request(input as RequestInfo, { ...EDGE, ...init }),
          {},
        ),
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{
      role: "user",
      content: "Weather in Paris?",
    }];
    const first = await sdk.chat.completions.stream({
      model: "tools",
      messages,
      tools: [WEATHER],
    }).finalChatCompletion();
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const message = first.choices[0]!.message;
    messages.push(message as OpenAI.ChatCompletionMessageParam);
    for (const call of message.tool_calls!) {
      messages.push({
        role: "tool",
        tool_call_id: call.id,
        content: `18 degrees for ${call.id}`,
      });
    }
    const second = await sdk.chat.completions.create({
      model: "answer",
      messages,
      tools: [WEATHER],
    });
    expect(second.choices[0]!.finish_reason).toBe("stop");
    expect(second.choices[0]!.message.content!.length).toBeGreaterThan(0);
    const sent = JSON.stringify(fake.requests.at(-1)!.json);
    for (const call of message.tool_calls!) {
      expect(sent).toContain(`18 degrees for ${call.id}`);
    }
  },
);
