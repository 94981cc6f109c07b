// Bun runner: `npx bun bench/runtimes/bun.mjs PLAN.json OUT.json`.
import { bench } from "../core/entry.mjs";

const [planFile, outFile] = Bun.argv.slice(2);
const plan = JSON.parse(await Bun.file(planFile).text());
const result = await bench({
  plan,
  getCorpus: async (name, format) => ({ name, format, bytes: new Uint8Array(await Bun.file(plan.corpora[`${name}/${format}`].path).arrayBuffer()), ...plan.corpora[`${name}/${format}`] }),
  cpu: () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  },
  gc: () => Bun.gc(true),
  log: (s) => console.error(`[bun] ${s}`),
});
await Bun.write(outFile, JSON.stringify({ runtime: "bun", version: `Bun ${Bun.version} (JavaScriptCore)`, timer: "performance.now(); CPU from process.cpuUsage()", ...result }));
