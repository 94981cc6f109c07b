// Benchmark: streaming tool-call arguments one character at a time, reading the partial value
// after every fragment. Compares PartialJsonParser (incremental, should be linear) with the npm
// package `partial-json` (re-parses the whole prefix each time, so quadratic).
//
//   npm run build && node bench/partial-json.mjs
//   PJ_MODULE=/tmp/pj.js node bench/partial-json.mjs     # any module exporting PartialJsonParser
//
// Env: PJ_MODULE (module path/URL), PJ_CAP_MS (time cap per partial-json run, default 10000).
// PartialJsonParser times are the best of 7 interleaved rounds (100 KiB: ten back-to-back parses per round); the size
// ratio is computed from process CPU time, which is less disturbed by other jobs on a shared machine.
import { pathToFileURL } from "node:url";
import { parse as partialParse } from "partial-json";
import { rng } from "./core/harness.mjs";

const spec = process.env.PJ_MODULE;
const moduleUrl = spec
  ? /^[a-z]+:/i.test(spec) ? spec : pathToFileURL(spec).href
  : new URL("../dist/index.js", import.meta.url).href;
const { PartialJsonParser } = await import(moduleUrl);
const CAP_MS = Number(process.env.PJ_CAP_MS ?? 10000);

const WORDS = ["alpha", "beta", "gamma", "delta", "café", "naïve", "😀", "line\nbreak", "tab\tbed", 'quote"d', "back\\slash", "𝄞"];

/** Tool-call arguments of about `bytes` JSON characters: nested arrays, strings, numbers, one long text. */
function makeArgs(bytes, seed = 1) {
  const r = rng(seed);
  const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");
  const args = { path: "src/example.ts", mode: "overwrite", items: [], content: "" };
  let size = JSON.stringify(args).length;
  // ~30% of the size is one long string (file contents written by a tool call).
  args.content = words(Math.floor((bytes * 0.3) / 6));
  size = JSON.stringify(args).length;
  for (let id = 0; size < bytes; id++) {
    const item = {
      id,
      title: words(1 + Math.floor(r() * 6)),
      score: Math.round(r() * 1e6) / 100,
      ratio: r() * 2 - 1,
      big: Math.floor(r() * 1e15),
      flags: [r() < 0.5, null, r() < 0.2],
      tags: Array.from({ length: Math.floor(r() * 4) }, () => words(1)),
      nested: { matrix: [[1, 2.5e-3, -3], [4e10, 5, 6]], note: words(3) },
    };
    args.items.push(item);
    size += JSON.stringify(item).length + 1;
  }
  return JSON.stringify(args);
}

function runOurs(text, runs) {
  let best;
  for (let k = 0; k < runs; k++) {
    const r = runOursOnce(text);
    if (!best || r.cpuMs < best.cpuMs) best = { ...r, ms: Math.min(r.ms, best?.ms ?? Infinity) };
    else best.ms = Math.min(best.ms, r.ms);
  }
  return best;
}

function runOursOnce(text) {
  const p = new PartialJsonParser();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < text.length; i++) {
    p.push(text[i]);
    p.value;
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000;
  if (!p.done || JSON.stringify(p.value) !== JSON.stringify(JSON.parse(text))) throw new Error("PartialJsonParser: wrong result");
  return { ms, cpuMs, fragments: text.length, capped: false };
}

function runPartialJson(text, capMs) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let prefix = "";
  let i = 0;
  let last;
  for (; i < text.length; i++) {
    prefix += text[i];
    try {
      last = partialParse(prefix);
    } catch {
      // partial-json throws on some prefixes (e.g. a lone "-"); keep the previous value
    }
    if ((i & 63) === 0 && performance.now() - t0 > capMs) break;
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpuMs = (c.user + c.system) / 1000;
  const capped = i < text.length;
  if (!capped && JSON.stringify(last) !== JSON.stringify(JSON.parse(text))) throw new Error("partial-json: wrong result");
  return { ms, cpuMs, fragments: capped ? i + 1 : text.length, capped };
}

const KiB = 1024;
const fmtSize = (n) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(2)} MiB` : `${(n / 1024).toFixed(0)} KiB`);
const rows = [];
const row = (name, text, r) => {
  rows.push(`| ${name} | ${fmtSize(text.length)} | ${r.fragments.toLocaleString("en-US")}${r.capped ? ` of ${text.length.toLocaleString("en-US")} (capped)` : ""} | ${r.ms.toFixed(0)} | ${r.cpuMs.toFixed(0)} | ${((r.ms * 1000) / r.fragments).toFixed(3)} |`);
  return r;
};

// Warm up the JIT on a small input.
runOurs(makeArgs(50 * KiB, 7), 3);
runPartialJson(makeArgs(2 * KiB, 7), CAP_MS);

const small = makeArgs(100 * KiB);
const large = makeArgs(1024 * KiB);
// Interleaved (small, large, small, large…) so that a change of machine load hits both sizes, and the
// best of each kept. The 100 KiB time is taken in steady state: ten parses back to back, divided by
// ten. (A lone 100 KiB parse fits in V8's young generation and is never charged for its garbage,
// which would make any linear parser look 20–30 % superlinear at 1 MiB.)
let bestSmall;
let bestLarge;
for (let k = 0; k < 7; k++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let s;
  for (let j = 0; j < 10; j++) s = runOursOnce(small);
  const c = process.cpuUsage(c0);
  s = { ...s, ms: (performance.now() - t0) / 10, cpuMs: (c.user + c.system) / 1000 / 10 };
  const l = runOurs(large, 1);
  if (!bestSmall || s.cpuMs < bestSmall.cpuMs) bestSmall = s;
  if (!bestLarge || l.cpuMs < bestLarge.cpuMs) bestLarge = l;
}
const ours100 = row("PartialJsonParser", small, bestSmall);
const ours1m = row("PartialJsonParser", large, bestLarge);

const pj10 = makeArgs(10 * KiB);
const pjSmall = row("partial-json 0.1.7", pj10, runPartialJson(pj10, CAP_MS));
const pjLarge = row("partial-json 0.1.7", small, runPartialJson(small, CAP_MS));

console.log("Streaming tool-call arguments 1 UTF-16 unit per fragment, reading the value after each fragment.\n");
console.log("| parser | input | fragments | wall ms | CPU ms | µs / fragment (wall) |");
console.log("|---|---|---:|---:|---:|---:|");
for (const r of rows) console.log(r);
const ratio = ours1m.cpuMs / ours100.cpuMs;
const wallRatio = ours1m.ms / ours100.ms;
const sizeRatio = large.length / small.length;
console.log(`\nPartialJsonParser: ${fmtSize(large.length)} / ${fmtSize(small.length)} CPU-time ratio = ${ratio.toFixed(2)}× ` +
  `(wall ${wallRatio.toFixed(2)}×) for ${sizeRatio.toFixed(2)}× the input (goal ≤ 12×): ${ratio <= 12 ? "OK" : "FAIL"}`);
const pjGrowth = (pjLarge.ms / pjLarge.fragments) / (pjSmall.ms / pjSmall.fragments);
console.log(`partial-json re-parses the prefix for every fragment: µs per fragment grows ${pjGrowth.toFixed(1)}× ` +
  `from ${fmtSize(pj10.length)} to ${fmtSize(small.length)}` +
  (pjSmall.capped || pjLarge.capped ? ` (capped runs average only over the fragments reached in ${CAP_MS} ms).` : "."));
if (ratio > 12) process.exitCode = 1;
