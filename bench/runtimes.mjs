// The benchmark in every runtime the package claims (issue #16):
//
//   npm run bench -- --runtime node|deno|bun|chromium|workerd   one runtime → its table in bench/RESULTS.md
//   npm run bench:all                                           all five, one after the other, into one RESULTS.md
//   options: --quick (2 rounds, chat/tools/mixed: development), --render (rewrite the sections from
//            the last runs' raw results, no run), --rounds=N --warmup=N
//            --only=chat,tools (corpora) --contenders=ues-read,zod (plus the floors) --build
//
// The same core (bench/core/*.mjs, web APIs only) runs in each runtime through a thin runner
// (bench/runtimes/<runtime>.mjs); this file plans the run, starts the runner, and writes the
// runtime's section of RESULTS.md (between its <!-- runtime:NAME --> markers; the rest of the file
// is kept) plus the summary across runtimes. Raw results: bench/.cache/runtime-NAME.json.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync, readdirSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { loadCorpus, MAIN_CORPORA, CACHE_DIR, GENERATOR_VERSION } from "./corpora.mjs";
import { median } from "./core/harness.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RUNTIMES = ["node", "deno", "bun", "chromium", "workerd"];
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.findIndex((x) => x === `--${name}` || x.startsWith(`--${name}=`));
  if (i === -1) return dflt;
  const a = argv[i];
  if (a.includes("=")) return a.slice(a.indexOf("=") + 1);
  return argv[i + 1] && !argv[i + 1].startsWith("--") ? argv[i + 1] : true;
};
const runtimeArg = String(opt("runtime", "node"));
const runtimes = runtimeArg === "all" ? RUNTIMES : runtimeArg.split(",");
for (const r of runtimes) if (!RUNTIMES.includes(r)) throw new Error(`--runtime: unknown ${r} (${RUNTIMES.join("|")}|all)`);
const QUICK = opt("quick", false) === true;
const ROUNDS = Number(opt("rounds", QUICK ? 2 : 4));
const WARMUP = Number(opt("warmup", 1));
const ONLY = opt("only", null);
const corpusNames = ONLY ? String(ONLY).split(",") : QUICK ? ["chat", "tools", "mixed"] : MAIN_CORPORA;
const CONTENDERS = opt("contenders", null);
const RESULTS = `${ROOT}bench/RESULTS.md`;
const log = (...a) => console.error(...a);

// ---- the build under test --------------------------------------------------------------------------
if (!existsSync(`${ROOT}dist/index.js`) || opt("build", false) === true) {
  log("building…");
  execFileSync("npm", ["run", "-s", "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
}
const newest = (dir) => readdirSync(dir, { withFileTypes: true }).reduce((t, e) => Math.max(t, e.isDirectory() ? newest(`${dir}/${e.name}`) : statSync(`${dir}/${e.name}`).mtimeMs), 0);
const stale = newest(`${ROOT}src`) > statSync(`${ROOT}dist/index.js`).mtimeMs;
if (stale) log("WARNING: src/ is newer than dist/: measuring the old build (add --build)");
const git = (...a) => {
  try {
    return execFileSync("git", a, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
};

// ---- the plan ----------------------------------------------------------------------------------------
const corpora = {};
const cases = [];
for (const name of corpusNames) {
  for (const format of ["sse", "ndjson"]) {
    const c = loadCorpus(name, format);
    corpora[`${name}/${format}`] = { path: `${CACHE_DIR}${name}.v${GENERATOR_VERSION}.${format}`, events: c.events, groups: c.groups };
    cases.push({ name, format, chunking: "wide" });
  }
}
// The relay path (bytes → UniEventStream → SseEncoderStream → bytes vs a pass-through floor):
// the per-event corpora, SSE.
for (const name of ["chat", "tools", "mixed"]) if (corpusNames.includes(name)) cases.push({ name, format: "sse", chunking: "wide", relay: true });
const plan = { rounds: ROUNDS, warmup: WARMUP, cases, corpora, only: CONTENDERS ? String(CONTENDERS).split(",") : null };
mkdirSync(`${ROOT}bench/.cache`, { recursive: true });
const planFile = `${ROOT}bench/.cache/runtime-plan.json`;
writeFileSync(planFile, JSON.stringify(plan));

// ---- run each runtime ------------------------------------------------------------------------------
const bin = (name) => `${ROOT}node_modules/.bin/${name}`;
const COMMANDS = {
  node: (out) => [process.execPath, ["--expose-gc", `${ROOT}bench/runtimes/node.mjs`, planFile, out]],
  deno: (out) => [bin("deno"), ["run", "-A", "--no-check", "--v8-flags=--expose-gc", `${ROOT}bench/runtimes/deno.mjs`, planFile, out]],
  bun: (out) => [bin("bun"), [`${ROOT}bench/runtimes/bun.mjs`, planFile, out]],
  chromium: (out) => [process.execPath, [`${ROOT}bench/runtimes/chromium.mjs`, planFile, out]],
  workerd: (out) => [process.execPath, [`${ROOT}bench/runtimes/workerd.mjs`, planFile, out]],
};

// ---- report ------------------------------------------------------------------------------------------
function fx(x, d = 2) {
  return Number.isFinite(x) ? x.toFixed(d) : "—";
}
function geomean(xs) {
  xs = xs.filter(Number.isFinite);
  return xs.length ? Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length) : NaN;
}

/** × floor: median over rounds of floor time / contender time in the same round (paired). */
function ratio(cs, id) {
  const s = cs.stats[id];
  const f = cs.stats[cs.relay ? "relay-floor" : "floor"];
  if (!s || !s.ms.length) return NaN;
  if (s.single || f.single) return median(f.ms) / median(s.ms);
  return median(s.ms.map((t, i) => f.ms[i] / t));
}
/** µs per event: CPU time where the runtime has a CPU clock, else wall time of the (CPU-bound) run. */
function usPerEvent(cs, id) {
  const s = cs.stats[id];
  if (!s || !s.ms.length) return NaN;
  return ((s.cpu.length ? median(s.cpu) : median(s.ms)) * 1000) / cs.events;
}
const bestValidating = (result, cs) => {
  const ids = result.contenders.filter((k) => k.validating && cs.stats[k.id]).map((k) => k.id);
  let best = null;
  for (const id of ids) if (!best || ratio(cs, id) > best.r) best = { id, r: ratio(cs, id) };
  return best;
};
const labelOf = (result, id) => result.contenders.find((k) => k.id === id)?.label ?? id;

/** Per-runtime summary figures (also used by the summary across runtimes). */
function figures(result) {
  const main = result.cases.filter((c) => !c.relay);
  const g = {};
  for (const format of ["sse", "ndjson"]) {
    const rs = main.filter((c) => c.format === format);
    g[format] = {
      read: geomean(rs.map((c) => ratio(c, "ues-read"))),
      drain: geomean(rs.map((c) => ratio(c, "ues-drain"))),
      batch: geomean(rs.map((c) => ratio(c, "ues-batch"))),
      peer: geomean(rs.map((c) => bestValidating(result, c)?.r)),
      vsPeer: rs.map((c) => [c, ratio(c, "ues-read") / (bestValidating(result, c)?.r ?? NaN), ratio(c, "ues-drain") / (bestValidating(result, c)?.r ?? NaN)]),
    };
  }
  return { main, g };
}

function render(result) {
  const L = [];
  const { main, g } = figures(result);
  const ids = result.contenders.filter((k) => !k.relay && k.id !== "floor").map((k) => k.id).filter((id) => main.some((c) => c.stats[id]));
  const cpuClock = main.some((c) => c.stats.floor?.cpu.length);
  L.push(`### ${result.runtime}: ${result.version}`, "");
  L.push(
    `- ${result.date}; ${result.seconds.toFixed(0)} s; ${result.rounds} rounds after ${result.warmup} warm-up run; load average ${result.load[0].map((x) => x.toFixed(2)).join(" ")} at start, ${result.load[1].map((x) => x.toFixed(2)).join(" ")} at end; git ${result.git}`,
    `- clock: ${result.timer}`,
  );
  if (result.missing?.length) L.push(`- peers that did not load here: ${result.missing.join("; ")}`);
  if (result.cpuCheck) L.push(`- check of the Worker's own clock: workerd's process CPU time (schedstat, all its threads) during the requests ${fx(result.cpuCheck.workerdMs / 1000, 1)} s vs ${fx(result.cpuCheck.timedMs / 1000, 1)} s timed inside the Worker (${fx(result.cpuCheck.workerdMs / result.cpuCheck.timedMs)}×; above 1: GC and workerd's own threads; below 1: the Worker's wall clock also ran while the loaded machine gave the core to other processes, so µs/event here are wall, not CPU)`);
  L.push("");
  L.push(`× floor (median of per-round ratios; higher is faster). µs/ev = ${cpuClock ? "CPU" : "wall"} µs per event (median run${cpuClock ? "; CPU of the process, GC threads included" : ""}); read − message ≈ what delivering each event through \`reader.read()\` costs. "÷ peer" = UniEventStream read ÷ the best validating peer (esp+zod+assembler, AI SDK) on that case.`, "");
  L.push(`| case | floor MB/s | floor µs/ev | ${ids.map((id) => labelOf(result, id)).join(" | ")} | package µs/ev: read / message | ÷ peer |`);
  L.push(`| --- | ---: | ---: | ${ids.map(() => "---:").join(" | ")} | ---: | ---: |`);
  for (const c of main) {
    const f = c.stats.floor;
    const best = bestValidating(result, c);
    const cells = ids.map((id) => (c.stats[id] ? `${fx(ratio(c, id))}${c.stats[id].single ? "‡" : ""}` : "—"));
    L.push(`| ${c.name} · ${c.format.toUpperCase()} | ${fx(c.bytes / 1e3 / median(f.ms), 1)} | ${fx(usPerEvent(c, "floor"))} | ${cells.join(" | ")} | ${fx(usPerEvent(c, "ues-read"))} / ${fx(usPerEvent(c, "ues-drain"))} | ${best ? fx(ratio(c, "ues-read") / best.r) : "—"} |`);
  }
  for (const format of ["sse", "ndjson"]) {
    L.push(`| **geomean ${format.toUpperCase()}** | | | ${ids.map((id) => fx(geomean(main.filter((c) => c.format === format).map((c) => ratio(c, id))))).join(" | ")} | | ${fx(g[format].read / g[format].peer)} |`);
  }
  if (main.some((c) => Object.values(c.stats).some((s) => s.single))) L.push("", `‡ over 3 s per run: timed from its one warm-up run.`);
  if (main.some((c) => c.name === "media" && c.format === "sse" && !c.stats.openai) && ids.includes("openai")) L.push("", "openai is not run on media: its decoder re-scans the buffered line per chunk (9 s per run in Node on the 4 MiB line, see RESULTS-node.md).");
  L.push("");
  const relay = result.cases.filter((c) => c.relay);
  if (relay.length) {
    L.push(`Relay path (bytes → UniEventStream → SseEncoderStream → bytes; floor: decode + split + parse + stringify + encode), ${cpuClock ? "CPU" : "wall"} µs per relayed event:`, "");
    L.push("| corpus | pass-through floor µs/ev | package µs/ev | × floor |", "| --- | ---: | ---: | ---: |");
    for (const c of relay) L.push(`| ${c.name} · SSE | ${fx(usPerEvent(c, "relay-floor"))} | ${fx(usPerEvent(c, "relay-ues"))} | ${fx(ratio(c, "relay-ues"))} |`);
    L.push("");
  }
  if (result.readCost) {
    const rc = result.readCost;
    L.push(`Delivery cost here (${rc.n / 1000}k small objects): one \`reader.read()\` per value ${fx(rc.readUs, 3)} µs; through one more TransformStream hop ${fx(rc.hopUs, 3)} µs; read in arrays of 64 ${fx(rc.batchedUs, 3)} µs per value.`, "");
  }
  // goals (issue #16)
  const G = [];
  const worstVsPeer = (which) => {
    const xs = ["sse", "ndjson"].flatMap((f) => g[f].vsPeer.filter(([, r]) => Number.isFinite(r)).map(([c, r, d]) => [`${c.name} ${c.format.toUpperCase()}`, which === "read" ? r : d]));
    return xs.length ? xs.reduce((a, b) => (b[1] < a[1] ? b : a)) : null;
  };
  const wr = worstVsPeer("read");
  if (result.runtime === "node") {
    const floorG = Math.min(g.sse.read, g.ndjson.read);
    G.push([`reading every event ≥ 0.8× the floor geomean (SSE and NDJSON)`, `SSE ${fx(g.sse.read)}×, NDJSON ${fx(g.ndjson.read)}× (in batches, UniEventBatchStream: ${fx(g.sse.batch)}× / ${fx(g.ndjson.batch)}×)`, floorG >= 0.8]);
    G.push([`≥ 1.3× the best validating peer on every corpus (read)`, wr ? `worst ${fx(wr[1])}× (${wr[0]})` : "—", wr ? wr[1] >= 1.3 : null]);
    G.push([`\`await message\` alone ≥ 0.9× the floor geomean`, `SSE ${fx(g.sse.drain)}×, NDJSON ${fx(g.ndjson.drain)}×`, Math.min(g.sse.drain, g.ndjson.drain) >= 0.9]);
  } else {
    G.push([`≥ 1.25× the best validating peer on every corpus (read)`, wr ? `worst ${fx(wr[1])}× (${wr[0]})` : "—", wr ? wr[1] >= 1.25 : null]);
    G.push([`≥ 0.7× the floor geomean (read)`, `SSE ${fx(g.sse.read)}×, NDJSON ${fx(g.ndjson.read)}× (in batches: ${fx(g.sse.batch)}× / ${fx(g.ndjson.batch)}×)`, Math.min(g.sse.read, g.ndjson.read) >= 0.7]);
  }
  L.push("| goal (issue #16) | measured | status |", "| --- | --- | --- |");
  for (const [t, v, met] of G) L.push(`| ${t} | ${v} | ${met === null ? "not measured" : met ? "**met**" : "**missed**"} |`);
  L.push("");
  return L;
}

function writeSection(rt, lines) {
  let md = existsSync(RESULTS) ? readFileSync(RESULTS, "utf8") : "# mmsp-streams benchmark results\n";
  const start = `<!-- runtime:${rt} -->`;
  const end = `<!-- /runtime:${rt} -->`;
  const block = `${start}\n${lines.join("\n")}\n${end}`;
  const i = md.indexOf(start);
  const j = md.indexOf(end);
  if (i !== -1 && j !== -1) md = md.slice(0, i) + block + md.slice(j + end.length);
  else {
    // sections in RUNTIMES order, after the summary
    const later = RUNTIMES.slice(RUNTIMES.indexOf(rt) + 1).map((r) => md.indexOf(`<!-- runtime:${r} -->`)).filter((x) => x !== -1);
    const at = later.length ? Math.min(...later) : md.indexOf("<!-- /runtimes -->");
    md = at !== -1 ? `${md.slice(0, at)}${block}\n\n${md.slice(at)}` : `${md.trimEnd()}\n\n${block}\n`;
  }
  writeFileSync(RESULTS, md);
  log(`wrote ${rt}'s section of bench/RESULTS.md`);
}

/** The summary across runtimes, from each runtime's last full run. */
function writeSummary() {
  const L = ["| runtime | run (load avg) | package read × floor (SSE / NDJSON) | read in batches × floor | message × floor (SSE / NDJSON) | best validating peer × floor (SSE / NDJSON) | read ÷ best peer, worst corpus | read ÷ esp+zod+assembler, worst corpus | relay µs/event: package vs floor (chat) |", "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"];
  for (const rt of RUNTIMES) {
    const f = `${ROOT}bench/.cache/runtime-${rt}.json`;
    if (!existsSync(f)) continue;
    const result = JSON.parse(readFileSync(f, "utf8"));
    const { g } = figures(result);
    const xs = ["sse", "ndjson"].flatMap((fm) => g[fm].vsPeer.filter(([, r]) => Number.isFinite(r)).map(([c, r]) => [`${c.name} ${c.format.toUpperCase()}`, r]));
    const worst = xs.length ? xs.reduce((a, b) => (b[1] < a[1] ? b : a)) : null;
    const chat = result.cases.find((c) => c.relay && c.name === "chat");
    const zs = result.cases.filter((c) => !c.relay && c.stats.zod).map((c) => [`${c.name} ${c.format.toUpperCase()}`, ratio(c, "ues-read") / ratio(c, "zod")]);
    const wz = zs.length ? zs.reduce((a, b) => (b[1] < a[1] ? b : a)) : null;
    L.push(`| ${result.runtime} | ${result.date.slice(0, 16).replace("T", " ")} (${result.load[0][0].toFixed(1)}) | ${fx(g.sse.read)} / ${fx(g.ndjson.read)} | ${fx(g.sse.batch)} / ${fx(g.ndjson.batch)} | ${fx(g.sse.drain)} / ${fx(g.ndjson.drain)} | ${fx(g.sse.peer)} / ${fx(g.ndjson.peer)} | ${worst ? `${fx(worst[1])}× (${worst[0]})` : "—"} | ${wz ? `${fx(wz[1])}× (${wz[0]})` : "—"} | ${chat ? `${fx(usPerEvent(chat, "relay-ues"))} vs ${fx(usPerEvent(chat, "relay-floor"))}` : "—"} |`);
  }
  let md = readFileSync(RESULTS, "utf8");
  const start = "<!-- summary -->";
  const end = "<!-- /summary -->";
  const block = `${start}\n${L.join("\n")}\n${end}`;
  const i = md.indexOf(start);
  const j = md.indexOf(end);
  md = i !== -1 && j !== -1 ? md.slice(0, i) + block + md.slice(j + end.length) : `${md.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS, md);
}

// ---- main (last: the report's helpers above are initialised by now) ---------------------------------
// --render: rewrite the sections from the last runs' raw results (bench/.cache/runtime-*.json), no run.
if (opt("render", false) === true) {
  for (const rt of runtimes) {
    const f = `${ROOT}bench/.cache/runtime-${rt}.json`;
    if (existsSync(f)) writeSection(rt, render(JSON.parse(readFileSync(f, "utf8"))));
  }
  writeSummary();
  process.exit(0);
}
let failed = 0;
for (const rt of runtimes) {
  const out = `${ROOT}bench/.cache/runtime-${rt}.${QUICK ? "quick." : ""}json`;
  const [cmd, args] = COMMANDS[rt](out);
  const load0 = loadavg();
  const t0 = performance.now();
  log(`— ${rt}: ${cases.length} cases, ${ROUNDS} rounds`);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } });
  if (r.status !== 0) {
    log(`${rt}: runner failed (exit ${r.status}${r.error ? `, ${r.error.message}` : ""})`);
    failed++;
    continue;
  }
  const result = JSON.parse(readFileSync(out, "utf8"));
  Object.assign(result, {
    date: new Date().toISOString(),
    seconds: (performance.now() - t0) / 1000,
    load: [load0, loadavg()],
    rounds: ROUNDS,
    warmup: WARMUP,
    quick: QUICK,
    git: `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "src") ? " + uncommitted src/" : ""}${stale ? " (STALE build)" : ""}`,
  });
  writeFileSync(out, JSON.stringify(result));
  log(`${rt}: ${result.seconds.toFixed(0)} s`);
  if (!QUICK) writeSection(rt, render(result));
  else console.log(render(result).join("\n"));
}
if (!QUICK) writeSummary();
process.exit(failed ? 1 : 0);
