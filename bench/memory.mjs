// Peak memory of one contender reading one corpus, in a process of its own (run by bench/run.mjs):
//
//   node --expose-gc bench/memory.mjs <corpus> <format> <contender> [lo-hi chunk bytes] [--no-retained]
//
// The corpus is read from bench/.cache/ (generated there by run.mjs before: generating it here
// would leave freed pages in this process's RSS and hide the reader's growth), cut into views, and
// everything is garbage-collected before the baseline. Two passes, one JSON line out:
//   peak      process.memoryUsage() sampled before every chunk handed to the reader and on every
//             event it yields: max RSS and max heapUsed+external above the baseline. This counts
//             garbage not yet collected (young-generation space included), i.e. what the OS sees.
//   retained  a second pass that forces a full GC 20 times along the input and measures
//             heapUsed+external right after: what the reader really holds (no garbage).
import { loadCorpus, chunk, chunkSeed, CACHE_DIR } from "./corpora.mjs";
import { contender } from "./contenders.mjs";
import { existsSync } from "node:fs";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const RETAINED = !process.argv.includes("--no-retained");
const [name, format, id, range = "1024-16384"] = args;
if (!globalThis.gc) throw new Error("run with --expose-gc");
if (!existsSync(CACHE_DIR)) throw new Error("no corpus cache: run bench/run.mjs (or node bench/corpora.mjs) first");
const [lo, hi] = range.split("-").map(Number);
const corpus = loadCorpus(name, format, { write: false });
const chunks = chunk(corpus.bytes, lo, hi, chunkSeed(name, lo < 1024 ? "live" : "wide"));
const c = contender(id);
const MB = 1e6;

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 5));
  }
};
const sample = () => process.memoryUsage();

// ---- pass 1: sampled peaks ---------------------------------------------------------------------
await settle();
const base = sample();
let peakRss = base.rss;
let peakHeap = base.heapUsed + base.external;
const onSample = () => {
  const m = sample();
  if (m.rss > peakRss) peakRss = m.rss;
  const h = m.heapUsed + m.external;
  if (h > peakHeap) peakHeap = h;
};
// also every 1 ms, for the stretches where neither a pull nor an event happens (one long record)
const timer = setInterval(onSample, 1);
const t0 = performance.now();
const seen = await c.run(chunks, format, { onPull: onSample, onEvent: onSample });
const ms = performance.now() - t0;
clearInterval(timer);
onSample();
if ((seen.events ?? corpus.events) !== corpus.events || (seen.groups ?? corpus.groups) !== corpus.groups) {
  throw new Error(`${id} read ${JSON.stringify(seen)} of ${corpus.events} events / ${corpus.groups} groups`);
}

// ---- pass 2: retained (forced GC at 20 points along the input) ---------------------------------
if (RETAINED) await settle();
const base2 = sample();
let retained = 0;
const every = Math.max(1, Math.ceil(chunks.length / 20));
let pulls = 0;
const onPull = () => {
  if (++pulls % every !== 0) return;
  globalThis.gc();
  const m = sample();
  retained = Math.max(retained, m.heapUsed + m.external - (base2.heapUsed + base2.external));
};
if (RETAINED) await c.run(chunks, format, { onPull });

console.log(
  JSON.stringify({
    corpus: name,
    format,
    contender: id,
    bytes: corpus.bytes.length,
    ms: Math.round(ms),
    rssMB: +((peakRss - base.rss) / MB).toFixed(1),
    heapMB: +((peakHeap - base.heapUsed - base.external) / MB).toFixed(1),
    retainedMB: RETAINED ? +(retained / MB).toFixed(1) : null,
    baseRssMB: +(base.rss / MB).toFixed(1),
  }),
);
