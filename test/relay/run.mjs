// Tests of the relay Worker (worker/, top-level wrangler.toml) in workerd, through Miniflare's API.
//
// Worker instances, each with the STREAMS Durable Object (SQLite, in memory) unless said otherwise:
// RELAY (MMSP_UPSTREAM = the kit's fake MMSP server, fakeMmspServer on node:http at 127.0.0.1), REPLAY (no
// MMSP_UPSTREAM: the built-in samples), DOWN (MMSP_UPSTREAM = a closed port), SHORT (streams expire
// and are abandoned after 0.5 s; a list of CORS origins) and STATELESS (no STREAMS binding). The
// resume tests drop clients at every record boundary and inside events, resume them (by hand, and
// with fromFetch), and count the upstream's requests. Requests go over real HTTP (Node's fetch to Miniflare's URL), answers are read back with the
// built package (dist/: run `npm run build` first). Prints "relay: N passed, N failed".
//
// Run: node test/relay/run.mjs [name filter]
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { fakeMmspServer } from "mmsp-streams/testing";
import { serve } from "../../scripts/upstream.mjs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { fromFetch, fromResponse, StreamProtocolError, toWireEvent, UpstreamError } from "mmsp-streams";
import { bundleWorker } from "../../worker/build.mjs";
import { cutAfter } from "../../scripts/cut-body.mjs";
import { namedTests } from "../../scripts/named-tests.mjs";

const t0 = performance.now();
const root = new URL("../../", import.meta.url);
const filter = process.argv[2];

// ---- helpers --------------------------------------------------------------------------------------

const sampleText = (name) => readFile(new URL(`samples/${name}.sse`, root), "utf8");
const sse = (text) => new Response(text, { headers: { "content-type": "text/event-stream" } });
/** A message as comparable JSON (bytes as base64). */
const wire = (message) => JSON.stringify(toWireEvent(message));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Reads a Response through the package: every event, then the message or the error. */
async function readBack(response) {
  const { readable, message } = fromResponse(response);
  const events = [];
  let error;
  try {
    for await (const e of readable) events.push(e);
  } catch (e) {
    error = e;
  }
  const result = await message.then((m) => ({ message: m }), (e) => ({ error: e }));
  if (error !== undefined) assert.equal(result.error, error, "message rejects with the readable's error");
  return { events, ...result };
}

/** The SSE records of a body (comments included), split on blank lines. */
const records = (text) => text.split(/\n\n/).filter((r) => r !== "");

const event = (item, extra = {}) => ({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null, ...extra });
const stop = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: 0, prompt_tokens: 3, thoughts_tokens: 0, response_tokens: 2 }, finish_reason: "stop" };
const data = (value) => `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;

// ---- the upstream: the kit's fake MMSP server (mmsp-streams/testing) on 127.0.0.1 ---------------------

/** A capture of `text` answered with `status` and `type` (a stream by default). */
const captureOf = (text, status = 200, type = "text/event-stream; charset=utf-8") => ({ status, headers: [["content-type", type]], body: new TextEncoder().encode(text) });
const deltas = (n, textOf) => Array.from({ length: n }, (_, i) => data(event({ type: "text.delta", text: textOf(i) }))).join("");
const toolCall = captureOf(await sampleText("tool-call"));

const fake = fakeMmspServer({
  fallback: "tools",
  streams: {
    // the tool-call sample in 7-byte chunks (splits land inside lines, JSON and UTF-8 characters)
    tools: { capture: toolCall, chunking: 7 },
    // a thinking fragment while a text group is open: NO-INTERLEAVE at event 2 (the comment is not an event)
    violation: {
      capture: captureOf(
        ": keep-alive\n\n" + data(event({ type: "text.delta", text: "Hel" })) + data(event({ type: "text.delta", text: "lo" })) +
          data(event({ type: "thinking.delta", thinking: "hmm" })) + data(event({ type: "thinking.done", thinking: "hmm" })) + data(stop) + data("[DONE]"),
      ),
      pace: 50,
    },
    truncated: captureOf(data(event({ type: "text.delta", text: "cut" })) + data(event({ type: "text.done", text: "cut" }))),
    "error-event": captureOf(data(event({ type: "text.delta", text: "Hi" })) + data({ error: { type: "OverloadedError", message: "try later", status: 529 } }) + data("[DONE]")),
    // the connection breaks mid-stream, 30 ms after the first event
    drop: { capture: captureOf(data(event({ type: "text.delta", text: "Hi" }))), cutAfterEvents: 1, stallMs: 30 },
    "refuse-401": captureOf(JSON.stringify({ error: { type: "AuthenticationError", message: "Invalid API key." } }), 401, "application/json"),
    // an error page with script and a traceback: none of it may reach the relay's client
    "refuse-html": captureOf(
      '<html><script>alert(document.cookie)</script><pre>Traceback (most recent call last):\n  File "/srv/app.py", line 3\nKeyError: OPENAI_KEY</pre></html>',
      500,
      "text/html",
    ),
    "refuse-503": captureOf("upstream overloaded — try again", 503, "text/plain; charset=utf-8"),
    // the tool-call sample one event at a time, 10 ms apart: clients join and leave while it is live
    slow: { capture: toolCall, pace: 100 },
    // 400 text deltas 25 ms apart and the text's done, never a stop
    endless: { capture: captureOf(deltas(400, (i) => `${i} `) + data(event({ type: "text.done", text: "" }))), pace: 40 },
    // 600 text deltas of 64 KiB, 5 ms apart (39 MiB: enough to fill what lies between the relay and a
    // client that has stopped reading, so the relay's answer is no longer pulled), then silence until the
    // relay aborts the request: however slow a busy machine makes the relay, the upstream is still open
    // when ABANDON_S ends the stream (it never finishes on its own)
    flood: { capture: captureOf(deltas(600, () => "x".repeat(65_536))), pace: 200, stallMs: Infinity },
    // a text delta every 300 ms for 10 s (a slow model: MAX_STREAM_S ends it first)
    trickle: { capture: captureOf(deltas(34, (i) => `${i} `)), pace: 1000 / 300 },
  },
});
const upstream = await serve(fake);
/** Every request the upstream got (the fake's log: method, url, headers, body, model, finished, ended…). */
const seen = fake.requests;
/** Resolves true when the upstream saw its answer closed before it finished. */
const closedEarly = (req) => req.ended.then((how) => how === "aborted");
const upstreamBase = `${upstream.url}/v1`;
const closedPort = await new Promise((resolve) => {
  const s = http.createServer().listen(0, "127.0.0.1", () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

// ---- the Worker in workerd ---------------------------------------------------------------------------

const { script, compatibilityDate, compatibilityFlags } = await bundleWorker();
// src/relay/doors/mmsp/http.ts (streamBack) on its own, for Node: the pipe behaviour without workerd (which also tears a
// request's pending I/O down when its client disconnects, and so would hide a pipe that ignores cancel)
const streamModule = await build({
  entryPoints: [new URL("src/relay/doors/mmsp/http.ts", root).pathname],
  bundle: true,
  format: "esm",
  platform: "node",
  target: "es2022",
  write: false,
  logLevel: "warning",
});
const tmp = await mkdtemp(join(tmpdir(), "relay-test-"));
await writeFile(join(tmp, "stream.mjs"), streamModule.outputFiles[0].text);
const { streamBack, clientFormat } = await import(pathToFileURL(join(tmp, "stream.mjs")).href);
await rm(tmp, { recursive: true, force: true });
// As wrangler.toml declares it: one SQLite-backed Durable Object per stream (in memory here).
const durableObjects = { STREAMS: { className: "StreamObject", useSQLite: true } };
const worker = (bindings, { stateless = false } = {}) =>
  new Miniflare({ modules: true, script, compatibilityDate, compatibilityFlags, bindings, ...(stateless ? {} : { durableObjects }) });
const instances = {
  relay: worker({ MMSP_UPSTREAM: upstreamBase }),
  replay: worker({}),
  // (with credentials in the URL: a 502 must not show them)
  down: worker({ MMSP_UPSTREAM: `http://operator:s3cr3t@127.0.0.1:${closedPort}/v1/` }),
  // a key to create streams, and small bounds
  guarded: worker({
    MMSP_UPSTREAM: upstreamBase,
    RELAY_KEY: "k3y",
    MAX_BODY_BYTES: "1024",
    MAX_EVENTS: "40",
    MAX_STREAM_BYTES: "150000",
    MAX_STREAM_S: "1.5",
    MAX_CLIENTS: "2",
  }),
  // short-lived streams (expiry, abandonment) and a list of allowed origins
  // (MAX_STREAM_BYTES raised past the default 32 MiB: a client that stops reading a flood must end it by
  // ABANDON_S, not by the stored bytes reaching the bound first)
  short: worker({ MMSP_UPSTREAM: upstreamBase, STREAM_TTL_S: "0.5", ABANDON_S: "0.5", MAX_STREAM_BYTES: "268435456", CORS_ORIGINS: "https://app.example, http://localhost:5173" }),
  // no STREAMS binding: the stateless relay (stream.ts), a client going away cancels the upstream
  stateless: worker({ MMSP_UPSTREAM: upstreamBase }, { stateless: true }),
};
const urls = Object.fromEntries(await Promise.all(Object.entries(instances).map(async ([k, mf]) => [k, await mf.ready])));
// (an object body gets `messages: []` when it has none: the upstream refuses a request without them, as MMSP's does)
const post = (which, body, { path = "/v1/stream", headers = {}, signal } = {}) =>
  fetch(new URL(path, urls[which]), { method: "POST", body: typeof body === "string" ? body : JSON.stringify({ messages: [], ...body }), headers: { "content-type": "application/json", ...headers }, signal });

// ---- the tests ---------------------------------------------------------------------------------------

/** A test; `ms` bounds it (30 s by default: a test that waits on a bound of its own is given more). */
const { test, run } = namedTests("relay");

test("relay: a valid upstream stream (7-byte chunks) comes back as SSE with the same message", async () => {
  const res = await post("relay", { model: "tools", messages: [] });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const got = await readBack(res);
  const want = await readBack(sse(await sampleText("tool-call")));
  assert.equal(got.error, undefined, String(got.error));
  assert.equal(wire(got.message), wire(want.message));
  assert.equal(got.events.length, want.events.length);
});

test("relay: POST ${MMSP_UPSTREAM}/stream with the body byte for byte, Content-Type, Content-Length and Authorization", async () => {
  const body = '{"model":"tools",  "messages":[{"role":"user","content_items":[{"type":"text.done","text":"é😀 \\u00e9"}]}],"config":{}}';
  const res = await post("relay", body, { headers: { authorization: "Bearer sk-test-123", "content-type": "application/json; charset=utf-8" } });
  await res.arrayBuffer();
  const req = seen.at(-1);
  assert.equal(req.method, "POST");
  assert.equal(new URL(req.url).pathname, "/v1/stream");
  assert.equal(req.body.toString("utf8"), body);
  assert.equal(req.headers.authorization, "Bearer sk-test-123");
  assert.equal(req.headers["content-type"], "application/json; charset=utf-8");
  assert.equal(req.headers["content-length"], String(Buffer.byteLength(body)));
});

test("relay: no Authorization from the client, none upstream", async () => {
  await (await post("relay", { model: "tools" })).arrayBuffer();
  assert.equal(seen.at(-1).headers.authorization, undefined);
});

test("relay: Accept application/x-ndjson → NDJSON (one event per line, no [DONE]) with the same message", async () => {
  const res = await post("relay", { model: "tools" }, { headers: { accept: "application/x-ndjson" } });
  assert.equal(res.headers.get("content-type"), "application/x-ndjson");
  const text = await res.text();
  const lines = text.split("\n").filter(Boolean);
  for (const line of lines) JSON.parse(line);
  assert.ok(!text.includes("[DONE]"));
  const got = await readBack(new Response(text, { headers: { "content-type": "application/x-ndjson" } }));
  const want = await readBack(sse(await sampleText("tool-call")));
  assert.equal(lines.length, want.events.length);
  assert.equal(wire(got.message), wire(want.message));
});

test("relay: Accept negotiation (jsonl → NDJSON as application/jsonl; SSE preferred by q; */* → SSE)", async () => {
  const cases = [
    ["application/jsonl", "application/jsonl"],
    ["text/event-stream, application/x-ndjson;q=0.5", "text/event-stream; charset=utf-8"],
    ["application/x-ndjson;q=0.9, text/event-stream;q=0.2", "application/x-ndjson"],
    ["*/*", "text/event-stream; charset=utf-8"],
    ["application/x-ndjson;q=0", "text/event-stream; charset=utf-8"],
  ];
  for (const [accept, type] of cases) {
    const res = await post("replay", { model: "sample-chat" }, { path: "/v1/stream?pace=0", headers: { accept } });
    assert.equal(res.headers.get("content-type"), type, `Accept: ${accept}`);
    const got = await readBack(res);
    assert.equal(got.error, undefined, `Accept: ${accept}: ${got.error}`);
  }
});

test("relay: an upstream protocol violation → the valid events, then one error event + [DONE]; reads back as UpstreamError caused by StreamProtocolError (NO-INTERLEAVE)", async () => {
  const res = await post("relay", { model: "violation" });
  assert.equal(res.status, 200);
  const text = await res.text();
  const recs = records(text);
  assert.equal(recs.filter((r) => r.includes('"error"')).length, 1, text);
  assert.equal(recs.at(-1), "data: [DONE]");
  assert.match(recs.at(-2), /^id: 2\ndata: \{"error":/, "the error is event 2, with its id");
  assert.equal(recs.length, 4, "two text deltas, the error, [DONE]");
  const { events, error } = await readBack(sse(text));
  assert.equal(events.length, 2);
  assert.ok(error instanceof UpstreamError, String(error));
  assert.equal(error.errorType, "StreamProtocolError");
  assert.ok(error.cause instanceof StreamProtocolError, String(error.cause));
  assert.equal(error.cause.rule, "NO-INTERLEAVE");
  assert.equal(error.cause.eventIndex, 2);
  assert.equal(error.cause.client, "upstream");
  assert.match(error.message, /^upstream broke the streaming protocol: /);
});

test("relay: the same violation as NDJSON → one last {\"error\"} line", async () => {
  const res = await post("relay", { model: "violation" }, { headers: { accept: "application/x-ndjson" } });
  const lines = (await res.text()).split("\n").filter(Boolean);
  assert.equal(lines.length, 3);
  const last = JSON.parse(lines[2]);
  assert.equal(last.error.type, "StreamProtocolError");
  assert.equal(last.error.rule, "NO-INTERLEAVE");
});

test("relay: an upstream that ends without the stop event → error event (STOP-LAST) + [DONE]", async () => {
  const text = await (await post("relay", { model: "truncated" })).text();
  assert.equal(records(text).at(-1), "data: [DONE]");
  const { events, error } = await readBack(sse(text));
  assert.equal(events.length, 2);
  assert.ok(error instanceof UpstreamError && error.cause instanceof StreamProtocolError, String(error));
  assert.equal(error.cause.rule, "STOP-LAST");
});

test("relay: an upstream error event is passed on as sent (OverloadedError, status 529)", async () => {
  const text = await (await post("relay", { model: "error-event" })).text();
  assert.equal(records(text).filter((r) => r.includes('"error"')).length, 1);
  assert.ok(text.includes('id: 1\ndata: {"error":{"type":"OverloadedError","message":"try later","status":529}}\n\ndata: [DONE]\n\n'), text);
  const { events, error } = await readBack(sse(text));
  assert.equal(events.length, 1);
  assert.ok(error instanceof UpstreamError);
  assert.equal(error.errorType, "OverloadedError");
  assert.equal(error.status, 529);
});

test("relay: an upstream connection that breaks mid-stream → error event + [DONE], no hang", async () => {
  const text = await (await post("relay", { model: "drop" })).text();
  const recs = records(text);
  assert.equal(recs.at(-1), "data: [DONE]");
  assert.match(recs.at(-2), /^id: 1\ndata: \{"error":/);
  const { events, error } = await readBack(sse(text));
  assert.equal(events.length, 1);
  assert.ok(error instanceof UpstreamError, String(error));
});

test("relay: an upstream refusal (401 JSON) → the same status, body and Content-Type", async () => {
  const res = await post("relay", { model: "refuse-401" }, { headers: { authorization: "Bearer wrong" } });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("content-location"), null, "a refusal is not a stream: nothing to resume");
  const body = await res.text();
  assert.equal(body, JSON.stringify({ error: { type: "AuthenticationError", message: "Invalid API key." } }));
  const { error } = await readBack(new Response(body, { status: 401 }));
  assert.ok(error instanceof UpstreamError);
  assert.equal(error.status, 401);
  assert.equal(error.errorType, "AuthenticationError");
});

test("relay: an upstream refusal that is not JSON (503 text, a 500 HTML page with a traceback) → an MMSP refusal: JSON, nosniff, HTTPError, no upstream text", async () => {
  for (const [model, status] of [["refuse-503", 503], ["refuse-html", 500]]) {
    for (const which of ["relay", "stateless"]) {
      const res = await post(which, { model });
      assert.equal(res.status, status);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      const text = await res.text();
      for (const leak of ["overloaded", "<", "script", "Traceback", "app.py", "OPENAI_KEY"]) assert.ok(!text.includes(leak), `${model} via ${which}: ${text}`);
      const body = JSON.parse(text);
      assert.equal(body.error.type, "HTTPError");
      assert.match(body.error.message, new RegExp(`^HTTP ${status}: `));
      const { error } = await readBack(new Response(text, { status, headers: { "content-type": "application/json" } }));
      assert.equal(error.status, status);
      assert.equal(error.errorType, "HTTPError");
    }
  }
});

test("stateless relay (no STREAMS binding): a client that goes away cancels the upstream request", async () => {
  const before = seen.length;
  const res = await post("stateless", { model: "endless" });
  const reader = res.body.getReader();
  const first = await reader.read();
  assert.ok(!first.done && first.value.length > 0);
  await reader.cancel();
  const req = seen[before];
  assert.equal(req?.model, "endless");
  const closed = await Promise.race([closedEarly(req), sleep(3000).then(() => "timeout")]);
  assert.equal(closed, true, "the upstream saw its response closed before it finished");
  assert.ok(!req.finished);
});

test("stateless relay: a client that aborts its fetch cancels the upstream request", async () => {
  const before = seen.length;
  const abort = new AbortController();
  const res = await post("stateless", { model: "endless" }, { signal: abort.signal });
  const reader = res.body.getReader();
  await reader.read();
  abort.abort();
  const closed = await Promise.race([closedEarly(seen[before]), sleep(3000).then(() => "timeout")]);
  assert.equal(closed, true);
});

test("relay: an unreachable MMSP server → 502 refusal {error: {type: UpstreamUnavailable}} that names no URL (MMSP_UPSTREAM holds user:password@)", async () => {
  const res = await post("down", { model: "x" });
  assert.equal(res.status, 502);
  const text = await res.text();
  for (const leak of ["s3cr3t", "operator", "127.0.0.1", "http:"]) assert.ok(!text.includes(leak), text);
  const { error } = await readBack(new Response(text, { status: 502, headers: { "content-type": "application/json" } }));
  assert.ok(error instanceof UpstreamError);
  assert.equal(error.errorType, "UpstreamUnavailable");
  assert.match(error.message, /cannot reach the MMSP server \(MMSP_UPSTREAM\)/);
});

test("streamBack (Node): cancelling the answer's body cancels the upstream body, through the pipes", async () => {
  let cancelled;
  let pulls = 0;
  const body = new ReadableStream({
    async pull(c) {
      await sleep(1);
      pulls++;
      c.enqueue(new TextEncoder().encode(data(event({ type: "text.delta", text: `${pulls} ` }))));
    },
    cancel(reason) {
      cancelled = reason ?? "cancelled";
    },
  }, { highWaterMark: 0 });
  const answer = streamBack(sse(body), null, { client: "upstream" });
  const reader = answer.body.getReader();
  await reader.read();
  await reader.read();
  assert.equal(cancelled, undefined);
  await reader.cancel(new Error("client gone"));
  await sleep(10);
  assert.ok(cancelled !== undefined, "the upstream body was cancelled");
  const at = pulls;
  await sleep(20);
  assert.equal(pulls, at, "nothing more is read from the upstream");
});

test("streamBack (Node): an upstream body that errors → one error event + [DONE]; the body ends", async () => {
  const body = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode(data(event({ type: "text.delta", text: "Hi" }))));
      setTimeout(() => c.error(new TypeError("Network connection lost.")), 5);
    },
  });
  const text = await streamBack(sse(body), null, { client: "upstream" }).text();
  // the relay reads the upstream's Response itself (fromResponse): a cut is a ConnectionError, said as such (issue #35)
  const [error, done] = records(text).slice(1);
  const sent = JSON.parse(error.slice("data: ".length)).error;
  assert.deepEqual([sent.type, sent.bytes_read, sent.events_read, done], ["ConnectionError", 144, 1, "data: [DONE]"]);
  assert.match(sent.message, /broke after 144 bytes and 1 event \(TypeError: Network connection lost\.\)/);
});

test("clientFormat: Accept → the answer's format and Content-Type", () => {
  assert.deepEqual(clientFormat(null), { format: "sse", contentType: "text/event-stream; charset=utf-8" });
  assert.deepEqual(clientFormat("application/x-ndjson"), { format: "ndjson", contentType: "application/x-ndjson" });
  assert.deepEqual(clientFormat("Application/JSONL; charset=utf-8"), { format: "ndjson", contentType: "application/jsonl" });
  assert.deepEqual(clientFormat("text/event-stream;q=1, application/x-ndjson;q=0.8").format, "sse");
  assert.deepEqual(clientFormat("text/html, */*;q=0.8").format, "sse");
});

const SAMPLES = [
  ["sample-chat", "chat"],
  ["sample-tools", "tool-call"],
  ["sample-image", "image"],
  ["sample-audio", "audio"],
  ["sample-embeddings", "embeddings"],
];
for (const [model, file] of SAMPLES) {
  test(`replay: ${model} reads back (SSE) with the message of samples/${file}.sse`, async () => {
    const res = await post("replay", { model, messages: [] }, { path: "/v1/stream?pace=0" });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
    const got = await readBack(res);
    const want = await readBack(sse(await sampleText(file)));
    assert.equal(got.error, undefined, String(got.error));
    assert.equal(wire(got.message), wire(want.message));
    assert.equal(got.events.length, want.events.length);
  });
}

test("replay: sample-error → its text deltas, then UpstreamError OverloadedError (529) + [DONE]", async () => {
  const text = await (await post("replay", { model: "sample-error" }, { path: "/v1/stream?pace=0" })).text();
  assert.equal(records(text).at(-1), "data: [DONE]");
  const { events, error } = await readBack(sse(text));
  assert.equal(events.length, 2);
  assert.ok(error instanceof UpstreamError);
  assert.equal(error.errorType, "OverloadedError");
  assert.equal(error.status, 529);
});

test("replay: sample-<file> names and NDJSON by Accept (sample-tool-call, sample-image)", async () => {
  for (const [model, file] of [["sample-tool-call", "tool-call"], ["sample-image", "image"]]) {
    const res = await post("replay", { model }, { path: "/v1/stream?pace=0", headers: { accept: "application/x-ndjson" } });
    assert.equal(res.headers.get("content-type"), "application/x-ndjson");
    const got = await readBack(res);
    const want = await readBack(sse(await sampleText(file)));
    assert.equal(wire(got.message), wire(want.message));
  }
});

test("replay: no model (and an empty body) → the chat sample", async () => {
  const want = wire((await readBack(sse(await sampleText("chat")))).message);
  for (const body of [{ messages: [] }, ""]) {
    const got = await readBack(await post("replay", body, { path: "/v1/stream?pace=0" }));
    assert.equal(wire(got.message), want);
  }
});

test("replay: paced like a model by default (20-40 ms per event), streamed as it goes; ?pace=0 is immediate", async () => {
  const want = await readBack(sse(await sampleText("tool-call")));
  const n = want.events.length;
  let start = performance.now();
  const res = await post("replay", { model: "sample-tools" });
  const reader = res.body.getReader();
  const arrivals = [];
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    arrivals.push(performance.now() - start);
  }
  const total = performance.now() - start;
  assert.ok(total >= n * 20 - 30, `${n} events in ${total.toFixed(0)} ms`);
  assert.ok(total <= n * 40 + 1500, `${n} events in ${total.toFixed(0)} ms`);
  assert.ok(arrivals.length >= n / 2, `${arrivals.length} chunks`);
  assert.ok(arrivals.at(-1) - arrivals[0] >= (n - 2) * 20 - 30, "chunks arrive spread out, not all at the end");
  start = performance.now();
  await (await post("replay", { model: "sample-tools" }, { path: "/v1/stream?pace=0" })).arrayBuffer();
  assert.ok(performance.now() - start < n * 20, `pace=0 took ${(performance.now() - start).toFixed(0)} ms`);
});

test("replay: ?pace=N is a fixed delay per event", async () => {
  const n = (await readBack(sse(await sampleText("image")))).events.length;
  const start = performance.now();
  await (await post("replay", { model: "sample-image" }, { path: "/v1/stream?pace=60" })).arrayBuffer();
  const total = performance.now() - start;
  assert.ok(total >= n * 60 - 30, `${n} events in ${total.toFixed(0)} ms`);
});

test("replay: refusals (unknown model 404 NotFoundError, body not JSON 400, bad pace 400)", async () => {
  let res = await post("replay", { model: "gpt-4o" });
  assert.equal(res.status, 404);
  let body = await res.json();
  assert.equal(body.error.type, "NotFoundError");
  assert.match(body.error.message, /sample-chat, sample-tools, sample-image, sample-audio, sample-embeddings, sample-error/);
  res = await post("replay", "{nope");
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error.type, "InvalidRequestError");
  res = await post("replay", { model: "sample-chat" }, { path: "/v1/stream?pace=fast" });
  assert.equal(res.status, 400);
  body = await res.json();
  assert.equal(body.error.type, "InvalidRequestError");
});

test("routes: GET / (the demo page, with its config), GET /demo.js, GET /v1/stream 405, other paths 404", async () => {
  let res = await fetch(new URL("/", urls.replay));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
  const html = await res.text();
  assert.match(html, /<script type="module" src="\/demo\.js"><\/script>/);
  const config = JSON.parse(/<script id="config" type="application\/json">(.*?)<\/script>/s.exec(html)[1]);
  assert.equal(config.mode, "replay");
  assert.deepEqual(config.samples.map((s) => s.model), ["sample-chat", "sample-tools", "sample-image", "sample-audio", "sample-embeddings", "sample-error"]);
  const relayHtml = await (await fetch(new URL("/", urls.relay))).text();
  assert.match(relayHtml, /"mode":"relay"/);
  res = await fetch(new URL("/demo.js", urls.replay));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/javascript; charset=utf-8");
  const js = await res.text();
  assert.ok(js.length > 20_000, `demo.js is ${js.length} bytes`);
  assert.ok(js.includes("broke the streaming protocol"), "demo.js bundles the package");
  res = await fetch(new URL("/v1/stream", urls.replay));
  assert.equal(res.status, 405);
  assert.equal((await res.json()).error.type, "MethodNotAllowed");
  res = await fetch(new URL("/nope", urls.replay));
  assert.equal(res.status, 404);
  await res.arrayBuffer();
});


// ---- resumable streams (src/relay/stream/stream-object.ts) --------------------------------------------------

const get = (which, path, headers = {}) => fetch(new URL(path, urls[which]), { headers });
/** The upstream requests made since `before` for `model`. */
const upstreamCalls = (before, model) => seen.slice(before).filter((r) => r.model === model).length;
/** The SSE records of a body in order, without the [DONE]. */
const eventRecords = (text) => records(text).filter((r) => r !== "data: [DONE]" && !r.startsWith(":"));
/** Byte offsets to drop a client at: every record boundary, inside every record, inside and right before [DONE]. */
function dropPoints(text) {
  const points = [];
  let at = 0;
  for (const r of records(text)) {
    const len = Buffer.byteLength(r) + 2;
    points.push(at, at + (len >> 1), at + len - 1); // a boundary, inside the event, right before its end
    at += len;
  }
  return points.filter((p) => p > 0 && p < Buffer.byteLength(text));
}

test("resume: POST answers carry Content-Location and `id: <n>` on every event (0-based), [DONE] without id", async () => {
  const res = await post("relay", { model: "tools" });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-location"), /^\/v1\/streams\/[0-9a-f]{32}$/);
  const recs = eventRecords(await res.text());
  recs.forEach((r, i) => assert.ok(r.startsWith(`id: ${i}\ndata: {`), r.slice(0, 30)));
  const ids = new Set();
  for (let i = 0; i < 20; i++) {
    const r = await post("replay", { model: "sample-chat" }, { path: "/v1/stream?pace=0" });
    ids.add(r.headers.get("content-location"));
    await r.body.cancel();
  }
  assert.equal(ids.size, 20, "every stream has its own id");
});

test("resume: a client dropped at every point of a stream (inside events, right before [DONE]) resumes with Last-Event-ID to exactly the uninterrupted events and message; one upstream request per stream", async () => {
  const want = await readBack(sse(await sampleText("tool-call")));
  const full = await (await post("relay", { model: "tools" })).text();
  const points = dropPoints(full);
  assert.ok(points.length > 40, `${points.length} drop points`);
  for (const at of points) {
    const before = seen.length;
    const res = await post("relay", { model: "tools" });
    const location = res.headers.get("content-location");
    // the client's first k bytes, then it goes away
    const reader = res.body.getReader();
    let got = Buffer.alloc(0);
    while (got.length < at) {
      const { done, value } = await reader.read();
      if (done) break;
      got = Buffer.concat([got, value]);
    }
    await reader.cancel();
    const prefix = got.subarray(0, at).toString();
    const end = prefix.lastIndexOf("\n\n");
    const complete = end < 0 ? [] : eventRecords(prefix.slice(0, end + 2));
    const last = complete.length - 1;
    const resumed = await get("relay", location, last >= 0 ? { "last-event-id": String(last) } : {});
    assert.equal(resumed.status, 200, `drop at ${at}`);
    assert.equal(resumed.headers.get("content-location"), location);
    const rest = await resumed.text();
    assert.ok(rest.endsWith("data: [DONE]\n\n"), `drop at ${at}: the resume ends with [DONE]`);
    const restRecords = eventRecords(rest);
    if (restRecords.length > 0) assert.ok(restRecords[0].startsWith(`id: ${last + 1}\n`), `drop at ${at}: resumes at event ${last + 1}`);
    const joined = [...complete, ...restRecords].map((r) => r + "\n\n").join("") + "data: [DONE]\n\n";
    const back = await readBack(sse(joined));
    assert.equal(back.error, undefined, `drop at ${at}: ${back.error}`);
    assert.equal(back.events.length, want.events.length, `drop at ${at}: events`);
    assert.equal(JSON.stringify(back.events.map(toWireEvent)), JSON.stringify(want.events.map(toWireEvent)), `drop at ${at}: events`);
    assert.equal(wire(back.message), wire(want.message), `drop at ${at}: message`);
    assert.equal(upstreamCalls(before, "tools"), 1, `drop at ${at}: one upstream request`);
  }
});

test("resume: fromFetch against the relay, its connection cut at many points while the upstream is live → the uninterrupted events and message; one upstream request each", async () => {
  const want = await readBack(sse(await sampleText("tool-call")));
  const full = await (await post("relay", { model: "tools" })).text();
  const points = dropPoints(full).filter((_, i) => i % 5 === 0);
  for (const at of [...points, Buffer.byteLength(full) - 16]) {
    const before = seen.length;
    const requests = [];
    const cutting = async (input, init) => {
      requests.push({ url: String(input), method: init?.method ?? "GET", lastEventId: new Headers(init?.headers).get("last-event-id") });
      const res = await fetch(input, init);
      return requests.length === 1 ? new Response(cutAfter(res.body, at, "cut by the test"), { status: res.status, headers: res.headers }) : res;
    };
    const { readable, message } = fromFetch(new URL("/v1/stream", urls.relay), { method: "POST", body: JSON.stringify({ model: "slow", messages: [] }), headers: { "content-type": "application/json" } }, { fetch: cutting, reconnect: { delayMs: 0 } });
    const events = [];
    for await (const e of readable) events.push(e);
    assert.equal(wire(await message), wire(want.message), `cut at ${at}`);
    assert.equal(JSON.stringify(events.map(toWireEvent)), JSON.stringify(want.events.map(toWireEvent)), `cut at ${at}: events`);
    assert.equal(requests.length, 2, `cut at ${at}: the POST and one resume`);
    assert.equal(requests[1].method, "GET");
    assert.match(requests[1].url, /\/v1\/streams\/[0-9a-f]{32}$/);
    assert.equal(upstreamCalls(before, "slow"), 1, `cut at ${at}: one upstream request`);
  }
});

test("resume: NDJSON answers carry Content-Location too and resume by line count", async () => {
  const want = await readBack(sse(await sampleText("tool-call")));
  const accept = { accept: "application/x-ndjson" };
  const res = await post("relay", { model: "slow" }, { headers: accept });
  assert.equal(res.headers.get("content-type"), "application/x-ndjson");
  const location = res.headers.get("content-location");
  const reader = res.body.getReader();
  let text = "";
  while ((text.match(/\n/g) ?? []).length < 3) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  const lines = text.split("\n").slice(0, -1);
  const rest = await (await get("relay", `${location}?last_event_id=${lines.length - 1}`, accept)).text();
  const all = [...lines, ...rest.split("\n").filter(Boolean)];
  const back = await readBack(new Response(all.join("\n") + "\n", { headers: { "content-type": "application/x-ndjson" } }));
  assert.equal(back.error, undefined, String(back.error));
  assert.equal(wire(back.message), wire(want.message));
  assert.equal(all.length, want.events.length);
});

test("resume: two clients on one stream both get every event (the second joins live, from the start)", async () => {
  const before = seen.length;
  const res = await post("relay", { model: "slow" });
  const location = res.headers.get("content-location");
  const [a, b] = await Promise.all([res.text(), get("relay", location).then((r) => r.text())]);
  assert.equal(a, b, "the same bytes");
  const want = await readBack(sse(await sampleText("tool-call")));
  assert.equal(eventRecords(a).length, want.events.length);
  assert.equal(wire((await readBack(sse(b))).message), wire(want.message));
  assert.equal(upstreamCalls(before, "slow"), 1);
});

test("resume: a client that goes away does not cancel the upstream; the stream is read to its end and a resume gets the rest", async () => {
  const before = seen.length;
  const res = await post("relay", { model: "slow" });
  const location = res.headers.get("content-location");
  const reader = res.body.getReader();
  await reader.read();
  await reader.cancel();
  const req = seen.slice(before).find((r) => r.model === "slow");
  assert.ok(req, "the upstream got the request");
  // (the relay cancels the upstream body after [DONE], so closedEarly says nothing here)
  const text = await (await get("relay", location, { "last-event-id": "0" })).text();
  const want = await readBack(sse(await sampleText("tool-call")));
  assert.equal(eventRecords(text).length, want.events.length - 1, "events 1… of the whole stream");
  assert.ok(!text.includes('"error"'), "no error event: nothing was cut");
  const back = await readBack(sse(`id: 0\ndata: ${JSON.stringify(toWireEvent(want.events[0]))}\n\n${text}`));
  assert.equal(wire(back.message), wire(want.message));
});

test("resume: no client for ABANDON_S → the object stops reading the upstream; the stream ends with a StreamAbandoned error event", async () => {
  const before = seen.length;
  const res = await post("short", { model: "endless" });
  const location = res.headers.get("content-location");
  const reader = res.body.getReader();
  await reader.read();
  await reader.cancel();
  const req = seen[before];
  assert.equal(req.model, "endless");
  const closed = await Promise.race([closedEarly(req), sleep(10_000).then(() => "timeout")]);
  assert.equal(closed, true, "the upstream request was cancelled");
  const { events, error } = await readBack(await get("short", location));
  assert.ok(events.length >= 1);
  assert.ok(error instanceof UpstreamError, String(error));
  assert.equal(error.errorType, "StreamAbandoned");
});

test("resume: a client that keeps its connection but stops reading counts as gone: ABANDON_S ends the stream (StreamAbandoned), the upstream aborted", async () => {
  const before = seen.length;
  const res = await post("short", { model: "flood" });
  const location = res.headers.get("content-location");
  const reader = res.body.getReader();
  await reader.read(); // then holds the connection open and reads nothing
  const req = seen[before];
  assert.equal(req.model, "flood");
  // (the flood never ends on its own: only the relay's abort ends its request; the cap is generous, for a busy machine)
  const closed = await Promise.race([closedEarly(req), sleep(50_000).then(() => "timeout")]);
  assert.equal(closed, true, "the upstream request was aborted while the client still held its connection");
  await reader.cancel();
  const text = await (await get("short", location, { "last-event-id": "0" })).text();
  assert.match(text, /data: \{"error":\{"type":"StreamAbandoned"/);
  assert.ok(text.endsWith("data: [DONE]\n\n"));
}, 60_000);

test("cancel: DELETE on the Content-Location aborts the upstream request at once; the reader gets StreamCancelled; a resume replays it; 204 again, 404 unknown, the same 404 for another Authorization", async () => {
  const before = seen.length;
  const res = await post("relay", { model: "endless" }, { headers: { authorization: "Bearer k" } });
  const location = res.headers.get("content-location");
  const reading = readBack(res);
  await sleep(100);
  const del = (headers) => fetch(new URL(location, urls.relay), { method: "DELETE", headers });
  let r = await del({ authorization: "Bearer other" });
  assert.equal(r.status, 404); // as if it did not exist: no oracle of which ids do (#26)
  assert.equal((await r.json()).error.type, "NotFoundError");
  const t = performance.now();
  r = await del({ authorization: "Bearer k" });
  assert.equal(r.status, 204);
  const closed = await Promise.race([closedEarly(seen[before]), sleep(1000).then(() => "timeout")]);
  assert.equal(closed, true, "the upstream saw its request aborted");
  assert.ok(performance.now() - t < 1000);
  const { events, error } = await reading;
  assert.ok(events.length >= 1);
  assert.ok(error instanceof UpstreamError);
  assert.equal(error.errorType, "StreamCancelled");
  const again = await readBack(await get("relay", location, { authorization: "Bearer k" }));
  assert.equal(again.events.length, events.length);
  assert.equal(again.error.errorType, "StreamCancelled");
  assert.equal((await del({ authorization: "Bearer k" })).status, 204);
  r = await fetch(new URL("/v1/streams/0123456789abcdef0123456789abcdef", urls.relay), { method: "DELETE" });
  assert.equal(r.status, 404);
  await r.arrayBuffer();
});

test("stop: fromFetch(...).stop() mid-stream aborts the upstream request within a second; a second viewer ends with StreamCancelled; a resume replays the events and that end; leaving (the signal) does not stop it", async () => {
  const before = seen.length;
  const headers = { "content-type": "application/json", authorization: "Bearer k" };
  let location;
  const recording = (input, init) =>
    fetch(input, init).then((r) => {
      location ??= new URL(r.headers.get("content-location"), urls.relay);
      return r;
    });
  const mine = fromFetch(new URL("/v1/stream", urls.relay), { method: "POST", headers, body: JSON.stringify({ model: "endless", messages: [] }) }, { fetch: recording });
  const reader = mine.readable.getReader();
  await reader.read(); // the stream is live
  reader.releaseLock();
  mine.readable.pipeTo(new WritableStream()).catch(() => {});
  // a second viewer, and one that only leaves
  const other = fromFetch(location, { headers: { authorization: "Bearer k" } });
  const otherDone = other.message.then(() => undefined, (e) => e);
  const leaving = new AbortController();
  const leaver = fromFetch(location, { headers: { authorization: "Bearer k" } }, { signal: leaving.signal });
  leaver.message.catch(() => {});
  await sleep(100);
  leaving.abort(new Error("page closed"));
  await sleep(200);
  const early = await Promise.race([closedEarly(seen[before]).then(() => "closed"), sleep(0).then(() => "open")]);
  assert.equal(early, "open", "a viewer that leaves does not stop the upstream");
  const t = performance.now();
  const abortedAt = closedEarly(seen[before]).then((early) => (early ? performance.now() : Infinity));
  await mine.stop();
  const aborted = (await Promise.race([abortedAt, sleep(1000).then(() => Infinity)])) - t;
  assert.ok(aborted < 1000, `the upstream saw its request aborted ${Math.round(aborted)} ms after stop()`);
  const mineError = await mine.message.then(() => undefined, (e) => e);
  assert.ok(mineError instanceof UpstreamError && mineError.errorType === "StreamCancelled", String(mineError));
  assert.ok(mine.snapshot().content_items.length >= 1, "the snapshot keeps what arrived");
  const otherError = await otherDone;
  assert.ok(otherError instanceof UpstreamError && otherError.errorType === "StreamCancelled", String(otherError));
  const again = await readBack(await get("relay", location.pathname, { authorization: "Bearer k" }));
  assert.ok(again.events.length >= 1);
  assert.equal(again.error.errorType, "StreamCancelled");
});

test("resume: an upstream failure is stored as the last event and replayed like any event", async () => {
  const res = await post("relay", { model: "error-event" });
  const location = res.headers.get("content-location");
  const first = await res.text();
  const again = await (await get("relay", location, { "last-event-id": "0" })).text();
  assert.equal(again, 'id: 1\ndata: {"error":{"type":"OverloadedError","message":"try later","status":529}}\n\ndata: [DONE]\n\n');
  assert.ok(first.endsWith(again));
  const { error } = await readBack(sse(again));
  assert.equal(error.errorType, "OverloadedError");
});

test("resume: an ended stream expires after STREAM_TTL_S (an alarm deletes it) → 404 in MMSP's refusal shape", async () => {
  const res = await post("short", { model: "tools" });
  const location = res.headers.get("content-location");
  await res.text();
  let status = 200;
  for (let i = 0; i < 100 && status === 200; i++) {
    await sleep(100);
    const r = await get("short", location);
    status = r.status;
    if (status === 404) {
      const body = await r.json();
      assert.equal(body.error.type, "NotFoundError");
      assert.equal(typeof body.error.message, "string");
    } else await r.arrayBuffer();
  }
  assert.equal(status, 404);
});

test("resume: unknown or malformed id → 404; malformed or too large Last-Event-ID → 400 (header or query)", async () => {
  for (const path of ["/v1/streams/0123456789abcdef0123456789abcdef", "/v1/streams/nope", "/v1/streams/"]) {
    const r = await get("relay", path);
    assert.equal(r.status, 404, path);
    assert.equal((await r.json()).error.type, "NotFoundError");
  }
  const res = await post("relay", { model: "tools" });
  const location = res.headers.get("content-location");
  const n = eventRecords(await res.text()).length;
  for (const [headers, path] of [[{ "last-event-id": "abc" }, location], [{ "last-event-id": "-1" }, location], [{ "last-event-id": "1.5" }, location], [{ "last-event-id": "" }, location], [{}, `${location}?last_event_id=x`], [{ "last-event-id": String(n) }, location]]) {
    const r = await get("relay", path, headers);
    assert.equal(r.status, 400, JSON.stringify([headers, path]));
    const body = await r.json();
    assert.equal(body.error.type, "InvalidRequestError");
  }
  const ok = await get("relay", `${location}?last_event_id=${n - 1}`);
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), "data: [DONE]\n\n");
  const post405 = await fetch(new URL(location, urls.relay), { method: "POST" });
  assert.equal(post405.status, 405);
  await post405.arrayBuffer();
});

test("resume: a stream created with Authorization resumes only with the same value (otherwise 404, as an unknown id)", async () => {
  const res = await post("relay", { model: "tools" }, { headers: { authorization: "Bearer secret-1" } });
  const location = res.headers.get("content-location");
  await res.text();
  for (const headers of [{}, { authorization: "Bearer secret-2" }, { authorization: "bearer secret-1" }]) {
    const r = await get("relay", location, headers);
    assert.equal(r.status, 404, JSON.stringify(headers)); // no oracle of which ids exist (#26)
    assert.equal((await r.json()).error.type, "NotFoundError");
  }
  const r = await get("relay", location, { authorization: "Bearer secret-1", "last-event-id": "0" });
  assert.equal(r.status, 200);
  assert.ok((await r.text()).startsWith("id: 1\n"));
});

// ---- safe by default --------------------------------------------------------------------------------

const errorOf = async (res) => (await res.json()).error;

test("safe: a POST body that is not application/json (text/plain, a form, none) → 415 before anything reaches the upstream (/v1/stream, /api/chat)", async () => {
  const before = seen.length;
  for (const path of ["/v1/stream", "/api/chat"]) {
    for (const headers of [{ "content-type": "text/plain" }, { "content-type": "application/x-www-form-urlencoded" }, {}]) {
      const res = await fetch(new URL(path, urls.relay), { method: "POST", headers, body: new TextEncoder().encode('{"model":"tools","messages":[]}') });
      assert.equal(res.status, 415, `${path} ${JSON.stringify(headers)}`);
      assert.equal((await errorOf(res)).type, "InvalidRequestError");
    }
  }
  assert.equal(seen.length, before, "the upstream got nothing");
});

test("safe: a request body past MAX_BODY_BYTES → 413, by Content-Length and counted while a chunked body streams in (default 50 MiB)", async () => {
  const before = seen.length;
  const key = { "x-relay-key": "k3y" };
  let res = await post("guarded", { model: "tools", messages: [], pad: "x".repeat(2000) }, { headers: key });
  assert.equal(res.status, 413);
  assert.match((await errorOf(res)).message, /too large.*MAX_BODY_BYTES/);
  const chunked = (chunks, size) => {
    let n = 0;
    return new ReadableStream({
      pull(c) {
        if (n++ >= chunks) return c.close();
        c.enqueue(new Uint8Array(size).fill(0x20));
      },
    });
  };
  res = await fetch(new URL("/v1/stream", urls.guarded), { method: "POST", headers: { "content-type": "application/json", ...key }, body: chunked(10, 200), duplex: "half" });
  assert.equal(res.status, 413, "a chunked body (no Content-Length) is counted");
  await res.arrayBuffer();
  // the default: 50 MiB (on the stateless instance: the relay answers before the upload ends and drops
  // that connection, which no later test should meet in the pool)
  // (the relay answers before the upload ends and closes that connection: a client still writing may
  // meet the close (EPIPE, ECONNRESET) before it reads the 413 — on a busy machine it does. Either way
  // the body was refused: what must hold is that the upstream got nothing.)
  try {
    res = await fetch(new URL("/v1/stream", urls.stateless), { method: "POST", headers: { "content-type": "application/json" }, body: chunked(51, 1024 * 1024), duplex: "half" });
    assert.equal(res.status, 413);
    await res.arrayBuffer();
  } catch (e) {
    if (!(e instanceof TypeError) || !/fetch failed/.test(e.message)) throw e;
    assert.match(String(e.cause?.code ?? e.cause?.message ?? ""), /EPIPE|ECONNRESET|UND_ERR_SOCKET|other side closed|socket/i, `the relay closed the upload: ${e.cause}`);
  }
  assert.equal(seen.length, before, "the upstream got nothing");
});

test("safe: bad ids and malformed percent-encoding (GET/DELETE /v1/streams/%, %zz, a cut UTF-8 escape) → 404 in MMSP's shape, never a 500", async () => {
  for (const path of ["/v1/streams/%", "/v1/streams/%zz", "/v1/streams/%E0%A4%A", "/v1/streams/%ff%fe", "/%", "/v1/%ff"]) {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(new URL(path, urls.relay), { method });
      const text = await res.text();
      assert.equal(res.status, 404, `${method} ${path}: ${text}`);
      assert.equal(JSON.parse(text).error.type, "NotFoundError");
      assert.ok(!/\bat \S+:\d+/.test(text), text);
    }
  }
});

test("safe: RELAY_KEY — creating a stream needs x-relay-key or Authorization: Bearer <key> (401 otherwise, /v1/stream and /api/chat); the key is not forwarded upstream", async () => {
  for (const headers of [{}, { "x-relay-key": "nope" }, { authorization: "Bearer nope" }]) {
    for (const path of ["/v1/stream", "/api/chat"]) {
      const res = await post("guarded", { model: "tools", messages: [] }, { path, headers });
      assert.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
      assert.equal((await errorOf(res)).type, "AuthenticationError");
    }
  }
  for (const headers of [{ "x-relay-key": "k3y" }, { authorization: "Bearer k3y" }]) {
    const before = seen.length;
    const res = await post("guarded", { model: "tools", messages: [] }, { headers });
    assert.equal(res.status, 200, JSON.stringify(headers));
    const { error } = await readBack(res);
    assert.equal(error, undefined);
    const req = seen.slice(before).find((r) => r.model === "tools");
    assert.equal(req.headers["x-relay-key"], undefined);
    assert.equal(req.headers.authorization, undefined, "the relay's key stays at the relay");
  }
  const chat = await post("guarded", { messages: [] }, { path: "/api/chat", headers: { "x-relay-key": "k3y" } });
  assert.equal(chat.status, 200);
  await chat.arrayBuffer();
  // without RELAY_KEY, no key is asked for (the default), and Authorization goes upstream as before
  const open = await post("relay", { model: "tools" }, { headers: { authorization: "Bearer upstream-key" } });
  assert.equal(open.status, 200);
  await open.arrayBuffer();
  assert.equal(seen.at(-1).headers.authorization, "Bearer upstream-key");
});

test("safe: bounds — MAX_EVENTS, MAX_STREAM_BYTES and MAX_STREAM_S end a stream with StreamLimitExceeded and abort the upstream; MAX_CLIENTS → 429", async () => {
  const key = { "x-relay-key": "k3y" };
  for (const [model, variable] of [["endless", "MAX_EVENTS"], ["flood", "MAX_STREAM_BYTES"], ["trickle", "MAX_STREAM_S"]]) {
    const before = seen.length;
    const res = await post("guarded", { model }, { headers: key });
    assert.equal(res.status, 200);
    const { error } = await readBack(res);
    assert.ok(error instanceof UpstreamError, `${model}: ${error}`);
    assert.equal(error.errorType, "StreamLimitExceeded", `${model}: ${error.message}`);
    assert.match(error.message, new RegExp(variable));
    const req = seen.slice(before).find((r) => r.model === model);
    assert.equal(await Promise.race([closedEarly(req), sleep(2000).then(() => "timeout")]), true, `${model}: the upstream request was aborted`);
  }
  const res = await post("guarded", { model: "endless" }, { headers: key });
  const location = res.headers.get("content-location");
  const second = await get("guarded", location, key); // (RELAY_KEY guards reads too)
  assert.equal(second.status, 200);
  const third = await get("guarded", location, key);
  assert.equal(third.status, 429);
  assert.equal((await errorOf(third)).type, "RateLimitError");
  await Promise.all([res.body.cancel(), second.body.cancel()]);
});

test("safe: Cookie, X-Api-Key and Cf-Access-Jwt-Assertion bind a stream like Authorization (resume and cancel need the same values: 404 otherwise)", async () => {
  for (const name of ["cookie", "x-api-key", "cf-access-jwt-assertion"]) {
    const res = await post("relay", { model: "tools" }, { headers: { [name]: "v-1" } });
    const location = res.headers.get("content-location");
    await res.arrayBuffer();
    for (const headers of [{}, { [name]: "v-2" }]) {
      const r = await get("relay", location, headers);
      assert.equal(r.status, 404, `${name}: ${JSON.stringify(headers)}`);
      assert.equal((await errorOf(r)).type, "NotFoundError");
      const d = await fetch(new URL(location, urls.relay), { method: "DELETE", headers });
      assert.equal(d.status, 404);
      assert.equal((await errorOf(d)).type, "NotFoundError");
    }
    const ok = await get("relay", location, { [name]: "v-1" });
    assert.equal(ok.status, 200);
    await ok.arrayBuffer();
  }
});

test("safe: every answer carries X-Content-Type-Options: nosniff; the demo page a Content-Security-Policy (own script only)", async () => {
  const page = await get("replay", "/");
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");
  const csp = page.headers.get("content-security-policy") ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  await page.arrayBuffer();
  for (const r of [await get("replay", "/demo.js"), await post("replay", { model: "sample-chat" }, { path: "/v1/stream?pace=0" }), await get("replay", "/nope")]) {
    assert.equal(r.headers.get("x-content-type-options"), "nosniff", r.url);
    await r.arrayBuffer();
  }
});

test("CORS: preflight (OPTIONS) allows Last-Event-ID, Authorization, Content-Type; answers expose Content-Location; CORS_ORIGINS limits origins", async () => {
  let r = await fetch(new URL("/v1/stream", urls.relay), { method: "OPTIONS", headers: { origin: "https://elsewhere.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type, authorization, last-event-id" } });
  assert.equal(r.status, 204);
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  const allowed = r.headers.get("access-control-allow-headers").toLowerCase();
  for (const h of ["last-event-id", "authorization", "content-type"]) assert.ok(allowed.includes(h), allowed);
  assert.match(r.headers.get("access-control-allow-methods"), /POST/);
  r = await post("relay", { model: "tools" }, { headers: { origin: "https://elsewhere.example" } });
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  assert.match(r.headers.get("access-control-expose-headers"), /^Content-Location(, |$)/); // (and the AI SDK's stream marker)
  await r.arrayBuffer();
  r = await get("relay", "/v1/streams/0123456789abcdef0123456789abcdef", { origin: "https://elsewhere.example" });
  assert.equal(r.status, 404);
  assert.equal(r.headers.get("access-control-allow-origin"), "*", "refusals carry CORS headers too");
  await r.arrayBuffer();
  // a list of origins: the allowed one is echoed (Vary: Origin), another gets no CORS headers
  r = await fetch(new URL("/v1/stream", urls.short), { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" } });
  assert.equal(r.headers.get("access-control-allow-origin"), "http://localhost:5173");
  assert.match(r.headers.get("vary"), /Origin/);
  r = await fetch(new URL("/v1/stream", urls.short), { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
  assert.equal(r.headers.get("access-control-allow-origin"), null);
  r = await post("short", { model: "tools" }, { headers: { origin: "https://app.example" } });
  assert.equal(r.headers.get("access-control-allow-origin"), "https://app.example");
  await r.arrayBuffer();
});

// ---- run ---------------------------------------------------------------------------------------------

await run({
  timeoutMs: 30_000,
  t0,
  filter,
  cleanup: async () => {
    await Promise.all(Object.values(instances).map((mf) => mf.dispose()));
    await upstream.close();
  },
});
