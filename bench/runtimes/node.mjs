// Node runner: `node --expose-gc bench/runtimes/node.mjs PLAN.json OUT.json` (bench/runtimes.mjs starts it).
import { readFileSync, writeFileSync } from "node:fs";
import { bench } from "../core/entry.mjs";

const [planFile, outFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const result = await bench({
  plan,
  getCorpus: (name, format) => ({ name, format, bytes: new Uint8Array(readFileSync(plan.corpora[`${name}/${format}`].path)), ...plan.corpora[`${name}/${format}`] }),
  cpu: () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  },
  gc: globalThis.gc,
  log: (s) => console.error(`[node] ${s}`),
});
writeFileSync(outFile, JSON.stringify({ runtime: "node", version: `Node ${process.version}`, timer: "performance.now(); CPU from process.cpuUsage()", ...result }));
