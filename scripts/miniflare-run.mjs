// Runs the test Worker (test/worker/index.ts, which imports the built dist/, the shared cases and
// examples/worker.ts) in workerd through Miniflare's API: bundles it with esbuild, then checks
// GET /selftest and POST /message (scripts/worker-checks.mjs). Prints "miniflare: N passed, N failed".
import { readFile } from "node:fs/promises";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { checkWorker } from "./worker-checks.mjs";

const t0 = performance.now();
const toml = await readFile("test/worker/wrangler.toml", "utf8");
const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
const out = await build({
  entryPoints: ["test/worker/index.ts"],
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  target: "es2022",
  write: false,
  logLevel: "warning",
});
const mf = new Miniflare({ modules: true, script: out.outputFiles[0].text, compatibilityDate });
let failed = 1;
try {
  const url = await mf.ready;
  const results = await checkWorker((path, init) => mf.dispatchFetch(new URL(path, url), init));
  for (const r of results) console.log(`${r.ok ? "✓" : "✗"} [workerd/miniflare] ${r.name}${r.ok ? "" : "\n" + r.error}`);
  const passed = results.filter((r) => r.ok).length;
  failed = results.length - passed;
  console.log(`miniflare: ${passed} passed, ${failed} failed (${Math.round(performance.now() - t0)} ms)`);
} finally {
  await mf.dispose();
}
// (after stdout has drained: a pipe's writes are asynchronous, and an exit drops what is queued past its
// 64 KiB, the summary line included, as a CI run's wrangler-dev step did)
process.stdout.write("", () => process.exit(failed === 0 ? 0 : 1));
