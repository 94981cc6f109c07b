// The relay against Portkey's open-source gateway (issue #49: `npm run bench:gateway`): CPU per
// upstream event of each gateway process, side by side on the same work, in Node. Linux (it reads /proc).
//
// Four processes, all on 127.0.0.1: the fake provider (bench/gateway/fake-upstream.mjs: each stream
// of `--deltas` deltas written at once), the relay (bench/gateway/relay-server.mjs: the built dist/'s
// createRelay with a models table of that provider, the kit's `serve`), Portkey's gateway
// (@portkey-ai/gateway, pinned, --headless: bench/gateway/portkey-server.mjs), and this one, the
// client: `--requests` per cell at `--concurrency`, each answer read to its end and checked (its
// status, its end, the last text delta), `--rounds` interleaved rounds (the cells' order reversed
// every other round) after a warm-up pass. A gateway's CPU is its process's user+system time
// (process.cpuUsage() sent over IPC at each cell's start and end), divided by the upstream events
// it read (the provider stream's `data:` messages, [DONE] not counted); medians of the rounds.
// Cells: the relay's doors — MMSP `/v1/stream`, Open Responses `/v1/responses`, Chat Completions
// `/v1/chat/completions`, Messages `/v1/messages` and Gemini's `streamGenerateContent?alt=sse` — and Portkey's
// `/v1/chat/completions` (and `/v1/messages` for Anthropic), each on Anthropic text, Anthropic with a
// tool call, OpenAI Chat and Gemini upstreams.
//
//   node bench/gateway.mjs [--requests=200 --concurrency=4 --rounds=5 --warmup=20 --deltas=200]
//                          [--timeout=30000 (ms per request) --cell-timeout=300000 (ms per cell)]
//   node bench/gateway.mjs --quick     # a smoke run: 20 requests, 2 rounds, 4 warm-up
//   node bench/gateway.mjs --ab=<another build's dist/>   # its relay too (B), in its own process: A/B in one run
// Prints a markdown table (µs/event, Portkey ÷ relay: > 1 = the relay is cheaper), then wall time and
// peak RSS per cell. Needs `npm run build` first (it runs the built dist/).
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";

const opt = options(process.argv.slice(2));
const quick = opt("quick", false) === true;
const int = (name, dflt, lo, hi) => {
  const v = Number(opt(name, dflt));
  if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`--${name}: an integer ${lo}..${hi}, got ${opt(name, dflt)}`);
  return v;
};
const REQUESTS = int("requests", quick ? 20 : 200, 1, 100_000);
const CONCURRENCY = int("concurrency", 4, 1, 256);
const ROUNDS = int("rounds", quick ? 2 : 5, 1, 100);
const WARMUP = int("warmup", quick ? 4 : 20, 0, 100_000);
const DELTAS = int("deltas", 200, 4, 100_000);
const TIMEOUT = int("timeout", 30_000, 100, 600_000);
const CELL_TIMEOUT = int("cell-timeout", 300_000, 1_000, 3_600_000);
const AB = opt("ab", null);
if (AB !== null && typeof AB !== "string") throw new TypeError("--ab=<path to another build's dist/>");

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
if (!existsSync(here("../dist/relay/index.js"))) throw new Error("bench:gateway runs the built package: `npm run build` first");
const log = (s) => console.error(`[bench:gateway] ${s}`);

const UPSTREAMS = [
  { key: "anthropic-text", label: "Anthropic text", relayModel: "bench-anthropic", portkey: ["anthropic", "claude-bench", "/v1"], last: " w199", messages: true },
  { key: "anthropic-tools", label: "Anthropic with a tool call", relayModel: "bench-tools", portkey: ["anthropic", "bench-tools", "/v1"], last: "lookup", messages: true },
  { key: "openai-chat", label: "OpenAI Chat", relayModel: "bench-openai-chat", portkey: ["openai", "gpt-bench", "/v1"], last: " w199" },
  { key: "gemini", label: "Gemini", relayModel: "bench-gemini", portkey: ["google", "gemini-bench", "/v1beta"], last: " w199" },
];
for (const u of UPSTREAMS) if (u.last === " w199") u.last = ` w${DELTAS - 1}`;

// ---- the processes -------------------------------------------------------------------------------------------
const children = [];
const killAll = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
};
process.on("exit", killAll);
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => (killAll(), process.exit(130)));

const logPath = join(tmpdir(), `bench-gateway-${process.pid}.log`);
const logFd = openSync(logPath, "a");

function start(name, args) {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", logFd, "ipc"], cwd: here("..") });
  child.name = name;
  children.push(child);
  child.on("exit", (code, signal) => {
    if (!stopping) log(`${name} ended early (${signal ?? code}); its output: ${logPath}`);
  });
  return child;
}
let stopping = false;
let ok = false;

/** The child's first stdout line, as JSON (within `ms`). */
function firstLine(child, ms = 20_000) {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`${child.name}: no start line in ${ms} ms (its output: ${logPath})`)), ms);
    child.stdout.on("data", function on(c) {
      text += c;
      const nl = text.indexOf("\n");
      if (nl < 0) return;
      clearTimeout(timer);
      child.stdout.off("data", on);
      child.stdout.resume(); // (the rest is drained, never read)
      try {
        resolve(JSON.parse(text.slice(0, nl)));
      } catch (e) {
        reject(new Error(`${child.name}: its start line is no JSON: ${text.slice(0, 200)}`));
      }
    });
    child.once("exit", () => reject(new Error(`${child.name} ended before it started (its output: ${logPath})`)));
  });
}

/** A free port on 127.0.0.1 (for Portkey's --port). */
const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer().once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Waits (≤ ms) until something answers HTTP at `url`. */
async function ready(url, child, ms = 30_000) {
  const t0 = Date.now();
  for (let i = 0; i < 300 && Date.now() - t0 < ms; i++) {
    if (child.exitCode !== null) throw new Error(`${child.name} ended (its output: ${logPath})`);
    try {
      await (await fetch(url, { signal: AbortSignal.timeout(1000) })).arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${child.name}: no answer at ${url} within ${ms} ms`);
}

/** One meter reading of a gateway process (meter.mjs): { cpuUs, peakKb, hwmReset }. */
function mark(child, ms = 10_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.off("message", on), reject(new Error(`${child.name}: no meter answer in ${ms} ms`))), ms);
    function on(m) {
      if (m?.op !== "mark") return;
      clearTimeout(timer);
      child.off("message", on);
      resolve({ cpuUs: m.user + m.system, peakKb: m.peakKb, hwmReset: m.hwmReset });
    }
    child.on("message", on);
    child.send({ op: "mark" });
  });
}

// ---- the cells ------------------------------------------------------------------------------------------------
const HI = { role: "user", content_items: [{ type: "text.done", text: "Hi" }] };
function cellsOf(relayUrl, portkeyUrl, upstreamUrl, relayBUrl) {
  const cells = [];
  for (const u of UPSTREAMS) {
    const relayHeaders = { "content-type": "application/json", authorization: "Bearer bench-relay-key" };
    for (const [gateway, url] of relayBUrl ? [["relay", relayUrl], ["relayB", relayBUrl]] : [["relay", relayUrl]]) {
      cells.push({
        gateway,
        door: "stream",
        u,
        url: `${url}/v1/stream`,
        init: { method: "POST", headers: relayHeaders, body: JSON.stringify({ model: u.relayModel, messages: [HI] }) },
        end: '"event_type":"stop"',
      });
      cells.push({
        gateway,
        door: "responses",
        u,
        url: `${url}/v1/responses`,
        init: { method: "POST", headers: relayHeaders, body: JSON.stringify({ model: u.relayModel, input: "Hi", stream: true }) },
        end: '"type":"response.completed"',
      });
      cells.push({
        gateway,
        door: "chat",
        u,
        url: `${url}/v1/chat/completions`,
        init: { method: "POST", headers: relayHeaders, body: JSON.stringify({ model: u.relayModel, messages: [{ role: "user", content: "Hi" }], stream: true }) },
        end: `"finish_reason":"${u.key === "anthropic-tools" ? "tool_calls" : "stop"}"`,
      });
      cells.push({
        gateway,
        door: "messages",
        u,
        url: `${url}/v1/messages`,
        init: {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": "bench-relay-key", "anthropic-version": "2023-06-01" },
          body: JSON.stringify({ model: u.relayModel, max_tokens: 4096, messages: [{ role: "user", content: "Hi" }], stream: true }),
        },
        end: '"type":"message_stop"',
      });
      cells.push({
        gateway,
        door: "gemini",
        u,
        url: `${url}/v1beta/models/${u.relayModel}:streamGenerateContent?alt=sse`,
        init: {
          method: "POST",
          headers: { "content-type": "application/json", "x-goog-api-key": "bench-relay-key" },
          body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
        },
        end: '"finishReason"',
      });
    }
    const [provider, model, path] = u.portkey;
    const portkeyHeaders = {
      "content-type": "application/json",
      authorization: "Bearer bench-key",
      "x-api-key": "bench-key",
      "x-portkey-provider": provider,
      "x-portkey-custom-host": `${upstreamUrl}${path}`,
    };
    cells.push({
      gateway: "portkey",
      door: "chat",
      u,
      url: `${portkeyUrl}/v1/chat/completions`,
      init: { method: "POST", headers: portkeyHeaders, body: JSON.stringify({ model, messages: [{ role: "user", content: "Hi" }], stream: true, max_tokens: 4096 }) },
      // (its Gemini stream ends with no [DONE]: the finish is the end every upstream has)
      end: `"finish_reason":"${u.key === "anthropic-tools" ? "tool_calls" : "stop"}"`,
    });
    if (u.messages) {
      cells.push({
        gateway: "portkey",
        door: "messages",
        u,
        url: `${portkeyUrl}/v1/messages`,
        init: { method: "POST", headers: portkeyHeaders, body: JSON.stringify({ model, messages: [{ role: "user", content: "Hi" }], stream: true, max_tokens: 4096 }) },
        end: '"type":"message_stop"',
      });
    }
  }
  return cells;
}

let retries = 0;
/** `n` requests of `cell` at CONCURRENCY, each read whole and checked; bounded by TIMEOUT each and CELL_TIMEOUT in all. */
async function drive(cell, n) {
  const deadline = Date.now() + CELL_TIMEOUT;
  let next = 0;
  const one = async () => {
    for (let guard = 0; guard < n && next < n; guard++) {
      next++;
      if (Date.now() > deadline) throw new Error(`${cell.gateway} ${cell.door} ${cell.u.key}: over --cell-timeout=${CELL_TIMEOUT}`);
      let res;
      try {
        res = await fetch(cell.url, { ...cell.init, signal: AbortSignal.timeout(TIMEOUT) });
      } catch (e) {
        // a kept-alive connection the server closed as it was reused (the keep-alive race, the gateway idle
        // during the other's cells): undici says UND_ERR_SOCKET, or ECONNRESET when the reset comes as the request
        // is written; no answer came back, so it is sent again, once (the retries are counted and printed)
        if (!["UND_ERR_SOCKET", "ECONNRESET"].includes(e?.cause?.code)) throw e;
        retries++;
        res = await fetch(cell.url, { ...cell.init, signal: AbortSignal.timeout(TIMEOUT) });
      }
      const text = await res.text();
      if (res.status !== 200 || !text.includes(cell.end) || !text.includes(cell.u.last)) {
        throw new Error(`${cell.gateway} ${cell.door} ${cell.u.key}: HTTP ${res.status}, not the whole answer: …${text.slice(-300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, n) }, one));
}

// ---- the run --------------------------------------------------------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load0 = loadavg();
const started = new Date();
let commit = "unknown";
try {
  commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: here(".."), encoding: "utf8" }).trim();
} catch { /* not a checkout */ }

try {
  const upstream = start("fake upstream", [here("./gateway/fake-upstream.mjs"), `--deltas=${DELTAS}`]);
  const { port: upPort, events } = await firstLine(upstream);
  const upstreamUrl = `http://127.0.0.1:${upPort}`;
  const relay = start("relay", [here("./gateway/relay-server.mjs"), `--upstream=${upstreamUrl}`]);
  const { port: relayPort } = await firstLine(relay);
  const relayB = AB ? start("relay B", [here("./gateway/relay-server.mjs"), `--upstream=${upstreamUrl}`, `--dist=${AB}`]) : null;
  const relayBUrl = relayB ? `http://127.0.0.1:${(await firstLine(relayB)).port}` : null;
  const pkPort = await freePort();
  const portkey = start("portkey", [here("./gateway/portkey-server.mjs"), `--port=${pkPort}`, "--headless"]);
  const relayUrl = `http://127.0.0.1:${relayPort}`;
  const portkeyUrl = `http://127.0.0.1:${pkPort}`;
  await ready(`${relayUrl}/v1/models`, relay);
  await ready(`${portkeyUrl}/`, portkey);
  if (relayB) await ready(`${relayBUrl}/v1/models`, relayB);
  const proc = { relay, portkey, relayB };
  const cells = cellsOf(relayUrl, portkeyUrl, upstreamUrl, relayBUrl);
  log(`${cells.length} cells, ${REQUESTS} requests each at concurrency ${CONCURRENCY}, ${ROUNDS} rounds after ${WARMUP} warm-up requests per cell; load ${load0.map((x) => x.toFixed(2)).join(" ")}`);

  for (const cell of cells) {
    if (WARMUP > 0) await drive(cell, WARMUP);
    cell.us = [];
    cell.wall = [];
    cell.peakKb = 0;
    cell.hwmReset = true;
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const cell of r % 2 ? [...cells].reverse() : cells) {
      const child = proc[cell.gateway];
      const m0 = await mark(child);
      const t0 = performance.now();
      await drive(cell, REQUESTS);
      const wall = performance.now() - t0;
      const m1 = await mark(child);
      cell.us.push((m1.cpuUs - m0.cpuUs) / (REQUESTS * events[cell.u.key]));
      cell.wall.push(wall);
      cell.peakKb = Math.max(cell.peakKb, m1.peakKb);
      cell.hwmReset &&= m0.hwmReset && m1.hwmReset;
    }
    log(`round ${r + 1}/${ROUNDS} done (${retries} requests sent again after a closed kept-alive connection); load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
  }

  // ---- the tables ----
  const load1 = loadavg();
  const find = (gateway, door, u) => cells.find((c) => c.gateway === gateway && c.door === door && c.u === u);
  const us = (c) => (c ? median(c.us) : null);
  const fx = (x, d = 1) => (x === null ? "—" : x.toFixed(d));
  const ratio = (p, r) => (p === null || r === null ? "—" : `${(p / r).toFixed(2)}×`);
  const lines = [
    `Node ${process.version}, ${started.toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit}, @portkey-ai/gateway ${pkgVersion("@portkey-ai/gateway")} (@hono/node-server ${pkgVersion("@hono/node-server")}); load average ${load0.map((x) => x.toFixed(2)).join(" ")} at the start, ${load1.map((x) => x.toFixed(2)).join(" ")} at the end. Each cell: ${REQUESTS} requests at concurrency ${CONCURRENCY}, median of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up requests; ${DELTAS}-delta upstream streams (events per stream: ${UPSTREAMS.map((u) => `${u.label} ${events[u.key]}`).join(", ")}). µs/event = the gateway process's user+system CPU ÷ upstream events; Portkey ÷ relay > 1 = the relay is cheaper. Requests sent again after a kept-alive connection closed under them: ${retries}.`,
    "",
    "| upstream → client | relay `/v1/stream` (MMSP) | relay `/v1/responses` | relay Chat Completions | relay Messages | relay Gemini | Portkey `/v1/chat/completions` | Portkey `/v1/messages` |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const DOORS = [["stream", "MMSP"], ["responses", "Responses"], ["chat", "Chat"], ["messages", "Messages"], ["gemini", "Gemini"]];
  for (const u of UPSTREAMS) {
    const pm = us(find("portkey", "messages", u));
    const relay = DOORS.map(([door]) => `${fx(us(find("relay", door, u)))} µs`).join(" | ");
    lines.push(`| ${u.label} | ${relay} | ${fx(us(find("portkey", "chat", u)))} µs | ${pm === null ? "—" : `${fx(pm)} µs`} |`);
  }
  lines.push(
    "",
    "Portkey ÷ relay (> 1: the relay is cheaper), each relay door against Portkey's `/v1/chat/completions` (the Messages door against Portkey's `/v1/messages` as well, where it is measured):",
    "",
    `| upstream | ${DOORS.map(([, label]) => `÷ relay ${label}`).join(" | ")} | Portkey messages ÷ relay Messages |`,
    `| --- | ${DOORS.map(() => "---:").join(" | ")} | ---: |`,
  );
  for (const u of UPSTREAMS) {
    const pc = us(find("portkey", "chat", u));
    const pm = us(find("portkey", "messages", u));
    lines.push(`| ${u.label} | ${DOORS.map(([door]) => ratio(pc, us(find("relay", door, u)))).join(" | ")} | ${ratio(pm, us(find("relay", "messages", u)))} |`);
  }
  lines.push(
    "",
    `Wall time per round (${REQUESTS} requests, median) and peak RSS of the gateway process during the cell (the highest of the rounds${cells.every((c) => c.hwmReset) ? "" : "; VmHWM could not be reset here: the process's lifetime peak"}):`,
    "",
    "| upstream | relay MMSP | relay Responses | Portkey chat | Portkey messages |",
    "| --- | ---: | ---: | ---: | ---: |",
  );
  const wm = (c) => (c ? `${(median(c.wall) / 1000).toFixed(2)} s · ${(c.peakKb / 1024).toFixed(0)} MB` : "—");
  for (const u of UPSTREAMS) {
    lines.push(`| ${u.label} | ${wm(find("relay", "stream", u))} | ${wm(find("relay", "responses", u))} | ${wm(find("portkey", "chat", u))} | ${wm(find("portkey", "messages", u))} |`);
  }
  if (relayB) {
    lines.push(
      "",
      `A/B: A = this checkout's dist/ (commit ${commit}), B = ${AB}, each relay its own process, the cells interleaved; B ÷ A > 1 = A is cheaper.`,
      "",
      `| upstream | ${DOORS.map(([, label]) => `${label} A | ${label} B | B ÷ A`).join(" | ")} |`,
      `| --- | ${DOORS.map(() => "---: | ---: | ---:").join(" | ")} |`,
    );
    for (const u of UPSTREAMS) {
      const row = DOORS.map(([door]) => {
        const [a, b] = [us(find("relay", door, u)), us(find("relayB", door, u))];
        return `${fx(a)} µs | ${fx(b)} µs | ${ratio(b, a)}`;
      });
      lines.push(`| ${u.label} | ${row.join(" | ")} |`);
    }
  }
  lines.push("");
  console.log(lines.join("\n"));
  ok = true;
} finally {
  stopping = true;
  killAll();
  closeSync(logFd);
  // the processes' output is kept only for a run that failed (its path is in the error)
  if (ok) rmSync(logPath, { force: true });
}

function pkgVersion(name) {
  try {
    const path = name === "@hono/node-server" && existsSync(here("../node_modules/@portkey-ai/gateway/node_modules/@hono/node-server/package.json"))
      ? here("../node_modules/@portkey-ai/gateway/node_modules/@hono/node-server/package.json")
      : here(`../node_modules/${name}/package.json`);
    return JSON.parse(readFileSync(path, "utf8")).version;
  } catch {
    return "?";
  }
}
