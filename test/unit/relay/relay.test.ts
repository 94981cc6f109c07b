// mmsp-streams/relay's handler in Node (src/relay/create-relay.ts), outside workerd: the options
// (an upstream function, authorize, credentials, limits, cors, routes) and the safe defaults that do
// not need a Durable Object. A fake namespace records what the handler sends the stream's object.
// (The object itself runs in workerd: test/relay, test/relay-pool, scripts/relay-consumer.mjs.)
import { expect, test } from "vitest";
import { createRelay, type RelayEnv, type RelayNamespace } from "../../../src/relay/index.ts";

const ORIGIN = "https://relay.test";
const sse = (...events: object[]): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
const DELTA = { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null };
const DONE = { ...DELTA, content_items: [{ type: "text.done", text: "Hi" }] };
const STOP = {
  role: "assistant",
  event_type: "stop",
  content_items: [],
  usage_metadata: { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: 0, response_tokens: 1 },
  finish_reason: "stop",
};
const post = (body: string, headers: Record<string, string> = {}, path = "/v1/stream"): Request =>
  new Request(`${ORIGIN}${path}`, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

/** A namespace whose one object answers every request 200 and records it. */
function fakeNamespace(): { ns: RelayNamespace; calls: { url: string; headers: Headers }[] } {
  const calls: { url: string; headers: Headers }[] = [];
  const ns: RelayNamespace = {
    idFromName: (name) => ({ toString: () => name }),
    get: () => ({
      fetch: (input, init) => {
        calls.push({ url: String(input), headers: new Headers(init?.headers) });
        return Promise.resolve(new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } }));
      },
    }),
  };
  return { ns, calls };
}

test("stateless, an upstream function: it gets the admitted request (the relay's key out) and the stream is read back checked", async () => {
  let seen: Request | undefined;
  const relay = createRelay<RelayEnv>({
    upstream: (request) => {
      seen = request;
      return new Response(sse(DELTA, DONE, STOP), { headers: { "content-type": "text/event-stream" } });
    },
  });
  const res = await relay.fetch(post('{"model":"m"}', { "x-relay-key": "k", authorization: "Bearer up" }), { RELAY_KEY: "k" });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  const text = await res.text();
  expect(text).toContain('"finish_reason":"stop"');
  expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
  expect(seen!.headers.get("x-relay-key")).toBeNull();
  expect(seen!.headers.get("authorization")).toBe("Bearer up"); // not the relay's key: forwarded
  expect(await seen!.text()).toBe('{"model":"m"}');
});

test("the relay's key, 415, 413 (limits option over the variable), 405, 404 for a bad id and without a namespace", async () => {
  const relay = createRelay<RelayEnv>({ upstream: () => new Response(""), limits: { maxBodyBytes: 4 } });
  expect((await relay.fetch(post("{}"), { RELAY_KEY: "k" })).status).toBe(401);
  expect((await relay.fetch(post("{}", { "content-type": "text/plain" }), {})).status).toBe(415);
  expect((await relay.fetch(post('{"a":1}'), { MAX_BODY_BYTES: "1000" })).status).toBe(413);
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/stream`), {})).status).toBe(405);
  const { ns } = fakeNamespace();
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/streams/%`), { STREAMS: ns })).status).toBe(404);
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/streams/${"a".repeat(32)}`), {})).status).toBe(404);
});

test("upstream refusals: HTML wrapped (nothing of it passed on), a throw a 502 that names no URL", async () => {
  const html = createRelay({ upstream: () => new Response("<script>alert(1)</script>", { status: 500, headers: { "content-type": "text/html" } }) });
  const refused = await html.fetch(post("{}"), {});
  expect(refused.status).toBe(500);
  expect(refused.headers.get("content-type")).toBe("application/json");
  const body = await refused.text();
  expect(body).not.toContain("<script>");
  expect(JSON.parse(body).error.type).toBe("HTTPError");
  const thrown = createRelay({
    upstream: () => {
      throw new TypeError("fetch failed: http://user:s3cr3t@mmsp.internal/v1");
    },
  });
  const res = await thrown.fetch(post("{}"), {});
  expect(res.status).toBe(502);
  expect(await res.text()).not.toContain("s3cr3t");
});

test("authorize: its refusal is the answer, per action; nothing lets the request through", async () => {
  const actions: string[] = [];
  const { ns } = fakeNamespace();
  const relay = createRelay<RelayEnv>({
    upstream: "https://mmsp.invalid/v1",
    authorize: (_request, action) => {
      actions.push(action);
      return action === "cancel" ? new Response(null, { status: 429 }) : undefined;
    },
  });
  const id = "b".repeat(32);
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/streams/${id}`, { method: "DELETE" }), { STREAMS: ns })).status).toBe(429);
  expect((await relay.fetch(new Request(`${ORIGIN}/v1/streams/${id}`), { STREAMS: ns })).status).toBe(200);
  expect((await relay.fetch(post("{}"), { STREAMS: ns })).status).toBe(200);
  expect(actions).toEqual(["cancel", "resume", "create"]);
});

test("credentials: the hook's text binds the stream (an HMAC of it, keyed by BIND_SECRET), the same for a resume; none: no binding", async () => {
  const { ns, calls } = fakeNamespace();
  const relay = createRelay<RelayEnv>({ upstream: "https://mmsp.invalid/v1", credentials: (request) => request.headers.get("x-user") });
  const env = { STREAMS: ns, BIND_SECRET: "s" };
  await relay.fetch(post("{}", { "x-user": "ada", authorization: "Bearer x" }), env);
  const created = calls[0]!;
  expect(created.url).toBe("https://stream/create");
  expect(created.headers.get("x-relay-url")).toBe(`${ORIGIN}/v1/stream`);
  const binding = created.headers.get("x-stream-binding");
  expect(binding).toMatch(/^[0-9a-f]{64}$/);
  expect(binding).not.toContain("ada");
  await relay.fetch(new Request(`${ORIGIN}/v1/streams/${"c".repeat(32)}`, { headers: { authorization: "Bearer x" } }), env);
  expect(calls[1]!.headers.get("x-stream-binding")).toBeNull(); // Authorization is not what this hook binds
  await relay.fetch(new Request(`${ORIGIN}/v1/streams/${"c".repeat(32)}`, { headers: { "x-user": "ada" } }), env);
  expect(calls[2]!.headers.get("x-stream-binding")).toMatch(/^[0-9a-f]{64}$/);
  // a client cannot forge the internal headers
  await relay.fetch(post("{}", { "x-stream-binding": "f".repeat(64), "x-relay-url": "https://evil.example/" }), env);
  expect(calls[3]!.headers.get("x-stream-binding")).toBeNull();
  expect(calls[3]!.headers.get("x-relay-url")).toBe(`${ORIGIN}/v1/stream`);
});

test("cors option over CORS_ORIGINS; routes of one's own get CORS and nosniff, and a throw is a 500 without a stack", async () => {
  const relay = createRelay<RelayEnv>({
    upstream: "https://mmsp.invalid/v1",
    cors: { origins: ["https://app.example"] },
    routes: (request) => {
      const { pathname } = new URL(request.url);
      if (pathname === "/hello") return new Response("hi");
      if (pathname === "/boom") throw new Error("secret stack detail");
      return undefined;
    },
  });
  const headers = { origin: "https://app.example" };
  const hello = await relay.fetch(new Request(`${ORIGIN}/hello`, { headers }), { CORS_ORIGINS: "*" });
  expect(await hello.text()).toBe("hi");
  expect(hello.headers.get("access-control-allow-origin")).toBe("https://app.example");
  expect(hello.headers.get("x-content-type-options")).toBe("nosniff");
  const other = await relay.fetch(new Request(`${ORIGIN}/hello`, { headers: { origin: "https://evil.example" } }), {});
  expect(other.headers.get("access-control-allow-origin")).toBeNull();
  const origError = console.error;
  console.error = () => {};
  try {
    const boom = await relay.fetch(new Request(`${ORIGIN}/boom`), {});
    expect(boom.status).toBe(500);
    expect(await boom.text()).not.toContain("secret stack detail");
  } finally {
    console.error = origError;
  }
  const pre = await relay.fetch(new Request(`${ORIGIN}/v1/stream`, { method: "OPTIONS", headers: { ...headers, "access-control-request-method": "POST" } }), {});
  expect(pre.status).toBe(204);
  expect(pre.headers.get("access-control-allow-methods")).toContain("DELETE");
});

test("createRelay checks its options", () => {
  expect(() => createRelay({ upstream: 42 as unknown as string })).toThrow(TypeError);
  expect(() => createRelay({ upstream: "not a url" })).toThrow(TypeError);
  expect(() => createRelay({ authorize: "yes" as never })).toThrow(TypeError);
});
