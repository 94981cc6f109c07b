// Every ```ts / ```tsx block of the README (and of docs/**/*.md) type-checked against the built package
// as a user compiles it: `strict`, once with moduleResolution "bundler" and once with "node16" (the two
// the README names), the package reached by its name through package.json's exports (dist/*.d.ts).
//
// A block that needs context says so in its first lines, in comments this check reads:
//   // given: model, messages, render      names the README assumes (their types: snippets/given.d.ts)
//   // in: an async function                the block is a function's body (it may `return`)
//   // runtime: deno                        checked by `deno check` instead (npm:mmsp-streams → src/)
// Nothing is skipped silently: a block this check cannot take fails with the reason.
//
//   node scripts/check-snippets.mjs [file.md …]     # prints "snippets: N passed, N failed"
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, ".ci-out/snippets");
const GIVEN = readFileSync(join(ROOT, "scripts/snippets/given.d.ts"), "utf8");

/** The markdown files checked: the arguments, else README.md and every page under docs/ (not its build). */
function files() {
  if (process.argv.length > 2) return process.argv.slice(2).map((f) => join(process.cwd(), f));
  const out = [join(ROOT, "README.md")];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name.startsWith(".") || e.name === "node_modules" || e.name === "dist" || e.name === "api") continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.mdx?$/.test(e.name)) out.push(p);
    }
  };
  if (existsSync(join(ROOT, "docs"))) walk(join(ROOT, "docs"));
  return out;
}

/** The ts/tsx blocks of one markdown file, with their line and their markers. */
function blocks(file) {
  const lines = readFileSync(file, "utf8").split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|tsx|typescript)\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(indent));
    const code = body.join("\n");
    const marker = (name) => new RegExp(`^//\\s*${name}:\\s*(.+)$`, "m").exec(code.split("\n").slice(0, 4).join("\n"))?.[1].trim();
    out.push({
      file,
      line: i + 1,
      lang: open[2] === "tsx" ? "tsx" : "ts",
      code,
      given: (marker("given") ?? "").split(",").map((s) => s.trim()).filter(Boolean),
      inside: marker("in"),
      runtime: marker("runtime") ?? "web",
    });
    i = j;
  }
  return out;
}

/** The declarations of the given names, taken from given.d.ts (a name it does not declare fails the block). */
function declarations(names) {
  const decls = [];
  for (const name of names) {
    const m = new RegExp(`^declare (?:const|function|let) ${name}\\b.*$`, "m").exec(GIVEN);
    if (!m) throw new Error(`"// given: ${name}": scripts/snippets/given.d.ts declares no ${name}`);
    decls.push(m[0]);
  }
  return decls;
}

/** The checked file's text: the imports kept on top, the givens declared, the body wrapped when it is a function's. */
function source(block) {
  const lines = block.code.split("\n");
  const imports = [];
  const rest = [];
  for (const line of lines) (/^import\s/.test(line) ? imports : rest).push(line); // (a block's imports start their lines)
  const head = [`import type {} from "mmsp-streams"; // (each file a module)`];
  const body = block.inside ? [`export async function __snippet(): Promise<unknown> {`, ...rest, `}`] : rest;
  return [...head, ...imports, ...declarations(block.given), ...body, ""].join("\n");
}

function tsc(dir, resolution) {
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: resolution === "bundler" ? "ESNext" : "Node16",
      moduleResolution: resolution === "bundler" ? "Bundler" : "Node16",
      lib: ["ES2022", "DOM", "DOM.Iterable", "DOM.AsyncIterable"], // (`for await` over a ReadableStream)
      jsx: "react-jsx",
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
    },
    include: ["*.ts", "*.tsx"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config, null, 2));
  const r = spawnSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", dir], { encoding: "utf8" });
  return `${r.stdout}${r.stderr}`;
}

rmSync(OUT, { recursive: true, force: true });
const results = [];
const all = files().flatMap(blocks);
const web = [];
for (const [n, block] of all.entries()) {
  const where = `${relative(ROOT, block.file)}:${block.line}`;
  block.where = where;
  block.name = `b${String(n).padStart(3, "0")}`;
  try {
    block.text = source(block);
  } catch (e) {
    results.push({ where, ok: false, why: e.message });
    continue;
  }
  if (block.runtime === "web") web.push(block);
  else if (block.runtime === "deno") results.push(denoCheck(block));
  else results.push({ where, ok: false, why: `"// runtime: ${block.runtime}": this check knows "deno" only` });
}

// one program per resolution (the package self-referenced from a folder inside the repository, as
// an installed dependency resolves: package.json "exports" → dist/*.d.ts)
for (const resolution of ["bundler", "node16"]) {
  const dir = join(OUT, resolution);
  mkdirSync(dir, { recursive: true });
  for (const b of web) writeFileSync(join(dir, `${b.name}.${b.lang}`), b.text);
  const out = tsc(dir, resolution);
  for (const b of web) {
    const errors = out.split("\n").filter((l) => l.startsWith(`${b.name}.${b.lang}(`) || l.includes(`/${b.name}.${b.lang}(`));
    results.push({ where: `${b.where} (${resolution})`, ok: errors.length === 0, why: errors.join("\n") });
  }
}

/** A Deno block: `deno check` with npm:mmsp-streams mapped to the package's source (its JSR form). */
function denoCheck(block) {
  const dir = join(OUT, "deno");
  mkdirSync(dir, { recursive: true });
  const map = {};
  const jsr = JSON.parse(readFileSync(join(ROOT, "jsr.json"), "utf8"));
  for (const [sub, path] of Object.entries(jsr.exports)) {
    const name = sub === "." ? "mmsp-streams" : `mmsp-streams/${sub.slice(2)}`;
    map[`npm:${name}`] = map[name] = relative(dir, join(ROOT, path)).replaceAll("\\", "/");
  }
  // (JSR is out of reach here: @std/assert's two functions the README uses, typed by a local stand-in)
  map["jsr:@std/assert"] = relative(dir, join(ROOT, "scripts/snippets/std-assert.ts"));
  // (sloppy imports: src/ names its modules `.js`, as JSR publishing accepts)
  const config = { imports: { ...map, "zod/mini": "npm:zod@4/mini", zod: "npm:zod@4" }, unstable: ["sloppy-imports"] };
  writeFileSync(join(dir, "deno.json"), JSON.stringify(config, null, 2));
  const file = join(dir, `${block.name}.ts`);
  writeFileSync(file, block.text);
  const r = spawnSync(join(ROOT, "node_modules/.bin/deno"), ["check", "--quiet", "--config", join(dir, "deno.json"), file], {
    encoding: "utf8",
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  return { where: `${block.where} (deno)`, ok: r.status === 0, why: `${r.stdout}${r.stderr}`.trim() };
}

for (const r of results) {
  console.log(`${r.ok ? "✓" : "✗"} [snippet] ${r.where}${r.ok ? "" : `\n  ${r.why.replaceAll("\n", "\n  ")}`}`);
}
const failed = results.filter((r) => !r.ok).length;
console.log(`snippets: ${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
