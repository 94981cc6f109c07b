import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";
import { upstream } from "./test/relay-pool/upstream.ts";

// One vitest run, three runtimes: `npx vitest run` (all) or `npx vitest run --project node` (one).
// A generous per-test timeout: property-based cases on a busy 2-core machine can pass 5 s.
const testTimeout = 30_000;

export default defineConfig({
  test: {
    projects: [
      // (a) Node.js
      { test: { name: "node", include: ["test/all.test.ts"], testTimeout } },
      // unit tests of pure modules, imported from src/ (not dist), in Node
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"], testTimeout } },
      // (b) workerd, configured from the TEST Worker's config (test/worker/; the top-level wrangler.toml
      // belongs to the product's relay Worker): the shared cases + Worker integration tests
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./test/worker/wrangler.toml" } })],
        test: { name: "workers", include: ["test/all.test.ts", "test/workers/**/*.test.ts"], testTimeout },
      },
      // the relay Worker (top-level wrangler.toml: worker/, the STREAMS Durable Object) in workerd,
      // driven through SELF; its upstream is the scripted MMSP server in test/relay-pool/upstream.ts (and the scripted providers of providers.ts)
      // (every outbound fetch goes there, through test/relay-pool/observer.js, a Worker that sees the
      // relay cancel an upstream answer). globalSetup makes worker/generated/assets.ts first.
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                MMSP_UPSTREAM: "http://upstream.test/v1",
                // the provider-backed models (worker/models.ts) against the scripted providers (test/relay-pool/providers.ts)
                ANTHROPIC_API_KEY: "sk-ant-test-KEY-must-not-leak-0001",
                ANTHROPIC_BASE_URL: "http://upstream.test/anthropic",
                OPENAI_API_KEY: "sk-test-KEY-must-not-leak-0002",
                OPENAI_BASE_URL: "http://upstream.test/openai/v1",
                OPENAI_RESPONSES_MODEL: "gpt-5.1", // (the "gpt-responses" row: OpenAI's Responses API)
                GEMINI_API_KEY: "gemini-test-KEY-must-not-leak-0003",
                GEMINI_BASE_URL: "http://upstream.test/gemini/v1beta",
                GEMINI_MODEL: "gemini-3-flash-preview", // (a Gemini 3 model: the fake refuses a function call sent back without its signature)
                // the watchdog's deadlines, small (issue #38: a target silent past FIRST_EVENT_S, a stall past STALL_S)
                FIRST_EVENT_S: "0.5",
                STALL_S: "1",
                // the seal's key (issue #46): the Open Responses encoding seals where the events are, in the stream's object too
                RELAY_SEAL_KEY: "seal-key-of-the-relay-pool-bindings-0123",
              },
              outboundService: "cancel-observer",
              workers: [
                { name: "cancel-observer", modules: true, scriptPath: "test/relay-pool/observer.js", compatibilityDate: "2026-04-01", compatibilityFlags: ["enable_request_signal"], outboundService: upstream },
              ],
            },
          }),
        ],
        test: {
          name: "relay-pool",
          include: ["test/relay-pool/**/*.test.ts"],
          globalSetup: ["test/relay-pool/global-setup.ts"],
          testTimeout,
        },
      },
      // the README's test with the kit (docs/guide/testing.md) (mmsp-streams/testing), as a user's vitest runs it
      { test: { name: "examples", include: ["examples/testing.test.ts"], testTimeout } },
      // (f) mmsp-streams/ai-sdk against the real AI SDK (`ai`), in Node
      { test: { name: "ai-sdk", include: ["test/ai-sdk/**/*.test.ts"], testTimeout } },
      // (e) Debian's Chromium through Playwright (no Playwright-downloaded browser exists here)
      {
        test: {
          name: "browser",
          include: ["test/all.test.ts"],
          testTimeout,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false, // else failures write test/__screenshots__/*.png
            provider: playwright({
              launchOptions: {
                executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
                args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
              },
            }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
    ],
  },
});
