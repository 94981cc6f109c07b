// The API reference of the docs site, generated from the TSDoc of every export of every entry at build
// time (TypeDoc + typedoc-plugin-markdown + its VitePress theme) into docs/api/, which git ignores: the
// reference is never committed, so it never goes stale. The entries are jsr.json's "exports" (the same
// subpaths as package.json's, by their source files): a new entry is documented with no change here.
//
//   node scripts/docs-api.mjs        # writes docs/api/ (and docs/api/typedoc-sidebar.json)
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Application } from "typedoc";

const root = fileURLToPath(new URL("..", import.meta.url));
const exportsMap = JSON.parse(readFileSync(`${root}jsr.json`, "utf8")).exports;

const app = await Application.bootstrapWithPlugins({
  entryPoints: Object.values(exportsMap).map((p) => `${root}${p.slice(2)}`),
  tsconfig: `${root}tsconfig.build.json`,
  skipErrorChecking: true, // (tsc checks the source; TypeDoc only reads it)
  plugin: ["typedoc-plugin-markdown", "typedoc-vitepress-theme"],
  out: `${root}docs/api`,
  docsRoot: `${root}docs`,
  entryFileName: "index",
  readme: "none",
  name: "API reference",
  excludePrivate: true,
  excludeInternal: true,
  excludeExternals: true,
  hidePageHeader: true,
  hideBreadcrumbs: true,
  useCodeBlocks: true,
  sanitizeComments: true, // (a `<model>` in a doc comment is text, not a Vue tag)
  parametersFormat: "table",
  sidebar: { autoConfiguration: true, format: "vitepress", pretty: false, collapsed: true },
  logLevel: "Error",
  // (the links of the site's own pages stay as they are; TypeDoc validates only what it writes)
  validation: { notExported: false, invalidLink: true, notDocumented: false },
});
const project = await app.convert();
if (!project || app.logger.hasErrors()) {
  console.error("docs-api: TypeDoc could not convert the entries");
  process.exit(1);
}
// each module by the name a user imports it by ("index" → "mmsp-streams", "sse" → "mmsp-streams/sse")
for (const mod of project.children ?? []) mod.name = mod.name === "index" ? "mmsp-streams" : `mmsp-streams/${mod.name}`;
const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0); // (the main entry first)
project.children?.sort(byName);
for (const group of project.groups ?? []) group.children.sort(byName);
await app.generateOutputs(project);
console.log(`docs-api: ${Object.keys(exportsMap).length} entries → docs/api/`);
