// Before/after of two builds on the providers' corpora, interleaved in one process (order swapped
// each round, CPU time): `node --expose-gc bench/providers/ab.mjs OLD/dist NEW/dist [--rounds=N]
// [--mode=read|drain] [--gc=on|off] [--warmup=N] [--only=anthropic/chat,openai-chat/thinking]`. Prints
// NEW ÷ OLD speed (median of per-round ratios; above 1: NEW is faster) per corpus and its geomean.
// `--gc=on` (default): a full GC before each run (the cold regime); `--gc=off`: the steady regime
// (`--warmup` runs of each first, no forced GC). Put OLD under bench/.cache/ so that it resolves the
// package's dependencies.
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { chunk, median } from "../core/harness.mjs";
import { replay } from "../core/contenders.mjs";
import { KINDS, PROVIDER_NAMES, providerCorpus } from "./corpora.mjs";

const args = process.argv.slice(2);
const [oldDir, newDir] = args.filter((a) => !a.startsWith("--"));
const opt = (name, dflt) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const rounds = Number(opt("rounds", 7));
const mode = opt("mode", "drain");
const only = opt("only", null)?.split(",");
const gcOn = opt("gc", "on") !== "off";
const warmup = Number(opt("warmup", gcOn ? 1 : 3));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const load = async (dir) => (await import(pathToFileURL(resolve(dir, "providers/index.js")).href)).ProviderEventStream;
const builds = [await load(oldDir), await load(newDir)];
const run = async (Stream, provider, chunks) => {
  const s = new Stream(provider);
  if (mode === "read") {
    const r = replay(chunks).pipeThrough(s).getReader();
    for (;;) if ((await r.read()).done) break;
  } else replay(chunks).pipeThrough(s);
  return (await s.message).content_items.length;
};
const ratios = [];
for (const provider of PROVIDER_NAMES) {
  for (const kind of KINDS) {
    if (only && !only.includes(`${provider}/${kind}`)) continue;
    const c = providerCorpus(provider, kind);
    const chunks = chunk(c.bytes, "wide", c.name);
    for (let w = 0; w < warmup; w++) for (const B of builds) await run(B, provider, chunks);
    const rs = [];
    for (let r = 0; r < rounds; r++) {
      const ms = [0, 0];
      for (const i of r % 2 ? [1, 0] : [0, 1]) {
        if (gcOn) globalThis.gc?.();
        const t = cpu();
        await run(builds[i], provider, chunks);
        ms[i] = cpu() - t;
      }
      rs.push(ms[0] / ms[1]);
    }
    ratios.push(median(rs));
    console.log(`${c.name} (${mode}, gc ${gcOn ? "on" : "off"}): new ÷ old speed ${median(rs).toFixed(3)} (rounds ${rs.map((x) => x.toFixed(2)).join(" ")})`);
  }
}
console.log(`geomean ${Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length).toFixed(3)}`);
