// What one request may cost the relay, and what a stream's Durable Object holds: figures, printed,
// from the relay Worker (worker/, the real StreamObject) in workerd through Miniflare, with a
// scripted MMSP upstream on 127.0.0.1. CPU is the workerd process's (utime + stime from /proc), memory
// its resident size (VmRSS), so every figure includes the runtime's own work. Nothing is asserted
// about time or memory (the figures depend on the machine); the statuses are checked, and the script
// prints "relay-bounds: N passed, N failed" over those checks.
//
//   refusals    POST /api/chat and /v1/stream with 7 MiB of [] elements, 10 MB of nested [, 20 MB of
//               nested [, a 45 MiB percent-encoded data: URL, four concurrent 50 MiB bodies
//   accepted    a chat message carrying a 6 MiB image (what must pass)
//   viewers     32 resumes of a finished stream holding one 6 MiB image event, none of them reading
//   reading     one 200 MiB text stream (the object cuts it at MAX_STREAM_BYTES)
//   provider    a hostile OpenAI Chat provider (worker/models.ts "gpt-fast" pointed here): 48 MiB of
//               tool-call arguments that wait for a call that never ends (no finish_reason), and one
//               48 MiB event with no line end; each must end at MAX_EVENT_BYTES with a
//               StreamLimitError, and the bytes the provider got out before the relay let go are printed
//
// Run: node scripts/relay-bounds.mjs (after `npm run build`; Linux: it reads /proc)
import { readFileSync, readdirSync } from "node:fs";
import http from "node:http";
import { Miniflare } from "miniflare";
import { bundleWorker } from "../worker/build.mjs";

const MiB = 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let passed = 0;
let failed = 0;
const check = (ok, what) => {
  if (ok) passed++;
  else {
    failed++;
    console.log(`  FAILED: ${what}`);
  }
};

// ---- the scripted upstream --------------------------------------------------------------------------

const event = (item) => ({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null });
const STOP = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: 0, response_tokens: 1 }, finish_reason: "stop" };
const data = (e) => `data: ${JSON.stringify(e)}\n\n`;

/** What the hostile provider sent of its last answer before the relay let go (bytes), and whether it was cut. */
const provider = { sent: 0, cut: false };

/** The hostile provider (POST /openai/v1/chat/completions): `script:held` or `script:unterminated` in the user's text. */
async function hostileProvider(body, res) {
  const script = /script:(\w+)/.exec(body)?.[1];
  res.writeHead(200, { "content-type": "text/event-stream" });
  const chunk = (delta) => `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  const call = (index, fn, header = {}) => chunk({ tool_calls: [{ index, ...header, function: fn }] });
  const piece = "x".repeat(256 * 1024);
  provider.sent = 0;
  provider.cut = false;
  res.on("close", () => (provider.cut = !res.writableFinished));
  for (let n = 0; provider.sent < 48 * MiB && !res.destroyed; n++) {
    const text = script === "unterminated"
      ? (n === 0 ? 'data: {"choices": [{"index": 0, "delta": {"content": "' : "") + piece
      : n === 0
      ? call(0, { name: "a", arguments: '{"q": "' }, { id: "call_0", type: "function" }) + call(1, { name: "b", arguments: '{"big": "' }, { id: "call_1", type: "function" })
      : call(1, { arguments: piece });
    provider.sent += Buffer.byteLength(text);
    if (!res.write(text)) {
      await new Promise((resolve) => {
        const go = () => (res.off("drain", go), res.off("close", go), resolve());
        res.on("drain", go).on("close", go);
      });
    }
  }
  res.end();
}

const upstream = http.createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  if (req.url === "/openai/v1/chat/completions") return hostileProvider(body, res);
  let model = "";
  try {
    model = JSON.parse(body).model ?? "";
  } catch {}
  res.writeHead(200, { "content-type": "text/event-stream" });
  if (model === "image") {
    // one 6 MiB PNG-typed image: its delta and its .done (8 MiB of base64 each)
    const b64 = Buffer.alloc(6 * MiB, 7).toString("base64");
    const item = (type) => ({ type, mime_type: "image/png", data: b64 });
    res.end(data(event(item("inline_data.delta"))) + data(event(item("inline_data.done"))) + data(STOP) + "data: [DONE]\n\n");
  } else if (model === "long") {
    // 200 MiB of text deltas, 64 KiB each, as fast as the relay reads them
    const piece = data(event({ type: "text.delta", text: "x".repeat(64 * 1024) }));
    for (let sent = 0; sent < 200 * MiB && !res.destroyed; sent += piece.length) {
      if (!res.write(piece)) await new Promise((r) => res.once("drain", r));
    }
    res.end();
  } else {
    res.end(data(event({ type: "text.delta", text: "ok" })) + data(event({ type: "text.done", text: "ok" })) + data(STOP) + "data: [DONE]\n\n");
  }
});
await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));

// ---- the relay Worker in workerd ----------------------------------------------------------------------

const { script, compatibilityDate, compatibilityFlags } = await bundleWorker();
const mf = new Miniflare({
  modules: true,
  script,
  compatibilityDate,
  compatibilityFlags,
  bindings: {
    MMSP_UPSTREAM: `http://127.0.0.1:${upstream.address().port}/v1`,
    // "gpt-fast" (worker/models.ts) answered by the hostile provider; open to the script without a key
    OPENAI_API_KEY: "sk-relay-bounds",
    OPENAI_BASE_URL: `http://127.0.0.1:${upstream.address().port}/openai/v1`,
    ALLOW_ANONYMOUS: "true",
  },
  durableObjects: { STREAMS: { className: "StreamObject", useSQLite: true } },
});
const base = await mf.ready;

/** The workerd processes Miniflare started (children of this process, or theirs). */
function workerdPids() {
  const parent = new Map();
  const comm = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      comm.set(Number(name), stat.slice(stat.indexOf("(") + 1, close));
      parent.set(Number(name), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {}
  }
  const mine = (pid) => {
    for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return true;
    return false;
  };
  return [...comm].filter(([pid, c]) => c.startsWith("workerd") && mine(pid)).map(([pid]) => pid);
}
const pids = workerdPids();
const ticks = 100; // USER_HZ
/** workerd's CPU seconds so far and its resident MB now. */
function usage() {
  let cpu = 0;
  let rss = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    cpu += (Number(f[11]) + Number(f[12])) / ticks;
    rss += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  }
  return { cpu, rss };
}
/** Runs `fn`, sampling workerd's RSS every 20 ms; its CPU seconds, wall seconds and peak RSS. */
async function measure(fn) {
  const before = usage();
  let peak = before.rss;
  const timer = setInterval(() => (peak = Math.max(peak, usage().rss)), 20);
  const t = performance.now();
  const result = await fn();
  clearInterval(timer);
  const after = usage();
  peak = Math.max(peak, after.rss);
  return { result, cpu: after.cpu - before.cpu, wall: (performance.now() - t) / 1000, before: before.rss, peak };
}
const fmt = ({ cpu, wall, before, peak }) => `CPU ${cpu.toFixed(2)} s, wall ${wall.toFixed(2)} s, RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MB`;

const post = (path, body, headers = {}) =>
  fetch(new URL(path, base), { method: "POST", headers: { "content-type": "application/json", ...headers }, body, duplex: "half" });
const status = async (res) => {
  await res.arrayBuffer().catch(() => {});
  return res.status;
};
/**
 * POSTs a large body with node:http and resolves to the answer's status as soon as its headers arrive.
 * A refusal answers before reading the whole body and closes the connection on the rest; the client,
 * still writing, gets a reset that may come before the answer could be read (fetch() then rejects:
 * "fetch failed … ECONNRESET"). Such an upload is sent again, up to 8 times in all, so that the status
 * is still checked; `resets` counts them (the measured figures include every attempt).
 */
async function upload(path, body) {
  let resets = 0;
  for (;;) {
    const status = await new Promise((resolve, reject) => {
      const headers = { "content-type": "application/json", "content-length": body.length };
      const req = http.request(new URL(path, base), { method: "POST", headers, agent: false });
      let answered = false;
      req.on("socket", (socket) => socket.on("error", () => {})); // (the write's reset, once the request has let go of its socket)
      req.on("response", (res) => {
        answered = true;
        res.resume(); // (the answer's body is not needed)
        res.on("error", () => {});
        resolve(res.statusCode);
      });
      req.on("error", (error) => {
        if (answered) return; // the reset that follows a status already read
        if (error.code === "ECONNRESET" || error.code === "EPIPE") resolve(null);
        else reject(error);
      });
      req.end(body);
    });
    if (status !== null) return { status, resets };
    if (++resets === 8) return { status: "reset", resets };
  }
}
const resetNote = (n) => (n === 0 ? "" : ` (sent again after ${n} reset${n === 1 ? "" : "s"})`);
const padded = (head, fill, bytes, tail) => Buffer.from(head + fill.repeat(Math.ceil(bytes / fill.length)) + tail);

console.log(`relay-bounds: workerd pid ${pids.join(", ")}; defaults MAX_BODY_BYTES 16 MiB, MAX_INLINE_BYTES 12 MiB, depth 64, 100 000 values, MAX_EVENT_BYTES 16 MiB, MAX_STREAM_BYTES 32 MiB`);

// ---- refusals: what one request without credentials costs -------------------------------------------

const user = (parts) => ({ id: "u", role: "user", parts });
const cases = [
  ["/api/chat", "7 MiB of [] elements", padded('{"messages":[],"config":{"x":[', "[],", 7 * MiB, "[]]}}"), 400],
  ["/v1/stream", "7 MiB of [] elements", padded('{"messages":[', "[],", 7 * MiB, "[]]}"), 400],
  ["/api/chat", "10 MB of nested [ in config", padded('{"messages":[],"config":{"x":', "[", 10_000_000, ""), 400],
  ["/api/chat", "20 MB of nested [ in config", padded('{"messages":[],"config":{"x":', "[", 20_000_000, ""), 413],
  ["/api/chat", "a 45 MiB percent-encoded data: URL", Buffer.from(JSON.stringify({ messages: [user([{ type: "file", mediaType: "application/pdf", url: "data:application/pdf," + "%41".repeat(15 * MiB) }])] })), 413],
];
for (const [path, what, body, expected] of cases) {
  const m = await measure(() => upload(path, body));
  check(m.result.status === expected, `${path} ${what}: ${m.result.status}, expected ${expected}`);
  console.log(`refused  ${path.padEnd(10)} ${what.padEnd(36)} → ${m.result.status} · ${fmt(m)}${resetNote(m.result.resets)}`);
}
{
  const body = Buffer.alloc(50 * MiB, 0x20);
  const m = await measure(async () => Promise.all([0, 1, 2, 3].map(() => upload("/v1/stream", body))));
  const statuses = m.result.map((r) => r.status);
  check(statuses.every((s) => s === 413), `four 50 MiB bodies: ${statuses}`);
  const resets = m.result.reduce((n, r) => n + r.resets, 0);
  console.log(`refused  /v1/stream four concurrent 50 MiB bodies            → ${statuses.join(" ")} · ${fmt(m)}${resetNote(resets)}`);
}

// ---- accepted: a chat message with a 6 MiB image -----------------------------------------------------

{
  const url = `data:image/png;base64,${Buffer.alloc(6 * MiB, 3).toString("base64")}`;
  const body = JSON.stringify({ messages: [user([{ type: "text", text: "what is it?" }, { type: "file", mediaType: "image/png", url }])], model: "ok" });
  const m = await measure(async () => status(await post("/api/chat", body)));
  check(m.result === 200, `a 6 MiB image in a chat message: ${m.result}`);
  console.log(`accepted /api/chat  a chat message with a 6 MiB image          → ${m.result} · ${fmt(m)}`);
}

// ---- viewers: 32 clients resume a finished 6 MiB image stream and never read --------------------------

{
  const created = await post("/v1/stream", JSON.stringify({ model: "image", messages: [] }));
  const location = created.headers.get("content-location");
  check(created.status === 200 && location !== null, `the image stream: ${created.status}`);
  await created.arrayBuffer();
  await sleep(300);
  const held = [];
  const m = await measure(async () => {
    for (let i = 0; i < 32; i++) held.push(await fetch(new URL(location, base))); // headers only: the bodies are never read
    await sleep(1500);
    return held.map((r) => r.status);
  });
  check(m.result.every((s) => s === 200), `32 resumes: ${m.result}`);
  console.log(`viewers  32 resumes of a stream with one 6 MiB image event, none reading · RSS ${m.before.toFixed(0)} → peak ${m.peak.toFixed(0)} MB (+${(m.peak - m.before).toFixed(0)})`);
  await Promise.all(held.map((r) => r.body?.cancel()));
}

// ---- reading: one 200 MiB text stream ----------------------------------------------------------------

{
  const m = await measure(async () => {
    const res = await post("/v1/stream", JSON.stringify({ model: "long", messages: [] }));
    const text = await res.text();
    return { status: res.status, bytes: text.length, last: text.split("\n\n").filter((b) => b.startsWith("id: ")).at(-1) ?? "" };
  });
  check(m.result.status === 200 && /StreamLimitExceeded/.test(m.result.last), `the 200 MiB stream: ${m.result.status} ${m.result.last.slice(0, 120)}`);
  console.log(`reading  one 200 MiB text stream → cut at MAX_STREAM_BYTES after ${(m.result.bytes / MiB).toFixed(1)} MiB sent · ${fmt(m)}`);
}

// ---- provider: what a hostile provider's stream may make the relay hold --------------------------------

for (const [script, what] of [["held", "48 MiB of tool-call arguments waiting for a call with no finish_reason"], ["unterminated", "one 48 MiB event with no line end"]]) {
  const m = await measure(async () => {
    const messages = [{ role: "user", content_items: [{ type: "text.done", text: `script:${script}` }] }];
    const res = await post("/v1/stream", JSON.stringify({ model: "gpt-fast", messages }));
    const text = await res.text();
    await sleep(200); // (the provider's connection closes)
    return { status: res.status, last: text.split("\n\n").filter((b) => b.includes("data: {")).at(-1) ?? "" };
  });
  check(m.result.status === 200 && /"type":"StreamLimitError".*maxEventBytes=16777216/.test(m.result.last), `provider ${script}: ${m.result.status} ${m.result.last.slice(0, 160)}`);
  const limit = /StreamLimitError/.test(m.result.last) ? "StreamLimitError at MAX_EVENT_BYTES" : "no StreamLimitError";
  console.log(`provider ${what} → ${limit}; ${(provider.sent / MiB).toFixed(1)} MiB read from the provider${provider.cut ? " (then cut)" : ""} · ${fmt(m)} (+${(m.peak - m.before).toFixed(0)})`);
}

await mf.dispose();
upstream.close();
console.log(`relay-bounds: ${passed} passed, ${failed} failed`);
// (after stdout has drained: a pipe's writes are asynchronous, and an exit drops what is queued past its
// 64 KiB, the summary line included, as a CI run's wrangler-dev step did)
process.stdout.write("", () => process.exit(failed === 0 ? 0 : 1));
