// The providers' benchmark (issue #27): each provider's conversion (ProviderEventStream, every event
// read / `message` only) against that provider's floor (TextDecoderStream + split + JSON.parse of the
// same bytes, no checks) and against what a user would pick instead (the provider SDK's stream helper,
// the AI SDK provider's doStream), on seeded corpora in each provider's wire format
// (bench/providers/corpora.mjs). Timed by bench/core/harness.mjs (interleaved rounds, GC before each
// run, every run checked), in Node.
//
//   node --expose-gc bench/providers.mjs [--quick] [--rounds=N --warmup=N] [--only=anthropic,gemini] [--kinds=chat]
//     [--regimes=steady,gc] [--dist=bench/.cache/OLD-dist] [--no-workerd] [--no-encoders]
// then (Node, unless --no-workerd) the relay's CPU per provider event in workerd (bench/relay-providers.mjs),
// and (Node, unless --no-encoders) each encoder of mmsp-streams/encode against its floor (bench/encoders.mjs).
//
// Two regimes (issue #39), one after the other in the same process: steady (warm-up runs, then rounds
// with no forced GC: warm code) and gc (a full gc() before every run, which drops the optimized code
// that relied on the last run's objects: what a fresh isolate or a serverless function sees).
//
// Writes the runtime's "Providers" section of bench/RESULTS.md (between <!-- providers:node -->
// markers; --quick prints only); `npm run bench` runs it (Node) after its own report. Also
// `npx bun bench/providers.mjs`, `npx deno run -A --v8-flags=--expose-gc bench/providers.mjs`.
// Raw: bench/.cache/providers-RUNTIME.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";
import { execFileSync } from "node:child_process";
import { makeContenders } from "./core/contenders.mjs";
import { median, runSuite } from "./core/harness.mjs";
import { KINDS, PROVIDER_NAMES, providerCorpus } from "./providers/corpora.mjs";
import { loadProviderPeers, makeProviderContenders } from "./providers/contenders.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const opt = options(argv);
const QUICK = opt("quick", false) === true;
const ROUNDS = Number(opt("rounds", QUICK ? 2 : 5));
const WARMUP = Number(opt("warmup", 1));
/** The steady regime's rounds and warm-up: more of both (no GC between runs, so short runs are noisier). */
const STEADY_ROUNDS = Number(opt("rounds-steady", QUICK ? 3 : 9));
const STEADY_WARMUP = Number(opt("warmup-steady", QUICK ? 2 : 3));
const REGIMES = String(opt("regimes", "steady,gc")).split(",");
const DIST = String(opt("dist", "dist")).replace(/\/$/, "");
const providers = opt("only", null) ? String(opt("only")).split(",") : PROVIDER_NAMES;
const kinds = opt("kinds", null) ? String(opt("kinds")).split(",") : KINDS;
const log = (s) => console.error(`[providers] ${s}`);
// Node (--expose-gc), Bun (Bun.gc) or Deno (--v8-flags=--expose-gc): the same runner
const RT = globalThis.Bun ? "bun" : globalThis.Deno ? "deno" : "node";
const VERSION = RT === "bun"
  ? `Bun ${globalThis.Bun.version}`
  : RT === "deno"
  ? `Deno ${globalThis.Deno.version.deno}`
  : `Node ${process.version}`;
const gc = globalThis.gc ?? (globalThis.Bun ? () => globalThis.Bun.gc(true) : null);
if (!gc) log("WARNING: no --expose-gc: runs include collections of earlier runs");

const lib = await import(new URL(`${DIST}/index.js`, `file://${ROOT}`).href);
const providersLib = await import(new URL(`${DIST}/providers/index.js`, `file://${ROOT}`).href);
const floor = makeContenders(lib, {}).find((k) => k.id === "floor");
const { peers, missing } = await loadProviderPeers();
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const close = (a, b) => a === undefined || a === b;
/** A contender whose every run is checked against the corpus (text, thinking, calls; the arguments' characters on its first run). */
const checked = (k, corpus) => {
  let first = true;
  return {
    ...k,
    async run(chunks, format) {
      if (k.id === "floor") return k.run(chunks, format);
      const full = first;
      first = false;
      const seen = await k.run(chunks, full);
      const e = corpus.expect;
      if (seen.text !== e.text || !close(seen.thinking, e.thinking) || seen.calls !== e.calls || (full && seen.args !== e.args)) {
        throw new Error(`${k.id} on ${corpus.name} read ${JSON.stringify(seen)}, expected ${JSON.stringify(e)}`);
      }
      return { events: corpus.events };
    },
  };
};

const RENDER = opt("render", false) === true;
const raw = RENDER ? JSON.parse(readFileSync(`${ROOT}bench/.cache/providers-${RT}.json`, "utf8")) : null;
const load0 = raw?.load?.[0] ?? loadavg();
const t0 = performance.now();
const cases = raw?.cases ?? [];
const legend = new Map([["floor", floor]]);
for (const provider of providers) {
  for (const k of makeProviderContenders(providersLib, peers, provider)) {
    legend.set(k.id === "openai-node" ? `openai-node/${provider}` : k.id, k);
  }
}
for (const regime of RENDER ? [] : REGIMES) {
  const steady = regime === "steady";
  for (const provider of providers) {
    for (const kind of kinds) {
      const corpus = providerCorpus(provider, kind);
      const ks = [floor, ...makeProviderContenders(providersLib, peers, provider)];
      const result = await runSuite({
        plan: {
          cases: [{ name: corpus.name, format: "sse", chunking: "wide" }],
          rounds: steady ? STEADY_ROUNDS : ROUNDS,
          warmup: steady ? STEADY_WARMUP : WARMUP,
          readCost: false,
        },
        getCorpus: () => corpus,
        contenders: ks.map((k) => checked(k, corpus)),
        cpu,
        gc: steady ? null : gc,
        log: (s) => log(`${regime} ${s}`),
      });
      cases.push({ regime, provider, kind, ...result.cases[0], labels: Object.fromEntries(ks.map((k) => [k.id, k.label])) });
    }
  }
}
const seconds = raw?.seconds ?? (performance.now() - t0) / 1000;
const load1 = raw?.load?.[1] ?? loadavg();
const date = raw?.date ?? new Date().toISOString();

// ---- report ------------------------------------------------------------------------------------------
const fx = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "—");
const geomean = (xs) => {
  xs = xs.filter(Number.isFinite);
  return xs.length ? Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length) : NaN;
};
/** × floor: the median over rounds of floor time / contender time in the same round. */
const ratio = (cs, id) => {
  const s = cs.stats[id];
  const f = cs.stats.floor;
  if (!s?.ms.length) return NaN;
  if (s.single || f.single) return median(f.ms) / median(s.ms);
  return median(s.ms.map((t, i) => f.ms[i] / t));
};
const usPerEvent = (cs, id) => (cs.stats[id]?.cpu.length ? (median(cs.stats[id].cpu) * 1000) / cs.events : NaN);
const peerIds = (cs) => Object.keys(cs.stats).filter((id) => !["floor", "pes-read", "pes-drain"].includes(id));
const git = (...a) => {
  try {
    return execFileSync("git", a, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
};

const L = [];
L.push(
  `- ${date}; ${VERSION}; ${seconds.toFixed(0)} s; steady: ${STEADY_ROUNDS} rounds after ${STEADY_WARMUP} warm-up runs, gc: ${ROUNDS} rounds after ${WARMUP}; 1–16 KiB chunks; load average ${
    load0.map((x) => x.toFixed(2)).join(" ")
  } at start, ${
    load1.map((x) => x.toFixed(2)).join(" ")
  } at end (2 cores shared with other work: ratios are paired within each round, absolute figures are not the machine's best); git ${
    git("rev-parse", "--short", "HEAD")
  }${git("status", "--porcelain", "src") ? " + uncommitted src/" : ""}${DIST === "dist" ? "" : ` (the build in ${DIST})`}`,
);
if (missing.length) L.push(`- peers that did not load: ${missing.join("; ")}`);
L.push(
  "",
  `× floor (median of per-round ratios; higher is faster; floor = TextDecoderStream + split + JSON.parse of the same bytes, no checks). µs/ev = CPU µs per provider event (\`data:\` message). "÷ best peer" = ProviderEventStream read ÷ the fastest peer on that corpus.`,
  "",
);
const GOALS = {
  steady: { geo: 0.5, worst: 0.4, what: "warm-up runs, then rounds with no forced GC" },
  gc: { geo: 0.35, worst: 0.3, what: "a full gc() before every run: the optimized code is dropped, as in a fresh isolate" },
};
const worstOf = (xs) => xs.reduce((a, b) => (b[1] < a[1] ? b : a));
for (const regime of [...new Set(cases.map((c) => c.regime ?? "gc"))]) {
  const rcases = cases.filter((c) => (c.regime ?? "gc") === regime);
  const goal = GOALS[regime];
  L.push(`### ${regime === "steady" ? "Steady" : "GC before every run"} (${goal.what})`, "");
  L.push(
    "| provider · corpus | MB | events | floor MB/s | ProviderEventStream read | ProviderEventStream message | provider SDK | AI SDK | read µs/ev (floor) | ÷ best peer |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const c of rcases) {
    const sdkId = peerIds(c).find((id) => id !== "ai-sdk");
    const best = Math.max(...peerIds(c).map((id) => ratio(c, id)));
    L.push(
      `| ${c.provider} · ${c.kind} | ${fx(c.bytes / 1e6)} | ${c.events} | ${fx(c.bytes / 1e3 / median(c.stats.floor.ms), 0)} | ${
        fx(ratio(c, "pes-read"))
      } | ${fx(ratio(c, "pes-drain"))} | ${sdkId ? `${fx(ratio(c, sdkId))} (${c.labels[sdkId]})` : "—"} | ${fx(ratio(c, "ai-sdk"))} | ${
        fx(usPerEvent(c, "pes-read"))
      } (${fx(usPerEvent(c, "floor"))}) | ${fx(ratio(c, "pes-read") / best)} |`,
    );
  }
  L.push("");
  L.push(
    "| provider | read × floor, geomean (worst) | message × floor, geomean (worst) | ÷ each peer, worst corpus | " +
      `read ≥ ${goal.geo}× geomean, none < ${goal.worst}× (issue #39) | message ahead of each peer |`,
    "| --- | ---: | ---: | --- | --- | --- |",
  );
  for (const provider of providers) {
    const cs = rcases.filter((c) => c.provider === provider);
    if (!cs.length) continue;
    const reads = cs.map((c) => ratio(c, "pes-read"));
    const drains = cs.map((c) => ratio(c, "pes-drain"));
    const vs = [...new Set(cs.flatMap(peerIds))].map((id) => {
      const ours = id === "ai-sdk" ? "pes-read" : "pes-drain";
      const w = worstOf(cs.filter((c) => c.stats[id]).map((c) => [c.kind, ratio(c, ours) / ratio(c, id)]));
      const wr = worstOf(cs.filter((c) => c.stats[id]).map((c) => [c.kind, ratio(c, "pes-read") / ratio(c, id)]));
      return { label: cs.find((c) => c.labels[id]).labels[id], ours, w, wr };
    });
    const cells = vs.map((v) =>
      `${v.ours === "pes-read" ? "read" : "message"} ÷ ${v.label} ${fx(v.w[1])}× (${v.w[0]})${
        v.ours === "pes-drain" ? `, read ÷ it ${fx(v.wr[1])}× (${v.wr[0]})` : ""
      }`
    );
    const met = geomean(reads) >= goal.geo && Math.min(...reads) >= goal.worst;
    L.push(
      `| ${provider} | ${fx(geomean(reads))} (${fx(Math.min(...reads))}) | ${fx(geomean(drains))} (${fx(Math.min(...drains))}) | ${
        cells.join("; ")
      } | ${met ? "met" : "missed"} | ${vs.every((v) => v.w[1] > 1) ? "met" : "missed"} |`,
    );
  }
  L.push("");
}
L.push(
  "Each peer is compared like for like: the SDK stream helpers (ChatCompletionStream, ResponseStream, MessageStream) hand over their final message and deliver no event through a stream read, so they are set against ProviderEventStream's `message`; the AI SDK's `doStream` parts are each read with `reader.read()`, so it is set against ProviderEventStream read (read ÷ the SDK helper is given too).",
  "",
);
// The relay's CPU per provider event in workerd beside ProviderEventStream alone (issue #39; Node's run only)
const WORKERD = RT === "node" && opt("no-workerd", false) !== true;
if (WORKERD || raw?.relay) {
  const relay = raw?.relay ?? (await (await import("./relay-providers.mjs")).relayProviders({
    rounds: QUICK ? 2 : 5,
    warmup: 1,
    providers,
    kinds: QUICK ? ["chat"] : kinds,
    log: (s) => log(`workerd relay ${s}`),
  }));
  L.push("### The relay in workerd (issue #39: `node bench/relay-providers.mjs`)", "", relay.markdown);
  globalThis.relayFigure = relay;
}
// The encoders of mmsp-streams/encode against their floors (issue #47; Node's run only)
if ((RT === "node" && opt("no-encoders", false) !== true) || raw?.encoders) {
  const enc = raw?.encoders ?? (await (await import("./encoders.mjs")).encoders({
    rounds: QUICK ? 3 : 7,
    warmup: QUICK ? 1 : 2,
    log: (s) => log(`encoders ${s}`),
  }));
  L.push("### The encoders (issue #47: `node --expose-gc bench/encoders.mjs`)", "", enc.markdown, "");
  globalThis.encodersFigure = enc;
}
L.push("Contenders:", "");
for (const [id, k] of legend) L.push(`- ${k.label} (${id.replace(/\/.*/, "")}): ${k.what}`);
L.push("");

const text = L.join("\n");
console.log(text);
mkdirSync(`${ROOT}bench/.cache`, { recursive: true });
const PARTIAL = QUICK || !!opt("only", null) || !!opt("kinds", null);
if (!RENDER) {
  writeFileSync(
    `${ROOT}bench/.cache/providers-${RT}${PARTIAL ? ".partial" : ""}.json`,
    JSON.stringify({ date, node: process.version, seconds, load: [load0, load1], cases, relay: globalThis.relayFigure, encoders: globalThis.encodersFigure }),
  );
}
if (!PARTIAL) {
  const RESULTS = `${ROOT}bench/RESULTS.md`;
  let md = existsSync(RESULTS) ? readFileSync(RESULTS, "utf8") : "# mmsp-streams benchmark results\n";
  const start = `<!-- providers:${RT} -->`;
  const end = `<!-- /providers:${RT} -->`;
  const command = {
    node: "node --expose-gc bench/providers.mjs",
    bun: "npx bun bench/providers.mjs",
    deno: "npx deno run -A --v8-flags=--expose-gc bench/providers.mjs",
  }[RT];
  const block = `${start}\n## Providers: ${VERSION} (issue #27: \`${command}\`)\n\n${text}\n${end}`;
  const i = md.indexOf(start);
  const j = md.indexOf(end);
  md = i !== -1 && j !== -1 ? md.slice(0, i) + block + md.slice(j + end.length) : `${md.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS, md);
  log(`wrote the Providers section (${RT}) of bench/RESULTS.md`);
}
