// The package as its users get it: packs the tarball (`npm pack`, whose prepack builds dist/), lints it
// (publint; @arethetypeswrong/cli with the ESM-only profile), installs it into a fresh temporary
// project (from the tarball, its dependencies from the npm cache or the registry) and uses it there:
// Node ESM `import`, CommonJS `require` (require(esm), Node >= 20.19), the CLI, TypeScript strict with
// moduleResolution node16 and bundler (shipped .d.ts checked too: skipLibCheck off), Deno through npm
// (the installed node_modules, `npm:` specifiers), Deno on the JSR source (src/ through the exports of
// jsr.json), Bun, and an esbuild browser bundle. Every runtime runs the same consumer program
// (test/consumers/consumer.ts), which fails loudly if anything it reads is wrong.
//
//   node scripts/consumers.mjs          # prints "consumers: N passed, N failed"; KEEP=1 keeps the temp dir
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transform } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = join(ROOT, "node_modules/.bin");
const TMP = mkdtempSync(join(tmpdir(), "mmsp-consumers-"));
const APP = join(TMP, "app");
const results = [];
const t0 = performance.now();

/** Runs a command; returns its output, or throws with it. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: APP, encoding: "utf8", timeout: 120_000, ...opts, env: { ...process.env, NO_COLOR: "1", ...opts.env } });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim();
  if (r.error) throw new Error(`${cmd} ${args.join(" ")}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}\n${out}`);
  return out;
}

/** One check: prints ✓/✗ with its name; a thrown error fails it (with the output). */
async function check(name, fn) {
  const t = performance.now();
  try {
    const note = await fn();
    results.push(true);
    console.log(`✓ [consumer] ${name} (${Math.round(performance.now() - t)} ms)${note ? `: ${note}` : ""}`);
  } catch (e) {
    results.push(false);
    console.log(`✗ [consumer] ${name}\n  ${String(e.message ?? e).replaceAll("\n", "\n  ")}`);
  }
}

/** The consumer program prints one "consumer ok" line when every assertion held; returns it. */
const expectOk = (out) => {
  const lines = out.split("\n").filter(Boolean);
  const ok = lines.find((l) => l.startsWith("consumer ok"));
  if (!ok) throw new Error(`no "consumer ok" line:\n${out}`);
  // anything else printed (deprecations, experimental notices) is shown; deno's "Check <file>" is expected
  const extra = lines.filter((l) => l !== ok && !/^Check \S+$/.test(l));
  return extra.length ? `${ok} [also printed: ${extra.join(" | ").slice(0, 200)}]` : ok;
};

let tarball;
try {
  // ---- pack, lint ------------------------------------------------------------------------------
  await check("npm pack (prepack builds dist/)", () => {
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", TMP], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const info = JSON.parse(out.slice(out.indexOf("[")))[0];
    tarball = join(TMP, info.filename);
    const files = info.files.map((f) => f.path);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    const needed = ["LICENSE", "README.md", "CHANGELOG.md", "package.json", "cli/mmsp-streams.mjs"];
    for (const entry of Object.values(pkg.exports)) for (const target of typeof entry === "string" ? [entry] : Object.values(entry)) needed.push(target.replace(/^\.\//, ""));
    const missing = [...new Set(needed)].filter((f) => !files.includes(f));
    if (missing.length) throw new Error(`the tarball lacks ${missing.join(", ")}`);
    const maps = files.filter((f) => f.endsWith(".map"));
    if (maps.length) throw new Error(`source maps shipped: ${maps.join(", ")}`);
    return `${info.filename}, ${files.length} files, ${(info.size / 1024).toFixed(1)} KB packed`;
  });
  if (!tarball) throw new Error("no tarball: nothing else can be checked");

  await check("publint: no errors, warnings or suggestions", () => {
    const out = run(join(BIN, "publint"), ["--level", "suggestion", "--strict", tarball], { cwd: ROOT });
    if (!/All good!/.test(out)) throw new Error(out);
  });
  await check("@arethetypeswrong/cli --profile esm-only: no problems", () => {
    // exits non-zero on any problem (error or warning) outside the profile's ignored resolutions
    // (node10, and node16 from CommonJS: an ESM-only package is "dynamic import only" there by design)
    const out = run(join(BIN, "attw"), [tarball, "--profile", "esm-only", "--format", "ascii"], { cwd: ROOT });
    const entries = out.match(/^"mmsp-streams[^"]*"$/gm) ?? [];
    const green = out.match(/^node16 \(from ESM\): 🟢/gm) ?? [];
    if (entries.length < 6 || green.length !== entries.length) throw new Error(`expected every entry point green under node16 (ESM):\n${out}`);
    return `${entries.length} entry points green under node16 (ESM) and bundler`;
  });

  // ---- a fresh project that installs the tarball ----------------------------------------------
  cpSync(join(ROOT, "test/consumers"), APP, { recursive: true });
  writeFileSync(join(APP, "package.json"), JSON.stringify({ name: "consumer-app", private: true, type: "module" }, null, 2));
  await check("npm install <tarball> into a fresh project", () => {
    run("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "--no-package-lock"]);
    const pkg = JSON.parse(readFileSync(join(APP, "package.json"), "utf8"));
    return `dependencies ${JSON.stringify(pkg.dependencies)}`;
  });
  // the consumer program without its types, for the runtimes that do not read TypeScript (as tsc would emit it)
  const js = (await transform(readFileSync(join(APP, "consumer.ts"), "utf8"), { loader: "ts", format: "esm", target: "es2022" })).code;
  writeFileSync(join(APP, "consumer.mjs"), js);

  await check(`Node ${process.version} ESM: import "mmsp-streams" and its subpaths`, () => expectOk(run(process.execPath, ["consumer.mjs"])));
  await check(`Node ${process.version} CommonJS: require("mmsp-streams") (require(esm))`, () => expectOk(run(process.execPath, ["consumer.cjs"])));
  await check("the CLI from node_modules/.bin: mmsp-streams --version, inspect a built-in sample", () => {
    const version = run(join(APP, "node_modules/.bin/mmsp-streams"), ["--version"]);
    if (!version.includes("0.1.0")) throw new Error(`--version printed ${version}`);
    const out = run(join(APP, "node_modules/.bin/mmsp-streams"), ["inspect", "--sample", "chat"]);
    if (!/finish|stop/i.test(out)) throw new Error(`inspect printed:\n${out.slice(0, 500)}`);
    return version;
  });
  for (const config of ["tsconfig.node16.json", "tsconfig.bundler.json"]) {
    await check(`TypeScript strict, ${config.split(".")[1]} resolution (skipLibCheck off)`, () => {
      run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config]);
    });
  }
  await check("esbuild browser bundle (platform browser, minified), then run", async () => {
    const out = await build({ entryPoints: [join(APP, "consumer.ts")], bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022", write: false, logLevel: "silent", absWorkingDir: APP });
    const code = out.outputFiles[0].text;
    writeFileSync(join(APP, "bundle.mjs"), code);
    const printed = expectOk(run(process.execPath, ["bundle.mjs"]));
    return `${(code.length / 1024).toFixed(1)} KB minified; ${printed}`;
  });

  const env = { DENO_DIR: process.env.DENO_DIR ?? join(ROOT, ".cache/deno"), DENO_NO_UPDATE_CHECK: "1" };
  const deno = join(BIN, "deno");
  await check("Deno through npm (the installed node_modules), type-checked", () => {
    return expectOk(run(deno, ["run", "--check", "--allow-read", "consumer.ts"], { env }));
  });
  await check('Deno through npm with "npm:mmsp-streams" specifiers, type-checked', () => {
    writeFileSync(join(APP, "consumer-npm.ts"), readFileSync(join(APP, "consumer.ts"), "utf8").replaceAll('from "mmsp-streams', 'from "npm:mmsp-streams'));
    return expectOk(run(deno, ["run", "--check", "--allow-read", "consumer-npm.ts"], { env }));
  });
  await check("Deno on the JSR source (src/ through jsr.json's exports), type-checked", () => {
    // what a JSR user gets: the TypeScript of src/, one module per export of jsr.json. Run inside the
    // repository, whose package.json resolves src/'s npm imports as `deno publish` does
    // (it rewrites them to npm: specifiers on publish).
    const jsr = JSON.parse(readFileSync(join(ROOT, "jsr.json"), "utf8"));
    const dir = mkdtempSync(join(ROOT, ".cache/consumer-jsr-"));
    try {
      cpSync(join(ROOT, "test/consumers/consumer.ts"), join(dir, "consumer.ts"));
      const imports = {};
      for (const [sub, file] of Object.entries(jsr.exports)) imports[`mmsp-streams${sub.slice(1)}`] = new URL(file, `file://${ROOT}`).href;
      writeFileSync(join(dir, "import-map.json"), JSON.stringify({ imports }, null, 2));
      return expectOk(run(deno, ["run", "--check", "--allow-read", "--import-map", "import-map.json", "consumer.ts"], { cwd: dir, env }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const bun = join(BIN, "bun");
  await check("Bun: the TypeScript consumer and the CommonJS one", () => {
    const ts = expectOk(run(bun, ["run", "consumer.ts"]));
    expectOk(run(bun, ["run", "consumer.cjs"]));
    return ts;
  });
} finally {
  if (process.env.KEEP) console.log(`kept ${TMP}`);
  else rmSync(TMP, { recursive: true, force: true });
}

const passed = results.filter(Boolean).length;
console.log(`consumers: ${passed} passed, ${results.length - passed} failed (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
process.exit(passed === results.length && passed > 0 ? 0 : 1);
