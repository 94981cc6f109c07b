// Runs the shared cases (test/cases/index.ts) in Debian's Chromium, driven by playwright-core
// (no test runner): bundles them to one script with esbuild and evaluates it in a blank page.
// Prints "chromium: N passed, N failed".
import { build } from "esbuild";
import { launchChromium } from "./chromium.mjs";

const t0 = performance.now();
const out = await build({
  stdin: {
    contents: `import { cases } from "./test/cases/index.ts";
      import { runCases } from "./test/harness.ts";
      export const runAll = () => runCases(cases);`,
    resolveDir: process.cwd(),
    sourcefile: "browser-entry.ts",
    loader: "ts",
  },
  bundle: true,
  format: "iife",
  globalName: "RT",
  platform: "browser",
  target: "es2022",
  write: false,
  logLevel: "warning",
});
const bundle = out.outputFiles[0].text;

const browser = await launchChromium();
let failed = 1;
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => console.error("pageerror:", e));
  const summary = await page.evaluate(`(async () => { ${bundle}\n return { ua: navigator.userAgent, ...(await RT.runAll()) }; })()`);
  console.log(`browser: ${browser.version()} ${summary.ua}`);
  for (const r of summary.results) console.log(`${r.ok ? "✓" : "✗"} [chromium/playwright-core] ${r.name}${r.ok ? "" : "\n" + r.error}`);
  failed = summary.failed;
  console.log(`chromium: ${summary.passed} passed, ${summary.failed} failed (${Math.round(performance.now() - t0)} ms)`);
} finally {
  await browser.close();
}
// (after stdout has drained: a pipe's writes are asynchronous, and an exit drops what is queued past its
// 64 KiB, the summary line included, as a CI run's wrangler-dev step did)
process.stdout.write("", () => process.exit(failed === 0 ? 0 : 1));
