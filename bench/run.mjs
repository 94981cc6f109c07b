// The benchmark harness (issue #6): `npm run bench` (= node bench/run.mjs).
//
// Reads the BUILT dist/index.js (built first when missing; a warning when src/ is newer — pass
// --build to rebuild). Corpora come from bench/corpora.mjs (seeded, cached in bench/.cache/).
//
//   node bench/run.mjs                 full Node run (writes bench/RESULTS-node.md), a few minutes
//   node bench/run.mjs --runtime NAME  the multi-runtime benchmark instead (bench/runtimes.mjs → bench/RESULTS.md)
//   node bench/run.mjs --quick         fewer rounds, for development (< 1 min; writes bench/.cache/RESULTS.quick.md)
//   node bench/run.mjs --only=chat,tools   only these corpora (linearity needs media; memory follows the selection)
//   options: --rounds=N --warmup=N --linear-rounds=N --no-memory --no-linearity --build --out=FILE
//            --no-providers --no-regimes --no-first-stream (skip the scripts a full run ends with:
//            bench/providers.mjs, bench/regimes.mjs, bench/first-stream.mjs; --quick and --only skip them too)
//            --all (with --quick: time the third-party contenders too; --quick alone times only the
//            floor and UniEventStream, whose numbers are the ones that move when the library changes)
//
// Method: every corpus is first read once through UniEventStream (must succeed, with the expected
// event and group counts) and every contender's warm-up result is checked against the same counts,
// so a broken corpus or a contender that stops early cannot produce numbers. Then, per case
// (corpus × format × chunking), rounds run every contender once, in an order rotated each round,
// with a full GC before each run; the median of the rounds is reported, with its median absolute
// deviation. Memory runs each in a child process (bench/memory.mjs).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { options, withExposedGc } from "./args.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);

// ---- `--runtime X`: the multi-runtime benchmark (bench/runtimes.mjs, issue #16) -----------------
if (argv.some((a) => a === "--runtime" || a.startsWith("--runtime="))) {
  const r = spawnSync(process.execPath, [fileURLToPath(new URL("./runtimes.mjs", import.meta.url)), ...argv], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}

// ---- re-run with --expose-gc (a full GC before each timed run, and for memory baselines) ---------
withExposedGc(import.meta.url, argv);

const opt = options(argv);
const QUICK = opt("quick", false) === true;
const ROUNDS = Number(opt("rounds", QUICK ? 3 : 7));
// --quick: no warm-up (the validation pass has warmed UniEventStream up; every timed run is checked too)
const WARMUP = Number(opt("warmup", QUICK ? 0 : 1));
/** A contender whose first warm-up run takes longer than this gets no more warm-up and only SLOW_ROUNDS rounds (flagged †)… */
const SLOW_MS = 1500;
const SLOW_ROUNDS = Math.min(3, ROUNDS);
/** …and one longer than this is reported from that single run (flagged ‡): it is far off the others anyway. */
const VERY_SLOW_MS = 8000;
/** --quick times only the library and the floor (the other contenders do not change when the library does); --all adds them back. */
const ALL = !QUICK || opt("all", false) === true;
const LINEAR_ROUNDS = Number(opt("linear-rounds", QUICK ? 2 : 5));
const ONLY = opt("only", null);
const MEMORY = opt("no-memory", false) !== true;
const LINEARITY = opt("no-linearity", false) !== true;
// bench/RESULTS.md holds the tables of every runtime (bench/runtimes.mjs); this Node-only report
// (memory, linearity, live chunking, partial JSON) has its own file.
const OUT = opt("out", QUICK || ONLY || ROUNDS < 7 ? `${ROOT}bench/.cache/RESULTS.quick.md` : `${ROOT}bench/RESULTS-node.md`);
const unknown = argv.filter((a) => !/^--(quick|rounds|warmup|linear-rounds|only|no-memory|no-linearity|no-providers|no-regimes|no-first-stream|build|out|all)(=|$)/.test(a));
if (unknown.length) {
  console.error(`unknown option(s): ${unknown.join(" ")}`);
  process.exit(2);
}
if (ROUNDS < 1 || WARMUP < 0) throw new Error("--rounds must be ≥ 1 and --warmup ≥ 0");

// ---- the build under test ------------------------------------------------------------------------
const git = (...a) => {
  try {
    return execFileSync("git", a, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
};
const DIST = `${ROOT}dist/index.js`;
const newest = (dir) => {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
};
if (!existsSync(DIST) || opt("build", false) === true) {
  console.error(existsSync(DIST) ? "building (--build)…" : "dist/index.js is missing: building…");
  execFileSync("npm", ["run", "-s", "build"], { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] });
}
const stale = !process.env.MMSP_DIST && newest(`${ROOT}src`) > statSync(DIST).mtimeMs;
if (stale) console.error("WARNING: src/ is newer than dist/index.js: measuring the old build (rerun with --build)");
const distHash = createHash("sha256").update(readFileSync(process.env.MMSP_DIST ?? DIST)).digest("hex").slice(0, 12);
const distLabel = process.env.MMSP_DIST ?? "dist/index.js";
// Other work may rebuild dist/ while this runs: every part of the run (this process, the memory
// children, the bundle check) reads a copy taken now.
if (!process.env.MMSP_DIST) {
  const snap = `${ROOT}bench/.cache/dist-under-test`;
  rmSync(snap, { recursive: true, force: true });
  cpSync(`${ROOT}dist`, snap, { recursive: true, filter: (f) => !f.endsWith(".map") && !f.endsWith(".d.ts") });
  process.env.MMSP_DIST = `${snap}/index.js`;
}
const gitHead = git("rev-parse", "--short", "HEAD");
const srcDirty = git("status", "--porcelain", "src") !== "";

const { loadCorpus, chunk, chunkSeed, MAIN_CORPORA, GENERATOR_VERSION } = await import("./corpora.mjs");
const { CONTENDERS, UniEventStream } = await import("./contenders.mjs");
const { measureBundle, BUDGET } = await import("../scripts/check-bundle-size.mjs");

const LIBRARY = ["floor", "ues-read", "ues-drain"];
const TIMED = CONTENDERS.filter((k) => ALL || LIBRARY.includes(k.id));
const corpusNames = ONLY ? String(ONLY).split(",") : MAIN_CORPORA;
for (const n of corpusNames) if (!MAIN_CORPORA.includes(n)) throw new Error(`--only: unknown corpus ${n} (${MAIN_CORPORA.join(", ")})`);

const CHUNKINGS = {
  wide: { lo: 1024, hi: 16 * 1024, label: "1–16 KiB" },
  live: { lo: 64, hi: 512, label: "64–512 B" },
};
const LIVE_CORPORA = ["chat", "tools"];
const FORMATS = ["sse", "ndjson"];

const log = (...a) => console.error(...a);
const startedAt = new Date();
const load0 = loadavg();
const T0 = 0; // performance.now() counts from this process's start

// ---- corpora, validated ---------------------------------------------------------------------------
const corpora = new Map(); // `${name}/${format}` → corpus
const getCorpus = (name, format) => {
  const key = `${name}/${format}`;
  if (!corpora.has(key)) corpora.set(key, loadCorpus(name, format));
  return corpora.get(key);
};

async function validate(c) {
  const stream = new UniEventStream({ format: c.format });
  const reader = new Blob([c.bytes]).stream().pipeThrough(stream).getReader();
  let events = 0;
  while (!(await reader.read()).done) events++;
  const message = await stream.message;
  if (events !== c.events || message.content_items.length !== c.groups) {
    throw new Error(`corpus ${c.name}/${c.format}: read ${events} events / ${message.content_items.length} groups, expected ${c.events} / ${c.groups}`);
  }
}

const needed = [...corpusNames.map((n) => [n, FORMATS])];
if (LINEARITY && corpusNames.includes("media")) needed.push(["media40", ["sse"]]);
if (MEMORY && corpusNames.includes("chat")) needed.push(["chat4x", ["sse"]]);
// The same bytes through the same build give the same outcome: remember what passed.
const VALIDATED = `${ROOT}bench/.cache/validated.json`;
const validKey = `${GENERATOR_VERSION}/${distHash}`;
let validated = [];
try {
  const v = JSON.parse(readFileSync(VALIDATED, "utf8"));
  if (v.key === validKey) validated = v.corpora;
} catch {}
log(`corpora (generator ${GENERATOR_VERSION}): loading and validating through UniEventStream…`);
for (const [name, formats] of needed) {
  for (const format of formats) {
    const c = getCorpus(name, format);
    if (validated.includes(`${name}/${format}`)) continue;
    try {
      await validate(c);
    } catch (e) {
      console.error(`INVALID CORPUS ${name}/${format}: ${e.message}`);
      process.exit(1);
    }
    validated.push(`${name}/${format}`);
    writeFileSync(VALIDATED, JSON.stringify({ key: validKey, corpora: validated }));
  }
}

log(`ready in ${((performance.now() - T0) / 1000).toFixed(1)} s`);

// ---- timing ---------------------------------------------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mad = (xs) => {
  const m = median(xs);
  return median(xs.map((x) => Math.abs(x - m)));
};

/** × floor: the median over rounds of floor time / contender time in the same round (paired, so a
 * change of machine load between rounds cancels out); a single-run contender: floor median / its run. */
function pairedRatio(stats, id) {
  const s = stats.get(id);
  if (!s) return NaN;
  const f = stats.get("floor");
  if (!s.times.length) return f.ms / s.ms;
  return median(s.times.map((t, i) => f.times[i] / t));
}

function check(c, k, seen) {
  const ok = seen.events !== undefined ? seen.events === c.events : seen.groups === c.groups;
  if (!ok) throw new Error(`${k.id} on ${c.name}/${c.format} saw ${JSON.stringify(seen)}, expected ${c.events} events / ${c.groups} groups`);
}

async function timeOnce(c, k, chunks) {
  globalThis.gc();
  const t0 = performance.now();
  const seen = await k.run(chunks, c.format);
  const ms = performance.now() - t0;
  check(c, k, seen);
  return ms;
}

/**
 * Times `contenders` on `chunks` of corpus `c`: warm-up, then interleaved rounds. Returns per
 * contender { ms: median, mad, n, slow, times } with `times[i]` from round i (for paired ratios).
 */
async function measure(c, chunks, contenders, rounds = ROUNDS, warmup = WARMUP) {
  const times = new Map(contenders.map((k) => [k.id, []]));
  const limit = new Map(contenders.map((k) => [k.id, rounds]));
  const single = new Map(); // id → its one (very slow) run
  for (const k of contenders) {
    for (let i = 0; i < warmup; i++) {
      const t = await timeOnce(c, k, chunks);
      if (t > VERY_SLOW_MS) single.set(k.id, t);
      if (t > SLOW_MS) {
        limit.set(k.id, single.has(k.id) ? 0 : SLOW_ROUNDS);
        break;
      }
    }
  }
  for (let r = 0; r < rounds; r++) {
    for (let j = 0; j < contenders.length; j++) {
      const k = contenders[(j + r) % contenders.length];
      const ts = times.get(k.id);
      if (ts.length >= limit.get(k.id)) continue;
      const t = await timeOnce(c, k, chunks);
      ts.push(t);
      if (t > VERY_SLOW_MS && !warmup) limit.set(k.id, ts.length); // no warm-up: stop at the first very slow run
      else if (t > SLOW_MS && ts.length === 1) limit.set(k.id, Math.min(limit.get(k.id), SLOW_ROUNDS));
    }
  }
  return new Map(
    contenders.map((k) => {
      const t = single.has(k.id) ? [single.get(k.id)] : times.get(k.id);
      return [k.id, { ms: median(t), mad: mad(t), n: t.length, slow: t.length < rounds, times: single.has(k.id) ? [] : t }];
    }),
  );
}

const cases = [];
for (const name of corpusNames) {
  for (const chunking of ["wide", "live"]) {
    if (chunking === "live" && !LIVE_CORPORA.includes(name)) continue;
    for (const format of FORMATS) cases.push({ name, format, chunking });
  }
}

const results = []; // { name, format, chunking, bytes, events, stats: Map }
for (const cs of cases) {
  const c = getCorpus(cs.name, cs.format);
  const { lo, hi } = CHUNKINGS[cs.chunking];
  const chunks = chunk(c.bytes, lo, hi, chunkSeed(cs.name, cs.chunking));
  const contenders = TIMED.filter((k) => !(k.sseOnly && cs.format !== "sse"));
  const t = performance.now();
  const stats = await measure(c, chunks, contenders);
  results.push({ ...cs, bytes: c.bytes.length, events: c.events, chunks: chunks.length, stats });
  log(
    `${cs.name}/${cs.format}/${CHUNKINGS[cs.chunking].label} (${((performance.now() - t) / 1000).toFixed(1)} s): ` +
      contenders.map((k) => `${k.id} ${pairedRatio(stats, k.id).toFixed(2)}×`).join(", "),
  );
}

// ---- linearity: media 40 MiB vs 4 MiB -------------------------------------------------------------
let linearity = null;
if (LINEARITY && corpusNames.includes("media")) {
  const ids = ["floor", "ues-read", "ues-drain"];
  const ks = CONTENDERS.filter((k) => ids.includes(k.id));
  const small = getCorpus("media", "sse");
  const big = getCorpus("media40", "sse");
  const smallChunks = chunk(small.bytes, 1024, 16 * 1024, chunkSeed("media", "wide"));
  const bigChunks = chunk(big.bytes, 1024, 16 * 1024, chunkSeed("media40", "wide"));
  const t = performance.now();
  const times = new Map(ks.map((k) => [k.id, { small: [], big: [] }]));
  for (const k of ks) {
    for (let i = 0; i < WARMUP; i++) {
      await timeOnce(small, k, smallChunks);
      await timeOnce(big, k, bigChunks);
    }
  }
  for (let r = 0; r < LINEAR_ROUNDS; r++) {
    for (let j = 0; j < ks.length; j++) {
      const k = ks[(j + r) % ks.length];
      times.get(k.id).small.push(await timeOnce(small, k, smallChunks));
      times.get(k.id).big.push(await timeOnce(big, k, bigChunks));
    }
  }
  linearity = ks.map((k) => {
    const { small: s, big: b } = times.get(k.id);
    return { id: k.id, label: k.label, small: median(s), big: median(b), ratio: median(b.map((x, i) => x / s[i])) };
  });
  log(`linearity (${((performance.now() - t) / 1000).toFixed(1)} s): ${linearity.map((l) => `${l.id} ${l.ratio.toFixed(1)}×`).join(", ")}`);
}

// ---- memory (child processes) ---------------------------------------------------------------------
function child(args) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["--expose-gc", `${ROOT}bench/memory.mjs`, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("close", (code) => {
      try {
        if (code !== 0) throw new Error(err.trim().split("\n").slice(-3).join(" "));
        resolve(JSON.parse(out.trim().split("\n").pop()));
      } catch (e) {
        resolve({ corpus: args[0], format: args[1], contender: args[2], error: e.message });
      }
    });
  });
}

let memory = [];
if (MEMORY) {
  const t = performance.now();
  // --quick: only the corpora the memory goals name
  const names = QUICK ? corpusNames.filter((n) => n === "chat") : [...corpusNames];
  if (corpusNames.includes("chat")) names.splice(names.indexOf("chat") + 1, 0, "chat4x");
  if (LINEARITY && corpusNames.includes("media")) names.push("media40");
  // --quick: UniEventStream only, no retained pass; full: the floor as reference, and the runs the
  // memory goals judge (chat, chat4x, media40 × UniEventStream) three times each (median reported)
  const ids = QUICK ? ["ues-read", "ues-drain"] : ["floor", "ues-read", "ues-drain"];
  const jobs = names.flatMap((n) => ids.map((id) => [n, "sse", id]));
  const reps = (job) => (!QUICK && ["chat", "chat4x", "media40"].includes(job[0]) && job[2] !== "floor" ? 3 : 1);
  // the retained pass (20 forced GCs) only in the first run of a job: it is the slow part, and stable
  const queue = jobs.flatMap((job) => Array.from({ length: reps(job) }, (_, i) => [...job, "1024-16384", ...(QUICK || i > 0 ? ["--no-retained"] : [])]));
  const runs = [];
  // two at a time (2 cores): memory is per process and does not depend on CPU contention
  const worker = async () => {
    for (let job; (job = queue.shift()); ) runs.push(await child(job));
  };
  await Promise.all([worker(), worker()]);
  memory = jobs.map(([corpus, format, contender]) => {
    const rs = runs.filter((m) => m.corpus === corpus && m.contender === contender);
    const ok = rs.filter((m) => !m.error);
    if (!ok.length) return rs[0];
    const med = (key) => {
      const xs = ok.map((m) => m[key]).filter((x) => x !== null);
      return xs.length ? median(xs) : null;
    };
    return { corpus, format, contender, n: ok.length, ms: Math.round(med("ms")), rssMB: med("rssMB"), heapMB: med("heapMB"), retainedMB: med("retainedMB"), heapMaxMB: Math.max(...ok.map((m) => m.heapMB)), rssMaxMB: Math.max(...ok.map((m) => m.rssMB)) };
  });
  log(`memory (${((performance.now() - t) / 1000).toFixed(1)} s): ${memory.filter((m) => m.error).length} failed`);
}

// ---- bundle size -----------------------------------------------------------------------------------
let bundle;
try {
  bundle = await measureBundle(process.env.MMSP_DIST);
} catch (e) {
  bundle = { error: e.message };
}

// ---- report ---------------------------------------------------------------------------------------
const load1 = loadavg();
const totalS = (performance.now() - T0) / 1000;
const fx = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const mbps = (bytes, ms) => bytes / 1e6 / (ms / 1000);
const evps = (events, ms) => events / (ms / 1000);
const human = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : `${Math.round(n)}`);
const mark = (s) => (s.n === 1 && ROUNDS > 1 ? "‡" : s.slow ? "†" : "");
const ratioOf = (r, id) => pairedRatio(r.stats, id);
const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
const caseLabel = (r) => `${r.name} · ${r.format.toUpperCase()} · ${CHUNKINGS[r.chunking].label}`;
const pkgVersion = (p) => JSON.parse(readFileSync(`${ROOT}node_modules/${p}/package.json`, "utf8")).version;

const L = [];
const cpu = (readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) ?? [])[1] ?? cpus()[0]?.model ?? "?";
L.push("# mmsp-streams benchmark results", "");
L.push(`Generated by \`npm run bench\` (bench/run.mjs${argv.length ? " " + argv.join(" ") : ""}).`, "");
L.push(`- date: ${startedAt.toISOString()}; total run time ${totalS.toFixed(0)} s`);
L.push(`- Node ${process.version}; CPU: ${cpu} × ${cpus().length}; load average ${load0.map((x) => x.toFixed(2)).join(" ")} at start, ${load1.map((x) => x.toFixed(2)).join(" ")} at end (other work on the machine makes numbers noisy)`);
L.push(`- build: ${distLabel} (sha256 ${distHash}, copied at start)${stale ? " — **STALE: src/ is newer than this build**" : ""}; git HEAD ${gitHead}${srcDirty ? " (uncommitted changes in src/)" : ""} at start`);
L.push(`- contenders: eventsource-parser ${pkgVersion("eventsource-parser")}, zod ${pkgVersion("zod")}, @ai-sdk/provider-utils ${pkgVersion("@ai-sdk/provider-utils")}, openai ${pkgVersion("openai")}`);
L.push(`- method: median of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up run(s) per contender (round-robin, order rotated each round, full GC before each run); ± is the median absolute deviation; × floor is the median of the per-round ratios (floor time / contender time in the same round). Corpora validated through UniEventStream first; every run's event count checked. MB = 10⁶ bytes.`);
L.push("");

L.push("## Contenders", "");
if (!ALL) L.push("--quick: only the floor and UniEventStream were timed (pass --all for the others).", "");
L.push("| contender | what it does | formats |", "| --- | --- | --- |");
for (const k of TIMED) L.push(`| ${k.label} | ${k.what} | ${k.sseOnly ? "SSE only (skipped on NDJSON: —)" : "SSE, NDJSON"} |`);
L.push("");

L.push("## Corpora", "");
L.push("| corpus | SSE bytes | NDJSON bytes | events | done items | what |", "| --- | ---: | ---: | ---: | ---: | --- |");
const WHAT = {
  chat: "20k thinking/text deltas of 1–8 chars; thinking groups closed by a signature-only fragment",
  tools: "400 tool calls, arguments in 5–20-char fragments, ~15% single-fragment",
  media: "one 4 MiB image, 64 KiB chunks (base64) + .done",
  embeddings: "500 × 1536 floats, embedding.delta + .done each",
  mixed: "40 agentic rounds: thinking, text, tool calls, images, audio, inline thinking, embeddings",
};
for (const n of corpusNames) {
  const s = getCorpus(n, "sse");
  const d = getCorpus(n, "ndjson");
  L.push(`| ${n} | ${human(s.bytes.length)} | ${human(d.bytes.length)} | ${s.events} | ${s.groups} | ${WHAT[n]} |`);
}
L.push("");

L.push("## Throughput relative to the floor", "");
L.push("Each cell: × floor (higher is faster; the floor's own MB/s in its column). — = SSE-only contender on NDJSON.", "");
const ids = TIMED.map((k) => k.id);
L.push(`| case | floor MB/s | ${TIMED.filter((k) => k.id !== "floor").map((k) => k.label).join(" | ")} |`);
L.push(`| --- | ---: | ${TIMED.filter((k) => k.id !== "floor").map(() => "---:").join(" | ")} |`);
for (const r of results) {
  const f = r.stats.get("floor");
  const cells = ids.filter((id) => id !== "floor").map((id) => {
    if (!r.stats.has(id)) return "—";
    const s = r.stats.get(id);
    return `${fx(ratioOf(r, id))}×${mark(s)}`;
  });
  L.push(`| ${caseLabel(r)} | ${fx(mbps(r.bytes, f.ms), 1)} | ${cells.join(" | ")} |`);
}
const allStats = results.flatMap((r) => [...r.stats.values()]);
if (allStats.some((s) => mark(s) === "†")) L.push("", `† over ${SLOW_MS / 1000} s per run in warm-up: median of ${SLOW_ROUNDS} rounds only.`);
if (allStats.some((s) => mark(s) === "‡")) L.push("", `‡ over ${VERY_SLOW_MS / 1000} s per run: one run only (the warm-up).`);
L.push("");

const wide = results.filter((r) => r.chunking === "wide");
const geo = {};
if (wide.length) {
  L.push("## UniEventStream geometric mean over the corpora (1–16 KiB chunks)", "");
  L.push("| mode | SSE | NDJSON | corpora |", "| --- | ---: | ---: | --- |");
  for (const id of ["ues-read", "ues-drain"]) {
    geo[id] = {};
    for (const format of FORMATS) {
      const rs = wide.filter((r) => r.format === format);
      geo[id][format] = rs.length ? geomean(rs.map((r) => ratioOf(r, id))) : NaN;
    }
    L.push(`| ${CONTENDERS.find((k) => k.id === id).label} | ${fx(geo[id].sse)}× | ${fx(geo[id].ndjson)}× | ${[...new Set(wide.map((r) => r.name))].join(", ")} |`);
  }
  L.push("");
}

L.push("## Details", "");
L.push("| case | contender | median ms | ± | MB/s | events/s | × floor |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
for (const r of results) {
  for (const k of TIMED) {
    const s = r.stats.get(k.id);
    if (!s) continue;
    L.push(`| ${caseLabel(r)} | ${k.label} | ${fx(s.ms, 1)} | ${s.n > 1 ? `${fx((100 * s.mad) / s.ms, 0)}%` : ""}${s.slow ? ` (${s.n} run${s.n > 1 ? "s" : ""})` : ""} | ${fx(mbps(r.bytes, s.ms), 1)} | ${human(evps(r.events, s.ms))} | ${fx(ratioOf(r, k.id))} |`);
  }
}
L.push("");

if (linearity) {
  L.push("## Linearity: media with a 40 MiB image vs the 4 MiB one (SSE, 1–16 KiB chunks)", "");
  L.push(`Median of ${LINEAR_ROUNDS} interleaved rounds; time ratio = median of the per-round 40 MiB / 4 MiB ratios. Bytes ratio ${fx(getCorpus("media40", "sse").bytes.length / getCorpus("media", "sse").bytes.length, 1)}×.`, "");
  L.push("| contender | 4 MiB ms | 40 MiB ms | time ratio |", "| --- | ---: | ---: | ---: |");
  for (const l of linearity) L.push(`| ${l.label} | ${fx(l.small, 1)} | ${fx(l.big, 1)} | ${fx(l.ratio, 1)}× |`);
  L.push("");
}

if (memory.length) {
  L.push("## Peak memory above baseline (SSE, 1–16 KiB chunks, one child process each)", "");
  L.push(
    "peak RSS / peak heap = max of `process.memoryUsage()` `rss` / `heapUsed + external` above the baseline (after GC, corpus loaded), sampled before every chunk, on every event and every 1 ms: it includes garbage not yet collected. retained = max `heapUsed + external` right after a forced full GC at 20 points along the input (a second pass): what the reader really holds.",
    "",
  );
  L.push("Rows with runs = 3 (the ones the memory goals judge) show the median of three child processes, with the largest peak in brackets.", "");
  L.push("| corpus | contender | runs | peak RSS MB | peak heap MB | retained MB | run ms |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const m of memory) {
    const label = CONTENDERS.find((k) => k.id === m.contender)?.label ?? m.contender;
    const range = (v, max) => `${fx(v, 1)}${m.n > 1 ? ` (${fx(max, 1)})` : ""}`;
    if (m.error) L.push(`| ${m.corpus} | ${label} | | error: ${m.error.replace(/\|/g, "/")} | | | |`);
    else L.push(`| ${m.corpus} | ${label} | ${m.n} | ${range(m.rssMB, m.rssMaxMB)} | ${range(m.heapMB, m.heapMaxMB)} | ${fx(m.retainedMB, 1)} | ${m.ms} |`);
  }
  L.push("");
}

// ---- goals ------------------------------------------------------------------------------------------
const goals = [];
const goal = (text, value, met, detail) => goals.push({ text, value, met, detail });
const UES = ["ues-read", "ues-drain"];
const short = { "ues-read": "read", "ues-drain": "drain" };
if (wide.length === MAIN_CORPORA.length * FORMATS.length) {
  const vals = UES.flatMap((id) => FORMATS.map((f) => [`${f.toUpperCase()} ${short[id]}`, geo[id][f]]));
  const worst = Math.min(...vals.map((v) => v[1]));
  goal("≥ 0.9× the floor, geometric mean over the five corpora, 1–16 KiB chunks", `${fx(worst)}× (worst)`, worst >= 0.9, vals.map(([k, v]) => `${k} ${fx(v)}×`).join(", "));
} else goal("≥ 0.9× the floor, geometric mean over the five corpora, 1–16 KiB chunks", "not measured (--only)", null, "");
if (wide.length) {
  const vals = wide.flatMap((r) => UES.map((id) => [`${r.name} ${r.format.toUpperCase()} ${short[id]}`, ratioOf(r, id)]));
  const worst = vals.reduce((a, b) => (b[1] < a[1] ? b : a));
  const under = vals.filter((v) => v[1] < 0.7);
  goal("≥ 0.7× the floor on each corpus, 1–16 KiB chunks", `${fx(worst[1])}× (worst: ${worst[0]})`, under.length === 0, under.length ? `below: ${under.map(([k, v]) => `${k} ${fx(v)}×`).join(", ")}` : "all above");
}
const live = results.filter((r) => r.chunking === "live");
if (live.length) {
  const vals = live.flatMap((r) => UES.map((id) => [`${r.name} ${r.format.toUpperCase()} ${short[id]}`, ratioOf(r, id)]));
  const worst = vals.reduce((a, b) => (b[1] < a[1] ? b : a));
  const under = vals.filter((v) => v[1] < 1.5);
  goal("≥ 1.5× the floor with 64–512 B chunks (chat, tools)", `${fx(worst[1])}× (worst: ${worst[0]})`, under.length === 0, vals.map(([k, v]) => `${k} ${fx(v)}×`).join(", "));
}
if (linearity) {
  const u = linearity.filter((l) => UES.includes(l.id));
  const worst = Math.max(...u.map((l) => l.ratio));
  goal("40 MiB image ≤ 12× the 4 MiB time", `${fx(worst, 1)}× (worst)`, worst <= 12, `${u.map((l) => `${short[l.id]} ${fx(l.ratio, 1)}×`).join(", ")}; floor ${fx(linearity.find((l) => l.id === "floor").ratio, 1)}×`);
}
const memOf = (corpus, id) => memory.find((m) => m.corpus === corpus && m.contender === id && !m.error);
if (memory.length && corpusNames.includes("chat")) {
  const ms = ["chat", "chat4x"].flatMap((c) => UES.map((id) => [`${c} ${short[id]}`, memOf(c, id)])).filter(([, m]) => m);
  const worst = Math.max(...ms.map(([, m]) => m.heapMB));
  const worstRss = Math.max(...ms.map(([, m]) => m.rssMB));
  goal(
    "≤ 15 MB above baseline on chat at any length (1× and 4×)",
    `${fx(worst, 1)} MB peak heap (worst); RSS ${fx(worstRss, 1)} MB`,
    worst <= 15,
    `judged on peak heapUsed+external (median of the runs; largest ${fx(Math.max(...ms.map(([, m]) => m.heapMaxMB)), 1)} MB); by peak RSS: ${worstRss <= 15 ? "met" : "missed"}${memOf("chat4x", "floor") ? ` (floor: ${["chat", "chat4x"].map((c) => `${c} ${fx(memOf(c, "floor")?.rssMB, 1)} MB RSS`).join(", ")})` : ""}; ${ms.map(([k, m]) => `${k} ${fx(m.heapMB, 1)}/${fx(m.rssMB, 1)}/${fx(m.retainedMB, 1)}`).join(", ")} (heap/RSS/retained MB)`,
  );
}
if (memory.some((m) => m.corpus === "media40")) {
  const ms = UES.map((id) => [short[id], memOf("media40", id)]).filter(([, m]) => m);
  const worst = Math.max(...ms.map(([, m]) => m.heapMB));
  const worstRss = Math.max(...ms.map(([, m]) => m.rssMB));
  goal(
    "40 MiB image: peak ≤ 170 MB above baseline",
    `${fx(worst, 1)} MB peak heap (worst); RSS ${fx(worstRss, 1)} MB`,
    worst <= 170,
    `judged on peak heapUsed+external (median of the runs; largest ${fx(Math.max(...ms.map(([, m]) => m.heapMaxMB)), 1)} MB); by peak RSS: ${worstRss <= 170 ? "met" : "missed"}; ${ms.map(([k, m]) => `${k} ${fx(m.heapMB, 1)}/${fx(m.rssMB, 1)}/${fx(m.retainedMB, 1)}`).join(", ")} (heap/RSS/retained MB)${memOf("media40", "floor") ? `; floor ${fx(memOf("media40", "floor").heapMB, 1)}/${fx(memOf("media40", "floor").rssMB, 1)}` : ""}`,
  );
}
if (bundle.error) goal(`bundle ≤ ${BUDGET / 1024} KB min+gzip`, "error", false, bundle.error);
else goal(`bundle ≤ ${BUDGET / 1024} KB min+gzip`, `${bundle.gzip} bytes (budget ${BUDGET})`, bundle.gzip <= BUDGET, `minified ${bundle.minified} bytes; esbuild bundle+minify, ESM, platform neutral; gzip level 6`);

// Issue #8: partial tool arguments in linear time (its own script: one process, CPU-time ratios).
if (!QUICK && !ONLY) {
  const { execFileSync } = await import("node:child_process");
  try {
    const out = execFileSync(process.execPath, [`${ROOT}bench/partial-json.mjs`], { encoding: "utf8", env: { ...process.env, PJ_MODULE: process.env.MMSP_DIST } });
    L.push("## Partial tool arguments (bench/partial-json.mjs, issue #8)", "", out.trim(), "");
  } catch (e) {
    L.push("## Partial tool arguments (bench/partial-json.mjs, issue #8)", "", "failed: " + String(e.stdout ?? e.message).trim(), "");
  }
}

L.push("## Goals (issue #6)", "");
L.push("| goal | measured | status | detail |", "| --- | --- | --- | --- |");
for (const g of goals) L.push(`| ${g.text} | ${g.value} | ${g.met === null ? "not measured" : g.met ? "**met**" : "**missed**"} | ${g.detail} |`);
L.push("");

// Issue #30: the two regimes side by side (CPU time in one process of its own) and the first stream
// (fresh processes and workerd isolates): their own scripts, on the same build; their markdown goes into the report.
if (!QUICK && !ONLY) {
  for (const [flag, script] of [["no-regimes", "bench/regimes.mjs"], ["no-first-stream", "bench/first-stream.mjs"]]) {
    if (argv.includes(`--${flag}`)) continue;
    log(`running ${script}…`);
    const r = spawnSync(process.execPath, [`${ROOT}${script}`], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 << 20 });
    L.push(r.status === 0 ? r.stdout.trim() : `## ${script}\n\nfailed (exit ${r.status}, signal ${r.signal}): ${String(r.stdout ?? "").trim().split("\n").slice(-3).join(" ")}`, "");
  }
}

const md = L.join("\n");
console.log(md);
mkdirSync(`${ROOT}bench/.cache`, { recursive: true });
writeFileSync(OUT, md + "\n");
writeFileSync(
  `${ROOT}bench/.cache/last-run.json`,
  JSON.stringify({ date: startedAt, node: process.version, distHash, results: results.map((r) => ({ ...r, stats: Object.fromEntries(r.stats) })), linearity, memory, bundle: { gzip: bundle.gzip, minified: bundle.minified }, goals }, null, 1),
);
log(`wrote ${OUT.replace(ROOT, "")} and bench/.cache/last-run.json (${totalS.toFixed(0)} s)`);

// Issue #27: each provider's conversion against its floor and its peers (its own script and process;
// it writes the "Providers" section of bench/RESULTS.md and prints it).
if (!QUICK && !ONLY && !argv.includes("--no-providers")) {
  const { spawnSync } = await import("node:child_process");
  const r = spawnSync(process.execPath, ["--expose-gc", `${ROOT}bench/providers.mjs`], { stdio: "inherit", cwd: ROOT });
  if (r.status !== 0) log(`bench/providers.mjs failed (exit ${r.status})`);
}
