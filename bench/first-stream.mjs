// The "first stream" figure of issue #30: what reading ONE chat stream costs where nothing is warm yet,
// the package (UniEventStream, every event read) against the peer (esp+zod+assembler: the `zod`
// contender of bench/core/contenders.mjs) in the same conditions. Chat corpus, SSE, 1–16 KiB chunks.
//   node   a fresh Node process per sample (package and peer alternate): the import of the library
//          (dist/index.js; the peer: eventsource-parser + a user's zod classic schema + base64), timed
//          on its own, then one read (CPU ms from process.cpuUsage, and wall ms), then a second read
//          in the same process for comparison
//   workerd a fresh Miniflare instance (a new workerd, a new isolate) per sample, the Worker bundled
//          with the package or the peer (bench/runtimes/first-stream-worker.mjs); after one untimed
//          request that cuts the corpus into chunks, the wall time of the first /read dispatchFetch
//          measured from outside (workerd's clocks are not to be trusted during CPU work), with the
//          workerd processes' CPU time around it, then the same for a second /read (warm)
//
//   node bench/first-stream.mjs [--samples=9] [--quick] [--no-node] [--no-workerd]
//   (npm run bench:first; npm run bench runs it after its own report)
//
// Reads dist/index.js, or MMSP_DIST (a path or URL). Markdown on stdout, progress on stderr; raw
// samples in bench/.cache/first-stream.json.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { options } from "./args.mjs";
import { CACHE_DIR, GENERATOR_VERSION, chunk, chunkSeed, loadCorpus } from "./corpora.mjs";
import { makeContenders } from "./core/contenders.mjs";
import { median } from "./core/harness.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const argv = process.argv.slice(2);
const opt = options(argv);
const spec = process.env.MMSP_DIST;
const DIST_URL = spec ? (/^[a-z]+:/i.test(spec) ? spec : pathToFileURL(spec).href) : pathToFileURL(`${ROOT}dist/index.js`).href;
const CORPUS = "chat";
const SEED = chunkSeed(CORPUS, "wide");
/** Which contender reads for whom: the package reads every event, as the peer does. */
const READER = { pkg: "ues-read", peer: "zod" };
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// ---- a child: one fresh process, one sample ------------------------------------------------------
const who = opt("child", null);
if (who) {
  // Everything both sides need is loaded before the clock starts: the corpus, its chunks, the contenders' code.
  const c = loadCorpus(CORPUS, "sse");
  const chunks = chunk(c.bytes, 1024, 16 * 1024, SEED);
  const c0 = cpuMs();
  const w0 = performance.now();
  let lib;
  let peers = {};
  if (who === "pkg") lib = await import(DIST_URL);
  else {
    const [zod, base64, esp] = await Promise.all([import("zod"), import(new URL("decode/base64.js", DIST_URL)), import("eventsource-parser/stream")]);
    lib = { decodeBase64: base64.decodeBase64 };
    peers = { EventSourceParserStream: esp.EventSourceParserStream, z: zod.z };
  }
  const k = makeContenders(lib, peers).find((x) => x.id === READER[who]);
  const importCpu = cpuMs() - c0;
  const importWall = performance.now() - w0;
  const read = async () => {
    const c1 = cpuMs();
    const w1 = performance.now();
    const seen = await k.run(chunks, "sse");
    const r = { cpu: cpuMs() - c1, wall: performance.now() - w1 };
    if (seen.events !== c.events) throw new Error(`${k.id} saw ${JSON.stringify(seen)}, expected ${c.events} events`);
    return r;
  };
  const first = await read();
  const second = await read();
  console.log(JSON.stringify({ who, importCpu, importWall, first, second }));
  process.exit(0);
}

const unknown = argv.filter((a) => !/^--(quick|samples|no-node|no-workerd)(=|$)/.test(a));
if (unknown.length) {
  console.error(`unknown option(s): ${unknown.join(" ")}`);
  process.exit(2);
}
if (!spec && !existsSync(`${ROOT}dist/index.js`)) {
  console.error("dist/index.js is missing: npm run -s build first (or set MMSP_DIST)");
  process.exit(2);
}
const QUICK = opt("quick", false) === true;
const SAMPLES = Number(opt("samples", QUICK ? 3 : 9));
if (!(SAMPLES >= 1)) throw new Error("--samples must be ≥ 1");
const log = (s) => console.error(`[first-stream] ${s}`);
const corpus = loadCorpus(CORPUS, "sse"); // generated and cached here once, so no child generates it
const fx = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const SIDES = ["pkg", "peer"];
const LABEL = { pkg: "UniEventStream read", peer: "esp+zod+assembler" };
/** The sides in alternating order, `SAMPLES` each: pkg, peer, peer, pkg, pkg, … */
const order = Array.from({ length: SAMPLES }, (_, i) => (i % 2 ? ["peer", "pkg"] : ["pkg", "peer"])).flat();
const raw = { node: null, workerd: null };
const L = [];
L.push(`## First stream: one ${CORPUS} stream read where nothing is warm (bench/first-stream.mjs, issue #30)`, "");
L.push(
  `${corpus.events} events, ${(corpus.bytes.length / 1e6).toFixed(2)} MB of SSE, 1–16 KiB chunks; the package (UniEventStream, every event read) ` +
    `against the peer (esp+zod+assembler: eventsource-parser + JSON.parse + a user's zod classic schema + a naive assembler), ${SAMPLES} samples each, alternating; medians. ` +
    "peer ÷ package > 1: the package is faster.",
  "",
);

// ---- Node: a fresh process per sample ---------------------------------------------------------------
if (opt("no-node", false) !== true) {
  const t = performance.now();
  const runs = { pkg: [], peer: [] };
  for (const side of order) {
    const r = spawnSync(process.execPath, [SELF, `--child=${side}`], { cwd: ROOT, encoding: "utf8", env: process.env });
    if (r.status !== 0) throw new Error(`child ${side} failed: ${r.stderr.trim().split("\n").slice(-3).join(" ")}`);
    runs[side].push(JSON.parse(r.stdout.trim().split("\n").pop()));
  }
  raw.node = runs;
  const m = (side, f) => median(runs[side].map(f));
  const rows = [
    ["import (wall ms)", (s) => s.importWall],
    ["import (CPU ms)", (s) => s.importCpu],
    ["first read (CPU ms)", (s) => s.first.cpu],
    ["first read (wall ms)", (s) => s.first.wall],
    ["import + first read (wall ms)", (s) => s.importWall + s.first.wall],
    ["second read, same process (CPU ms)", (s) => s.second.cpu],
  ];
  L.push(`### Node ${process.version}: a fresh process per sample`, "");
  L.push(`| | ${LABEL.pkg} | ${LABEL.peer} | peer ÷ package |`, "| --- | ---: | ---: | ---: |");
  for (const [label, f] of rows) L.push(`| ${label} | ${fx(m("pkg", f))} | ${fx(m("peer", f))} | ${fx(m("peer", f) / m("pkg", f), 2)}× |`);
  L.push("");
  log(`node (${((performance.now() - t) / 1000).toFixed(1)} s): first read CPU ${fx(m("pkg", (s) => s.first.cpu))} vs ${fx(m("peer", (s) => s.first.cpu))} ms`);
}

// ---- workerd: a fresh Miniflare instance (a new isolate) per sample ---------------------------------
/** The workerd figure, or null (its section added to L). */
async function workerd() {
  const { Miniflare } = await import("miniflare");
  const { bundleForWorkerd, compatibilityDate, workerdCpuMs } = await import("./runtimes/workerd-kit.mjs");
  const t = performance.now();
  const path = (p) => JSON.stringify(p);
  const distFile = (f) => path(fileURLToPath(new URL(f, DIST_URL)));
  const common = `import { makeContenders } from ${path(`${ROOT}bench/core/contenders.mjs`)};\nimport { firstStreamWorker } from ${path(`${ROOT}bench/runtimes/first-stream-worker.mjs`)};\n`;
  const entries = {
    pkg: `${common}import { UniEventStream } from ${distFile("index.js")};\nexport default firstStreamWorker(makeContenders({ UniEventStream }), "ues-read");\n`,
    peer:
      `${common}import { decodeBase64 } from ${distFile("decode/base64.js")};\nimport { z } from "zod";\n` +
      `import { EventSourceParserStream } from "eventsource-parser/stream";\n` +
      `export default firstStreamWorker(makeContenders({ decodeBase64 }, { EventSourceParserStream, z }), "zod");\n`,
  };
  const scripts = {};
  for (const side of SIDES) scripts[side] = await bundleForWorkerd({ stdin: { contents: entries[side], resolveDir: ROOT, sourcefile: `first-stream-${side}.mjs`, loader: "js" } });
  const corpusPath = `${CACHE_DIR}${CORPUS}.v${GENERATOR_VERSION}.sse`;
  const runs = { pkg: [], peer: [] };
  for (const side of order) {
    const mf = new Miniflare({ modules: true, script: scripts[side], compatibilityDate, dataBlobBindings: { CORPUS: corpusPath } });
    try {
      const url = await mf.ready;
      const prep = await mf.dispatchFetch(new URL(`/prepare?seed=${SEED}`, url));
      if (!prep.ok) throw new Error(`workerd /prepare: ${prep.status} ${await prep.text()}`);
      await prep.json();
      const read = async () => {
        const c0 = workerdCpuMs();
        const w0 = performance.now();
        const res = await mf.dispatchFetch(new URL("/read", url));
        const body = await res.text();
        const wall = performance.now() - w0;
        const cpu = workerdCpuMs() - c0;
        if (!res.ok) throw new Error(`workerd /read: ${res.status} ${body}`);
        const seen = JSON.parse(body);
        if (seen.events !== corpus.events) throw new Error(`workerd ${side} saw ${body}, expected ${corpus.events} events`);
        return { wall, cpu, workerMs: seen.workerMs };
      };
      const first = await read();
      const second = await read();
      runs[side].push({ first, second });
    } finally {
      await mf.dispose();
    }
  }
  const m = (side, f) => median(runs[side].map(f));
  const rows = [
    ["first request (wall ms, from outside)", (s) => s.first.wall],
    ["first request (workerd CPU ms)", (s) => s.first.cpu],
    ["second request (wall ms, warm)", (s) => s.second.wall],
    ["second request (workerd CPU ms)", (s) => s.second.cpu],
  ];
  L.push(`### workerd (miniflare): a fresh instance per sample`, "");
  L.push(`| | ${LABEL.pkg} | ${LABEL.peer} | peer ÷ package |`, "| --- | ---: | ---: | ---: |");
  for (const [label, f] of rows) L.push(`| ${label} | ${fx(m("pkg", f))} | ${fx(m("peer", f))} | ${fx(m("peer", f) / m("pkg", f), 2)}× |`);
  L.push(
    "",
    "A request's wall time includes Miniflare's dispatch (the same for both sides); the CPU column is every workerd thread's CPU time " +
      "(/proc/PID/task/*/schedstat) around the request. Before the first timed request, one untimed request cut the corpus into chunks.",
    "",
  );
  log(`workerd (${((performance.now() - t) / 1000).toFixed(1)} s): first request ${fx(m("pkg", (s) => s.first.wall))} vs ${fx(m("peer", (s) => s.first.wall))} ms`);
  return runs;
}
if (opt("no-workerd", false) !== true) {
  try {
    raw.workerd = await workerd();
  } catch (e) {
    // the Node figure above stands on its own: report the failure instead of losing it
    L.push("### workerd (miniflare): a fresh instance per sample", "", `failed: ${String(e?.message ?? e).split("\n")[0]}`, "");
    log(`workerd failed: ${e?.stack ?? e}`);
  }
}

// ---- the goal ---------------------------------------------------------------------------------------
if (raw.node || raw.workerd) {
  const ratio = (runs, f) => median(runs.peer.map(f)) / median(runs.pkg.map(f));
  const cell = (runs, f) => `${fx(median(runs.pkg.map(f)))} vs ${fx(median(runs.peer.map(f)))} ms (${fx(ratio(runs, f), 2)}×)`;
  L.push("| goal (issue #30) | measured: package vs peer | status |", "| --- | --- | --- |");
  if (raw.node) {
    const cpu = (s) => s.first.cpu;
    const wall = (s) => s.first.wall;
    L.push(`| the first stream in a fresh process no slower than the peer's (Node, first read) | CPU ${cell(raw.node, cpu)}; wall ${cell(raw.node, wall)} | ${ratio(raw.node, cpu) >= 1 ? "**met**" : "**missed**"} (judged on CPU) |`);
  }
  if (raw.workerd) L.push(`| the same in a fresh workerd isolate (first request, wall from outside) | ${cell(raw.workerd, (s) => s.first.wall)} | figure only |`);
  L.push("");
}
console.log(L.join("\n"));
mkdirSync(`${ROOT}bench/.cache`, { recursive: true });
writeFileSync(`${ROOT}bench/.cache/first-stream.json`, JSON.stringify({ date: new Date(), node: process.version, dist: DIST_URL, samples: SAMPLES, ...raw }, null, 1));
