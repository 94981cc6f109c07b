// CI size check: dist/index.js bundled with its dependencies (zod/mini, eventsource-parser),
// minified (esbuild, ESM, platform "neutral"), then gzipped. Fails over the budget.
//
//   node scripts/check-bundle-size.mjs            # needs a built dist/ (npm run build)
//   BUNDLE_BUDGET=20480 node scripts/check-bundle-size.mjs
//
// Prints `bundle: <N> bytes min+gzip (budget <B>)` and a closing `1 passed, 0 failed` or
// `0 passed, 1 failed` line (prefixed `bundle-size: `); exits 1 when over budget or when the bundle cannot be built.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

export const BUDGET = 20 * 1024;
const ENTRY = fileURLToPath(new URL("../dist/index.js", import.meta.url));

/** { minified, gzip, inputs } in bytes for dist/index.js bundled and minified. */
export async function measureBundle(entry = ENTRY) {
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].contents;
  const gzip = gzipSync(code).length; // zlib default level (6), as `gzip` and most servers use
  // bytes each input contributes to the minified output, largest first (for the report)
  const output = Object.values(result.metafile.outputs)[0];
  const inputs = Object.entries(output.inputs)
    .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);
  return { minified: code.length, gzip, inputs };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const budget = Number(process.env.BUNDLE_BUDGET ?? BUDGET);
  let ok = false;
  try {
    const { minified, gzip, inputs } = await measureBundle();
    const byPackage = new Map();
    for (const { path, bytes } of inputs) {
      const m = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
      const key = m ? m[1] : path.startsWith("dist/") ? "dist (mmsp-streams)" : path;
      byPackage.set(key, (byPackage.get(key) ?? 0) + bytes);
    }
    console.log(`minified: ${minified} bytes (${[...byPackage].map(([k, v]) => `${k} ${v}`).join(", ")})`);
    console.log(`bundle: ${gzip} bytes min+gzip (budget ${budget})`);
    ok = gzip <= budget;
    if (!ok) console.log(`FAIL: the bundle is ${gzip - budget} bytes over budget`);
  } catch (e) {
    console.log(`FAIL: ${e.message}`);
  }
  // "<word>: N passed, N failed": the closing-line form scripts/test-all.sh's plain steps parse (as check-web-only.mjs prints)
  console.log(ok ? "bundle-size: 1 passed, 0 failed" : "bundle-size: 0 passed, 1 failed");
  process.exitCode = ok ? 0 : 1;
}
