// `prompt_cache_key` and `parallel_tool_calls: false` through the relay's doors (issue #46), in Node:
// the real SDKs (`openai`'s responses.create and chat.completions.create, `@anthropic-ai/sdk`'s
// messages.create with `tool_choice.disable_parallel_tool_use`) pointed at the stateless relay, each
// provider's fake behind it. One config key each (UniConfig's `prompt_cache_key` and
// `parallel_tool_calls`), which each builder maps: OpenAI Chat and Responses their own members, Anthropic
// `tool_choice.disable_parallel_tool_use` (and no cache key: it caches by `cache_control`), Gemini no cache
// key and no control of parallel calls (`false` refused by name, nothing asked). The fakes refuse what the
// real APIs refuse (src/testing/member-rules.ts): a member the API does not have, Chat's
// `parallel_tool_calls` without tools.
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import type { ProviderName } from "../../../../src/testing/index.ts";
import { doorRelay, PROVIDER_TEXT, providerFor, relayFetch } from "./door-relay.ts";

const ORIGIN = "https://relay.test";
const KEY = "sk-unit-tool-settings-KEY";

const TEXT = PROVIDER_TEXT;

/** The stateless relay with one row, `m`, served by `name`'s fake; the SDKs' fetch is the relay's. */
function relayFor(name: ProviderName) {
  const { relay, fake } = doorRelay({ provider: name, key: KEY, streams: { m: TEXT[name] }, rows: (provider) => ({ m: { provider, model: "m" } }) });
  const fetch = relayFetch(relay) as typeof globalThis.fetch;
  const openai = new OpenAI({ baseURL: `${ORIGIN}/v1`, apiKey: "sk-relay-client", fetch, maxRetries: 0 });
  const claude = new Anthropic({ baseURL: ORIGIN, apiKey: "sk-relay-client", fetch, maxRetries: 0 });
  /** What the fake provider was last asked (undefined: nothing). */
  const asked = (): Record<string, any> | undefined => fake.requests.at(-1)?.json as Record<string, any> | undefined;
  return { openai, claude, asked };
}

const PARAMETERS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const RESPONSES_TOOL = { type: "function" as const, name: "get_weather", description: "The weather.", parameters: PARAMETERS, strict: false };
const CHAT_TOOL = { type: "function" as const, function: { name: "get_weather", description: "The weather.", parameters: PARAMETERS } };
const MESSAGES_TOOL = { name: "get_weather", description: "The weather.", input_schema: PARAMETERS as Anthropic.Tool.InputSchema };

/** What each provider is asked for `parallel_tool_calls: false` with a tool (Gemini: refused, nothing asked). */
const SINGLE_CALL: Record<ProviderName, (sent: Record<string, any>) => void> = {
  "openai-chat": (sent) => expect(sent.parallel_tool_calls).toBe(false),
  "openai-responses": (sent) => expect(sent.parallel_tool_calls).toBe(false),
  anthropic: (sent) => {
    expect(sent.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(sent).not.toHaveProperty("parallel_tool_calls");
  },
  gemini: () => {},
};
/**
 * `ask` (with a tool and `parallel_tool_calls: false`) at `name`: Gemini has no control of parallel calls,
 * so it is refused (400, `refusal`, naming parallel_tool_calls) and nothing asked; the others are asked
 * for one call at a time in their own member (SINGLE_CALL). The answer (undefined for Gemini's refusal).
 */
async function oneCallAtATime<T>(
  name: ProviderName,
  ask: Promise<T>,
  asked: () => Record<string, any> | undefined,
  refusal: object = { status: 400 },
): Promise<T | undefined> {
  if (name === "gemini") {
    await expect(ask).rejects.toMatchObject(refusal);
    await expect(ask).rejects.toThrow(/parallel_tool_calls/);
    expect(asked()).toBeUndefined();
    return undefined;
  }
  const answer = await ask;
  SINGLE_CALL[name](asked()!);
  return answer;
}
const OPENAI = new Set<ProviderName>(["openai-chat", "openai-responses"]);
const NAMES = Object.keys(TEXT) as ProviderName[];

describe("prompt_cache_key: OpenAI's cache hint where the provider has one, else no effect", () => {
  test.each(NAMES)("Open Responses and Chat Completions doors → %s", async (name) => {
    const { openai, asked } = relayFor(name);
    const response = await openai.responses.create({ model: "m", input: "Hi", prompt_cache_key: "codex-session-1" });
    expect(response.status).toBe("completed");
    expect(response.prompt_cache_key).toBe("codex-session-1");
    if (OPENAI.has(name)) expect(asked()!.prompt_cache_key).toBe("codex-session-1");
    else expect(asked()).not.toHaveProperty("prompt_cache_key");
    const completion = await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }], prompt_cache_key: "chat-1" });
    expect(completion.choices[0]!.message.content).not.toBe("");
    if (OPENAI.has(name)) expect(asked()!.prompt_cache_key).toBe("chat-1");
    else expect(asked()).not.toHaveProperty("prompt_cache_key");
  });
});

describe("parallel_tool_calls: false: at most one tool call, as each provider says it", () => {
  test.each(NAMES)("Open Responses door → %s", async (name) => {
    const { openai, asked } = relayFor(name);
    const ask = openai.responses.create({ model: "m", input: "Weather?", tools: [RESPONSES_TOOL], parallel_tool_calls: false });
    const response = await oneCallAtATime(name, ask, asked, { status: 400, error: { param: "parallel_tool_calls" } });
    if (response) expect(response.parallel_tool_calls).toBe(false);
  });

  test.each(NAMES)("Chat Completions door → %s", async (name) => {
    const { openai, asked } = relayFor(name);
    const ask = openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Weather?" }],
      tools: [CHAT_TOOL],
      parallel_tool_calls: false,
    });
    await oneCallAtATime(name, ask, asked);
  });

  test.each(NAMES)("Messages door's tool_choice.disable_parallel_tool_use → %s", async (name) => {
    const { claude, asked } = relayFor(name);
    const ask = claude.messages.create({
      model: "m",
      max_tokens: 64,
      messages: [{ role: "user", content: "Weather?" }],
      tools: [MESSAGES_TOOL],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    await oneCallAtATime(name, ask, asked);
  });

  test("without tools it asks nothing (OpenAI refuses parallel_tool_calls without tools); true is the default, nothing sent", async () => {
    for (const name of ["openai-chat", "anthropic"] as const) {
      const { openai, asked } = relayFor(name);
      await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }], parallel_tool_calls: false });
      expect(asked()).not.toHaveProperty("parallel_tool_calls");
      expect(asked()).not.toHaveProperty("tool_choice");
      await openai.responses.create({ model: "m", input: "Hi", tools: [RESPONSES_TOOL], parallel_tool_calls: true });
      expect(asked()).not.toHaveProperty("parallel_tool_calls");
      expect(asked()).not.toHaveProperty("tool_choice");
    }
    // (a Gemini target without tools: nothing to keep to one call)
    const { openai, asked } = relayFor("gemini");
    await openai.responses.create({ model: "m", input: "Hi", parallel_tool_calls: false });
    expect(asked()).toBeDefined();
  });

  test("with tool_choice: Anthropic's any and tool take disable_parallel_tool_use, none takes nothing", async () => {
    const { openai, asked } = relayFor("anthropic");
    const ask = (tool_choice: OpenAI.Responses.ResponseCreateParams["tool_choice"]) =>
      openai.responses.create({ model: "m", input: "Weather?", tools: [RESPONSES_TOOL], tool_choice, parallel_tool_calls: false });
    await ask("required");
    expect(asked()!.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
    await ask({ type: "function", name: "get_weather" });
    expect(asked()!.tool_choice).toEqual({ type: "tool", name: "get_weather", disable_parallel_tool_use: true });
    await ask("none");
    expect(asked()!.tool_choice).toEqual({ type: "none" });
  });
});

describe("the config keys checked by every builder (an MMSP client's config at /v1/stream)", () => {
  test.each([
    [{ prompt_cache_key: 7 }, "prompt_cache_key"],
    [{ parallel_tool_calls: "no" }, "parallel_tool_calls"],
  ])("%j is refused naming %s before anything is sent", (config, key) => {
    for (const name of NAMES) {
      const provider = providerFor(name, KEY, () => Promise.reject(new Error("nothing is sent")));
      const ask = () => provider.request({ model: "m", messages: [], config: config as never });
      expect(ask).toThrow(expect.objectContaining({ name: "UnsupportedParameterError", parameter: key }));
    }
  });
});
