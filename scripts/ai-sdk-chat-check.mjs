// End-to-end check of the relay's AI SDK route (POST /api/chat, worker/chat.ts) under `wrangler dev`,
// with the real AI SDK client and in Chromium:
//   - the AI SDK's DefaultChatTransport (from `ai`, in Node) streams a full assistant message for each
//     built-in sample (replay mode), and readUIMessageStream + toMmspMessages give back the sample's
//     message; in relay mode the MMSP server (the kit's fakeMmspServer on 127.0.0.1) receives
//     the converted conversation (fidelity included), and a stopped request cancels the upstream;
//   - CORS: the preflight and the answers' headers; a part with no MMSP form is a 400 naming it;
//   - examples/ai-sdk-chat.html in Debian's Chromium (playwright-core), served by a static server on
//     another origin: the relay's /api/chat (cross-origin) and the adapter in the page (/v1/stream,
//     proxied same-origin), two turns, media, an error, Stop. Keeps .ci-out/ai-sdk-chat.png.
//   - resumable /api/chat with MmspChatTransport: in Node, DefaultChatTransport's abort only leaves
//     (the answer goes on and resumes) while MmspChatTransport's stops the upstream; and in Chromium,
//     examples/ai-sdk-resume.html (the real `ai`'s AbstractChat, bundled for the page by esbuild):
//     an answer resumed after a reload (resume: true) into the same message, stop() aborting the
//     scripted upstream's request within a second (also after a reload), a connection cut mid-answer
//     (by a proxy) resumed with nothing twice.
// Needs a built dist/ (npm run build). Prints "ai-sdk chat: N passed, N failed".
//
// Run: node scripts/ai-sdk-chat-check.mjs     (CHROMIUM_PATH overrides /usr/bin/chromium)
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import http from "node:http";
import { extname, join, normalize } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { DefaultChatTransport, readUIMessageStream } from "ai";
import { build } from "esbuild";
import { MmspChatTransport, toMmspMessages } from "mmsp-streams/ai-sdk"; // the package's subpath export (dist/ai-sdk/index.js)
import { toWireEvent, UniEventStream } from "mmsp-streams";
import { fakeMmspServer } from "mmsp-streams/testing";
import { launchChromium } from "./chromium.mjs";
import { sampleStreams, serve } from "./upstream.mjs";
import { startWranglerDev } from "./wrangler-dev.mjs";
import { namedTests } from "./named-tests.mjs";

const t0 = performance.now();
const root = fileURLToPath(new URL("../", import.meta.url));
const OUT = `${root}.ci-out`;
await mkdir(OUT, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** A message (or part of one) as plain JSON (bytes as base64), for deepEqual. */
const wire = (value) => JSON.parse(JSON.stringify(toWireEvent(value)));

const SAMPLE_FILES = { "sample-chat": "chat", "sample-tools": "tool-call", "sample-image": "image", "sample-audio": "audio", "sample-embeddings": "embeddings", "sample-error": "error" };
const sampleText = (file) => readFile(`${root}samples/${file}.sse`, "utf8");
/** The package's own reading of a sample: its message, or its error. */
async function sampleOutcome(file) {
  const stream = new UniEventStream();
  const body = new Response(await sampleText(file)).body.pipeThrough(stream);
  try {
    for await (const _ of body);
  } catch {} // the same error rejects `message`
  return stream.message.then((message) => ({ message }), (error) => ({ error }));
}

// ---- the upstream: the kit's fake MMSP server (mmsp-streams/testing, 127.0.0.1 only) ---------------------

const deltaEvent = (items, type = "delta", extra = {}) =>
  `data: ${JSON.stringify({ role: "assistant", event_type: type, content_items: items, usage_metadata: null, finish_reason: null, ...extra })}\n\n`;
const sse = (text) => ({ status: 200, headers: [["content-type", "text/event-stream"]], body: new TextEncoder().encode(text) });
const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
const samples = await sampleStreams();
const fake = fakeMmspServer({
  fallback: "sample-tools",
  streams: {
    // the samples by model name (sample-chat, sample-tools, …), in 97-byte chunks
    ...Object.fromEntries(Object.entries(samples).map(([model, capture]) => [model, { capture, chunking: 97 }])),
    // 400 text deltas 25 ms apart, never a stop (a stop request must abort it)
    endless: { capture: sse(Array.from({ length: 400 }, (_, i) => deltaEvent([{ type: "text.delta", text: `${i} ` }])).join("")), pace: 40 },
    // 30 words 60 ms apart, then the text's .done and the stop event: ~2 s
    slow: {
      capture: sse(
        words.map((w) => deltaEvent([{ type: "text.delta", text: w }])).join("") + deltaEvent([{ type: "text.done", text: words.join("") }]) +
          deltaEvent([], "stop", { usage_metadata: { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: 0, response_tokens: 30 }, finish_reason: "stop" }) +
          "data: [DONE]\n\n",
      ),
      pace: 1000 / 60,
    },
  },
});
const upstream = await serve(fake);
/** Every request it got (the fake's log: url, headers, json, finished, ended…). */
const seen = fake.requests;
/** Resolves true when the upstream saw its answer closed before it finished. */
const closedEarly = (req) => req.ended.then((how) => how === "aborted");

// ---- the relay Worker under wrangler dev: replaying the samples, and relaying to the upstream ---------

/** The relay Worker under `wrangler dev` (scripts/wrangler-dev.mjs), ready once /api/chat answers a preflight. */
function startWorker(name, vars = {}) {
  return startWranglerDev({
    logPath: `${OUT}/ai-sdk-chat.${name}.log`,
    persistTo: `${root}.wrangler/state-ai-sdk-${name}`,
    vars,
    ready: async (base) => {
      const res = await fetch(`${base}/api/chat`, { method: "OPTIONS" });
      await res.arrayBuffer();
      return res.status === 204;
    },
  });
}

let workers;
try {
  // one after the other: both run the Worker's build step, which writes the same generated file
  workers = [await startWorker("replay"), await startWorker("relay", { MMSP_UPSTREAM: `${upstream.url}/v1` })];
} catch (e) {
  console.log(String(e?.message ?? e));
  console.log("ai-sdk chat: 0 passed, 1 failed");
  process.exit(1);
}
const [{ base: replayBase }, { base: relayBase }] = workers;
console.log(`wrangler dev: ${replayBase} (replay), ${relayBase} (relay) (${Math.round(performance.now() - t0)} ms)`);

// ---- the AI SDK client ----------------------------------------------------------------------------------

const userMessage = (text, id = "u1") => ({ id, role: "user", parts: [{ type: "text", text }] });

/** DefaultChatTransport → readUIMessageStream: the last UIMessage, the chunks, the errors reported. */
let chats = 0;
async function chat(api, { model, messages = [userMessage("Hi")], headers, abortSignal, onChunk } = {}) {
  const transport = new DefaultChatTransport({ api, headers, body: { model, config: { temperature: 0 } } });
  // a chat id of its own: the relay keeps each chat's answers (bound to the credentials it was created with)
  const stream = await transport.sendMessages({ chatId: `chat-${++chats}`, messages, trigger: "submit-message", messageId: undefined, abortSignal });
  const chunks = [];
  const errors = [];
  const counted = stream.pipeThrough(new TransformStream({ transform: (c, ctl) => (chunks.push(c), onChunk?.(c, chunks.length), ctl.enqueue(c)) }));
  let message;
  for await (const m of readUIMessageStream({ stream: counted, onError: (e) => errors.push(e.message) })) message = structuredClone(m);
  return { message, chunks, errors };
}

// ---- the tests ------------------------------------------------------------------------------------------

const { test, run } = namedTests("ai-sdk chat");

for (const [model, file] of Object.entries(SAMPLE_FILES)) {
  test(`DefaultChatTransport, replay ${model}: ${file === "error" ? "the text so far, then the error" : "the full assistant message; toMmspMessages of it is the sample's message"}`, async () => {
    const want = await sampleOutcome(file);
    const { message, chunks, errors } = await chat(`${replayBase}/api/chat?pace=0`, { model });
    assert.equal(chunks[0].type, "start");
    if (want.error) {
      assert.deepEqual(errors, [want.error.message]);
      assert.equal(chunks.at(-1).type, "error");
      assert.equal(message.parts[0].type, "text");
      return;
    }
    assert.deepEqual(errors, []);
    assert.equal(chunks.at(-1).type, "finish");
    assert.equal(message.role, "assistant");
    assert.equal(message.parts.length, want.message.content_items.length);
    assert.deepEqual(wire(toMmspMessages([message])[0]), wire(want.message));
  });
}

test("relay mode: the upstream gets {model, messages (converted), config} with Authorization; the answer streams back", async () => {
  const before = seen.length;
  const { message, errors } = await chat(`${relayBase}/api/chat`, { model: "sample-tools", headers: { authorization: "Bearer sk-test" } });
  assert.deepEqual(errors, []);
  const req = seen[before];
  assert.equal(new URL(req.url).pathname, "/v1/stream");
  assert.equal(req.headers.authorization, "Bearer sk-test");
  assert.deepEqual(req.json, { model: "sample-tools", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config: { temperature: 0 } });
  assert.deepEqual(wire(toMmspMessages([message])[0]), wire((await sampleOutcome("tool-call")).message));
});

test("relay mode: a second turn sends the first answer back as MMSP (thinking signature, tool call) plus the tool's output", async () => {
  const first = await chat(`${relayBase}/api/chat`, { model: "sample-tools" });
  const call = first.message.parts.find((p) => p.type.startsWith("tool-"));
  const answered = { ...first.message, parts: first.message.parts.map((p) => (p === call ? { ...p, state: "output-available", output: { temperature: 18 } } : p)) };
  const before = seen.length;
  await chat(`${relayBase}/api/chat`, { model: "sample-chat", messages: [userMessage("Weather?"), answered, userMessage("Thanks", "u2")] });
  const sent = seen[before].json.messages;
  // a conversation that ends with the assistant's message (its tool output added) continues it: same id
  const continued = await chat(`${relayBase}/api/chat`, { model: "sample-chat", messages: [userMessage("Weather?"), answered] });
  assert.deepEqual(continued.chunks[0], { type: "start", messageId: first.message.id });

  const want = (await sampleOutcome("tool-call")).message;
  assert.equal(sent.length, 4);
  assert.deepEqual(sent.map((m) => m.role), ["user", "assistant", "user", "user"]);
  assert.deepEqual(sent[1].content_items, wire(want).content_items);
  assert.ok(sent[1].content_items[0].fidelity.signature, "the thinking signature went back");
  assert.deepEqual(sent[2].content_items, [{ type: "tool_result.done", text: '{"temperature":18}', tool_call_id: call.toolCallId }]);
});

/** Reads a transport's stream until `n` chunks came, then aborts; resolves when the stream ended. */
async function readThenAbort(stream, n, abort) {
  let count = 0;
  try {
    for await (const _ of stream) if (++count === n) abort.abort();
  } catch {} // the AbortError
  return count;
}

test("relay mode, kept answers: DefaultChatTransport's abort only leaves (the upstream reads on, GET resumes it); MmspChatTransport's abort (stop()) aborts the upstream within a second", async () => {
  // DefaultChatTransport: leaving. (Anonymous chat ids must be long enough not to be guessed, 16 characters
  // or more, for the relay to keep their answers: hence the random ones.)
  const leaveId = `leave-${crypto.randomUUID()}`;
  const stopId = `stop-${crypto.randomUUID()}`;
  let before = seen.length;
  let abort = new AbortController();
  const leaving = new DefaultChatTransport({ api: `${relayBase}/api/chat`, body: { model: "endless", config: {} } });
  await readThenAbort(await leaving.sendMessages({ chatId: leaveId, messages: [userMessage("Hi")], trigger: "submit-message", messageId: undefined, abortSignal: abort.signal }), 4, abort);
  await sleep(1000);
  assert.equal(await Promise.race([closedEarly(seen[before]), sleep(0).then(() => "open")]), "open", "the upstream still streams");
  const resumed = await leaving.reconnectToStream({ chatId: leaveId });
  assert.ok(resumed, `GET /api/chat/${leaveId}/stream resumes it`);
  const reader = resumed.getReader();
  assert.deepEqual((await reader.read()).value.type, "start");
  await reader.cancel();
  // MmspChatTransport: stopping
  await fetch(`${relayBase}/api/chat/${leaveId}/stream`, { method: "DELETE" });
  before = seen.length;
  abort = new AbortController();
  const stopping = new MmspChatTransport({ api: `${relayBase}/api/chat`, body: { model: "endless", config: {} } });
  const chunks = await readThenAbort(await stopping.sendMessages({ chatId: stopId, messages: [userMessage("Hi")], trigger: "submit-message", messageId: undefined, abortSignal: abort.signal }), 4, abort);
  const t = performance.now();
  assert.ok(chunks >= 4 && chunks < 20, `${chunks} chunks before the stop`);
  const closed = await Promise.race([closedEarly(seen[before]), sleep(1000).then(() => "timeout")]);
  assert.equal(closed, true, "the upstream saw its response closed before it finished");
  assert.ok(performance.now() - t < 1000);
  assert.equal(seen[before].finished, false);
  assert.equal((await fetch(`${relayBase}/api/chat/${stopId}/stream`)).status, 204, "nothing active any more");
});

test("CORS: the preflight allows POST and the requested headers; answers carry Access-Control-Allow-Origin", async () => {
  const pre = await fetch(`${replayBase}/api/chat`, { method: "OPTIONS", headers: { origin: "http://app.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, authorization" } });
  assert.equal(pre.status, 204);
  // the relay's one CORS module (src/relay/admission/cors.ts): any origin by default (CORS_ORIGINS narrows it)
  assert.ok(["*", "http://app.example"].includes(pre.headers.get("access-control-allow-origin")), pre.headers.get("access-control-allow-origin"));
  assert.match(pre.headers.get("access-control-allow-methods"), /POST/);
  assert.match(pre.headers.get("access-control-allow-headers").toLowerCase(), /content-type.*authorization/);
  const res = await fetch(`${replayBase}/api/chat?pace=0`, { method: "POST", headers: { origin: "http://app.example", "content-type": "application/json" }, body: JSON.stringify({ id: "c", trigger: "submit-message", model: "sample-chat", messages: [userMessage("Hi")] }) });
  assert.equal(res.status, 200);
  assert.ok(["*", "http://app.example"].includes(res.headers.get("access-control-allow-origin")));
  assert.match(res.headers.get("access-control-expose-headers").toLowerCase(), /x-vercel-ai-ui-message-stream/);
  assert.equal(res.headers.get("x-vercel-ai-ui-message-stream"), "v1");
  await res.arrayBuffer();
});

test("a part with no MMSP form → 400 InvalidRequestError naming it (with CORS); an unknown model → the replay's 404", async () => {
  const res = await fetch(`${replayBase}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "c", messages: [{ id: "u", role: "user", parts: [{ type: "source-url", sourceId: "s", url: "https://x" }] }] }) });
  assert.equal(res.status, 400);
  assert.ok(res.headers.get("access-control-allow-origin"));
  const body = await res.json();
  assert.equal(body.error.type, "InvalidRequestError");
  assert.match(body.error.message, /messages\[0\]\.parts\[0\] \(type "source-url"\)/);
  const nf = await fetch(`${replayBase}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: "c", model: "sample-nope", messages: [] }) });
  assert.equal(nf.status, 404);
  assert.ok(nf.headers.get("access-control-allow-origin"));
  await assert.rejects(chat(`${replayBase}/api/chat`, { model: "sample-nope" }), /NotFoundError/);
});

// ---- the example page in Chromium ------------------------------------------------------------------------

// serves the repository (the page, dist/, node_modules/) and proxies /v1/ to the replaying Worker, so
// the page's own adapter talks to /v1/stream on its own origin; /api/chat it calls cross-origin
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".json": "application/json" };
/** The proxy's log: each request to /cut/… ({ method, path, ifMatch }) and the answers it cut. */
const cutLog = { requests: [], cuts: 0 };
/**
 * /cut/<path> → the relay Worker (relay mode), same-origin for the page; the first POST of a chat
 * whose id is new has its connection cut after 1500 bytes of the answer (a dropped connection).
 */
async function cutProxy(req, res, url) {
  const path = url.pathname.slice("/cut".length) + url.search;
  cutLog.requests.push({ method: req.method, path, ifMatch: req.headers["if-match"] ?? null });
  const headers = {};
  for (const name of ["content-type", "accept", "if-match", "authorization"]) if (req.headers[name]) headers[name] = req.headers[name];
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  try {
    const body = req.method === "POST" ? Readable.toWeb(req) : undefined;
    const answer = await fetch(`${relayBase}${path}`, { method: req.method, headers, body, duplex: "half", signal: abort.signal });
    const out = {};
    for (const name of ["content-type", "etag", "x-vercel-ai-ui-message-stream"]) if (answer.headers.get(name)) out[name] = answer.headers.get(name);
    res.writeHead(answer.status, out);
    if (!answer.body) return res.end();
    let sent = 0;
    const cut = req.method === "POST" && cutLog.cuts === 0 ? 1500 : Infinity;
    for await (const chunk of answer.body) {
      if (sent + chunk.byteLength > cut) {
        res.write(chunk.subarray(0, cut - sent));
        cutLog.cuts++;
        await sleep(20);
        return res.socket.destroy();
      }
      sent += chunk.byteLength;
      res.write(chunk);
    }
    res.end();
  } catch {
    res.destroy();
  }
}

const pageServer = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname.startsWith("/cut/")) return cutProxy(req, res, url);
  if (url.pathname.startsWith("/v1/")) {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const upstreamRes = await fetch(`${replayBase}${url.pathname}${url.search}`, { method: req.method, headers: { "content-type": req.headers["content-type"] ?? "application/json" }, body: Readable.toWeb(req), duplex: "half", signal: abort.signal });
      res.writeHead(upstreamRes.status, { "content-type": upstreamRes.headers.get("content-type") ?? "application/octet-stream" });
      Readable.fromWeb(upstreamRes.body).on("error", () => res.destroy()).pipe(res);
    } catch {
      res.destroy();
    }
    return;
  }
  const path = normalize(join(root, decodeURIComponent(url.pathname)));
  if (!path.startsWith(root)) return res.writeHead(403).end();
  try {
    const data = await readFile(path);
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(data);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
const pageBase = `http://127.0.0.1:${pageServer.address().port}`;

const browser = await launchChromium();
const page = await (await browser.newContext({ viewport: { width: 900, height: 1000 } })).newPage();
const pageErrors = [];
page.on("pageerror", (e) => pageErrors.push(String(e)));
page.on("console", (m) => m.type() === "error" && pageErrors.push(`console: ${m.text()}`));

async function open(query) {
  await page.goto(`${pageBase}/examples/ai-sdk-chat.html?${query}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === "true");
}
/** Picks the model, sends the prompt, waits for the turn to end; returns the page's state. */
async function send(model, prompt = "Hi") {
  await page.selectOption("#model", model);
  await page.fill("#prompt", prompt);
  await page.click("#send");
  await page.waitForFunction(() => ["done", "error", "stopped"].includes(document.getElementById("status").dataset.state), null, { timeout: 20_000 });
  return page.evaluate(() => ({
    state: document.getElementById("status").dataset.state,
    error: document.getElementById("error").textContent,
    messages: [...document.querySelectorAll(".msg")].map((m) => ({
      role: m.dataset.role,
      parts: [...m.querySelectorAll(".part")].map((p) => ({ type: p.dataset.type, state: p.dataset.state ?? null, text: p.textContent })),
    })),
  }));
}

test("page, relay /api/chat (cross-origin): thinking, text and the tool call render; a second turn keeps the conversation", async () => {
  await open(`relay=${encodeURIComponent(replayBase)}&transport=chat&pace=0`);
  const want = (await sampleOutcome("tool-call")).message.content_items;
  let r = await send("sample-tools", "Weather in Paris?");
  assert.equal(r.state, "done", r.error);
  assert.deepEqual(r.messages.map((m) => m.role), ["user", "assistant"]);
  assert.deepEqual(r.messages[1].parts.map((p) => p.type), ["reasoning", "text", "tool"]);
  assert.equal(r.messages[1].parts[0].text, want[0].thinking);
  assert.equal(r.messages[1].parts[1].text, want[1].text);
  assert.ok(r.messages[1].parts[2].text.includes(JSON.stringify(want[2].arguments)));
  r = await send("sample-chat", "And why is the sky blue?");
  assert.equal(r.state, "done", r.error);
  assert.deepEqual(r.messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  await page.screenshot({ path: `${OUT}/ai-sdk-chat.png`, fullPage: true });
});

test("page, adapter in the page (/v1/stream): an image and audio as file parts; an upstream error is shown", async () => {
  await open("transport=adapter&pace=0");
  let r = await send("sample-image");
  assert.equal(r.state, "done", r.error);
  await page.waitForFunction(() => {
    const img = document.querySelector('.part[data-type="file"] img');
    return img && img.complete && img.naturalWidth > 0;
  }, null, { timeout: 5000 });
  r = await send("sample-audio");
  assert.equal(r.state, "done", r.error);
  assert.equal(await page.$$eval('.part[data-type="file"] audio', (a) => a.length), 1);
  r = await send("sample-error");
  assert.equal(r.state, "error");
  assert.match(r.error, /overloaded/);
  assert.equal(r.messages.at(-1).parts[0].state, "streaming");
});

test("page: Stop ends a slow stream mid-way, and the relay's answer with it", async () => {
  await open(`relay=${encodeURIComponent(replayBase)}&transport=chat&pace=150`);
  await page.selectOption("#model", "sample-tools");
  await page.click("#send");
  await page.waitForFunction(() => document.querySelectorAll('.msg[data-role="assistant"] .part').length >= 1, null, { timeout: 10_000 });
  await page.click("#stop");
  await page.waitForFunction(() => document.getElementById("status").dataset.state === "stopped", null, { timeout: 5000 });
  // the page's transport (MmspChatTransport) cancelled the answer server-side: none is active any more
  const chatId = await page.evaluate(() => window.chat.id);
  let status;
  for (let i = 0; i < 20 && status !== 204; i++) {
    const res = await fetch(`${replayBase}/api/chat/${encodeURIComponent(chatId)}/stream`);
    await res.arrayBuffer();
    status = res.status;
    if (status !== 204) await sleep(50);
  }
  assert.equal(status, 204, "the stopped answer is no longer active");
});

// ---- the real AI SDK chat in Chromium: resume after a reload, stop, a dropped connection ------------------

// `ai` bundled for the page (the example imports it from esm.sh; here no network)
await build({ stdin: { contents: 'export { AbstractChat } from "ai";', resolveDir: root }, bundle: true, format: "esm", platform: "browser", outfile: `${OUT}/ai-browser.js`, logLevel: "warning" });
const SLOW_TEXT = Array.from({ length: 30 }, (_, i) => `w${i} `).join("");

/** examples/ai-sdk-resume.html in a fresh context (its own sessionStorage), with the page-error listeners. */
async function resumePage(query) {
  const context = await browser.newContext();
  const p = await context.newPage();
  p.on("pageerror", (e) => pageErrors.push(String(e)));
  p.on("console", (m) => m.type() === "error" && pageErrors.push(`console: ${m.text()}`));
  await p.goto(`${pageBase}/examples/ai-sdk-resume.html?ai=/.ci-out/ai-browser.js&${query}`);
  await p.waitForFunction(() => document.documentElement.dataset.ready === "true");
  return { p, close: () => context.close() };
}
const assistantText = (p) => p.evaluate(() => document.querySelector('.msg[data-role="assistant"]')?.textContent ?? "");
async function sendPrompt(p) {
  await p.click("#send");
  await p.waitForFunction(() => (document.querySelector('.msg[data-role="assistant"]')?.textContent.length ?? 0) > 8, null, { timeout: 10_000 });
}
const waitReady = (p, text) =>
  p.waitForFunction((want) => document.getElementById("status").dataset.status === "ready" && (want === null || document.querySelector('.msg[data-role="assistant"]')?.textContent === want), text, { timeout: 15_000 });

test("Chromium, ai's chat + MmspChatTransport: an answer resumed after a reload (resume: true) into the same message; one upstream request", async () => {
  const { p, close } = await resumePage(`relay=${encodeURIComponent(relayBase)}&model=slow`);
  try {
    const before = seen.length;
    await sendPrompt(p);
    const idBefore = await p.$eval('.msg[data-role="assistant"]', (n) => n.dataset.id);
    assert.ok((await assistantText(p)).length < SLOW_TEXT.length, "reloaded mid-answer");
    await p.reload();
    await p.waitForFunction(() => document.documentElement.dataset.ready === "true");
    await waitReady(p, SLOW_TEXT);
    const roles = await p.$$eval(".msg", (ns) => ns.map((n) => n.dataset.role));
    assert.deepEqual(roles, ["user", "assistant"]);
    assert.equal(await p.$eval('.msg[data-role="assistant"]', (n) => n.dataset.id), idBefore, "the same message id");
    assert.equal(seen.length - before, 1, "one upstream request");
  } finally {
    await close();
  }
});

test("Chromium: stop() cancels the generation server-side — the scripted upstream's request aborted within a second; also after a reload", async () => {
  for (const reload of [false, true]) {
    const { p, close } = await resumePage(`relay=${encodeURIComponent(relayBase)}&model=endless`);
    try {
      const before = seen.length;
      await sendPrompt(p);
      if (reload) {
        await p.reload();
        await p.waitForFunction(() => document.documentElement.dataset.ready === "true");
        const n = (await assistantText(p)).length;
        await p.waitForFunction((n) => (document.querySelector('.msg[data-role="assistant"]')?.textContent.length ?? 0) > n + 8, n, { timeout: 10_000 });
      }
      const entry = seen[before];
      const t = performance.now();
      await p.click("#stop");
      const closed = await Promise.race([closedEarly(entry), sleep(1000).then(() => "timeout")]);
      assert.equal(closed, true, `the upstream's request aborted within a second${reload ? " (after a reload)" : ""}`);
      assert.ok(performance.now() - t < 1100);
      assert.equal(entry.finished, false);
      await waitReady(p, null);
      assert.equal(seen.length - before, 1);
    } finally {
      await close();
    }
  }
});

test("Chromium: a connection cut mid-answer (a proxy) resumes: the whole answer, nothing twice, the reconnect names the answer (If-Match)", async () => {
  const { p, close } = await resumePage(`relay=${encodeURIComponent(`${pageBase}/cut`)}&model=slow`);
  try {
    cutLog.requests.length = 0;
    cutLog.cuts = 0;
    await sendPrompt(p);
    await waitReady(p, SLOW_TEXT);
    assert.equal(cutLog.cuts, 1);
    // (the page's resume on load, a GET without If-Match, may come before the POST: only what follows it counts)
    const gets = cutLog.requests.slice(cutLog.requests.findIndex((r) => r.method === "POST")).filter((r) => r.method === "GET");
    assert.ok(gets.length >= 1 && gets.every((g) => /^"[0-9a-f]{32}"$/.test(g.ifMatch ?? "")), JSON.stringify(cutLog.requests));
    assert.equal(await p.$eval("#error", (n) => n.textContent), "");
  } finally {
    await close();
  }
});

test("page: no page errors in the runs above", async () => {
  assert.deepEqual(pageErrors.filter((e) => !/Failed to load resource/.test(e)), []);
});

// ---- run ------------------------------------------------------------------------------------------------

await run({
  timeoutMs: 120_000,
  t0,
  cleanup: async () => {
    await browser.close();
    await Promise.all(workers.map((w) => w.stop()));
    await upstream.close();
    pageServer.closeAllConnections();
    pageServer.close();
  },
});
