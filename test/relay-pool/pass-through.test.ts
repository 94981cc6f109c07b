// Same API in, same provider out (issue #47), in workerd: the stateless relay with the kit's fakes
// behind the Messages door (an Anthropic target) and the Gemini door (a Gemini target). A streamed
// request not kept goes to the provider as the client wrote it (its betas, `cache_control`, members the
// relay does not map) but for the key, the row's model and the reserved output, and the row's own
// `config` (a thinking level the client did not ask, as the mapped path sends it); the client gets the
// provider's bytes as they came. (The Chat door's case runs through the Worker: chat-completions.test.ts.)
import { describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/index.ts";
import { anthropic, gemini } from "../../src/providers/index.ts";
import { fakeProvider, parseCapture } from "../../src/testing/index.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import { recorded } from "../unit/relay/doors/pass-through-kit.ts";
import { EDGE, ORIGIN } from "./relay.ts";

const KEY = "sk-relay-pool-pass-through-KEY";
const RELAY_KEY = "sk-relay-pool-pass-through-app";
const ENV = { RELAY_KEY };

const post = (path: string, body: object, headers: Record<string, string>) =>
  new Request(`${ORIGIN}${path}`, { ...EDGE, method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("the Messages door passes a streamed request through to an Anthropic target, in workerd", () => {
  const setup = () => {
    const fake = fakeProvider("anthropic", { streams: { "claude-target": parseCapture(ANTHROPIC.TEXT) }, key: KEY });
    const { sent, fetch } = recorded(fake);
    const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch });
    const relay = createRelay({ models: { "claude-sonnet-4-5": { provider, model: "claude-target" } } });
    return { fake, sent, relay };
  };
  /** Claude Code's kind of request: a cache breakpoint, a member the relay does not know. */
  const WRITTEN = {
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    stream: true,
    system: [{ type: "text", text: "You are Claude Code." }, { type: "text", text: "The project.", cache_control: { type: "ephemeral" } }],
    messages: [{ role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral" } }] }],
    context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
  };

  test("the provider receives the client's body and betas (but the key and model); the client receives the provider's bytes", async () => {
    const { fake, sent, relay } = setup();
    const headers = { "x-api-key": RELAY_KEY, "anthropic-version": "2023-06-01", "anthropic-beta": "prompt-caching-2024-07-31" };
    const answer = await relay.fetch(post("/v1/messages?beta=true", WRITTEN, headers), ENV);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(sent).toHaveLength(1);
    expect(text).toBe(sent[0]); // (byte for byte: the provider's ids, its ping, its model)
    const asked = fake.requests[0]!;
    expect(asked.json).toEqual({ ...WRITTEN, model: "claude-target" });
    expect(asked.headers["anthropic-beta"]!.split(",")).toContain("prompt-caching-2024-07-31");
    expect(asked.headers["x-api-key"]).toBe("[redacted]"); // (the provider's key, not the client's)
    expect(JSON.stringify(asked)).not.toContain(RELAY_KEY);
  });
});

describe("the Gemini door passes a streamed request through to a Gemini target, in workerd", () => {
  const setup = () => {
    const fake = fakeProvider("gemini", { streams: { "gemini-target": parseCapture(GEMINI.TEXT) }, key: KEY });
    const { sent, fetch } = recorded(fake);
    const provider = gemini({ apiKey: KEY, baseURL: "https://api.gemini.test/v1beta", fetch });
    const relay = createRelay({
      models: {
        "gemini-pro": { provider, model: "gemini-target" },
        "gemini-thinking": { provider, model: "gemini-target", config: { thinking_level: "low" } },
      },
    });
    return { fake, sent, relay };
  };
  /** A request with top-level members the relay does not map (they go along when passed through). */
  const WRITTEN = {
    contents: [{ role: "user", parts: [{ text: "Why is the sky blue?" }] }],
    systemInstruction: { parts: [{ text: "Be brief." }] },
    generationConfig: { maxOutputTokens: 200, thinkingConfig: { includeThoughts: true } },
    labels: { team: "search" },
    serviceTier: "standard",
  };
  const headers = { "x-goog-api-key": RELAY_KEY };

  test("the provider receives the client's body (but the key, the model, the reserve); the client receives the provider's bytes", async () => {
    const { fake, sent, relay } = setup();
    const answer = await relay.fetch(post("/v1beta/models/gemini-pro:streamGenerateContent?alt=sse", WRITTEN, headers), ENV);
    expect(answer.status).toBe(200);
    const text = await answer.text();
    expect(sent).toHaveLength(1);
    expect(text).toBe(sent[0]); // (byte for byte: the provider's responseId, modelVersion, CRLF framing)
    const asked = fake.requests[0]!;
    expect(asked.url).toContain("/models/gemini-target:streamGenerateContent");
    expect(asked.json).toEqual(WRITTEN);
    expect(JSON.stringify(asked)).not.toContain(RELAY_KEY);
  });

  test("a row's config holds as on the mapped path: its thinking level beside the client's members", async () => {
    const { fake, sent, relay } = setup();
    const answer = await relay.fetch(post("/v1beta/models/gemini-thinking:streamGenerateContent?alt=sse", WRITTEN, headers), ENV);
    expect(await answer.text()).toBe(sent[0]);
    expect(fake.requests[0]!.json).toEqual({
      ...WRITTEN,
      generationConfig: { maxOutputTokens: 200, thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" } },
    });
  });
});
