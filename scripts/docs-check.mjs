// The documentation site checked in a real browser (issue #40): builds it (`npm run docs`: the API
// reference from the TSDoc, then VitePress), serves docs/.vitepress/dist on 127.0.0.1 with a small static
// server, and visits every page in Debian's Chromium (playwright-core, scripts/chromium.mjs):
//   - every page renders (its content is there) with no console error and no uncaught exception;
//   - every internal link resolves to a page of the site, and its #anchor to an element of that page;
//   - the API reference has a page for every entry of package.json's "exports";
//   - the local search (offline: its index is part of the site) finds each of SEARCH_WORDS;
//   - screenshots of the home page at 1280 and 390 px: .ci-out/docs-home-1280.png, docs-home-390.png.
//   - the README: at most README_MAX_LINES lines, the two commands first, its relative links resolve.
// Prints "docs: N passed, N failed".
//
//   node scripts/docs-check.mjs              # build, then check
//   node scripts/docs-check.mjs --no-build   # check the site already built
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { extname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, pageErrors } from "./chromium.mjs";

/**
 * What the site's search must find, each on some page. A word goes here once a page says it: "quota"
 * joins the list with the relay's quotas page (a word no page has fails the check, as it should).
 */
export const SEARCH_WORDS = ["resume", "quota", "NOT-A-STREAM"];

const t0 = performance.now();
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SITE = join(ROOT, "docs/.vitepress/dist");
const OUT = join(ROOT, ".ci-out");
mkdirSync(OUT, { recursive: true });

const results = [];
const ok = (name) => results.push({ name, ok: true });
const fail = (name, why) => results.push({ name, ok: false, why });
function finish() {
  for (const r of results) console.log(`${r.ok ? "✓" : "✗"} ${r.name}${r.ok ? "" : `\n    ${String(r.why).replaceAll("\n", "\n    ")}`}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(`(${Math.round(performance.now() - t0)} ms)`);
  console.log(`docs: ${results.length - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

// ---- the README: short, the two commands first, its links into the site resolve --------------------

/** The README's own checks (issue #40): at most README_MAX_LINES, the two commands first, every relative link a file. */
export const README_MAX_LINES = 250;
{
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const lines = readme.split("\n");
  const n = lines.at(-1) === "" ? lines.length - 1 : lines.length;
  if (n <= README_MAX_LINES) ok(`README.md: ${n} lines (at most ${README_MAX_LINES})`);
  else fail(`README.md: at most ${README_MAX_LINES} lines`, `${n} lines: move a section to a page of docs/guide/ and link it`);
  const first = lines.slice(0, 6).join("\n");
  if (/^```sh\nnpm ci && npm start\b.*\nnpm test\b/m.test(first)) {
    ok("README.md: its first lines are the two commands (npm ci && npm start, npm test)");
  } else fail("README.md: its first lines are the two commands", first);
  const slug = (h) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, "").replace(/\s/g, "-"); // GitHub's anchors
  const anchors = new Set(lines.filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, ""))));
  const broken = [];
  for (const [, target] of readme.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
    const [path, hash] = target.split("#");
    if (path === "" ? !anchors.has(hash) : !existsSync(join(ROOT, path))) broken.push(target);
  }
  if (broken.length === 0) ok("README.md: every relative link resolves (a file of the repository, or a heading of its own)");
  else fail("README.md: every relative link resolves", broken.join("\n"));
}

// ---- build ---------------------------------------------------------------------------------------

if (!process.argv.includes("--no-build")) {
  const build = spawnSync("npm", ["run", "-s", "docs"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  if (build.status !== 0) {
    fail("npm run docs builds the site", `${build.stdout}${build.stderr}`.trim().split("\n").slice(-30).join("\n"));
    finish();
  }
  ok(`npm run docs builds the site (${Math.round(performance.now() - t0)} ms)`);
}
if (!existsSync(join(SITE, "index.html"))) {
  fail("the built site is there", `${relative(ROOT, SITE)}/index.html is missing: run npm run docs`);
  finish();
}

/** Every page of the built site, as the path a browser asks for ("/guide/ui.html"; an index: "/api/"). */
const pages = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory() && e.name !== "assets") walk(p);
    else if (e.name.endsWith(".html") && e.name !== "404.html") pages.push(`/${relative(SITE, p).split(sep).join("/")}`.replace(/(^|\/)index\.html$/, "$1"));
  }
})(SITE);
pages.sort();

// ---- a static server on 127.0.0.1 ------------------------------------------------------------------

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".json": "application/json", ".woff2": "font/woff2", ".png": "image/png" };
/** The file a path names inside the site (a directory: its index.html), or null. */
function fileOf(pathname) {
  let path;
  try {
    path = normalize(join(SITE, decodeURIComponent(pathname)));
  } catch {
    return null;
  }
  if (!path.startsWith(SITE)) return null;
  if (existsSync(join(path, "index.html"))) return join(path, "index.html");
  return existsSync(path) && !path.endsWith(sep) ? path : null;
}
const server = http.createServer((req, res) => {
  const file = fileOf(new URL(req.url, "http://x").pathname);
  if (!file) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return;
  }
  res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

// ---- every page in the browser --------------------------------------------------------------------

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
// nothing leaves the machine: a request off 127.0.0.1 is refused and counted as the page's error
const offsite = [];
await context.route(/^(?!http:\/\/127\.0\.0\.1:)/, (route) => {
  offsite.push(route.request().url());
  return route.abort();
});

/** page path → the ids of its elements; every internal link seen: { from, href } */
const ids = new Map();
const links = [];
/** What the page shows now: its content, ids and links (recorded), and that it is no 404. */
async function record(page, errors, path) {
  const seen = await page.evaluate(() => ({
    title: document.title,
    content: (document.querySelector(".vp-doc, .VPHome")?.textContent ?? "").trim().length,
    ids: [...document.querySelectorAll("[id]")].map((n) => n.id),
    hrefs: [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")),
  }));
  assert.ok(seen.content > 0, "the page shows no content");
  assert.ok(!/^404/.test(seen.title), `the page is the 404 page ("${seen.title}")`);
  ids.set(path, new Set(seen.ids));
  for (const href of seen.hrefs) links.push({ from: path, href });
  await new Promise((r) => setTimeout(r, 30)); // (an error logged right after rendering)
  assert.deepEqual(errors, [], "console errors");
}
/** A page loaded whole, as a visitor's first page is: the HTML, then the theme hydrating it. */
async function load(page, errors, path) {
  errors.length = 0;
  const answer = await page.goto(`${base}${path}`, { waitUntil: "load" });
  assert.equal(answer?.status(), 200, `HTTP ${answer?.status()}`);
  await page.waitForFunction(() => document.querySelector("#app")?.__vue_app__ !== undefined, null, { timeout: 15_000 });
  await record(page, errors, path);
}
/** A page reached from another by the site's router, as a click on a link does (no reload: fast). */
async function navigate(page, errors, path) {
  errors.length = 0;
  const route = await page.evaluate(async (path) => {
    const provides = document.querySelector("#app").__vue_app__._context.provides;
    const router = Object.getOwnPropertySymbols(provides).map((s) => provides[s]).find((v) => typeof v?.go === "function" && v.route);
    await router.go(path);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return { path: router.route.path, notFound: Boolean(router.route.data.isNotFound), at: location.pathname };
  }, path);
  assert.ok(!route.notFound, `the router found no page at ${path}`);
  assert.equal(route.at, path, "the router went elsewhere");
  await record(page, errors, path);
}

// The guides load whole, one by one; the API reference's pages (most of the site) by the router, in a
// second tab (the machine has two cores).
const lanes = [pages.filter((p) => !p.startsWith("/api/")), pages.filter((p) => p.startsWith("/api/"))];
await Promise.all(
  lanes.map(async (lane, n) => {
    const page = await context.newPage();
    const errors = pageErrors(page);
    for (const [i, path] of lane.entries()) {
      const how = n === 0 || i === 0 ? load : navigate;
      try {
        await how(page, errors, path);
        ok(`renders, no console error: ${path}${how === navigate ? " (by the router)" : ""}`);
      } catch (e) {
        fail(`renders, no console error: ${path}`, e.message.split("\n").slice(0, 8).join("\n"));
        if (how === navigate) await page.goto(`${base}${lane[0]}`, { waitUntil: "load" }).catch(() => {});
      }
    }
    await page.close();
  }),
);
if (offsite.length) fail("no request leaves 127.0.0.1", [...new Set(offsite)].slice(0, 10).join("\n"));
else ok("no request leaves 127.0.0.1 (fonts, search and scripts are the site's own)");

// ---- internal links and anchors -----------------------------------------------------------------

{
  const broken = [];
  let checked = 0;
  for (const { from, href } of links) {
    const url = new URL(href, `${base}${from}`);
    if (url.origin !== base) continue; // (GitHub, npm, the MMSP project: not the site's)
    checked++;
    const target = url.pathname.replace(/\/index\.html$/, "/");
    if (!ids.has(target)) {
      broken.push(`${from}: ${href} → no such page`);
      continue;
    }
    const anchor = decodeURIComponent(url.hash.slice(1));
    if (anchor && !ids.get(target).has(anchor)) broken.push(`${from}: ${href} → ${target} has no #${anchor}`);
  }
  const name = `every internal link and anchor resolves (${checked} links on ${pages.length} pages)`;
  if (broken.length) fail(name, [...new Set(broken)].join("\n"));
  else ok(name);
}

// ---- the API reference: every entry ----------------------------------------------------------------

{
  const entries = Object.keys(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).exports).filter((k) => k !== "./package.json");
  const missing = entries
    .map((k) => (k === "." ? "mmsp-streams" : `mmsp-streams/${k.slice(2)}`))
    .filter((name) => !ids.has(`/api/${name}/`));
  if (missing.length) fail(`the API reference has every entry of "exports" (${entries.length})`, `no page for: ${missing.join(", ")}`);
  else ok(`the API reference has every entry of "exports" (${entries.length})`);
}

// ---- local search -----------------------------------------------------------------------------------

{
  const page = await context.newPage();
  const errors = pageErrors(page);
  await page.goto(`${base}/`, { waitUntil: "load" });
  for (const word of SEARCH_WORDS) {
    const name = `search finds "${word}"`;
    try {
      if (!(await page.isVisible("#localsearch-input"))) await page.click(".DocSearch-Button");
      await page.fill("#localsearch-input", word);
      await page.waitForSelector("#localsearch-list a.result", { timeout: 10_000 });
      // (the excerpts are fetched after the titles: wait for one that says the word)
      await page.waitForFunction((w) => [...document.querySelectorAll("#localsearch-list a.result")].some((a) => a.textContent.toLowerCase().includes(w)), word.toLowerCase(), { timeout: 10_000 }).catch(() => {});
      const found = await page.$$eval("#localsearch-list a.result", (as) => as.map((a) => ({ href: a.getAttribute("href"), text: a.textContent })));
      const hits = found.filter((r) => r.text.toLowerCase().includes(word.toLowerCase()));
      assert.ok(hits.length > 0, `${found.length} results, none says "${word}"`);
      assert.deepEqual(errors, [], "console errors");
      ok(`${name} (${found.length} results; first: ${hits[0].href})`);
    } catch (e) {
      fail(name, e.message.split("\n").slice(0, 6).join("\n"));
    }
  }
  await page.close();
}

// ---- the home page at 1280 and 390 px ---------------------------------------------------------------

for (const width of [1280, 390]) {
  const name = `home page screenshot at ${width} px: .ci-out/docs-home-${width}.png`;
  try {
    const page = await context.newPage();
    await page.setViewportSize({ width, height: width > 600 ? 900 : 844 });
    await page.goto(`${base}/`, { waitUntil: "load" });
    await page.waitForSelector(".VPHero .name");
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    await page.screenshot({ path: join(OUT, `docs-home-${width}.png`), fullPage: true });
    assert.ok(wide <= width, `the page is ${wide} px wide at ${width} px`);
    await page.close();
    ok(name);
  } catch (e) {
    fail(name, e.message);
  }
}

await browser.close();
server.close();
finish();
