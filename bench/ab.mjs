// A/B of two builds of the package, interleaved in one process (for the before/after figure of a
// performance change): node bench/ab.mjs DIST_A/index.js DIST_B/index.js [--rounds=7] [--only=chat,tools] [--gc=off] [--warmup=1]
// --gc=on (default): a full GC before every run (optimized code that relied on objects the GC collected is dropped: the cold regime of issue #30);
// --gc=off: no forced GC, after --warmup runs each (the steady regime; give it a few, e.g. --warmup=3).
// Also runs under Deno and Bun (node:fs is the one non-web API): npx deno run -A bench/ab.mjs …
// Prints, per case and contender, median CPU time (wall where there is no CPU clock) A / time B (> 1: B is faster) and the geomean.
import { readFileSync } from "node:fs";
import { makeContenders } from "./core/contenders.mjs";
import { chunk, median } from "./core/harness.mjs";

const argv = globalThis.Deno?.args ?? globalThis.Bun?.argv.slice(2) ?? process.argv.slice(2);
const [a, b] = argv.filter((x) => !x.startsWith("--"));
const opt = (n, d) => argv.find((x) => x.startsWith(`--${n}=`))?.split("=")[1] ?? d;
const rounds = Number(opt("rounds", 7));
const names = opt("only", "chat,tools,mixed").split(",");
const gcMode = opt("gc", "on");
if (gcMode !== "on" && gcMode !== "off") throw new Error(`--gc=${gcMode}: on or off`);
const warmup = Number(opt("warmup", 1));
const abs = (p) => new URL(p, `file://${globalThis.Deno ? Deno.cwd() : process.cwd()}/`).href;
const [libA, libB] = [await import(abs(a)), await import(abs(b))];
const pick = (lib, tag) => makeContenders(lib).filter((k) => k.id === "ues-read" || k.id === "ues-drain").map((k) => ({ ...k, tag }));
const ks = [...pick(libA, "A"), ...pick(libB, "B")];
// CPU time of this process where the runtime tells it (less disturbed by other work on the machine).
const cpuUsage = globalThis.process?.cpuUsage;
const now = cpuUsage ? () => { const u = cpuUsage(); return (u.user + u.system) / 1000; } : () => performance.now();
const gc = gcMode === "off" ? () => {} : globalThis.gc ?? (globalThis.Bun ? () => Bun.gc(true) : null);
if (!gc) throw new Error("--gc=on needs a GC call: node --expose-gc, deno run --v8-flags=--expose-gc (or pass --gc=off)");
console.log(`regime: ${gcMode === "off" ? `steady (no forced GC, ${warmup} warm-up run(s) each)` : "gc (a full GC before every run)"}, ${rounds} rounds`);
const ratios = [];
for (const name of names) {
  for (const format of ["sse", "ndjson"]) {
    const dir = new URL("./.cache/", import.meta.url);
    const file = (await import("node:fs")).readdirSync(dir).find((f) => f.startsWith(`${name}.v`) && f.endsWith(`.${format}`));
    const meta = JSON.parse(readFileSync(new URL(`${file}.json`, dir), "utf8"));
    const chunks = chunk(new Uint8Array(readFileSync(new URL(file, dir))), "wide", name);
    const times = new Map(ks.map((k) => [k, []]));
    for (let i = 0; i < warmup; i++) for (const k of ks) await k.run(chunks, format);
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j < ks.length; j++) {
        const k = ks[(j + r) % ks.length];
        gc();
        const t0 = now();
        const seen = await k.run(chunks, format);
        times.get(k).push(now() - t0);
        if ((seen.events ?? meta.events) !== meta.events) throw new Error("count");
      }
    }
    for (const id of ["ues-read", "ues-drain"]) {
      const ta = times.get(ks.find((k) => k.id === id && k.tag === "A"));
      const tb = times.get(ks.find((k) => k.id === id && k.tag === "B"));
      const r = median(ta.map((t, i) => t / tb[i]));
      ratios.push(r);
      console.log(`${name}/${format} ${id}: A ${median(ta).toFixed(1)} ms, B ${median(tb).toFixed(1)} ms, A/B ${r.toFixed(3)}`);
    }
  }
}
console.log(`geomean A/B ${Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length).toFixed(3)} (> 1: B faster)`);
