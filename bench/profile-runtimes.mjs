// Where the time goes, per runtime (issue #16): one contender on one corpus under the runtime's CPU
// profiler, self time summed per source file and per function.
//
//   node bench/profile-runtimes.mjs --runtime=node|deno|bun|chromium|workerd [--corpus=chat --format=sse
//        --chunks=wide|live --contender=ues-read --runs=15 --top=25]
//
// node: --cpu-prof; deno and bun: their own --cpu-prof (Chrome .cpuprofile); chromium: the
// DevTools protocol's Profiler domain through playwright-core; workerd: the same protocol on
// Miniflare's inspector port.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { loadCorpus, CACHE_DIR, GENERATOR_VERSION } from "./corpora.mjs";
import { inspectorSession, profiled, selfTimes } from "./core/cpuprofile.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIR = `${ROOT}bench/.cache/profiles`;
const opt = (name, dflt) => {
  const a = process.argv.slice(2).find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : dflt;
};
const runtime = opt("runtime", "node");
const name = opt("corpus", "chat");
const format = opt("format", "sse");
const chunking = opt("chunks", "wide");
const id = opt("contender", "ues-read");
const runs = opt("runs", "15");
const top = Number(opt("top", 25));
mkdirSync(DIR, { recursive: true });
loadCorpus(name, format);
const path = `${CACHE_DIR}${name}.v${GENERATOR_VERSION}.${format}`;
const target = `${ROOT}bench/runtimes/profile-target.mjs`;
const args = [path, name, format, chunking, id, runs];
const before = new Set(readdirSync(DIR));
const bin = (b) => `${ROOT}node_modules/.bin/${b}`;

let file;
/** For a bundled run (chromium, workerd): the bundle's text, whose `// path` comments name each module. */
let bundleText = null;
if (runtime === "chromium") {
  const { build } = await import("esbuild");
  const { chromium } = await import("playwright-core");
  const { CHROMIUM_ARGS } = await import("../scripts/chromium.mjs");
  const out = await build({
    stdin: {
      contents: `import * as lib from "../../dist/index.js"; import { makeContenders } from "../core/contenders.mjs"; import { loadPeers } from "../core/entry.mjs"; import { chunk } from "../core/harness.mjs";
globalThis.PROFILE = async (name, format, chunking, id, runs) => { const { peers } = await loadPeers(); const k = makeContenders(lib, peers).find((c) => c.id === id);
const chunks = chunk(new Uint8Array(await (await fetch("/corpus")).arrayBuffer()), chunking, name); await k.run(chunks, format);
globalThis.READY = chunks; return async () => { const t0 = performance.now(); for (let i = 0; i < runs; i++) await k.run(chunks, format); return (performance.now() - t0) / runs; }; };`,
      resolveDir: `${ROOT}bench/runtimes`,
      sourcefile: "profile-page.mjs",
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "error",
  });
  const script = out.outputFiles[0].text;
  bundleText = script;
  const server = createServer((req, res) => {
    if (req.url === "/") res.writeHead(200, { "content-type": "text/html" }).end('<!doctype html><script type="module" src="/p.js"></script>');
    else if (req.url === "/p.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else if (req.url === "/corpus") res.writeHead(200).end(readFileSync(path));
    else res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => !!globalThis.PROFILE);
    await page.evaluate(async ([n, f, c, i, r]) => (globalThis.RUN = await globalThis.PROFILE(n, f, c, i, r)), [name, format, chunking, id, Number(runs)]);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
    const ms = await page.evaluate(() => globalThis.RUN());
    const { profile } = await cdp.send("Profiler.stop");
    console.log(`${id} on ${name}/${format}/${chunking} in Chromium ${browser.version()}: ${ms.toFixed(1)} ms per run`);
    file = `${DIR}/chromium-${Date.now()}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
  } finally {
    await browser.close();
    server.close();
  }
} else if (runtime === "workerd" && !globalThis.WebSocket) {
  // Node 20 has a WebSocket client only behind a flag: run again with it.
  const r = spawnSync(process.execPath, ["--experimental-websocket", "--no-warnings", fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" });
  process.exit(r.status ?? 1);
} else if (runtime === "workerd") {
  // workerd's V8 inspector (Miniflare's inspectorPort) spoken to over the DevTools protocol.
  const { build } = await import("esbuild");
  const { Miniflare } = await import("miniflare");
  const out = await build({
    stdin: {
      contents: `import * as lib from "../../dist/index.js"; import { makeContenders } from "../core/contenders.mjs"; import { loadPeers } from "../core/entry.mjs"; import { chunk } from "../core/harness.mjs";
let k, chunks, format;
export default { async fetch(req) { const u = new URL(req.url);
  if (u.pathname === "/prep") { const { peers } = await loadPeers(); k = makeContenders(lib, peers).find((c) => c.id === u.searchParams.get("id")); format = u.searchParams.get("format");
    chunks = chunk(new Uint8Array(await req.arrayBuffer()), u.searchParams.get("chunking"), u.searchParams.get("name")); await k.run(chunks, format); return new Response("ok"); }
  const runs = Number(u.searchParams.get("runs")); const t0 = performance.now(); for (let i = 0; i < runs; i++) await k.run(chunks, format); return new Response(String((performance.now() - t0) / runs)); } };`,
      resolveDir: `${ROOT}bench/runtimes`,
      sourcefile: "profile-worker.mjs",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    write: false,
    logLevel: "error",
  });
  bundleText = out.outputFiles[0].text;
  const inspectorPort = 9300 + Math.floor(Math.random() * 500);
  const mf = new Miniflare({ modules: true, script: out.outputFiles[0].text, compatibilityDate: "2026-04-01", inspectorPort });
  try {
    const url = await mf.ready;
    const q = new URLSearchParams({ id, format, chunking, name, runs });
    await (await mf.dispatchFetch(new URL(`/prep?${q}`, url), { method: "POST", body: readFileSync(path) })).text();
    const session = await inspectorSession(inspectorPort);
    let ms;
    const profile = await profiled(session, async () => (ms = Number(await (await mf.dispatchFetch(new URL(`/run?${q}`, url))).text())));
    session.close();
    console.log(`${id} on ${name}/${format}/${chunking} in workerd: ${ms.toFixed(1)} ms per run (the Worker's clock)`);
    file = `${DIR}/workerd-${Date.now()}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
  } finally {
    await mf.dispose();
  }
} else {
  const cmd = {
    node: [process.execPath, ["--cpu-prof", `--cpu-prof-dir=${DIR}`, target, ...args]],
    deno: [bin("deno"), ["run", "-A", "--no-check", "--cpu-prof", `--cpu-prof-dir=${DIR}`, target, ...args]],
    bun: [bin("bun"), ["--cpu-prof", `--cpu-prof-dir=${DIR}`, target, ...args]],
  }[runtime];
  if (!cmd) throw new Error(`--runtime: node|deno|bun|chromium|workerd`);
  const r = spawnSync(cmd[0], cmd[1], { stdio: "inherit", cwd: ROOT, env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" } });
  if (r.status !== 0) process.exit(r.status ?? 1);
  file = readdirSync(DIR).filter((f) => f.endsWith(".cpuprofile") && !before.has(f)).map((f) => `${DIR}/${f}`).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

// ---- self time per file and per function --------------------------------------------------------
const profile = JSON.parse(readFileSync(file, "utf8"));
const { byFile, byFn, total } = selfTimes(profile, bundleText);
// What each part of the reader costs: self time grouped by what the code does (idle excluded).
const CATEGORIES = [
  // JSON.parse is inlined into parseRecordAt or into its caller depending on the engine's mood
  ["JSON.parse + decoding (record, uni-event)", /^(\(parse\)|dist\/decode\/record\.js|dist\/decode\/uni-event\.js)$/],
  ["schema checks (validate, fast-validate, depth, base64)", /^dist\/(decode\/(validate|fast-validate|base64)|internal\/(limits|values))\.js$/],
  ["grammar + .done + live message", /^dist\/assemble\//],
  ["framing: UTF-8, lines, SSE fields", /^(dist\/framing\/|\(decode\)|\(op_encoding_decode\)|ext:deno_web\/08_text_encoding|node:internal\/encoding|\(TextDecoder\))/],
  ["stream delivery (read/enqueue, the shell, the read loop)", /^(\((read|enqueue|pull|getReader|pipeThrough|ReadableStream|Promise|write)\)|dist\/internal\/core-stream\.js|dist\/uni-event-stream\.js|dist\/internal\/message-promise\.js|node:internal\/webstreams|ext:deno_web\/06_streams|bench\/core\/contenders\.mjs|internal:)/],
  ["garbage collector", /^\(\(garbage collector\)\)$/],
];
const cats = new Map(CATEGORIES.map(([c]) => [c, 0]));
let other = 0;
let idle = 0;
for (const [f, t] of byFile) {
  if (f === "((idle))") {
    idle += t;
    continue;
  }
  const c = CATEGORIES.find(([, re]) => re.test(f));
  if (c) cats.set(c[0], cats.get(c[0]) + t);
  else other += t;
}
const busy = total - idle;
const perRun = busy / 1000 / Number(runs);
console.log(`\n${runtime}: ${id} on ${name}/${format}/${chunking}; ${(busy / 1000).toFixed(0)} ms busy in the profile (${perRun.toFixed(1)} ms per run)\n`);
console.log("| part | share | ms per run |\n| --- | ---: | ---: |");
for (const [c, t] of [...cats, ["other (program, runtime internals, peers)", other]]) console.log(`| ${c} | ${((100 * t) / busy).toFixed(1)}% | ${(t / 1000 / Number(runs)).toFixed(1)} |`);
console.log(`\nprofile: ${file.replace(ROOT, "")}; ${(total / 1000).toFixed(0)} ms sampled\n`);
console.log("| self % | self ms | file |\n| ---: | ---: | --- |");
for (const [f, t] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`| ${((100 * t) / total).toFixed(1)} | ${(t / 1000).toFixed(0)} | ${f} |`);
console.log("\n| self % | self ms | function | where |\n| ---: | ---: | --- | --- |");
for (const [key, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  const [fn, where] = key.split("\t");
  console.log(`| ${((100 * t) / total).toFixed(1)} | ${(t / 1000).toFixed(0)} | ${fn} | ${where} |`);
}
