// workerd runner: bundles bench/runtimes/worker.mjs with esbuild, runs it in workerd through
// Miniflare, and sends one request per corpus and format (the corpus's bytes as the body); the
// Worker runs that corpus's cases and answers with JSON.
//   node bench/runtimes/workerd.mjs PLAN.json OUT.json
//
// Clocks: inside workerd, `performance.now()` and `Date.now()` advance during a request here
// (local workerd does not freeze them as the production edge does between I/O), but only in whole
// milliseconds, so runs are timed inside the Worker over whole-corpus reads (tens to hundreds of
// ms). As a check of those figures, this runner also reads the CPU time of the workerd process
// (/proc/PID/task/*/schedstat, ns) around every request and reports it next to the sum of the
// Worker's own timings.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { bundleForWorkerd, compatibilityDate, workerdCpuMs } from "./workerd-kit.mjs";

const [planFile, outFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const script = await bundleForWorkerd({ entryPoints: [fileURLToPath(new URL("./worker.mjs", import.meta.url))] });
const mf = new Miniflare({ modules: true, script, compatibilityDate });

try {
  const url = await mf.ready;
  const groups = new Map();
  for (const cs of plan.cases) {
    const key = `${cs.name}/${cs.format}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(cs);
  }
  const cases = [];
  let contenders, missing;
  const cpuCheck = { workerdMs: 0, timedMs: 0 };
  for (const [key, list] of groups) {
    const sub = { ...plan, cases: list, readCost: false, corpora: { [key]: plan.corpora[key] } };
    const c0 = workerdCpuMs();
    const res = await mf.dispatchFetch(new URL("/run", url), { method: "POST", headers: { "x-plan": JSON.stringify(sub) }, body: readFileSync(plan.corpora[key].path) });
    const c1 = workerdCpuMs();
    if (!res.ok) throw new Error(`workerd ${key}: ${res.status} ${await res.text()}`);
    const r = await res.json();
    for (const line of r.log) console.error(`[workerd] ${line}`);
    cases.push(...r.cases);
    ({ contenders, missing } = r);
    cpuCheck.workerdMs += c1 - c0;
    for (const cs of r.cases) for (const s of Object.values(cs.stats)) cpuCheck.timedMs += s.warmMs + (s.single ? 0 : s.ms.reduce((a, b) => a + b, 0));
  }
  const readCost = await (await mf.dispatchFetch(new URL("/read-cost", url))).json();
  writeFileSync(
    outFile,
    JSON.stringify({
      runtime: "workerd",
      version: `workerd (miniflare ${JSON.parse(readFileSync(fileURLToPath(new URL("../../node_modules/miniflare/package.json", import.meta.url)), "utf8")).version}, compatibility_date ${compatibilityDate})`,
      timer: "performance.now() inside the Worker (advances during a request here, whole ms only); no GC between runs; µs/event from wall time of CPU-bound runs",
      cpuCheck,
      cases,
      contenders,
      missing,
      readCost,
    }),
  );
} finally {
  await mf.dispose();
}
