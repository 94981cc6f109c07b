// Where UniEventStream's time goes: reads one corpus repeatedly under `node --cpu-prof` and prints
// the top self-time functions (those of dist/index.js named with their src/ file and line).
//
//   node bench/profile.mjs                            chat, SSE, 1–16 KiB chunks, mode read
//   node bench/profile.mjs --corpus=tools --format=ndjson --chunks=live --mode=drain --runs=20 --top=25
//   node bench/profile.mjs --contender=floor          profile another contender (bench/contenders.mjs ids)
//
// The .cpuprofile is kept under bench/.cache/profiles/ (open it in Chrome DevTools for the tree).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PROFILES = `${ROOT}bench/.cache/profiles`;
const opt = (name, dflt) => {
  const a = process.argv.slice(2).find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : dflt;
};
const corpusName = opt("corpus", "chat");
const format = opt("format", "sse");
const chunking = opt("chunks", "wide");
const id = opt("contender", opt("mode", "read") === "drain" ? "ues-drain" : "ues-read");
const runs = Number(opt("runs", 10));
const top = Number(opt("top", 20));

if (process.env.BENCH_PROFILE_CHILD) {
  // ---- the profiled process: warm up, then the runs that the profile is about ------------------
  const { loadCorpus, chunk, chunkSeed } = await import("./corpora.mjs");
  const { contender } = await import("./contenders.mjs");
  const c = loadCorpus(corpusName, format);
  const [lo, hi] = chunking === "live" ? [64, 512] : [1024, 16384];
  const chunks = chunk(c.bytes, lo, hi, chunkSeed(corpusName, chunking));
  const k = contender(id);
  await k.run(chunks, format);
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await k.run(chunks, format);
  const ms = (performance.now() - t0) / runs;
  console.log(`${id} on ${corpusName}/${format}/${chunking}: ${ms.toFixed(1)} ms per run, ${(c.bytes.length / 1e6 / (ms / 1000)).toFixed(1)} MB/s`);
} else {
  mkdirSync(PROFILES, { recursive: true });
  const before = new Set(readdirSync(PROFILES));
  const r = spawnSync(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${PROFILES}`, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, BENCH_PROFILE_CHILD: "1" },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
  const file = readdirSync(PROFILES)
    .filter((f) => f.endsWith(".cpuprofile") && !before.has(f))
    .map((f) => `${PROFILES}/${f}`)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  const profile = JSON.parse(readFileSync(file, "utf8"));

  // self time per node, from the samples
  const self = new Map();
  profile.samples.forEach((node, i) => self.set(node, (self.get(node) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);

  // dist/index.js line → src file (tsup writes a `// src/….ts` comment before each module)
  const distLines = (() => {
    try {
      return readFileSync(`${ROOT}dist/index.js`, "utf8").split("\n");
    } catch {
      return [];
    }
  })();
  const srcOf = (line) => {
    for (let i = line; i >= 0; i--) {
      const m = distLines[i]?.match(/^\/\/ (src\/\S+)/);
      if (m) return m[1];
    }
    return "?";
  };

  const DIST_URL = pathToFileURL(`${ROOT}dist/index.js`).href;
  const byFn = new Map();
  let inDist = 0;
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (!t) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const dist = url === DIST_URL;
    if (dist) inDist += t;
    const where = dist ? `dist/index.js:${lineNumber + 1} (${srcOf(lineNumber)})` : url ? url.replace(/^file:\/\//, "").replace(ROOT, "") + `:${lineNumber + 1}` : "";
    const key = `${functionName || "(anonymous)"}\t${where}`;
    byFn.set(key, (byFn.get(key) ?? 0) + t);
  }
  console.log(`\nprofile: ${file.replace(ROOT, "")}; ${(total / 1000).toFixed(0)} ms sampled, ${((100 * inDist) / total).toFixed(1)}% self time in dist/index.js\n`);
  console.log("| self % | self ms | function | where |\n| ---: | ---: | --- | --- |");
  for (const [key, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const [fn, where] = key.split("\t");
    console.log(`| ${((100 * t) / total).toFixed(1)} | ${(t / 1000).toFixed(0)} | ${fn} | ${where} |`);
  }
}
