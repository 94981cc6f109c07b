// No import circle inside src/relay/ (type-only imports included), none of value imports anywhere in
// src/ (issue #45). Reads each .ts file's static imports and re-exports (`import … from "./x.js"`,
// `export … from`, `import("./x.js")` in a type), resolves the relative ones, and looks for cycles
// in two graphs: every import of src/relay/, and the value imports (not `import type`, not an import
// whose every name is `type`) of all of src/. Prints each circle found, then "N passed, N failed".
//
// Run: node scripts/import-circles.mjs
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");
const SRC = join(ROOT, "src");

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const STATEMENT = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/g;
const TYPE_IMPORT = /import\(\s*["']([^"']+)["']\s*\)/g;

/** The relative imports of `file`: [target file, whether a value is imported]. */
function importsOf(file) {
  const text = readFileSync(file, "utf8");
  const out = [];
  const add = (spec, value) => {
    if (!spec.startsWith(".")) return;
    const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
    out.push([target.endsWith(".ts") ? target : `${target}.ts`, value]);
  };
  for (const m of text.matchAll(STATEMENT)) {
    const [, , typeOnly, clause, spec] = m;
    // a value import names at least one member without `type` (or is a namespace / default import)
    const names = clause.replace(/^[{\s]+|[}\s]+$/g, "").split(",").map((n) => n.trim()).filter(Boolean);
    const value = !typeOnly && (clause.includes("*") || !clause.startsWith("{") || names.some((n) => !n.startsWith("type ")));
    add(spec, value);
  }
  for (const m of text.matchAll(TYPE_IMPORT)) add(m[1], false);
  return out;
}

/** The circles of a graph (each one once, from its first file in sorted order). */
function circles(graph) {
  const found = new Map();
  const state = new Map(); // 1: on the path, 2: done
  const path = [];
  const visit = (node) => {
    state.set(node, 1);
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 1) {
        const cycle = path.slice(path.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]);
        const key = [...cycle.slice(start), ...cycle.slice(0, start)];
        found.set(key.join(" → "), key);
      } else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 2);
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return [...found.values()];
}

const files = filesUnder(SRC);
const relay = new Map();
const values = new Map();
for (const file of files) {
  const imports = importsOf(file);
  values.set(file, imports.filter(([, value]) => value).map(([target]) => target));
  if (file.startsWith(join(SRC, "relay") + "/")) {
    relay.set(file, imports.map(([target]) => target).filter((t) => t.startsWith(join(SRC, "relay") + "/")));
  }
}

let passed = 0;
let failed = 0;
const name = (f) => relative(ROOT, f);
for (const [what, graph] of [["src/relay/, type-only imports included", relay], ["src/, value imports", values]]) {
  const found = circles(graph);
  if (found.length === 0) {
    passed++;
    console.log(`ok: no import circle in ${what} (${graph.size} files)`);
  } else {
    failed++;
    console.log(`FAIL: ${found.length} import circle(s) in ${what}:`);
    for (const cycle of found) console.log(`  ${[...cycle, cycle[0]].map(name).join(" → ")}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
