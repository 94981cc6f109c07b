// A mutation run over src/relay/ (issue #44, "Tests that see the money"): small plausible bugs
// planted one at a time, each run against the suites that cover the relay; a mutant some test
// notices is killed, one every test passes survived. Not in CI (minutes per dozen mutants).
//
//   npm run mutate -- [--files quota.ts,ledger.ts] [--sample 60 --seed 7] [--suites unit,relay-pool]
//                     [--max-minutes 35] [--timeout-s 240] [--list] [--json out.json] [--match "ledger.ts:147 "]
//
// Why not Stryker: both suites import src/ (vitest transforms it, no build), and the relay-pool
// suite runs in workerd (vitest-pool-workers), where Stryker's vitest runner cannot switch its
// mutants (it sets the active mutant in the Node process and injects a setup file into Node test
// workers; the Worker's isolate sees neither). So each mutant is written into its file in place,
// the suites run, and the file is put back (also on Ctrl-C): no rebuild, since no test reads dist/.
//
// Mutants, from the TypeScript syntax tree (never inside strings, comments or types):
//   relational   <  <=  >  >=  flipped to their neighbour (< to <=, <= to <, > to >=, >= to >)
//   equality     === to !==, !== to ===
//   logical      && to ||, || to &&
//   boolean      true to false, false to true
//   number       n to n + 1, to n - 1 (n > 1), to 0 (n > 0)
//   if           its condition negated: if (c) to if (!(c))
//   return       `return e;` removed (the function goes on, or returns undefined)
//   call         a call statement removed (`f(x);`, `await f(x);`, `void f(x);`), but console.* (logs only)
//
// Each mutant runs the `unit` project's tests that import src/relay/ first, then (if it survived
// them) the relay-pool tests mapped to its file (RELAY_POOL_TESTS below; others: all of them), each
// with --bail 1. Outcomes: killed (a test failed), timeout (the suite ran past --timeout-s: counted
// as detected, as Stryker does), survived, compile error (the mutant is not valid syntax: listed
// apart, not counted). Score = (killed + timeout) / (killed + timeout + survived). A file under the
// run is restored from its copy after every mutant; `git diff src/relay` after a run shows nothing.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const ROOT = new URL("..", import.meta.url).pathname;
const RELAY = join(ROOT, "src/relay");

// ---- options
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? fallback : args[i + 1];
};
const flag = (name) => args.includes(`--${name}`);
const relayFiles = readdirSync(RELAY, { recursive: true }).filter((f) => f.endsWith(".ts"));
// (a file of src/relay/ by its path there, or by its name alone: quota.ts is accounting/quota.ts)
const relayPath = (f) => `src/relay/${f.includes("/") ? f : relayFiles.find((r) => r.split("/").pop() === f) ?? f}`;
const files = (opt("files", "") || relayFiles.join(","))
  .split(",").map((f) => f.trim()).filter(Boolean).map((f) => (f.startsWith("src/") ? f : relayPath(f)));
const sample = Number(opt("sample", "0"));
const seed = Number(opt("seed", "1"));
const suites = opt("suites", "unit,relay-pool").split(",");
const maxMs = Number(opt("max-minutes", "35")) * 60_000;
const timeoutMs = Number(opt("timeout-s", "240")) * 1000;
const jsonOut = opt("json", "");
/** Only the mutants whose "file:line kind: what" holds one of these (e.g. a survivor again, after a test is added). */
const match = (opt("match", "") || "").split("|").filter(Boolean);
for (const f of files) if (!existsSync(join(ROOT, f))) throw new Error(`mutate: no file ${f}`);
for (const s of suites) if (s !== "unit" && s !== "relay-pool") throw new Error(`mutate: --suites takes unit and relay-pool, not ${s}`);

/** The relay-pool test files that exercise each file (a time-bound choice: a survivor here may be killed by another file). */
const MONEY = ["quotas.test.ts", "budget-holds.test.ts", "chat.test.ts"];
const RELAY_POOL_TESTS = {
  "quota.ts": MONEY,
  "quota-object.ts": MONEY,
  "ledger.ts": MONEY,
  "stream-cost.ts": [...MONEY, "cancel.test.ts"],
  "usage-estimate.ts": MONEY,
  "principal.ts": [...MONEY, "binding.test.ts"],
  "bind.ts": ["binding.test.ts", "cookie-binding.test.ts", "refusals.test.ts", "cancel.test.ts", "chat.test.ts", "hygiene.test.ts"],
  "ceilings.ts": ["models.test.ts"],
  "gate.ts": ["quotas.test.ts", "models.test.ts"],
};
const unitTests = readdirSync(join(ROOT, "test/unit"), { recursive: true })
  .filter((f) => f.endsWith(".test.ts") && readFileSync(join(ROOT, "test/unit", f), "utf8").includes("src/relay/"))
  .map((f) => `test/unit/${f}`);

// ---- mutants
const RELATIONAL = { "<": "<=", "<=": "<", ">": ">=", ">=": ">" };
const SWAP = { "===": "!==", "!==": "===", "&&": "||", "||": "&&" };

/** The mutants of one file: { file, start, end, replacement, line, what }. */
function mutantsOf(file) {
  const text = readFileSync(join(ROOT, file), "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = [];
  const add = (node, start, end, replacement, kind) => {
    const { line } = sf.getLineAndCharacterOfPosition(start);
    const original = text.slice(start, end).replace(/\s+/g, " ");
    const shown = (s) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
    out.push({ file, start, end, replacement, line: line + 1, kind, what: `${shown(original)} → ${shown(replacement.replace(/\s+/g, " ")) || "(removed)"}` });
  };
  const inType = (node) => {
    for (let n = node.parent; n; n = n.parent) if (ts.isTypeNode(n) && !ts.isExpressionWithTypeArguments(n)) return true;
    return false;
  };
  const visit = (node) => {
    if (ts.isTypeNode(node) && !ts.isExpressionWithTypeArguments(node)) return; // (types do nothing at run time)
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken;
      const t = op.getText(sf);
      if (RELATIONAL[t]) add(node, op.getStart(sf), op.end, RELATIONAL[t], "relational");
      if (SWAP[t]) add(node, op.getStart(sf), op.end, SWAP[t], t.length === 3 ? "equality" : "logical");
    } else if ((node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) && !inType(node)) {
      add(node, node.getStart(sf), node.end, node.kind === ts.SyntaxKind.TrueKeyword ? "false" : "true", "boolean");
    } else if (ts.isNumericLiteral(node) && !inType(node)) {
      const n = Number(node.text);
      if (Number.isFinite(n)) {
        add(node, node.getStart(sf), node.end, String(n + 1), "number");
        if (n > 1) add(node, node.getStart(sf), node.end, String(n - 1), "number");
        if (n > 0) add(node, node.getStart(sf), node.end, "0", "number");
      }
    } else if (ts.isIfStatement(node)) {
      const c = node.expression;
      add(node, c.getStart(sf), c.end, `!(${c.getText(sf)})`, "if");
    } else if (ts.isReturnStatement(node) && node.expression) {
      add(node, node.getStart(sf), node.end, ";", "return");
    } else if (ts.isExpressionStatement(node)) {
      let e = node.expression;
      while (ts.isAwaitExpression(e) || ts.isVoidExpression(e)) e = e.expression;
      if (ts.isCallExpression(e) && !/^console\./.test(e.expression.getText(sf))) add(node, node.getStart(sf), node.end, ";", "call");
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** A seeded shuffle (mulberry32): the same --seed picks the same sample. */
function shuffled(list, s) {
  let a = s >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const all = files.flatMap(mutantsOf).filter((m) => match.length === 0 || match.some((p) => `${m.file}:${m.line} ${m.kind}: ${m.what}`.includes(p)));
let chosen = sample > 0 ? shuffled(all, seed).slice(0, sample) : all;
chosen = chosen.sort((a, b) => (a.file === b.file ? a.start - b.start : a.file < b.file ? -1 : 1));
const byKind = (list) => Object.entries(list.reduce((m, x) => ((m[x.kind] = (m[x.kind] ?? 0) + 1), m), {})).map(([k, n]) => `${k} ${n}`).join(", ");
console.log(`mutate: ${all.length} mutants in ${files.length} files (${byKind(all)}); running ${chosen.length}` +
  (sample > 0 ? ` (--sample ${sample} --seed ${seed})` : "") + `; suites ${suites.join(", ")}`);
if (flag("list")) {
  for (const m of chosen) console.log(`  ${m.file}:${m.line} ${m.kind}: ${m.what}`);
  process.exit(0);
}

// ---- running
let restore = null; // (the file being mutated and its original text)
const putBack = () => {
  if (restore) writeFileSync(restore.path, restore.text);
  restore = null;
};
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    putBack();
    console.log(`\nmutate: stopped (${signal}); the file under mutation is restored`);
    process.exit(130);
  });
}

/** Runs one suite for the mutant: "killed" (with the failing test), "timeout" or "survived". */
function runSuite(suite, m) {
  const base = m.file.split("/").pop();
  const testFiles = suite === "unit" ? unitTests : (RELAY_POOL_TESTS[base] ?? []).map((f) => `test/relay-pool/${f}`);
  const cmd = ["vitest", "run", "--project", suite, "--bail", "1", "--reporter", "dot", ...testFiles];
  return new Promise((resolve) => {
    const child = spawn("npx", cmd, { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL"); // (its process group: vitest and workerd)
      } catch {}
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (timedOut) return resolve({ outcome: "timeout", suite });
      if (code === 0) return resolve({ outcome: "survived", suite });
      const failed = /FAIL\s+(?:\S+\s+)?(\S+\.test\.ts)\s*>\s*([^\n]+)/.exec(output);
      resolve({ outcome: "killed", suite, by: failed ? `${failed[1]} > ${failed[2].trim().slice(0, 100)}` : `exit ${code}` });
    });
  });
}

const started = Date.now();
const results = [];
if (!flag("no-baseline")) {
  process.stdout.write("mutate: baseline (no mutant): ");
  const base = await runSuite("unit", { file: "none" });
  console.log(`${base.outcome === "survived" ? "unit passes" : `unit FAILS (${base.by ?? base.outcome})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (base.outcome !== "survived") {
    console.log("mutate: the suites must pass before mutants mean anything; fix them first (or --no-baseline)");
    process.exit(1);
  }
}
for (const [i, m] of chosen.entries()) {
  if (Date.now() - started > maxMs) {
    results.push({ ...m, outcome: "not run" });
    continue;
  }
  const path = join(ROOT, m.file);
  const text = readFileSync(path, "utf8");
  const mutated = text.slice(0, m.start) + m.replacement + text.slice(m.end);
  const t0 = Date.now();
  const syntax = ts.transpileModule(mutated, { reportDiagnostics: true, fileName: m.file, compilerOptions: { target: ts.ScriptTarget.ES2022 } });
  let result;
  if (syntax.diagnostics?.length) {
    result = { outcome: "compile error" };
  } else {
    restore = { path, text };
    writeFileSync(path, mutated);
    try {
      result = { outcome: "survived" };
      for (const suite of suites) {
        result = await runSuite(suite, m);
        if (result.outcome !== "survived") break;
      }
    } finally {
      putBack();
    }
  }
  results.push({ ...m, ...result, seconds: Math.round((Date.now() - t0) / 1000) });
  const r = results.at(-1);
  console.log(`[${i + 1}/${chosen.length}] ${r.outcome.padEnd(13)} ${m.file}:${m.line} ${m.kind}: ${m.what}` +
    (r.by ? `  (${r.suite}: ${r.by})` : r.outcome === "survived" ? "" : r.suite ? `  (${r.suite})` : "") + `  ${r.seconds} s`);
}

// ---- the score
const count = (o) => results.filter((r) => r.outcome === o).length;
const [killed, timeouts, survived, compile, notRun] = ["killed", "timeout", "survived", "compile error", "not run"].map(count);
const detected = killed + timeouts;
const score = detected + survived === 0 ? 0 : (100 * detected) / (detected + survived);
console.log(`\nmutate: score ${score.toFixed(1)}% (${detected} detected of ${detected + survived}: ${killed} killed, ${timeouts} timed out; ` +
  `${survived} survived; ${compile} compile errors, not counted${notRun ? `; ${notRun} not run (--max-minutes)` : ""}) in ${((Date.now() - started) / 60000).toFixed(1)} min`);
if (survived) {
  console.log("survivors:");
  for (const r of results.filter((x) => x.outcome === "survived")) console.log(`  ${r.file}:${r.line} ${r.kind}: ${r.what}`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ seed, sample, suites, files, score, results: results.map(({ start, end, ...r }) => r) }, null, 2));
const dirty = spawnSync("git", ["diff", "--stat", "--", ...files], { cwd: ROOT, encoding: "utf8" }).stdout.trim();
if (dirty) console.log(`mutate: WARNING: ${relative(ROOT, RELAY)} differs from git after the run:\n${dirty}`);
