// The command line of the bench scripts (run.mjs, regimes.mjs, first-stream.mjs, providers.mjs), written
// once: `--name` / `--name=value` options, and the re-run of a Node script with --expose-gc.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** `opt(name, dflt)` over `argv`: `--name=value` → "value", `--name` alone → true, absent → `dflt`. */
export function options(argv) {
  return (name, dflt) => {
    const a = argv.find((x) => x === `--${name}` || x.startsWith(`--${name}=`));
    if (a === undefined) return dflt;
    return a.includes("=") ? a.slice(a.indexOf("=") + 1) : true;
  };
}

/**
 * In Node without `globalThis.gc`: runs the script at `url` again with --expose-gc (same arguments,
 * same terminal) and exits with its status. A full GC before a timed run, or a memory baseline, needs it.
 */
export function withExposedGc(url, argv) {
  if (globalThis.gc) return;
  const r = spawnSync(process.execPath, ["--expose-gc", fileURLToPath(url), ...argv], { stdio: "inherit" });
  process.exit(r.status ?? 1);
}
