// TSDoc on every export (issue #13): `deno doc --lint` over each entry the package publishes, counting
// its `missing-jsdoc` findings per entry. (Its `private-type-ref` findings are left out: they name zod's
// own types and the shared stream shell, which a reader of the docs does not need to see.)
// Closing line: `doc-lint: N passed, N failed` (an entry passes with no symbol missing its docs).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRIES = ["src/index.ts", "src/sse.ts", "src/ndjson.ts", "src/encode.ts", "src/partial-json.ts", "src/ai-sdk/index.ts", "src/relay/index.ts", "src/providers/index.ts", "src/testing/index.ts"];

let passed = 0, failed = 0;
for (const entry of ENTRIES) {
  const r = spawnSync("npx", ["deno", "doc", "--lint", entry], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const out = `${r.stdout}\n${r.stderr}`;
  const missing = [...out.matchAll(/missing-jsdoc[^\n]*\n\s*--> ([^\n]+)/g)].map((m) => m[1].replace(ROOT, ""));
  if (r.error || (r.status !== 0 && !/error\[[a-z-]+\]/.test(out))) {
    console.log(`✗ ${entry}: deno doc did not run: ${r.error?.message ?? out.slice(0, 300)}`);
    failed++;
  } else if (missing.length > 0) {
    console.log(`✗ ${entry}: ${missing.length} exported symbol(s) without TSDoc:\n    ${missing.join("\n    ")}`);
    failed++;
  } else {
    console.log(`✓ ${entry}: every exported symbol documented`);
    passed++;
  }
}
console.log(`doc-lint: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
