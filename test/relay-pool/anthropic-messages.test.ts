// The Anthropic Messages door (issue #47) in workerd, through the real stream Durable Object: the
// repository Worker's provider-backed models (worker/models.ts: claude-fast → Anthropic, gpt-fast →
// OpenAI Chat) against the scripted provider APIs, asked by `@anthropic-ai/sdk` (its key sent as
// `x-api-key`, as the SDK does): `messages.stream` and `messages.create`, `messages.countTokens`, and
// Claude Code's `HEAD /` probe (the demo page stays at GET /).
import Anthropic from "@anthropic-ai/sdk";
import { env } from "cloudflare:test";
import { describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN, upstreamCancelled } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };

/** The Worker as the SDK's fetch. */
const viaWorker = (input: RequestInfo | URL, init?: RequestInit) => worker.fetch(new Request(input as RequestInfo, init), keyed);
const client = new Anthropic({ apiKey: RELAY_KEY, baseURL: ORIGIN, maxRetries: 0, fetch: viaWorker });

describe.each(["claude-fast", "gpt-fast"])("Messages through the stream object: %s", (model) => {
  test("messages.stream: message_start, the text, stop_reason end_turn, usage", async () => {
    const stream = client.messages.stream({
      model,
      max_tokens: 1024,
      messages: [{ role: "user", content: `tag:${newTag()} script:text` }],
    });
    const types: string[] = [];
    stream.on("streamEvent", (e) => types.push(e.type));
    let text = "";
    stream.on("text", (t) => (text += t));
    const message = await stream.finalMessage();
    expect(text).toBe("Hello, provider world!");
    expect(types[0]).toBe("message_start");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    // (claude-fast: passed through, the provider's own id; gpt-fast: the door's, msg_ and 32 hex digits)
    expect(message.id).toMatch(model === "claude-fast" ? /^msg_1$/ : /^msg_[0-9a-f]{32}$/);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  test("messages.create: one message object", async () => {
    const message = await client.messages.create({
      model,
      max_tokens: 1024,
      messages: [{ role: "user", content: `tag:${newTag()} script:text` }],
    });
    expect(message.content).toEqual([{ type: "text", text: "Hello, provider world!" }]);
    expect(message.model).toBe(model);
  });
});

/** providers.ts's SCRIPTED_COUNT (that module runs in Node, beside the pool: not importable here). */
const SCRIPTED_COUNT = 4242;

test("messages.countTokens: Anthropic's own counter's figure (claude-fast); an OpenAI Chat target's the estimate, said to be one", async () => {
  const ask = (model: string) => client.messages.countTokens({ model, messages: [{ role: "user", content: "count me" }] }).withResponse();
  const claude = await ask("claude-fast");
  expect(claude.data.input_tokens).toBe(SCRIPTED_COUNT);
  expect(claude.response.headers.get("x-mmsp-tokens-estimated")).toBeNull();
  const gpt = await ask("gpt-fast");
  expect(gpt.data.input_tokens).toBeGreaterThan(0);
  expect(gpt.data.input_tokens).not.toBe(SCRIPTED_COUNT);
  expect(gpt.response.headers.get("x-mmsp-tokens-estimated")).toBe("true");
});

test("a refusal is Messages' error shape: over the row's max_tokens ceiling, a wrong key", async () => {
  const over = await client.messages.create({ model: "claude-fast", max_tokens: 4096, messages: [{ role: "user", content: "x" }] })
    .catch((e: unknown) => e);
  expect(over).toBeInstanceOf(Anthropic.BadRequestError);
  const wrong = new Anthropic({ apiKey: "wrong", baseURL: ORIGIN, maxRetries: 0, fetch: viaWorker });
  const refused = await wrong.messages.create({ model: "claude-fast", max_tokens: 64, messages: [{ role: "user", content: "x" }] })
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(Anthropic.AuthenticationError);
});

test("HEAD / answers 200 (Claude Code's probe); GET / is still the demo page", async () => {
  const head = await worker.fetch(new Request(`${ORIGIN}/`, { method: "HEAD" }), keyed);
  expect(head.status).toBe(200);
  const page = await worker.fetch(new Request(`${ORIGIN}/`), keyed);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  await page.arrayBuffer();
});

describe("a kept Messages stream (x-mmsp-keep: 1): event ids, Content-Location, Last-Event-ID resume, DELETE", () => {
  const post = (tag: string, script: string): Promise<Response> =>
    worker.fetch(
      new Request(`${ORIGIN}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": RELAY_KEY, "x-mmsp-keep": "1" },
        body: JSON.stringify({
          model: "claude-fast",
          max_tokens: 1024,
          stream: true,
          messages: [{ role: "user", content: `tag:${tag} script:${script}` }],
        }),
      }),
      keyed,
    );
  const at = (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    headers.set("x-api-key", RELAY_KEY);
    return worker.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), keyed);
  };

  test("resumed after an event id: the rest of the same Messages stream", async () => {
    const answer = await post(newTag(), "text");
    expect(answer.status).toBe(200);
    const location = answer.headers.get("content-location")!;
    expect(location).toMatch(/^\/v1\/messages\/msg_[0-9a-f]{32}$/);
    const text = await answer.text();
    const records = text.split("\n\n").filter(Boolean);
    const ids = records.map((r) => /^id: (\d+)$/m.exec(r)?.[1]).filter((x): x is string => x !== undefined);
    expect(ids.length).toBeGreaterThan(2);
    const cut = records.findIndex((r) => r.startsWith(`id: ${ids[0]}\n`));
    const resumed = await at(location, { headers: { "last-event-id": ids[0]! } });
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toBe(records.slice(cut + 1).map((r) => `${r}\n\n`).join(""));
  });

  test("DELETE at its Content-Location stops the provider's request", async () => {
    const tag = newTag();
    const answer = await post(tag, "endless");
    const location = answer.headers.get("content-location")!;
    const reader = answer.body!.getReader();
    let text = "";
    while (!text.includes("text_delta")) text += new TextDecoder().decode((await reader.read()).value);
    const stopped = await at(location, { method: "DELETE" });
    expect(stopped.status).toBeLessThan(300);
    await stopped.arrayBuffer();
    expect(await upstreamCancelled(tag, 5000), "the provider's request was aborted").not.toBeNull();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    expect(text).toContain("event: error");
  });
});
