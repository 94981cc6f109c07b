// Deno runner: `npx deno run -A --v8-flags=--expose-gc bench/runtimes/deno.mjs PLAN.json OUT.json`.
// Bare specifiers (the peers) resolve from the project's node_modules (Deno reads package.json).
import { bench } from "../core/entry.mjs";

const [planFile, outFile] = Deno.args;
const plan = JSON.parse(await Deno.readTextFile(planFile));
const cpuUsage = (await import("node:process")).default.cpuUsage;
const result = await bench({
  plan,
  getCorpus: async (name, format) => ({ name, format, bytes: await Deno.readFile(plan.corpora[`${name}/${format}`].path), ...plan.corpora[`${name}/${format}`] }),
  cpu: () => {
    const u = cpuUsage();
    return (u.user + u.system) / 1000;
  },
  gc: globalThis.gc,
  log: (s) => console.error(`[deno] ${s}`),
});
await Deno.writeTextFile(outFile, JSON.stringify({ runtime: "deno", version: `Deno ${Deno.version.deno} (V8 ${Deno.version.v8})`, timer: "performance.now(); CPU from node:process cpuUsage()", ...result }));
