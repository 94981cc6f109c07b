// The useChat door (issue #50) in workerd through the Durable Object: the AI SDK guide's ten-line
// createRelay Worker (examples/ai-sdk-relay.ts, bundled as wrangler would, against the built
// package: dist/) in Miniflare with its STREAMS namespace, before the kit's fakeProvider("anthropic")
// on 127.0.0.1, driven over real HTTP by the AI SDK's own DefaultChatTransport and the package's
// MmspChatTransport (in Node):
//   - an answer with a tool call, read by the AI SDK (readUIMessageStream) into one assistant message;
//   - a client that goes away mid-answer, and the AI SDK's reconnect (reconnectToStream: useChat's
//     resume after a reload) replaying the open answer from its start, the same message id, then live;
//   - a Stop through MmspChatTransport (its abort sends DELETE) that reaches the provider: the fake
//     sees its request aborted;
//   - a second principal (another RELAY_KEYS key) on the same chat id: its resume is a 204, its stop
//     changes nothing (the provider's request runs on, the first principal still resumes it);
//   - in Debian's Chromium (playwright-core), examples/ai-sdk-resume.html (the real `ai`'s chat with
//     MmspChatTransport) on the same Worker opened to anonymous clients (ALLOW_ANONYMOUS), from another
//     origin: a reload mid-answer resumes it into the same message, Stop aborts the provider's request;
//   - in Chromium, a React 19 app with @ai-sdk/react's useChat and the AI SDK's own DefaultChatTransport,
//     `resume: true` (test/relay/use-chat-page.jsx, bundled with the real packages), from another origin
//     with a RELAY_KEYS key: an answer with a tool call; a reload mid-answer resumed by useChat
//     (DefaultChatTransport's GET <api>/<chatId>/stream) into the same message; another key's page on the
//     same chat id resumes nothing and its DELETE changes nothing; useChat's stop() only aborts its fetch
//     (the kept answer runs on at the provider) and the DELETE the AI SDK guide tells users to send stops it.
// Prints "ui-chat: N passed, N failed".
//
// Run: node test/relay/ui-chat.mjs   (after `npm run build`)
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { DefaultChatTransport, readUIMessageStream } from "ai";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { MmspChatTransport } from "mmsp-streams/ai-sdk";
import { fakeProvider } from "mmsp-streams/testing";
import { serve } from "../../scripts/upstream.mjs";
import { namedTests } from "../../scripts/named-tests.mjs";

const t0 = performance.now();
const root = new URL("../../", import.meta.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the provider: Anthropic's events, a tool call, and a long answer sent slowly --------------------
const sse = (events) => new TextEncoder().encode(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""));
const start = (id) => ({ type: "message_start", message: { id, type: "message", role: "assistant", content: [], usage: { input_tokens: 9, output_tokens: 1 } } });
const toolCall = sse([
  start("msg_tool"),
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Looking it up." } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_01", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city": ' } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
  { type: "content_block_stop", index: 1 },
  { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 12 } },
  { type: "message_stop" },
]);
const long = sse([
  start("msg_long"),
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  ...Array.from({ length: 400 }, (_, i) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `w${i} ` } })),
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 400 } },
  { type: "message_stop" },
]);
const KEY = "sk-ant-ui-chat-fake-key";
const capture = (body) => ({ status: 200, headers: [["content-type", "text/event-stream"]], body });
const provider = fakeProvider("anthropic", {
  key: KEY,
  streams: {
    "claude-sonnet-4-5": capture(toolCall),
    // (20 events a second, then silent until the relay lets go: an answer that runs until stopped)
    "slow-model": { capture: capture(long), pace: 20, stallMs: Infinity },
  },
});
const upstream = await serve(provider);

// ---- the Worker: examples/ai-sdk-relay.ts, bundled against dist/ --------------------------------------
const dist = (path) => fileURLToPath(new URL(`dist/${path}`, root));
const bundled = await build({
  entryPoints: [fileURLToPath(new URL("examples/ai-sdk-relay.ts", root))],
  bundle: true,
  format: "esm",
  platform: "neutral",
  conditions: ["workerd", "worker", "browser"],
  mainFields: ["module", "main"],
  target: "es2022",
  alias: { "mmsp-streams/relay": dist("relay/index.js"), "mmsp-streams/providers": dist("providers/index.js") },
  write: false,
  logLevel: "warning",
});
// the slow answer: the same Worker, its one model asked as "slow-model" (ANTHROPIC_MODEL is not the example's: its
// table has one row; a second Worker serves it)
const toml = await readFile(new URL("wrangler.toml", root), "utf8");
const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
const compatibilityFlags = JSON.parse(/^compatibility_flags\s*=\s*(\[.*\])/m.exec(toml)?.[1] ?? "[]");
const A = "key-of-a-0123456789";
const B = "key-of-b-0123456789";
const worker = (name, baseURL) => ({
  name,
  modules: true,
  script: bundled.outputFiles[0].text,
  compatibilityDate,
  compatibilityFlags,
  bindings: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseURL, RELAY_KEYS: JSON.stringify({ a: A, b: B }) },
  durableObjects: { STREAMS: { className: "RelayStream", useSQLite: true } },
});
// (the slow Worker's provider URL routes to the slow model: the fake answers by the body's model, so a
// small proxy on the way renames it)
const slowProxy = await serve(async (request) => {
  const body = await request.json();
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  const url = new URL(request.url);
  return provider(`${upstream.url}${url.pathname}`, {
    method: "POST",
    headers,
    body: JSON.stringify({ ...body, model: "slow-model" }),
    signal: request.signal,
  });
});
// (the page's relay: the slow one, open to anonymous clients, as a public demo is: ALLOW_ANONYMOUS)
const open = worker("open", slowProxy.url);
open.bindings = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: slowProxy.url, ALLOW_ANONYMOUS: "true", ANONYMOUS_PER_MINUTE: "1000" };
const mfs = {
  chat: new Miniflare({ workers: [worker("chat", upstream.url)] }),
  slow: new Miniflare({ workers: [worker("slow", slowProxy.url)] }),
  open: new Miniflare({ workers: [open] }),
};
const base = { chat: await mfs.chat.ready, slow: await mfs.slow.ready, open: await mfs.open.ready };
const api = (which) => new URL("/api/chat", base[which]).href;

const user = (text) => ({ id: `u-${crypto.randomUUID().slice(0, 8)}`, role: "user", parts: [{ type: "text", text }] });
const chatId = () => crypto.randomUUID().replace(/-/g, "").slice(0, 16);
const send = (transport, id, signal) =>
  transport.sendMessages({ chatId: id, messages: [user("Hi")], trigger: "submit-message", messageId: undefined, abortSignal: signal });
/** The UI message chunks of a stream, up to `n` (then the reader is cancelled: the client goes away), or all. */
async function chunksOf(stream, n = Infinity) {
  const reader = stream.getReader();
  const out = [];
  while (out.length < n) {
    const r = await reader.read();
    if (r.done) return out;
    out.push(r.value);
  }
  await reader.cancel();
  return out;
}
const textOf = (chunks) => chunks.filter((c) => c.type === "text-delta").map((c) => c.delta).join("");
/** The provider's last request for the slow model, once it came. */
async function slowRequest(before) {
  for (let i = 0; i < 200 && provider.requests.length <= before; i++) await sleep(20);
  return provider.requests.at(-1);
}
/** How the request's answer ended, or "running" when it has not within `ms`. */
const endOf = (record, ms) => Promise.race([record.ended, sleep(ms).then(() => "running")]);

const { test, run } = namedTests("ui-chat");

test("DefaultChatTransport: an answer with a tool call, read by the AI SDK into one assistant message", async () => {
  const transport = new DefaultChatTransport({ api: api("chat"), headers: { "x-relay-key": A }, body: { model: "claude" } });
  let message;
  for await (const m of readUIMessageStream({ stream: await send(transport, chatId()) })) message = m;
  assert.equal(message.role, "assistant");
  const text = message.parts.find((p) => p.type === "text");
  assert.equal(text?.text, "Looking it up.");
  const tool = message.parts.find((p) => p.toolCallId === "toolu_01");
  assert.ok(tool, `a tool part in ${JSON.stringify(message.parts)}`);
  assert.deepEqual(tool.input, { city: "Paris" });
  assert.equal(tool.state, "input-available");
  const asked = provider.requests.at(-1).json;
  assert.equal(asked.model, "claude-sonnet-4-5");
  assert.deepEqual(asked.messages, [{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
});

test("DefaultChatTransport: a client gone mid-answer, then reconnectToStream replays the open answer from its start (same message id), then live", async () => {
  const transport = new DefaultChatTransport({ api: api("slow"), headers: { "x-relay-key": A }, body: { model: "claude" } });
  const id = chatId();
  const before = provider.requests.length;
  const first = await chunksOf(await send(transport, id), 8); // (then the reader is cancelled: a reload)
  const record = await slowRequest(before);
  assert.equal(first[0].type, "start");
  const resumed = await transport.reconnectToStream({ chatId: id });
  assert.ok(resumed, "an open answer to resume");
  const again = await chunksOf(resumed, 40);
  assert.deepEqual(again[0], first[0], "the same start chunk: the same message id");
  assert.ok(textOf(again).startsWith(textOf(first)), "replayed from the start");
  assert.ok(textOf(again).length > textOf(first).length, "then live");
  assert.equal(await endOf(record, 300), "running", "a client that goes away does not stop a kept answer");
  const stopped = await fetch(`${api("slow")}/${id}/stream`, { method: "DELETE", headers: { "x-relay-key": A } });
  assert.equal(stopped.status, 204);
  assert.equal(await endOf(record, 5000), "aborted");
});

test("MmspChatTransport: Stop (the abort of its signal) sends DELETE and the provider's request is aborted", async () => {
  const transport = new MmspChatTransport({ api: api("slow"), headers: { "x-relay-key": A }, body: { model: "claude" } });
  const id = chatId();
  const before = provider.requests.length;
  const stop = new AbortController();
  const reader = (await send(transport, id, stop.signal)).getReader();
  for (let i = 0; i < 6; i++) await reader.read();
  const record = await slowRequest(before);
  assert.equal(await endOf(record, 200), "running");
  stop.abort();
  await reader.read().catch(() => {});
  assert.equal(await endOf(record, 5000), "aborted", "the Stop reached the provider");
  const after = await fetch(`${api("slow")}/${id}/stream`, { headers: { "x-relay-key": A } });
  assert.equal(after.status, 204, "nothing open any more");
});

test("a second principal on the same chat id: its resume is a 204 and reads nothing, its stop changes nothing", async () => {
  const a = new MmspChatTransport({ api: api("slow"), headers: { "x-relay-key": A }, body: { model: "claude" } });
  const b = new MmspChatTransport({ api: api("slow"), headers: { "x-relay-key": B }, body: { model: "claude" } });
  const id = chatId();
  const before = provider.requests.length;
  const first = await chunksOf(await send(a, id), 6);
  const record = await slowRequest(before);
  assert.equal(await b.reconnectToStream({ chatId: id }), null, "b's resume: no open answer (204)");
  const bStop = await fetch(`${api("slow")}/${id}/stream`, { method: "DELETE", headers: { "x-relay-key": B } });
  assert.equal(bStop.status, 204);
  const bGet = await fetch(`${api("slow")}/${id}/stream`, { headers: { "x-relay-key": B } });
  assert.equal(bGet.status, 204);
  assert.equal(bGet.headers.get("etag"), null);
  assert.equal(await endOf(record, 300), "running", "b's stop changed nothing");
  // b's own answer on the same chat id is b's chat: it neither stops nor replaces a's
  const bFirst = await chunksOf(await send(b, id), 4);
  assert.notDeepEqual(bFirst[0], first[0]);
  const bRecord = await slowRequest(before + 1);
  assert.equal(await endOf(record, 300), "running", "b's answer did not stop a's");
  const resumed = await chunksOf(await a.reconnectToStream({ chatId: id }), 10);
  assert.deepEqual(resumed[0], first[0], "a still resumes its answer");
  const bStopOwn = await fetch(`${api("slow")}/${id}/stream`, { method: "DELETE", headers: { "x-relay-key": B } });
  assert.equal(bStopOwn.status, 204);
  assert.equal(await endOf(bRecord, 5000), "aborted", "b stops its own answer");
  assert.equal(await endOf(record, 300), "running", "and only its own");
  const aStop = await fetch(`${api("slow")}/${id}/stream`, { method: "DELETE", headers: { "x-relay-key": A } });
  assert.equal(aStop.status, 204);
  assert.equal(await endOf(record, 5000), "aborted");
});

test("the door's refusals: no key is a 401; a UI part with no MMSP form is a 400 naming it", async () => {
  const body = { id: chatId(), messages: [user("Hi")], trigger: "submit-message", model: "claude" };
  const post = (headers, b = body) => fetch(api("chat"), { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(b) });
  assert.equal((await post({})).status, 401);
  const odd = { ...body, messages: [{ id: "u1", role: "user", parts: [{ type: "no-such-part" }] }] };
  const refused = await post({ "x-relay-key": A }, odd);
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).error.message, /no-such-part/);
});

// ---- Chromium: the page server (the repository's files from another origin than the relay's: CORS) ----
let browser;
let pageServer;
let pageBase;
/** Debian's Chromium and the page server, started once for the Chromium tests. */
async function chromium() {
  if (browser) return;
  const { launchChromium } = await import("../../scripts/chromium.mjs");
  const { default: http } = await import("node:http");
  pageServer = http.createServer(async (req, res) => {
    const path = fileURLToPath(new URL(`.${decodeURIComponent(new URL(req.url, "http://x").pathname)}`, root));
    if (!path.startsWith(fileURLToPath(root))) return res.writeHead(403).end();
    try {
      const type = path.endsWith(".html") ? "text/html" : path.endsWith(".js") ? "text/javascript" : "application/octet-stream";
      res.writeHead(200, { "content-type": type }).end(await readFile(path));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  pageBase = `http://127.0.0.1:${pageServer.address().port}`;
  browser = await launchChromium();
}
const out = fileURLToPath(new URL(".ci-out/", root));

// ---- Chromium: examples/ai-sdk-resume.html (the real `ai`'s AbstractChat + MmspChatTransport) on this relay ----
test("Chromium, ai's chat + MmspChatTransport on the ten-line Worker: a reload mid-answer resumes it into the same message; Stop aborts the provider's request", async () => {
  await chromium();
  await build({ stdin: { contents: 'export { AbstractChat } from "ai";', resolveDir: fileURLToPath(root) }, bundle: true, format: "esm", platform: "browser", outfile: `${out}ai-browser.js`, logLevel: "warning" });
  const errors = [];
  const p = await (await browser.newContext()).newPage();
  p.on("pageerror", (e) => errors.push(String(e)));
  const relay = base.open.href.replace(/\/$/, "");
  await p.goto(`${pageBase}/examples/ai-sdk-resume.html?ai=/.ci-out/ai-browser.js&relay=${encodeURIComponent(relay)}&model=claude`);
  const ready = () => p.waitForFunction(() => document.documentElement.dataset.ready === "true");
  const assistant = () => p.evaluate(() => document.querySelector('.msg[data-role="assistant"]')?.textContent ?? "");
  const grows = (n) => p.waitForFunction((n) => (document.querySelector('.msg[data-role="assistant"]')?.textContent.length ?? 0) > n, n, { timeout: 15_000 });
  await ready();
  const probe = await fetch(`${relay}/api/chat`, { method: "POST", headers: { "content-type": "application/json", origin: "http://127.0.0.1" }, body: JSON.stringify({ messages: [user("Hi")], model: "claude" }) });
  assert.equal(probe.status, 200, `the page's relay answers anonymous clients: ${probe.status} ${probe.status === 200 ? "" : await probe.text()}`);
  await probe.body.cancel();
  const before = provider.requests.length;
  await p.click("#send");
  await grows(8);
  const record = await slowRequest(before);
  const id = await p.$eval('.msg[data-role="assistant"]', (n) => n.dataset.id);
  await p.reload();
  await ready();
  const n = (await assistant()).length;
  await grows(n + 8); // (resumed: the answer goes on in the page)
  assert.equal(await p.$eval('.msg[data-role="assistant"]', (n) => n.dataset.id), id, "the same message");
  assert.deepEqual(await p.$$eval(".msg", (ns) => ns.map((n) => n.dataset.role)), ["user", "assistant"]);
  assert.equal(provider.requests.length - before, 1, "one provider request");
  assert.equal(await endOf(record, 100), "running");
  await p.click("#stop");
  assert.equal(await endOf(record, 5000), "aborted", "Stop reached the provider");
  assert.deepEqual(errors, []);
});

// ---- Chromium: a React app with @ai-sdk/react's useChat and the AI SDK's own DefaultChatTransport ----------
// (test/relay/use-chat-page.jsx, bundled with the real react, react-dom, ai and @ai-sdk/react; resume: true)
let useChatBuilt;
/** A page of the useChat app in a fresh context (its own sessionStorage): `relay` a Worker, `key` its principal. */
async function useChatPage(which, key, chat) {
  await chromium();
  useChatBuilt ??= (async () => {
    await build({
      entryPoints: [fileURLToPath(new URL("use-chat-page.jsx", import.meta.url))],
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      jsx: "automatic",
      define: { "process.env.NODE_ENV": '"production"' },
      outfile: `${out}use-chat.js`,
      logLevel: "warning",
    });
    await writeFile(`${out}use-chat.html`, '<!doctype html><meta charset="utf-8"><title>useChat</title><link rel="icon" href="data:,"><div id="root"></div><script src="use-chat.js"></script>');
  })();
  await useChatBuilt;
  const context = await browser.newContext();
  const p = await context.newPage();
  const errors = [];
  p.on("pageerror", (e) => errors.push(String(e)));
  const requests = [];
  p.on("request", (r) => requests.push(`${r.method()} ${r.url()}`));
  const responses = [];
  p.on("response", (r) => responses.push(`${r.status()} ${r.request().method()} ${r.url()}`));
  const relay = base[which].href.replace(/\/$/, "");
  await p.goto(`${pageBase}/.ci-out/use-chat.html?relay=${encodeURIComponent(relay)}&key=${key}&model=claude${chat ? `&chat=${chat}` : ""}`);
  const ready = () => p.waitForFunction(() => document.documentElement.dataset.ready === "true");
  await ready();
  return {
    p,
    errors,
    requests,
    responses,
    ready,
    close: () => context.close(),
    status: () => p.$eval("#status", (n) => n.dataset.status),
    assistant: () => p.evaluate(() => document.querySelector('.msg[data-role="assistant"]')?.textContent ?? ""),
    grows: (n) => p.waitForFunction((n) => (document.querySelector('.msg[data-role="assistant"]')?.textContent.length ?? 0) > n, n, { timeout: 15_000 }),
  };
}

test("Chromium, useChat + DefaultChatTransport on the ten-line Worker: an answer with a tool call", async () => {
  const page = await useChatPage("chat", A);
  try {
    const before = provider.requests.length;
    await page.p.evaluate(() => window.page.send("Weather in Paris?"));
    await page.p.waitForFunction(() => document.getElementById("status").dataset.status === "ready" && document.querySelector('.msg[data-role="assistant"] .tool'), null, { timeout: 15_000 });
    const tool = await page.p.$eval('.msg[data-role="assistant"] .tool', (n) => ({ ...n.dataset }));
    assert.deepEqual({ ...tool, input: JSON.parse(tool.input) }, { name: "get_weather", state: "input-available", input: { city: "Paris" } });
    assert.equal(await page.p.$eval('.msg[data-role="assistant"] .text', (n) => n.textContent), "Looking it up.");
    assert.deepEqual(await page.p.$$eval(".msg", (ns) => ns.map((n) => n.dataset.role)), ["user", "assistant"]);
    assert.equal(provider.requests.length - before, 1);
    assert.deepEqual(provider.requests.at(-1).json.messages, [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }]);
    assert.equal(await page.p.$eval("#error", (n) => n.textContent), "");
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

// (the next three tests share one answer of the slow Worker: resumed by a reload, not reached by another
// principal, left running by useChat's stop() and stopped by the DELETE)
const kept = {};
test("Chromium, useChat + DefaultChatTransport (resume: true): a reload mid-answer resumes it (GET <api>/<chatId>/stream) into the same message, from one provider request", async () => {
  const page = (kept.a = await useChatPage("slow", A));
  const before = provider.requests.length;
  await page.p.evaluate(() => window.page.send("Tell me a story"));
  await page.grows(8);
  kept.record = await slowRequest(before);
  kept.chatId = await page.p.evaluate(() => window.page.chatId);
  const id = await page.p.$eval('.msg[data-role="assistant"]', (n) => n.dataset.id);
  page.requests.length = 0;
  await page.p.reload();
  await page.ready();
  await page.grows((await page.assistant()).length + 8); // (resumed: the answer goes on in the page)
  assert.ok(page.requests.includes(`GET ${api("slow")}/${kept.chatId}/stream`), `DefaultChatTransport's reconnect: ${page.requests.join(", ")}`);
  assert.ok(!page.requests.some((r) => r.startsWith("POST ")), "no new answer asked for");
  assert.equal(await page.p.$eval('.msg[data-role="assistant"]', (n) => n.dataset.id), id, "the same message");
  assert.deepEqual(await page.p.$$eval(".msg", (ns) => ns.map((n) => n.dataset.role)), ["user", "assistant"]);
  const text = await page.assistant();
  const words = text.trim().split(" ");
  assert.equal(text, words.map((_, i) => `w${i} `).join(""), "replayed from its start, once");
  assert.equal(provider.requests.length - before, 1, "one provider request");
  assert.equal(await endOf(kept.record, 100), "running");
});

test("Chromium, useChat + DefaultChatTransport: a second principal's page on the same chat id resumes nothing (204) and its DELETE changes nothing", async () => {
  assert.ok(kept.record, "the answer of the test before");
  const b = await useChatPage("slow", B, kept.chatId);
  try {
    const stream = `${api("slow")}/${kept.chatId}/stream`;
    // (useChat's resume on mount: the GET, answered 204, no open answer for this principal)
    for (let i = 0; i < 300 && !b.responses.some((r) => r.endsWith(` GET ${stream}`)); i++) await sleep(50);
    assert.deepEqual(b.responses.filter((r) => r.endsWith(` GET ${stream}`)), [`204 GET ${stream}`], b.responses.join(", "));
    assert.equal(await b.status(), "ready");
    assert.deepEqual(await b.p.$$eval(".msg", (ns) => ns.length), 0, "nothing read");
    assert.equal(await b.p.evaluate(() => window.page.stopAnswer()), 204);
    assert.equal(await endOf(kept.record, 300), "running", "b's DELETE changed nothing");
    assert.equal(await kept.a.status(), "streaming", "a's page still reads it");
    assert.deepEqual(b.errors, []);
  } finally {
    await b.close();
  }
});

test("Chromium, useChat + DefaultChatTransport: its stop() only aborts the fetch (the kept answer runs on); the DELETE the guide tells users to send stops it at the provider", async () => {
  assert.ok(kept.record, "the answer of the test before");
  const page = kept.a;
  try {
    await page.p.evaluate(() => window.page.stop());
    await page.p.waitForFunction(() => document.getElementById("status").dataset.status === "ready", null, { timeout: 5000 });
    assert.equal(await endOf(kept.record, 300), "running", "useChat's stop() did not reach the provider");
    const resumable = await fetch(`${api("slow")}/${kept.chatId}/stream`, { headers: { "x-relay-key": A } });
    assert.equal(resumable.status, 200, "the answer is still open");
    await resumable.body.cancel();
    assert.equal(await page.p.evaluate(() => window.page.stopAnswer()), 204);
    assert.equal(await endOf(kept.record, 5000), "aborted", "the DELETE reached the provider");
    assert.equal((await fetch(`${api("slow")}/${kept.chatId}/stream`, { headers: { "x-relay-key": A } })).status, 204, "nothing open any more");
    assert.deepEqual(page.errors, []);
  } finally {
    await page.close();
  }
});

// (each test bounded: a hung page or stream fails its test instead of the step's own time limit)
await run({
  timeoutMs: 120_000,
  t0,
  cleanup: async () => {
    await mfs.chat.dispose();
    await mfs.slow.dispose();
    await mfs.open.dispose();
    await browser?.close();
    pageServer?.close();
    await upstream.close();
    await slowProxy.close();
  },
});
