// The Gemini door through the real stream Durable Object (issue #47): the repository Worker's
// provider-backed models (worker/models.ts: claude-fast → Anthropic, gpt-fast → OpenAI Chat) against
// the scripted provider APIs, asked in Gemini's API with Gemini's key header: streamGenerateContent?alt=sse
// (Gemini's chunks, the stream object named by Content-Location), generateContent, a thinking turn's
// signature on its thought part, countTokens; `@google/genai` itself in workerd (its web build, its
// `httpOptions.fetch` the Worker's). Then the stateless relay in workerd with the kit's fakeProvider
// for each of the four providers.
import { env } from "cloudflare:test";
import { GoogleGenAI } from "@google/genai";
import { describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { createRelay } from "../../src/relay/index.ts";
import { anthropic, gemini, openaiChat, openaiResponses, type Provider } from "../../src/providers/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../src/testing/index.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import * as CHAT from "../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../cases/providers/captures-openai-responses.ts";
/** The signature the scripted Anthropic API gives its thinking (providers.ts runs in Node: not imported into workerd). */
const THINKING_SIGNATURE = "EqQBCgIYAhIMscripted+anthropic/signature==";
import { EDGE, newTag, ORIGIN, upstreamCancelled } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
// (RELAY_SEAL_KEY: another provider's thought signature goes sealed, doors/seal.ts)
const keyed = { ...env, RELAY_KEY, RELAY_SEAL_KEY: "relay-seal-key-for-the-pool-tests-0123456789" } as typeof env & { RELAY_KEY: string };
type Rec = Record<string, any>;

const ask = (model: string, method: string, text: string, extra: object = {}, more: Record<string, string> = {}): Promise<Response> =>
  worker.fetch(
    new Request(`${ORIGIN}/v1beta/models/${model}:${method}${method === "streamGenerateContent" ? "?alt=sse" : ""}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": RELAY_KEY, ...more },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text }] }], ...extra }),
    }),
    keyed,
  );

/** Gemini's SSE chunks (`data: <GenerateContentResponse>`, CRLF-separated as Gemini writes them). */
async function chunks(answer: Response): Promise<Rec[]> {
  expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const text = new TextDecoder().decode(await answer.arrayBuffer());
  // (a kept stream's answer puts `id: <n>` in an event of its own after the last chunk of each event)
  return text.split(/\r?\n\r?\n/).filter((r) => r.startsWith("data: ")).map((r) => JSON.parse(r.slice("data: ".length)) as Rec);
}
const partsOf = (cs: Rec[]): Rec[] => cs.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);

describe.each(["claude-fast", "gpt-fast"])("the Gemini door through the stream object: %s", (model) => {
  test("streamGenerateContent?alt=sse: Gemini's chunks, the text, STOP and usage last; not kept unless asked", async () => {
    const answer = await ask(model, "streamGenerateContent", `tag:${newTag()} script:text`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-location")).toBeNull();
    const cs = await chunks(answer);
    expect(partsOf(cs).map((p) => p.text).join("")).toBe("Hello, provider world!");
    expect(cs.at(-1)!.candidates[0].finishReason).toBe("STOP");
    expect(cs.at(-1)!.usageMetadata.promptTokenCount).toBeGreaterThan(0);
  });

  test("generateContent: one GenerateContentResponse", async () => {
    const answer = await ask(model, "generateContent", `tag:${newTag()} script:text`);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Rec;
    expect(body.candidates[0].content.parts.map((p: Rec) => p.text).join("")).toBe("Hello, provider world!");
    expect(body.modelVersion).toBe(model);
  });
});

test("x-mmsp-keep: 1 keeps the stream in its object: Content-Location names it, each event's last chunk followed by its id", async () => {
  const answer = await ask("claude-fast", "streamGenerateContent", `tag:${newTag()} script:text`, {}, { "x-mmsp-keep": "1" });
  expect(answer.headers.get("content-location")).toMatch(/^\/v1\/streams\/[0-9a-f]{32}$/);
  const text = new TextDecoder().decode(await answer.clone().arrayBuffer());
  // (every chunk an event that begins with `data:`, its id an event of its own after it: @google/genai reads only the former)
  expect(text).toMatch(/^data: \{[^\r\n]*\r\n\r\nid: \d+\r\n\r\n/m);
  expect(text.split("\r\n\r\n").filter(Boolean).every((e) => e.startsWith("data: ") || /^id: \d+$/.test(e))).toBe(true);
  const cs = await chunks(answer);
  expect(partsOf(cs).map((p) => p.text).join("")).toBe("Hello, provider world!");
  // (resumed at its Content-Location: Gemini's chunks again, the door's encoding kept with the stream)
  const location = answer.headers.get("content-location")!;
  const again = await worker.fetch(new Request(`${ORIGIN}${location}`, { headers: { "x-goog-api-key": RELAY_KEY } }), keyed);
  expect(again.status).toBe(200);
  expect(partsOf(await chunks(again)).map((p) => p.text).join("")).toBe("Hello, provider world!");
});

test("a kept stream: DELETE at its Content-Location stops the provider's request", async () => {
  const tag = newTag();
  const answer = await ask("claude-fast", "streamGenerateContent", `tag:${tag} script:endless`, {}, { "x-mmsp-keep": "1" });
  const location = answer.headers.get("content-location")!;
  const reader = answer.body!.getReader();
  let text = "";
  while (!text.includes('"text"')) text += new TextDecoder().decode((await reader.read()).value);
  const stopped = await worker.fetch(
    new Request(`${ORIGIN}${location}`, { method: "DELETE", headers: { "x-goog-api-key": RELAY_KEY } }),
    keyed,
  );
  expect(stopped.status).toBeLessThan(300);
  await stopped.arrayBuffer();
  expect(await upstreamCancelled(tag, 5000), "the provider's request was aborted").not.toBeNull();
  await reader.cancel();
});

test("a Claude thinking turn: the thought part carries its signature, sealed (another provider's: SPEC §10)", async () => {
  const cs = await chunks(await ask("claude-fast", "streamGenerateContent", `tag:${newTag()} script:thinking`));
  const thought = partsOf(cs).filter((p) => p.thought);
  expect(thought.map((p) => p.text).join("")).toBe("A greeting is due.");
  expect(thought.some((p) => typeof p.thoughtSignature === "string" && p.thoughtSignature.startsWith("mmsp1."))).toBe(true);
  expect(JSON.stringify(cs)).not.toContain(THINKING_SIGNATURE);
});

test("countTokens: the row's target's own counter's figure (Anthropic's, for claude-fast); a wrong key is Google's 401", async () => {
  const counted = await ask("claude-fast", "countTokens", "How many tokens?");
  expect(counted.status).toBe(200);
  expect(counted.headers.get("x-mmsp-tokens-estimated")).toBeNull();
  expect(((await counted.json()) as Rec).totalTokens).toBe(4242); // (providers.ts's SCRIPTED_COUNT)
  const wrong = await worker.fetch(
    new Request(`${ORIGIN}/v1beta/models/claude-fast:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": "nope" },
      body: "{}",
    }),
    keyed,
  );
  expect(wrong.status).toBe(401);
  expect(((await wrong.json()) as Rec).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
});

test("@google/genai in workerd: generateContentStream and generateContent through the Worker", async () => {
  const ai = new GoogleGenAI({
    apiKey: RELAY_KEY,
    httpOptions: { baseUrl: ORIGIN, fetch: (input, init) => worker.fetch(new Request(input as RequestInfo, init), keyed) },
  });
  let text = "";
  for await (const chunk of await ai.models.generateContentStream({ model: "gpt-fast", contents: `tag:${newTag()} script:text` })) {
    text += chunk.text ?? "";
  }
  expect(text).toBe("Hello, provider world!");
  const whole = await ai.models.generateContent({ model: "claude-fast", contents: `tag:${newTag()} script:text` });
  expect(whole.text).toBe("Hello, provider world!");
});

test("@google/genai in workerd with x-mmsp-keep: 1: generateContentStream reads a kept answer whole (its ids events of their own, which it skips)", async () => {
  const ai = new GoogleGenAI({
    apiKey: RELAY_KEY,
    httpOptions: {
      baseUrl: ORIGIN,
      headers: { "x-mmsp-keep": "1" },
      fetch: (input, init) => worker.fetch(new Request(input as RequestInfo, init), keyed),
    },
  });
  let text = "";
  let finish: unknown;
  for await (const chunk of await ai.models.generateContentStream({ model: "claude-fast", contents: `tag:${newTag()} script:text` })) {
    text += chunk.text ?? "";
    finish = chunk.candidates?.[0]?.finishReason ?? finish;
  }
  expect(text).toBe("Hello, provider world!");
  expect(finish).toBe("STOP");
});

test("a kept thinking turn (its thought and text chunks written as bytes in the object, doors/gemini/bytes.ts; the signed part as text): Gemini's chunks, its resume the same bytes", async () => {
  const answer = await ask("claude-fast", "streamGenerateContent", `tag:${newTag()} script:thinking`, {}, { "x-mmsp-keep": "1" });
  const location = answer.headers.get("content-location")!;
  const text = await answer.text();
  expect(text).toMatch(
    /^data: \{"candidates":\[\{"content":\{"role":"model","parts":\[\{"text":"[^"]*","thought":true\}\]\}.*\r\n\r\nid: \d+\r\n/m,
  );
  const cs = await chunks(new Response(text, { headers: { "content-type": "text/event-stream" } }));
  const thought = partsOf(cs).filter((p) => p.thought);
  expect(thought.map((p) => p.text).join("")).toBe("A greeting is due.");
  expect(thought.some((p) => typeof p.thoughtSignature === "string" && p.thoughtSignature.startsWith("mmsp1."))).toBe(true);
  expect(partsOf(cs).filter((p) => !p.thought).map((p) => p.text).join("")).not.toBe("");
  const again = await worker.fetch(new Request(`${ORIGIN}${location}`, { headers: { "x-goog-api-key": RELAY_KEY } }), keyed);
  // (the same bytes but for the seal, new each answer: doors/seal.ts)
  const unsealed = (t: string): string => t.replace(/"thoughtSignature":"mmsp1\.[^"]*"/g, '"thoughtSignature":"…"');
  expect(unsealed(await again.text())).toBe(unsealed(text));
});

const KEY = "sk-relay-pool-gemini-KEY";
const BACKENDS: [ProviderName, (fetch: typeof globalThis.fetch) => Provider, string][] = [
  ["anthropic", (fetch) => anthropic({ apiKey: KEY, baseURL: "https://p.test", fetch }), ANTHROPIC.TEXT],
  ["openai-chat", (fetch) => openaiChat({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }), CHAT.TEXT],
  ["gemini", (fetch) => gemini({ apiKey: KEY, baseURL: "https://p.test/v1beta", fetch }), GEMINI.TEXT],
  ["openai-responses", (fetch) => openaiResponses({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }), RESPONSES.TEXT],
];

test.each(BACKENDS)("the stateless relay in workerd answers Gemini's API from %s (streamed and whole)", async (name, make, capture) => {
  const fake = fakeProvider(name, { streams: { m: parseCapture(capture) }, key: KEY });
  const relay = createRelay({ models: { m: { provider: make(fake as unknown as typeof fetch), model: "m" } }, allowAnonymous: true });
  const post = (method: string) =>
    relay.fetch(
      new Request(`${ORIGIN}/v1beta/models/m:${method}`, {
        ...EDGE,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ systemInstruction: { parts: [{ text: "Be brief." }] }, contents: [{ parts: [{ text: "Hi" }] }] }),
      }),
      {},
    );
  const cs = await chunks(await post("streamGenerateContent?alt=sse"));
  const text = partsOf(cs).map((p) => p.text ?? "").join("");
  expect(text.length).toBeGreaterThan(0);
  const whole = (await (await post("generateContent")).json()) as Rec;
  expect(whole.candidates[0].content.parts.map((p: Rec) => p.text ?? "").join("")).toBe(text);
  expect(JSON.stringify(fake.requests.at(-1)!.json)).toContain("Be brief.");
  // (same API in, same provider out: behind the Gemini target the stream is the provider's own, its modelVersion; else the door's, the row's name)
  expect(cs.at(-1)!.modelVersion).toBe(name === "gemini" ? "gemini-3-pro-preview" : "m");
});
