// The two regimes of issue #30, side by side, in ONE Node process timed by CPU time:
//   steady  no forced GC between runs (after warm-up runs): what a long-lived server sees once the
//           reader's code is optimized
//   gc      a full globalThis.gc() before every run: optimized code that relied on the last run's objects is dropped, so every run
//           compiles the hot path again (what a cold Worker isolate, a serverless function or a
//           page's first stream sees)
// Contenders (bench/core/contenders.mjs through bench/contenders.mjs): floor, esp+zod+assembler (the
// peer), UniEventStream read and message, on every main corpus × SSE / NDJSON, 1–16 KiB chunks (the
// "wide" chunking of bench/run.mjs, the same chunks). Rounds are interleaved, the order rotated each
// round; ratios are paired per round (floor or peer CPU time / the package's in the same round), the
// median over rounds is reported, and the geometric mean over the corpora.
//
//   node bench/regimes.mjs [--rounds-steady=21] [--rounds-gc=15] [--warmup=3] [--only=chat,tools] [--quick]
//   (npm run bench:regimes; npm run bench runs it after its own report)
//
// Reads dist/index.js, or MMSP_DIST (a path or URL). Prints markdown on stdout (the progress on
// stderr); raw figures in bench/.cache/regimes.json.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { options, withExposedGc } from "./args.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);

// The gc regime needs globalThis.gc: run again with --expose-gc (the steady one simply never calls it).
withExposedGc(import.meta.url, argv);

const opt = options(argv);
const unknown = argv.filter((a) => !/^--(quick|rounds-steady|rounds-gc|warmup|only)(=|$)/.test(a));
if (unknown.length) {
  console.error(`unknown option(s): ${unknown.join(" ")}`);
  process.exit(2);
}
const QUICK = opt("quick", false) === true;
const ROUNDS = { steady: Number(opt("rounds-steady", QUICK ? 5 : 21)), gc: Number(opt("rounds-gc", QUICK ? 3 : 15)) };
/** Steady regime: runs per contender before the timed rounds (untimed, no GC), so its code is optimized. */
const WARMUP = Number(opt("warmup", QUICK ? 2 : 3));
if (!(ROUNDS.steady >= 1 && ROUNDS.gc >= 1 && WARMUP >= 0)) throw new Error("--rounds-steady and --rounds-gc must be ≥ 1, --warmup ≥ 0");

if (!process.env.MMSP_DIST && !existsSync(`${ROOT}dist/index.js`)) {
  console.error("dist/index.js is missing: npm run -s build first (or set MMSP_DIST)");
  process.exit(2);
}
const { loadCorpus, chunk, chunkSeed, MAIN_CORPORA } = await import("./corpora.mjs");
const { contender, DIST_URL } = await import("./contenders.mjs");

const corpusNames = opt("only", null) ? String(opt("only")).split(",") : MAIN_CORPORA;
for (const n of corpusNames) if (!MAIN_CORPORA.includes(n)) throw new Error(`--only: unknown corpus ${n} (${MAIN_CORPORA.join(", ")})`);
const FORMATS = ["sse", "ndjson"];
const PKG = ["ues-read", "ues-drain"];
const ks = ["floor", "zod", ...PKG].map(contender);
const log = (s) => console.error(`[regimes] ${s}`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
/** CPU ms of this process (user + system): less disturbed by other work on the machine than wall time. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function check(c, k, seen) {
  const ok = seen.events !== undefined ? seen.events === c.events : seen.groups === c.groups;
  if (!ok) throw new Error(`${k.id} on ${c.name}/${c.format} saw ${JSON.stringify(seen)}, expected ${c.events} events / ${c.groups} groups`);
}

async function once(c, k, chunks, forceGc) {
  if (forceGc) globalThis.gc();
  const t0 = cpuMs();
  const seen = await k.run(chunks, c.format);
  const ms = cpuMs() - t0;
  check(c, k, seen);
  return ms;
}

/** One regime on one case: id → CPU ms per round (round i of every contender in the same rotation). */
async function regime(c, chunks, name) {
  const forceGc = name === "gc";
  if (!forceGc) {
    globalThis.gc(); // the previous case's garbage, once, before the warm-up: not inside a timed run
    for (let i = 0; i < WARMUP; i++) for (const k of ks) await once(c, k, chunks, false);
  }
  const times = Object.fromEntries(ks.map((k) => [k.id, []]));
  for (let r = 0; r < ROUNDS[name]; r++) {
    for (let j = 0; j < ks.length; j++) {
      const k = ks[(j + r) % ks.length];
      times[k.id].push(await once(c, k, chunks, forceGc));
    }
  }
  return times;
}

/** Median over rounds of base / id, paired by round. */
const paired = (times, base, id) => median(times[id].map((t, i) => times[base][i] / t));

const t0 = performance.now();
const results = [];
for (const name of corpusNames) {
  for (const format of FORMATS) {
    const c = loadCorpus(name, format);
    const chunks = chunk(c.bytes, 1024, 16 * 1024, chunkSeed(name, "wide"));
    const t = performance.now();
    const row = { name, format, bytes: c.bytes.length, events: c.events, regimes: {} };
    for (const reg of ["steady", "gc"]) {
      const times = await regime(c, chunks, reg);
      const ms = Object.fromEntries(ks.map((k) => [k.id, median(times[k.id])]));
      const ratio = {};
      for (const id of PKG) ratio[id] = { floor: paired(times, "floor", id), peer: paired(times, "zod", id) };
      ratio.zod = { floor: paired(times, "floor", "zod") };
      row.regimes[reg] = { times, ms, ratio };
    }
    results.push(row);
    const s = row.regimes.steady.ratio["ues-read"];
    const g = row.regimes.gc.ratio["ues-read"];
    log(`${name}/${format} (${((performance.now() - t) / 1000).toFixed(1)} s): read steady ${s.floor.toFixed(2)}× floor ${s.peer.toFixed(2)}× peer; gc ${g.floor.toFixed(2)}× floor ${g.peer.toFixed(2)}× peer`);
  }
}

// ---- report -----------------------------------------------------------------------------------------
const fx = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const REGS = ["steady", "gc"];
const L = [];
L.push("## Two regimes: steady state and a forced GC before every run (bench/regimes.mjs, issue #30)", "");
L.push(
  `One Node ${process.version} process, CPU time (process.cpuUsage user + system), build ${DIST_URL.replace(`file://${ROOT}`, "")}. ` +
    `**steady**: ${WARMUP} untimed warm-up run(s) per contender, then ${ROUNDS.steady} rounds with no forced GC; ` +
    `**gc**: ${ROUNDS.gc} rounds with a full \`gc()\` before every run (optimized code that relied on the last run's objects is dropped: every run compiles much of the hot path again). ` +
    "Contenders: floor, the peer (esp+zod+assembler: eventsource-parser / line split + JSON.parse + a user's zod classic schema + a naive assembler), " +
    "UniEventStream read (every event read) and message (`await message` only); 1–16 KiB chunks. Rounds interleaved, order rotated each round; " +
    "each cell is the median of the per-round ratios (floor or peer time / the package's time in the same round; higher is faster).",
  "",
);
L.push("| case | steady: read × floor | read × peer | message × floor | message × peer | peer × floor | gc: read × floor | read × peer | message × floor | message × peer | peer × floor |");
L.push(`| --- |${" ---: |".repeat(10)}`);
const cells = (r) => [r["ues-read"].floor, r["ues-read"].peer, r["ues-drain"].floor, r["ues-drain"].peer, r.zod.floor].map((x) => `${fx(x)}×`);
for (const row of results) L.push(`| ${row.name} · ${row.format.toUpperCase()} | ${REGS.flatMap((g) => cells(row.regimes[g].ratio)).join(" | ")} |`);
const geo = {}; // format → regime → { id: { floor, peer } }
for (const format of FORMATS) {
  const rows = results.filter((r) => r.format === format);
  if (!rows.length) continue;
  geo[format] = {};
  for (const g of REGS) {
    const of = (id, base) => geomean(rows.map((r) => r.regimes[g].ratio[id][base]));
    geo[format][g] = { "ues-read": { floor: of("ues-read", "floor"), peer: of("ues-read", "peer") }, "ues-drain": { floor: of("ues-drain", "floor"), peer: of("ues-drain", "peer") }, zod: { floor: of("zod", "floor") } };
  }
  L.push(`| **geomean ${format.toUpperCase()}** (${rows.map((r) => r.name).join(", ")}) | ${REGS.flatMap((g) => cells(geo[format][g]).map((c) => `**${c}**`)).join(" | ")} |`);
}
L.push("");

L.push("| case | regime | floor ms | peer ms | read ms | message ms |", "| --- | --- | ---: | ---: | ---: | ---: |");
for (const row of results) {
  for (const g of REGS) {
    const ms = row.regimes[g].ms;
    L.push(`| ${row.name} · ${row.format.toUpperCase()} | ${g} | ${fx(ms.floor, 1)} | ${fx(ms.zod, 1)} | ${fx(ms["ues-read"], 1)} | ${fx(ms["ues-drain"], 1)} |`);
  }
}
L.push("", "Median CPU ms per run.", "");

// ---- the issue's goals (UniEventStream read, every corpus, SSE and NDJSON) ------------------------
const goals = [];
const all = corpusNames.length === MAIN_CORPORA.length;
const goal = (text, reg, base, min) => {
  const vals = results.map((r) => [`${r.name} ${r.format.toUpperCase()}`, r.regimes[reg].ratio["ues-read"][base]]);
  const worst = vals.reduce((a, b) => (b[1] < a[1] ? b : a));
  const under = vals.filter(([, v]) => !(v >= min));
  const met = under.length === 0 && all;
  goals.push({ text, worst, met, partial: !all, under });
};
goal("steady ≥ 0.75× the floor on every corpus (SSE and NDJSON, read)", "steady", "floor", 0.75);
goal("steady ≥ 1.3× the peer on every corpus (SSE and NDJSON, read)", "steady", "peer", 1.3);
goal("gc ≥ 1.15× the peer on every corpus (SSE and NDJSON, read)", "gc", "peer", 1.15);
L.push("| goal (issue #30) | worst | status | below |", "| --- | ---: | --- | --- |");
for (const g of goals) {
  const status = g.under.length ? "**missed**" : g.partial ? "met on the corpora run (--only)" : "**met**";
  L.push(`| ${g.text} | ${fx(g.worst[1])}× (${g.worst[0]}) | ${status} | ${g.under.map(([k, v]) => `${k} ${fx(v)}×`).join(", ") || "—"} |`);
}
L.push("", `(${((performance.now() - t0) / 1000).toFixed(0)} s)`, "");

console.log(L.join("\n"));
mkdirSync(`${ROOT}bench/.cache`, { recursive: true });
writeFileSync(`${ROOT}bench/.cache/regimes.json`, JSON.stringify({ date: new Date(), node: process.version, dist: DIST_URL, rounds: ROUNDS, warmup: WARMUP, results, geo, goals }, null, 1));
