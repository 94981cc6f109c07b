// The relay as an MMSP server (issue #28): the repository Worker's provider-backed models
// (worker/models.ts: "claude-fast" → anthropic(), "gpt-fast" → openaiChat()) against the scripted
// provider APIs (providers.ts), through the real Durable Object: create, resume after a cut at every
// event boundary, stop (the provider's request aborted < 1 s), the refusals (closed by default,
// unknown model, unsupported parameter, the provider's own), GET /v1/models, and the keys absent
// from every byte a client and the log receive.
import { env, SELF } from "cloudflare:test";
import { afterEach, beforeAll, beforeEach, describe, expect, test, vi } from "vitest";
import worker from "../../worker/index.ts";
import { providerModels } from "../../worker/models.ts";
import { createRelay } from "../../src/relay/index.ts";
import { gemini } from "../../src/providers/index.ts";
import { EDGE, lastId, newTag, ORIGIN, readBack, readRecords, records, rest, streamIdOf, textOf, upstreamCancelled } from "./relay.ts";

const KEYS = ["sk-ant-test-KEY-must-not-leak-0001", "sk-test-KEY-must-not-leak-0002"];
const RELAY_KEY = "relay-key-for-tests";
/** The Worker's bindings with the relay's key set (the bindings themselves have none: the other tests create without one). */
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// The first DELETE of a test file's isolate can wait seconds in workerd under load (cancel.test.ts's
// first case too), whatever the relay does: one stream created and stopped first, not timed.
beforeAll(async () => {
  const init = { headers: { "content-type": "application/json", "x-relay-key": RELAY_KEY } };
  const body = mmsp("claude-fast", newTag(), "endless");
  const answer = await worker.fetch(new Request(`${ORIGIN}/v1/stream`, { method: "POST", body, ...init }), keyed);
  const { reader } = await readRecords(answer.body!, 2);
  await (await worker.fetch(new Request(`${ORIGIN}${answer.headers.get("content-location")}`, { method: "DELETE", ...init }), keyed))
    .arrayBuffer();
  await reader.cancel();
}, 30_000);

/** What every test's client received (bodies and headers), scanned for the keys at the end. */
let received: string[] = [];
let logged: string[] = [];
beforeEach(() => {
  received = [];
  logged = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(
        args.map((a) => (a instanceof Error ? `${a.name}: ${a.message}\n${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(
          " ",
        ),
      );
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
  const all = [...received, ...logged].join("\n");
  for (const key of KEYS) expect(all.includes(key), `a provider key in what a client or the log received`).toBe(false);
  for (const key of KEYS) expect(all.includes(key.slice(8)), `a part of a provider key`).toBe(false);
});

/** An answer's status line and headers, noted for the key scan. */
function note(response: Response): Response {
  received.push(`${response.status} ${[...response.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}`);
  return response;
}
/** An answer's body as text, noted for the key scan. */
async function body(response: Response): Promise<string> {
  const text = await textOf(response);
  received.push(text);
  return text;
}

/** A request to the Worker with the relay's key (its own env: the bindings plus RELAY_KEY). */
async function keyedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("x-relay-key", RELAY_KEY);
  return note(await worker.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), keyed));
}

/** The MMSP request of a test: the tag and the script go in the user's text (providers.ts). */
function mmsp(model: string, tag: string, script = "text", config: object = {}): string {
  return JSON.stringify({
    model,
    messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:${script}` }] }],
    config,
  });
}
const post = (model: string, tag: string, script?: string, config?: object): Promise<Response> =>
  keyedFetch("/v1/stream", { method: "POST", headers: { "content-type": "application/json" }, body: mmsp(model, tag, script, config) });

/** What the scripted providers saw of a tag. */
async function providerSaw(tag: string): Promise<{ count: number; key: string | null; body: string }> {
  return (await (await fetch(`http://upstream.test/__provider?tag=${tag}`)).json()) as { count: number; key: string | null; body: string };
}

// (worker/models.ts's rows: `config: { max_tokens: 2048 }`, no `allow`)
const MODELS = [
  { model: "claude-fast", provider: "anthropic", key: KEYS[0]!, maxTokens: "max_tokens" },
  { model: "gpt-fast", provider: "openai-chat", key: `Bearer ${KEYS[1]!}`, maxTokens: "max_completion_tokens" },
];

test("GET /v1/models lists the provider table as MMSP's server does (SPEC §1)", async () => {
  const answer = note(await SELF.fetch(`${ORIGIN}/v1/models`));
  expect(answer.status).toBe(200);
  const list = JSON.parse(await body(answer)) as {
    object: string;
    data: { id: string; object: string; created: number; owned_by: string }[];
  };
  expect(list.object).toBe("list");
  expect(list.data.map((m) => m.id)).toEqual(["claude-fast", "gpt-fast", "gpt-responses", "gemini-fast", "fast"]);
  for (const m of list.data) {
    expect(m).toMatchObject({ object: "model", owned_by: "mmsp" });
    expect(m.created).toBeGreaterThan(1_700_000_000);
  }
});

test("closed by default: without RELAY_KEY a provider-backed model is a 401 that names the settings, and the provider is not asked", async () => {
  const tag = newTag();
  const answer = note(
    await SELF.fetch(`${ORIGIN}/v1/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: mmsp("claude-fast", tag),
    }),
  );
  expect(answer.status).toBe(401);
  const { error } = JSON.parse(await body(answer)) as { error: { type: string; message: string } };
  expect(error.type).toBe("AuthenticationError");
  expect(error.message).toMatch(/RELAY_KEY/);
  expect(error.message).toMatch(/allowAnonymous/);
  expect((await providerSaw(tag)).count).toBe(0);
  // the same through the AI SDK route
  const chat = note(
    await SELF.fetch(`${ORIGIN}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: `chat-${tag}`,
        model: "claude-fast",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: `tag:${tag}` }] }],
      }),
    }),
  );
  expect(chat.status).toBe(401);
  await body(chat);
  expect((await providerSaw(tag)).count).toBe(0);
});

describe.each(MODELS)("$model ($provider)", ({ model, provider, key, maxTokens }) => {
  test("create: one provider request with the key, the answer MMSP SSE with ids, x-mmsp-provider, the message whole", async () => {
    const tag = newTag();
    const answer = await post(model, tag);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-mmsp-provider")).toBe(provider);
    expect(answer.headers.get("content-type")).toMatch(/^text\/event-stream/);
    streamIdOf(answer);
    const text = await body(answer);
    const recs = records(text);
    expect(recs.at(-1)!.data).toBe("[DONE]");
    const { message } = await readBack(text);
    expect(message.content_items).toEqual([{ type: "text.done", text: "Hello, provider world!" }]);
    expect(message.finish_reason).toBe("stop");
    const saw = await providerSaw(tag);
    expect(saw).toMatchObject({ count: 1, key }); // the key reached the provider (and, afterEach: no further)
  });

  test("resume after a cut at every event boundary: the same events, no provider request more", async () => {
    const tag = newTag();
    const answer = await post(model, tag);
    const id = streamIdOf(answer);
    const full = records(await body(answer));
    const events = full.filter((r) => r.id !== null);
    expect(events.length).toBeGreaterThan(3);
    for (let k = -1; k < events.length; k++) {
      const headers: Record<string, string> = k < 0 ? {} : { "last-event-id": String(k) };
      const resumed = await keyedFetch(`/v1/streams/${id}`, { headers });
      expect(resumed.status, `resume after ${k}`).toBe(200);
      const rest_ = records(await body(resumed));
      expect(rest_.filter((r) => r.id !== null), `resume after ${k}`).toEqual(events.slice(k + 1));
    }
    expect((await providerSaw(tag)).count).toBe(1);
  });

  test("a client cut mid-stream resumes from its Last-Event-ID and gets the rest while the provider streams", async () => {
    const tag = newTag();
    const answer = await post(model, tag);
    const id = streamIdOf(answer);
    const { text, reader } = await readRecords(answer.body!, 2);
    await reader.cancel("the connection dropped");
    received.push(text);
    const got = records(text).filter((r) => r.id !== null);
    const resumed = await keyedFetch(`/v1/streams/${id}`, { headers: { "last-event-id": String(lastId(got)) } });
    const after = records(await body(resumed));
    const { message } = await readBack(
      [...got, ...after].map((r) => (r.id === null ? `data: ${r.data}\n\n` : `id: ${r.id}\ndata: ${r.data}\n\n`)).join(""),
    );
    expect(message.content_items).toEqual([{ type: "text.done", text: "Hello, provider world!" }]);
    expect((await providerSaw(tag)).count).toBe(1);
  });

  test("stop: DELETE aborts the provider's request within a second; the stream ends StreamCancelled", async () => {
    const tag = newTag();
    const answer = await post(model, tag, "endless");
    expect(answer.status).toBe(200);
    const id = streamIdOf(answer);
    const { reader } = await readRecords(answer.body!, 3);
    const at = Date.now();
    const cancelled = await keyedFetch(`/v1/streams/${id}`, { method: "DELETE" });
    expect(cancelled.status).toBe(204);
    const abortedAt = await upstreamCancelled(tag, 2000);
    expect(abortedAt, "the provider's request was aborted").not.toBeNull();
    expect(abortedAt! - at).toBeLessThan(1000);
    const tail = await rest(reader);
    received.push(tail);
    expect(tail).toMatch(/"type":"StreamCancelled"/);
    expect((await providerSaw(tag)).count).toBe(1);
  });

  test("a parameter the provider has no such thing for: 400 UnsupportedParameterError, the provider not asked", async () => {
    const tag = newTag();
    const answer = await post(model, tag, "text", { image_config: { size: "1K" } });
    expect(answer.status).toBe(400);
    const { error } = JSON.parse(await body(answer)) as { error: { type: string; message: string; parameter: string } };
    expect(error).toMatchObject({ type: "UnsupportedParameterError", parameter: "image_config" });
    expect((await providerSaw(tag)).count).toBe(0);
  });

  test("the row's max_tokens is a ceiling (SPEC §10): the client lowers it; over it a 400 naming it and 2048, the provider not asked", async () => {
    const asked = async (config: object): Promise<unknown> => {
      const tag = newTag();
      const answer = await post(model, tag, "text", config);
      expect(answer.status).toBe(200);
      await body(answer);
      return (JSON.parse((await providerSaw(tag)).body) as Record<string, unknown>)[maxTokens];
    };
    expect(await asked({})).toBe(2048);
    expect(await asked({ max_tokens: 100 })).toBe(100);
    for (const config of [{ max_tokens: 1_000_000 }, { max_tokens: 1_000_000, fast_mode: true }, { max_tokens: null }]) {
      const tag = newTag();
      const answer = await post(model, tag, "text", config);
      expect(answer.status, JSON.stringify(config)).toBe(400);
      const { error } = JSON.parse(await body(answer)) as { error: { type: string; message: string } };
      expect(error.type).toBe("InvalidRequestError");
      expect(error.message).toMatch(/max_tokens.*2048/);
      expect((await providerSaw(tag)).count).toBe(0);
    }
  });

  test("a costlier setting the row does not allow (fast_mode, thinking_level): a 400 naming it, the provider not asked", async () => {
    for (const [setting, config] of [["fast_mode", { fast_mode: true }], ["thinking_level", { thinking_level: "high" }]] as const) {
      const tag = newTag();
      const answer = await post(model, tag, "text", config);
      expect(answer.status, setting).toBe(400);
      const { error } = JSON.parse(await body(answer)) as { error: { type: string; message: string } };
      const type = setting === "thinking_level" ? "InvalidRequestError" : "UnsupportedParameterError"; // (over a ceiling; not offered)
      expect(error).toMatchObject({ type, parameter: setting });
      expect(error.message).toContain(setting);
      expect((await providerSaw(tag)).count).toBe(0);
    }
  });

  test("a client's own function tools are its own (SPEC §10): accepted without the row's allow, sent to the provider", async () => {
    const tool = { name: "weather", description: "The weather.", parameters: { type: "object", properties: {} } };
    const tag = newTag();
    const answer = await post(model, tag, "text", { tools: [tool] });
    expect(answer.status).toBe(200);
    await body(answer);
    const saw = await providerSaw(tag);
    expect(saw.count).toBe(1);
    expect(saw.body).toContain('"weather"');
  });

  test("the provider's refusal: its status and MMSP's type, the key it echoed cut out", async () => {
    const tag = newTag();
    const answer = await post(model, tag, "refuse");
    expect(answer.status).toBe(429);
    const { error } = JSON.parse(await body(answer)) as { error: { type: string; message: string } };
    expect(error.message).toMatch(/Rate limit reached/);
    expect((await providerSaw(tag)).count).toBe(1);
  });
});

test("an error inside the provider's stream that repeats the key: stored and served without it", async () => {
  const tag = newTag();
  const answer = await post("claude-fast", tag, "echo-error");
  expect(answer.status).toBe(200);
  const id = streamIdOf(answer);
  const text = await body(answer);
  expect(text).toMatch(/Overloaded/);
  expect(await body(await keyedFetch(`/v1/streams/${id}`))).toMatch(/Overloaded/);
  expect((await providerSaw(tag)).key).toBe(KEYS[0]);
});

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"];

test("with an upstream, Object.prototype's member names go on to it as any name not in the table (never read as a row)", async () => {
  for (const name of PROTOTYPE_NAMES) {
    const tag = newTag();
    const answer = await post(name, tag);
    expect(answer.status, name).toBe(200); // (the scripted MMSP upstream's answer; a row read from the prototype was a 400)
    expect(answer.headers.get("x-mmsp-provider"), name).toBeNull();
    await body(answer);
    expect((await providerSaw(tag)).count).toBe(0);
  }
});

describe("createRelay({ models }) of one's own (stateless: no STREAMS, no upstream)", () => {
  const own = { ...env, STREAMS: undefined, MMSP_UPSTREAM: undefined } as unknown as typeof env;
  const request = (body: string, headers: Record<string, string> = {}): Request =>
    new Request(`${ORIGIN}/v1/stream`, { ...EDGE, method: "POST", headers: { "content-type": "application/json", ...headers }, body });

  test("an unknown model: 404 NotFoundError naming the models it serves", async () => {
    const relay = createRelay({ models: providerModels, allowAnonymous: true });
    const answer = note(await relay.fetch(request(mmsp("nope", newTag())), own));
    expect(answer.status).toBe(404);
    const { error } = JSON.parse(await body(answer)) as { error: { type: string; message: string } };
    expect(error.type).toBe("NotFoundError");
    expect(error.message).toContain("'nope' does not exist");
    expect(error.message).toContain('"claude-fast", "gpt-fast"');
  });

  test("Object.prototype's members are no rows: the 404 naming the models served, no provider asked", async () => {
    const relay = createRelay({ models: providerModels, allowAnonymous: true });
    for (const name of PROTOTYPE_NAMES) {
      const tag = newTag();
      const answer = note(await relay.fetch(request(mmsp(name, tag)), own));
      expect(answer.status, name).toBe(404);
      const { error } = JSON.parse(await body(answer)) as { error: { type: string; message: string } };
      expect(error.type).toBe("NotFoundError");
      expect(error.message).toContain('"claude-fast", "gpt-fast"');
      expect((await providerSaw(tag)).count).toBe(0);
    }
  });

  test("SPEC §1's refusals of a body that is not an MMSP request", async () => {
    const relay = createRelay({ models: providerModels, allowAnonymous: true });
    const cases: [string, string][] = [
      ["[1]", "Request body must be a JSON object."],
      [JSON.stringify({ messages: [] }), "model must be a non-empty string."],
      [JSON.stringify({ model: "claude-fast", messages: {} }), "messages must be a list of messages."],
      [JSON.stringify({ model: "claude-fast", messages: [], config: [] }), "config must be an object."],
    ];
    for (const [text, message] of cases) {
      const answer = note(await relay.fetch(request(text), own));
      expect(answer.status, text).toBe(400);
      expect(JSON.parse(await body(answer)).error.message, text).toBe(message);
    }
  });

  test("stateless, anonymous: the provider's answer streamed back; past perMinute a client is a 429", async () => {
    const relay = createRelay({ models: providerModels, allowAnonymous: { perMinute: 2 } });
    const from = { "cf-connecting-ip": `203.0.113.${Math.floor(Math.random() * 250)}` };
    for (let i = 0; i < 2; i++) {
      const answer = note(await relay.fetch(request(mmsp("claude-fast", newTag()), from), own));
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-mmsp-provider")).toBe("anthropic");
      const { message } = await readBack(await body(answer));
      expect(message.content_items).toEqual([{ type: "text.done", text: "Hello, provider world!" }]);
    }
    const tag = newTag();
    const third = note(await relay.fetch(request(mmsp("claude-fast", tag), from), own));
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toMatch(/^\d+$/);
    await body(third);
    expect((await providerSaw(tag)).count).toBe(0);
    // another client has its own count
    const other = note(await relay.fetch(request(mmsp("claude-fast", newTag()), { "cf-connecting-ip": "198.51.100.7" }), own));
    expect(other.status).toBe(200);
    await body(other);
  });

  test("stateless: a client that goes away aborts the provider's request", async () => {
    const relay = createRelay({ models: providerModels, allowAnonymous: true });
    const tag = newTag();
    const answer = note(await relay.fetch(request(mmsp("gpt-fast", tag, "endless")), own));
    const { reader } = await readRecords(answer.body!, 2);
    const at = Date.now();
    await reader.cancel("gone");
    const abortedAt = await upstreamCancelled(tag, 2000);
    expect(abortedAt).not.toBeNull();
    expect(abortedAt! - at).toBeLessThan(1000);
    await sleep(0);
  });
});

describe("issue #34: a provider's stream cannot redirect the next client (stateless, no upstream)", () => {
  const request = (body: string): Request =>
    new Request(`${ORIGIN}/v1/stream`, {
      ...EDGE,
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer client-secret" },
      body,
    });
  /** Gemini's chunk that set MMSP_UPSTREAM on Object.prototype: a path through `__proto__` of the call's args. */
  const hostile = [
    `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":{}},"willContinue":true,"partialArgs":[{"jsonPath":"$.a.__proto__.MMSP_UPSTREAM","stringValue":"http://evil.test/v1"}]}}]},"index":0}]}`,
    `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}`,
  ].map((c) => `data: ${c}\r\n\r\n`).join("");
  /** An env with no MMSP_UPSTREAM of its own (an own `undefined` would hide what a prototype holds). */
  const bare = {} as typeof env;

  /** Every request made with the global fetch but the test's own questions to the scripted providers (answered 500: none is expected). */
  function outbound(): string[] {
    const urls: string[] = [];
    const real = globalThis.fetch.bind(globalThis);
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.startsWith("http://upstream.test/__provider")) return real(input, init);
      urls.push(url);
      return new Response("{}", { status: 500, headers: { "content-type": "application/json" } });
    });
    return urls;
  }
  const clean = (): void => {
    for (const name of ["MMSP_UPSTREAM", "ALLOW_ANONYMOUS", "RELAY_KEY"]) delete (Object.prototype as Record<string, unknown>)[name];
  };

  test("a Gemini call whose partialArgs name $.a.__proto__.MMSP_UPSTREAM: its arguments keep the key as data; the next unknown model is still a 404, nothing fetched", async () => {
    const fetched = outbound();
    const provider = gemini({ apiKey: "gemini-test-key", fetch: async () => new Response(hostile, { headers: { "content-type": "text/event-stream" } }) });
    const relay = createRelay({ models: { gem: { provider, model: "gemini-3-pro-preview" } }, allowAnonymous: true });
    try {
      const first = note(await relay.fetch(request(mmsp("gem", newTag())), bare));
      expect(first.status).toBe(200);
      const { message } = await readBack(await body(first));
      expect(JSON.stringify(message.content_items)).toContain('"arguments":{"a":{"__proto__":{"MMSP_UPSTREAM":"http://evil.test/v1"}}}');
      expect(({} as Record<string, unknown>).MMSP_UPSTREAM).toBeUndefined();
      const next = note(await relay.fetch(request(mmsp("nope", newTag())), bare));
      expect(next.status).toBe(404);
      expect(JSON.parse(await body(next)).error.type).toBe("NotFoundError");
      expect(fetched).toEqual([]);
    } finally {
      clean();
    }
  });

  test("the relay reads env and its options as own members only: a polluted Object.prototype sets no upstream, no anonymous gate", async () => {
    const fetched = outbound();
    const relay = createRelay({ models: providerModels });
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto.MMSP_UPSTREAM = "http://evil.test/v1";
      proto.ALLOW_ANONYMOUS = "true";
      const own = { ...env, STREAMS: undefined } as Record<string, unknown>;
      delete own.MMSP_UPSTREAM;
      const unknown = note(await relay.fetch(request(mmsp("nope", newTag())), own as typeof env));
      expect(unknown.status).toBe(404);
      await body(unknown);
      const tag = newTag();
      const closed = note(await relay.fetch(request(mmsp("claude-fast", tag)), own as typeof env));
      expect(closed.status).toBe(401); // closed by default: ALLOW_ANONYMOUS is not env's
      await body(closed);
      expect((await providerSaw(tag)).count).toBe(0);
      expect(fetched).toEqual([]);
    } finally {
      clean();
    }
  });
});

describe("the AI SDK route (/api/chat) against a provider-backed model, unchanged", () => {
  const chatPost = (chatId: string, tag: string, script = "text"): Promise<Response> =>
    keyedFetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: chatId,
        trigger: "submit-message",
        model: "claude-fast",
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: `tag:${tag} script:${script}` }] }],
      }),
    });

  test("a kept chat: the provider's answer as the UI message stream, resumed after a reload from its start", async () => {
    const tag = newTag();
    const chatId = `chat-${tag}`;
    const answer = await chatPost(chatId, tag);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const text = await body(answer);
    const deltas = [...text.matchAll(/"type":"text-delta"[^}]*"delta":"([^"]*)"/g)].map((m) => m[1]).join("");
    expect(deltas).toBe("Hello, provider world!");
    const resumed = await keyedFetch(`/api/chat/${chatId}/stream`, { headers: { "if-match": answer.headers.get("etag")! } });
    expect(resumed.status).toBe(200);
    expect(await body(resumed)).toBe(text.replace(/\r/g, ""));
    expect((await providerSaw(tag)).count).toBe(1);
  });

  test("Stop (DELETE /api/chat/<id>/stream) aborts the provider's request within a second", async () => {
    const tag = newTag();
    const chatId = `chat-${tag}`;
    const answer = await chatPost(chatId, tag, "endless");
    expect(answer.status).toBe(200);
    const reader = answer.body!.getReader();
    await reader.read();
    const at = Date.now();
    const stopped = await keyedFetch(`/api/chat/${chatId}/stream`, { method: "DELETE" });
    expect(stopped.status).toBe(204);
    const abortedAt = await upstreamCancelled(tag, 2000);
    expect(abortedAt).not.toBeNull();
    expect(abortedAt! - at).toBeLessThan(1000);
    received.push(await rest(reader));
  });
});
