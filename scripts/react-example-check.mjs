// examples/react/ in Debian's Chromium (playwright-core): the real React 19, bundled with esbuild
// (production build), renders every sample from useSyncExternalStore(stream.subscribe,
// stream.snapshot) alone — read through UniEventStream in small chunks, and through fromFetch over a
// connection that drops halfway — and each memoized item renders once when done.
// Prints "react-example: N passed, N failed".
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { launchChromium, pageErrors } from "./chromium.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = await build({
  entryPoints: [`${root}examples/react/page.jsx`],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  alias: { "mmsp-streams": `${root}dist/index.js` }, // the built package, as `import "mmsp-streams"` gets it
  minify: true,
  write: false,
  logLevel: "warning",
});
const bundle = out.outputFiles[0].text;
const samples = readdirSync(`${root}samples`).filter((f) => f.endsWith(".sse")).sort();

let passed = 0;
let failed = 0;
const check = (ok, name, detail) => {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "✓" : "✗"} ${name}${ok ? "" : `\n    ${detail}`}`);
};

const browser = await launchChromium();
try {
  const page = await browser.newPage();
  const errors = pageErrors(page);
  await page.setContent("<!doctype html><title>mmsp-streams + React</title><body></body>");
  await page.addScriptTag({ content: bundle });
  console.log(`browser: ${browser.version()}; the page's bundle (React 19 + mmsp-streams, minified): ${Math.round(bundle.length / 1024)} KiB`);
  for (const file of samples) {
    const text = readFileSync(`${root}samples/${file}`, "utf8");
    for (const via of ["stream", "fetch"]) {
      const r = await page.evaluate(([t, v]) => window.check(t, v), [text, via]);
      const name = `${file} via ${via === "fetch" ? "fromFetch (dropped halfway, resumed)" : "UniEventStream (97-byte chunks)"}`;
      const detail = JSON.stringify(r).slice(0, 1500);
      if (r.error !== null) {
        // an in-stream error (error.sse): the items before it stay on the page
        check(file === "error.sse" && r.shown.length === r.snapshotItems, `${name}: the error (${r.error}) and the items before it`, detail);
        continue;
      }
      check(JSON.stringify(r.shown) === JSON.stringify(r.expected), `${name}: the whole message rendered`, detail);
      check(r.usage !== null && /^(stop|length|tool_call|unknown) · \d+ prompt/.test(r.usage), `${name}: usage rendered (${r.usage})`, detail);
      check(r.renders.length === r.expected.length && r.renders.every((x) => x.done === 1), `${name}: every memoized done item rendered once`, detail);
      // (an embedding item is one vector: it shows once partial, then done)
      check(r.renders.some((x) => x.partial > (file === "embeddings.sse" ? 0 : 1)), `${name}: the open item rendered as it grew`, detail);
      if (via === "fetch") check(r.requests === 2, `${name}: the connection dropped once and was resumed`, detail);
    }
  }
  check(errors.length === 0, "no page errors", errors.join("\n    "));
} finally {
  await browser.close();
}
console.log(`react-example: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
