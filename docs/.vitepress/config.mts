// The documentation site (VitePress 1.x): `npm run docs` builds it into docs/.vitepress/dist (offline:
// no font, search index or script from the network), `npm run docs:dev` serves it. The API reference
// under docs/api/ is generated from the TSDoc by scripts/docs-api.mjs before each build (git ignores it).
import { existsSync, readFileSync } from "node:fs";
import { defineConfig, type DefaultTheme } from "vitepress";

const REPO = "https://github.com/mmsp-streams/mmsp-streams";
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
const apiSidebarFile = new URL("../api/typedoc-sidebar.json", import.meta.url);
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile) ? JSON.parse(readFileSync(apiSidebarFile, "utf8")) : [];

const guide: DefaultTheme.SidebarItem[] = [
  {
    text: "Start",
    items: [
      { text: "Getting started", link: "/guide/getting-started" },
      { text: "Examples", link: "/guide/examples" },
    ],
  },
  {
    text: "Reading streams",
    items: [
      { text: "Reading a response", link: "/guide/reading-streams" },
      { text: "React and other UIs", link: "/guide/ui" },
      { text: "Resume and Stop", link: "/guide/resume-and-stop" },
      { text: "The pipeline, stage by stage", link: "/guide/pipeline" },
      { text: "Producing streams", link: "/guide/producing-streams" },
    ],
  },
  {
    text: "Integrations",
    items: [
      { text: "The AI SDK (useChat)", link: "/guide/ai-sdk" },
      { text: "Calling a provider", link: "/guide/providers" },
      { text: "Changing provider", link: "/guide/changing-provider" },
    ],
  },
  {
    text: "The relay",
    items: [
      { text: "The relay Worker", link: "/guide/relay" },
      { text: "Deploying your relay", link: "/guide/deploying" },
      { text: "Serving Open Responses", link: "/guide/open-responses" },
      { text: "Serving Chat Completions", link: "/guide/chat-completions" },
      { text: "Serving Gemini's API", link: "/guide/gemini" },
      { text: "Writing Anthropic Messages", link: "/guide/anthropic-messages" },
      { text: "When a provider fails", link: "/guide/failures" },
      { text: "Quotas and usage", link: "/guide/quotas" },
    ],
  },
  {
    text: "Operating",
    items: [
      { text: "Testing your app", link: "/guide/testing" },
      { text: "Errors and what to do", link: "/guide/errors" },
      { text: "Limits", link: "/guide/limits" },
      { text: "Performance and sizes", link: "/guide/performance" },
      { text: "The CLI", link: "/guide/cli" },
    ],
  },
  {
    text: "Reference",
    items: [
      { text: "The protocol", link: "/protocol" },
      { text: "API reference", link: "/api/" },
      { text: "Changelog", link: `${REPO}/blob/main/CHANGELOG.md` },
      { text: "Developing mmsp-streams", link: `${REPO}/blob/main/DEVELOPMENT.md` },
    ],
  },
];

export default defineConfig({
  title: "mmsp-streams",
  description: pkg.description,
  lang: "en-US",
  cleanUrls: false,
  lastUpdated: false,
  // the generated reference links its pages by their .md names; every other link is checked at build
  ignoreDeadLinks: false,
  vite: { build: { chunkSizeWarningLimit: 1200 } }, // (the local search index is one chunk of ~0.6 MB)
  head: [["meta", { name: "theme-color", content: "#3451b2" }]],
  markdown: { theme: { light: "github-light", dark: "github-dark" } },
  themeConfig: {
    logo: { light: "/logo.svg", dark: "/logo.svg", alt: "" },
    nav: [
      { text: "Guide", link: "/guide/getting-started", activeMatch: "^/guide/" },
      { text: "Protocol", link: "/protocol" },
      { text: "API", link: "/api/", activeMatch: "^/api/" },
      {
        text: `v${pkg.version}`,
        items: [
          { text: "Changelog", link: `${REPO}/blob/main/CHANGELOG.md` },
          { text: "Developing", link: `${REPO}/blob/main/DEVELOPMENT.md` },
          { text: "npm", link: "https://www.npmjs.com/package/mmsp-streams" },
        ],
      },
    ],
    sidebar: {
      "/guide/": guide,
      "/protocol": guide,
      "/api/": [{ text: "API reference", link: "/api/", items: apiSidebar }],
    },
    socialLinks: [{ icon: "github", link: REPO }],
    // local search: minisearch over the built pages, index shipped with the site (no network)
    search: { provider: "local", options: { detailedView: true } },
    outline: { level: [2, 3] },
    editLink: { pattern: `${REPO}/edit/main/docs/:path`, text: "Edit this page" },
    footer: { message: "Released under the MIT License.", copyright: "mmsp-streams" },
  },
});
