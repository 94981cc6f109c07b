// `mmsp-streams inspect URL`: a live MMSP server (node:http on 127.0.0.1, port 0) streaming slowly.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { SAMPLES, messageSummary, run, sseRecords } from "./helpers.mjs";

const KEY = "sk-test-3f9a";
const records = (name) => sseRecords(readFileSync(`${SAMPLES}${name}.sse`, "utf8"));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** What the server saw, and hooks a test sets: `waitBefore(i)` is awaited before record i is written. */
const server = { requests: [], waitBefore: async () => {}, sample: "tool-call", format: "sse" };
let http;
let base;

before(async () => {
  http = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const seen = { method: req.method, path: req.url, headers: req.headers, body };
    server.requests.push(seen);
    if (req.headers.authorization !== `Bearer ${KEY}`) {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { type: "AuthenticationError", message: "Invalid API key." } }));
    }
    const ndjson = server.format === "ndjson";
    res.writeHead(200, { "content-type": ndjson ? "application/x-ndjson" : "text/event-stream; charset=utf-8" });
    const list = records(server.sample).filter((r) => !(ndjson && r === "[DONE]"));
    for (let i = 0; i < list.length; i++) {
      await server.waitBefore(i);
      await sleep(15);
      res.write(ndjson ? `${list[i]}\n` : `data: ${list[i]}\n\n`);
      if (i === 2 && !ndjson) res.write(": keep-alive\n\n");
    }
    res.end();
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${http.address().port}`;
});

after(() => http.close());

test("a live server: the request carries --model, --prompt and --key; the stream is shown as it arrives", async () => {
  server.requests = [];
  server.sample = "tool-call";
  server.format = "sse";
  // Hold the rest of the stream back until the CLI has printed the text (record 9 is text.done):
  // a CLI that waited for the end of the body before showing anything would never print it.
  let printed;
  const textShown = new Promise((resolve) => (printed = resolve));
  let shownLive = false;
  server.waitBefore = async (i) => {
    if (i !== 9) return;
    shownLive = await Promise.race([textShown.then(() => true), sleep(5000).then(() => false)]);
  };
  const { code, stdout, stderr } = await run(["inspect", `${base}/v1`, "--model", "claude-test", "--prompt", "Weather in Paris?", "--key", KEY], {
    onStdout: (all) => all.includes("Let me check the current weather in Paris") && printed(),
  });
  assert.equal(code, 0, stderr);
  assert.ok(shownLive, "the text was printed while the server was still streaming");

  assert.equal(server.requests.length, 1);
  const [req] = server.requests;
  assert.equal(req.method, "POST");
  assert.equal(req.path, "/v1/stream");
  assert.equal(req.headers.authorization, `Bearer ${KEY}`);
  assert.match(req.headers["content-type"], /^application\/json/);
  assert.deepEqual(JSON.parse(req.body), {
    model: "claude-test",
    messages: [{ role: "user", content_items: [{ type: "text.done", text: "Weather in Paris?" }] }],
    config: {},
  });

  assert.match(stdout, new RegExp(`^POST ${base}/v1/stream {2}model=claude-test$`, "m"));
  assert.match(stdout, /^HTTP 200 text\/event-stream; charset=utf-8$/m);
  assert.match(stdout, /^▸ tool_call get_weather {2}id=toolu_01A09q90qw90lq917835lq9$/m);
  assert.equal(messageSummary(stdout), messageSummary((await run(["--sample", "tool-call"])).stdout));
});

test("a full URL is used as given; the key may come from MMSP_API_KEY; NDJSON by Content-Type", async () => {
  server.requests = [];
  server.sample = "image";
  server.format = "ndjson";
  server.waitBefore = async () => {};
  const { code, stdout, stderr } = await run(["inspect", `${base}/custom/path`, "--model", "m"], { env: { MMSP_API_KEY: KEY } });
  assert.equal(code, 0, stderr);
  assert.equal(server.requests[0].path, "/custom/path");
  assert.equal(server.requests[0].headers.authorization, `Bearer ${KEY}`);
  assert.equal(JSON.parse(server.requests[0].body).messages[0].content_items[0].text, "Hello!", "the default prompt");
  assert.match(stdout, /^HTTP 200 application\/x-ndjson$/m);
  assert.match(stdout, /186 bytes in 2 chunks/);
  assert.match(stdout, /^read: .* · ndjson · /m);
});

test("a refused request (401): the UpstreamError's type, status and message; exit 1", async () => {
  server.requests = [];
  const { code, stdout, stderr } = await run(["inspect", `${base}/v1/stream`, "--model", "m", "--prompt", "hi", "--key", "wrong"], { env: { MMSP_API_KEY: undefined } });
  assert.equal(code, 1);
  assert.equal(server.requests[0].headers.authorization, "Bearer wrong");
  assert.match(stdout, /^HTTP 401 application\/json$/m);
  assert.match(stderr, /^error: UpstreamError AuthenticationError \(status 401\)$/m);
  assert.match(stderr, /^ {2}message: +Invalid API key\.$/m);
});

test("a server that fails mid-stream: the text so far, then the UpstreamError; exit 1", async () => {
  server.sample = "error";
  server.format = "sse";
  server.waitBefore = async () => {};
  const { code, stdout, stderr } = await run(["inspect", `${base}/v1`, "--model", "m", "--key", KEY]);
  assert.equal(code, 1);
  assert.match(stdout, /Ganymede, Callisto and/);
  assert.match(stderr, /^error: UpstreamError OverloadedError \(status 529\)$/m);
});

test("an unreachable server: said so, exit 1", async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const { code, stderr } = await run(["inspect", `http://127.0.0.1:${port}/v1`, "--model", "m"]);
  assert.equal(code, 1);
  assert.match(stderr, new RegExp(`^error: cannot reach http://127\\.0\\.0\\.1:${port}/v1/stream: ECONNREFUSED: nothing listens on 127\\.0\\.0\\.1:${port}: is the MMSP server running, and on this port\\?$`, "m"));
});

test("a server that goes silent mid-stream: --timeout ends the wait with a StreamLimitError; exit 1", async () => {
  server.sample = "tool-call";
  server.format = "sse";
  let release;
  server.waitBefore = (i) => (i === 3 ? new Promise((r) => (release = r)) : Promise.resolve());
  const started = performance.now();
  const { code, stderr } = await run(["inspect", `${base}/v1`, "--model", "m", "--key", KEY, "--timeout", "300"]);
  release?.();
  server.waitBefore = async () => {};
  assert.equal(code, 1, stderr);
  assert.match(stderr, /StreamLimitError/);
  assert.match(stderr, /idleTimeoutMs/);
  assert.ok(performance.now() - started < 10_000, "it did not wait for the server");
});
