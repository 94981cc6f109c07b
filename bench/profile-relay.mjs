// Where the relay's time goes in workerd (issues #47, #49): one door of the relay asked `--runs` times
// for one provider's corpus of one kind (bench/relay-harness.mjs, the Worker of bench/relay-doors.mjs:
// the Durable Object, SQLite, one viewer), under workerd's V8 profiler (the DevTools protocol on
// Miniflare's inspector port; the Worker and its object share one isolate). Prints workerd's CPU per
// event beside the profile's self time per file and per function, and the time under each file
// (inclusive), with the bundle's lines named by their modules.
//   node bench/profile-relay.mjs [--door=responses --provider=anthropic --kind=chat --kept --runs=40 --top=30]
// The .cpuprofile is kept in bench/.cache/profiles/ (open it in Chrome's DevTools).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";
import { inspectorSession, profiled, selfTimes } from "./core/cpuprofile.mjs";
import { corpusBlobs, corpusDir, DOORS, RELAY_WORKER, relayMiniflare, removeCorpusDir, timed } from "./relay-harness.mjs";
import { bundleForWorkerd } from "./runtimes/workerd-kit.mjs";

if (!globalThis.WebSocket) {
  // Node 20 has a WebSocket client only behind a flag: run again with it.
  const r = spawnSync(process.execPath, [
    "--experimental-websocket",
    "--no-warnings",
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2),
  ], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
const opt = options(process.argv.slice(2));
const door = String(opt("door", "responses"));
const provider = String(opt("provider", "anthropic"));
const kind = String(opt("kind", "chat"));
const kept = !!opt("kept", false);
const runs = Number(opt("runs", 40));
const top = Number(opt("top", 30));
if (!DOORS[door]) {
  throw new Error(`--door: one of ${Object.keys(DOORS).join(", ")}`);
}
const DIR = fileURLToPath(new URL("./.cache/profiles/", import.meta.url));
mkdirSync(DIR, { recursive: true });

const script = await bundleForWorkerd({ entryPoints: [RELAY_WORKER] });
const dir = corpusDir("profile-relay-");
const inspectorPort = 9300 + Math.floor(Math.random() * 500);
let profile;
let cpuMs = 0;
let events;
try {
  const { blobs, corpora } = corpusBlobs(dir, kind);
  events = corpora[provider].events;
  const mf = relayMiniflare(script, blobs, { inspectorPort });
  try {
    const url = await mf.ready;
    const model = `bench-${provider}`;
    const ask = async () => {
      const d = DOORS[door];
      const res = await mf.dispatchFetch(new URL(d.path(model), url), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(kept ? { "x-mmsp-keep": "1" } : {}),
        },
        body: JSON.stringify(d.body(model)),
      });
      const text = await res.text();
      if (!res.ok || !text.includes(d.end)) {
        throw new Error(
          `${door} ${provider}/${kind}: ${res.status} ${text.slice(-300)}`,
        );
      }
    };
    for (let i = 0; i < 5; i++) await ask();
    const session = await inspectorSession(inspectorPort);
    profile = await profiled(session, async () => {
      for (let i = 0; i < runs; i++) cpuMs += await timed(ask);
    });
    session.close();
  } finally {
    await mf.dispose();
  }
} finally {
  removeCorpusDir(dir);
}
const file = `${DIR}relay-${door}${kept ? "-kept" : ""}-${provider}-${kind}-${Date.now()}.cpuprofile`;
writeFileSync(file, JSON.stringify(profile));

const { byFile, byFn, total, weights } = selfTimes(profile, script);
const idle = byFile.get("((idle))") ?? 0;
const busy = total - idle;
// Inclusive time per file: a sample counts once for every file on its stack.
const parent = new Map();
for (const n of profile.nodes) {
  for (const c of n.children ?? []) parent.set(c, n.id);
}
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const fileOf = (
  n,
) => (n.callFrame.url
  ? byFile.has(n.callFrame.url) ? n.callFrame.url : n.callFrame.url.replace(/^.*\/(dist|node_modules|bench)\//, "$1/")
  : null);
const under = new Map();
profile.samples.forEach((id, i) => {
  const seen = new Set();
  for (let n = byId.get(id); n; n = byId.get(parent.get(n.id))) {
    const f = fileOf(n);
    if (f && !seen.has(f)) seen.add(f);
  }
  for (const f of seen) {
    under.set(f, (under.get(f) ?? 0) + weights[i]);
  }
});
const pct = (t) => ((100 * t) / busy).toFixed(1);
console.log(
  `\nworkerd: door ${door}${kept ? " (kept)" : ""}, ${provider}/${kind}, ${events} events × ${runs} runs: ${
    ((cpuMs * 1000) / runs / events).toFixed(1)
  } µs/event (workerd's CPU while profiled); ${(busy / 1000).toFixed(0)} ms busy in the profile\nprofile: ${file}\n`,
);
console.log("| self % of busy | self ms | file |\n| ---: | ---: | --- |");
for (
  const [f, t] of [...byFile].filter(([f]) => f !== "((idle))").sort((a, b) => b[1] - a[1]).slice(0, 25)
) console.log(`| ${pct(t)} | ${(t / 1000).toFixed(0)} | ${f} |`);
console.log("\n| under % of busy | file |\n| ---: | --- |");
for (const [f, t] of [...under].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  console.log(`| ${pct(t)} | ${f} |`);
}
console.log(
  "\n| self % of busy | self ms | function | where |\n| ---: | ---: | --- | --- |",
);
for (
  const [key, t] of [...byFn].filter(([k]) => !k.startsWith("(idle)")).sort((
    a,
    b,
  ) => b[1] - a[1]).slice(0, top)
) {
  const [fn, where] = key.split("\t");
  console.log(`| ${pct(t)} | ${(t / 1000).toFixed(0)} | ${fn} | ${where} |`);
}
