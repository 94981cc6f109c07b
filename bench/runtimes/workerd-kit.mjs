// What the workerd benchmarks share (bench/runtimes/workerd.mjs, bench/first-stream.mjs): the esbuild
// bundle of a Worker module as wrangler would make it, the compatibility date of the tests' Worker,
// and the CPU time of the workerd processes Miniflare started.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** `entry` (esbuild's `entryPoints` or `stdin` option) bundled into one ES module for workerd: its text. */
export async function bundleForWorkerd(entry) {
  const out = await build({
    ...entry,
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    write: false,
    logLevel: "error",
  });
  return out.outputFiles[0].text;
}

/** The compatibility date of test/worker/wrangler.toml (the Worker the tests run in workerd). */
export const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(readFileSync(fileURLToPath(new URL("../../test/worker/wrangler.toml", import.meta.url)), "utf8"))?.[1];

/** CPU ms of every workerd process that is a descendant of this one (/proc/PID/task/*\/schedstat). */
export function workerdCpuMs() {
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
