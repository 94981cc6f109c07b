// Checks that the library entry (dist/index.js) needs nothing but web-standard APIs: bundles it with
// its dependencies for esbuild's "neutral" platform (no Node assumptions, mainFields module/main)
// and fails on any Node built-in import (node:* or a bare built-in name) and on any use of the Node
// globals Buffer / process / require( in the bundle. Prints "web-only: N passed, N failed".
import { builtinModules } from "node:module";
import { build } from "esbuild";

const ENTRY = process.argv[2] ?? "dist/index.js";
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const nodeImports = [];
const results = [];
const check = (name, ok, detail = "") => {
  results.push(ok);
  console.log(`${ok ? "✓" : "✗"} [web-only] ${name}${ok || !detail ? "" : "\n  " + detail}`);
};

let code = "";
try {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    write: false,
    minifyWhitespace: true, // drops comments, so words in them are not taken for uses
    legalComments: "none",
    logLevel: "silent",
    plugins: [{
      name: "record-node-builtins",
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (!args.path.startsWith("node:") && !builtins.has(args.path)) return undefined;
          nodeImports.push(`${args.path} (imported by ${args.importer})`);
          return { path: args.path, external: true };
        });
      },
    }],
  });
  code = out.outputFiles[0].text;
  check(`${ENTRY} bundles for platform "neutral" with its dependencies (${(code.length / 1024).toFixed(1)} KiB)`, true);
} catch (e) {
  check(`${ENTRY} bundles for platform "neutral" with its dependencies`, false, e.message);
}

check("imports no Node built-in module (node:* or bare)", code !== "" && nodeImports.length === 0, nodeImports.join("\n  "));
// an identifier, not a property (x.process) nor part of a longer name (GroupBuffer)
const uses = (name) => [...code.matchAll(new RegExp(`(?<![\\w$.])${name}(?![\\w$])`, "g"))]
  .map((m) => code.slice(Math.max(0, m.index - 40), m.index + 40).replace(/\s+/g, " "));
for (const name of ["Buffer", "process", "require", "__dirname", "__filename"]) {
  const found = code === "" ? ["(no bundle)"] : uses(name);
  const globalFound = code.includes(`globalThis.${name}`) ? [`globalThis.${name}`] : [];
  check(`uses no ${name}`, found.length + globalFound.length === 0, [...found, ...globalFound].map((s) => `…${s}…`).join("\n  "));
}

// One source of truth for reading JSON from outside (src/internal/json.ts: this runtime's JSON.parse with
// the keys the text holds): a direct JSON.parse anywhere else in the library's source is a finding.
if (ENTRY === "dist/index.js") {
  const { readdirSync, readFileSync } = await import("node:fs");
  const direct = readdirSync("src", { recursive: true })
    .filter((f) => f.endsWith(".ts") && f.replaceAll("\\", "/") !== "internal/json.ts")
    .flatMap((f) =>
      readFileSync(`src/${f}`, "utf8").split("\n").flatMap((line, i) =>
        /^\s*(\/\/|\*|\/\*)/.test(line) || !/(?<![\w$])JSON\.parse\(/.test(line) ? [] : [`src/${f}:${i + 1}: ${line.trim()}`]
      )
    );
  check("src/ reads outside JSON through parseJsonText (src/internal/json.ts) only", direct.length === 0, direct.join("\n  "));
}

const passed = results.filter(Boolean).length;
console.log(`web-only: ${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
