// The relay of the gateway bench (bench/gateway.mjs, issue #49) in its own Node process: the built
// package's createRelay (dist/, stateless: no Durable Object binding) with a models table whose
// targets are the fake upstream (bench/gateway/fake-upstream.mjs) — Anthropic, OpenAI Chat, Gemini —
// served by the kit's `serve` on 127.0.0.1. Prints one JSON line { port }, serves until killed; the
// bench's meter (meter.mjs) answers on IPC.
//   node bench/gateway/relay-server.mjs --upstream=http://127.0.0.1:PORT [--dist=<another build's dist/>: the A/B's B]
import http from "node:http";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { installMeter } from "./meter.mjs";

const dist = process.argv.find((a) => a.startsWith("--dist="))?.slice("--dist=".length);
const from = (path) => (dist ? pathToFileURL(resolve(dist, path)).href : new URL(`../../dist/${path}`, import.meta.url).href);
const { createRelay } = await import(from("relay/index.js"));
const { anthropic, gemini, openaiChat } = await import(from("providers/index.js"));
const { serve } = await import(from("testing/index.js"));

const upstream = process.argv.find((a) => a.startsWith("--upstream="))?.split("=")[1];
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(upstream ?? "")) throw new Error(`--upstream: http://127.0.0.1:PORT, got ${upstream}`);

const row = (provider, model) => ({ provider, model, config: { max_tokens: 4096 }, allow: { tools: true } });
const relay = createRelay({
  models: {
    "bench-anthropic": row(anthropic({ apiKey: "bench-key", baseURL: upstream }), "claude-bench"),
    "bench-tools": row(anthropic({ apiKey: "bench-key", baseURL: upstream }), "bench-tools"),
    "bench-openai-chat": row(openaiChat({ apiKey: "bench-key", baseURL: `${upstream}/v1` }), "gpt-bench"),
    "bench-gemini": row(gemini({ apiKey: "bench-key", baseURL: `${upstream}/v1beta` }), "gemini-bench"),
  },
});
const served = await serve(relay.fetch, { port: 0, hostname: "127.0.0.1", env: { RELAY_KEY: "bench-relay-key" }, http });
process.stdout.write(JSON.stringify({ port: served.port }) + "\n");
installMeter();
