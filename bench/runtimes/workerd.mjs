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
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";

const [planFile, outFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const out = await build({
  entryPoints: [fileURLToPath(new URL("./worker.mjs", import.meta.url))],
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  write: false,
  logLevel: "error",
});
const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(readFileSync(fileURLToPath(new URL("../../test/worker/wrangler.toml", import.meta.url)), "utf8"))?.[1];
const mf = new Miniflare({ modules: true, script: out.outputFiles[0].text, compatibilityDate });

/** CPU ms of every workerd process that is a descendant of this one. */
function workerdCpuMs() {
  const parent = new Map();
  const comm = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      comm.set(pid, stat.slice(stat.indexOf("(") + 1, close));
      parent.set(pid, stat.slice(close + 2).split(" ")[1]);
    } catch {}
  }
  const mine = (pid) => {
    for (let p = pid; p && p !== "0" && p !== "1"; p = parent.get(p)) if (p === String(process.pid)) return true;
    return false;
  };
  let ns = 0;
  for (const [pid, name] of comm) {
    if (!name.startsWith("workerd") || !mine(pid)) continue;
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
      } catch {}
    }
  }
  return ns / 1e6;
}

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
