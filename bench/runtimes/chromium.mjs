// Chromium runner: bundles bench/runtimes/browser-page.mjs with esbuild, serves it and the corpora
// from 127.0.0.1, and runs the core in Debian's Chromium through playwright-core.
//   node bench/runtimes/chromium.mjs PLAN.json OUT.json
import { createServer } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../../scripts/chromium.mjs";

const [planFile, outFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, "utf8"));
const out = await build({
  entryPoints: [fileURLToPath(new URL("./browser-page.mjs", import.meta.url))],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  write: false,
  logLevel: "error",
});
const script = out.outputFiles[0].text;
const server = createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  if (url.pathname === "/") {
    res.writeHead(200, { "content-type": "text/html" }).end('<!doctype html><meta charset="utf-8"><script type="module" src="/bench.js"></script>');
  } else if (url.pathname === "/bench.js") {
    res.writeHead(200, { "content-type": "text/javascript" }).end(script);
  } else if (url.pathname.startsWith("/corpus/")) {
    const [name, format] = url.pathname.slice(8).split(".");
    const meta = plan.corpora[`${name}/${format}`];
    if (!meta) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/octet-stream" }).end(readFileSync(meta.path));
  } else res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  headless: true,
  args: [...CHROMIUM_ARGS, "--js-flags=--expose-gc"],
});
try {
  const page = await browser.newPage();
  page.on("console", (m) => console.error(m.text()));
  page.on("pageerror", (e) => console.error("pageerror:", e));
  await page.goto(base);
  await page.waitForFunction(() => !!globalThis.BENCH);
  const result = await page.evaluate((p) => globalThis.BENCH.run(p), plan);
  writeFileSync(outFile, JSON.stringify({ runtime: "chromium", version: `Chromium ${browser.version()}`, timer: "performance.now() in the page (coarsened to 0.1 ms); no CPU clock: µs/event from wall time of CPU-bound runs", ...result }));
} finally {
  await browser.close();
  server.close();
}
