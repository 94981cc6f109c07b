#!/usr/bin/env node
// `npm run dev`: the relay Worker under `wrangler dev` (local workerd, top-level wrangler.toml; the
// pinned wrangler 4.86.0, the last whose CLI runs on Node 20), and the demo page's URL once it answers.
//
//   npm run dev                                    relay to a fake MMSP server (npm run upstream's) serving the samples
//   npm run dev -- --replay                        the Worker replays the samples itself (no upstream)
//   MMSP_UPSTREAM=http://127.0.0.1:25752/v1 npm run dev    relay to an MMSP server
//   PORT=8788 npm run dev   |   npm run dev -- --port 8788    another port (default 8787)
//   SAMPLE_PACE_MS=150 npm run dev                 slower samples (ms per event; --replay: N or A-B)
// The provider-backed models (worker/models.ts: "claude-fast", "gpt-fast") are answered by the test
// kit's fake providers (fakeProvider, replaying samples/providers/*.sse at a model's pace) with a
// made-up key and no network — unless `.dev.vars` (or the environment) holds the provider's real key:
// then the real provider answers. ALLOW_ANONYMOUS=true: the local demo page needs no RELAY_KEY.
// Other arguments go to wrangler dev. Ctrl-C stops everything, and so does killing `npm` (the shell
// npm runs this in does not pass signals on: this script watches for its parent going away).
import { spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";

const root = fileURLToPath(new URL("../", import.meta.url));
const args = process.argv.slice(2);
const replayOnly = args.includes("--replay");
if (replayOnly) args.splice(args.indexOf("--replay"), 1);
const portArg = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
let port = process.env.PORT || "8787";
if (portArg >= 0) port = args[portArg].includes("=") ? args[portArg].split("=")[1] : args[portArg + 1];
else args.push("--port", port);
const ipArg = args.findIndex((a) => a === "--ip" || a.startsWith("--ip="));
let ip = "127.0.0.1";
if (ipArg >= 0) ip = args[ipArg].includes("=") ? args[ipArg].split("=")[1] : args[ipArg + 1];
else args.push("--ip", ip);
// Without an upstream of its own, the relay relays to the fake MMSP server of `npm run upstream`
// (mmsp-streams/testing), in this process on a free port: the relay's own path (resume, stop) runs.
let upstream = process.env.MMSP_UPSTREAM;
const { serve } = await import("../scripts/upstream.mjs");
await import("../dist/testing/index.js").catch(() => {
  console.error("npm run dev: the fake upstream and providers need the built package: run `npm run build` first");
  process.exit(1);
});
let fake;
if (!upstream && !replayOnly) {
  const { sampleStreams } = await import("../scripts/upstream.mjs");
  const { fakeMmspServer } = await import("../dist/testing/index.js").catch(() => {
    console.error("npm run dev: the fake upstream needs the built package: run `npm run build` first (or npm run dev -- --replay)");
    process.exit(1);
  });
  const pace = parseFloat(process.env.SAMPLE_PACE_MS || "30") || 30; // (a range "A-B" of --replay: its low end)
  const streams = Object.fromEntries(
    Object.entries(await sampleStreams()).map(([model, capture]) => [model, { capture, pace: 1000 / Math.max(pace, 1) }]),
  );
  fake = await serve(fakeMmspServer({ streams }), { port: 0, host: "127.0.0.1" });
  upstream = `${fake.url}/v1`;
}
if (upstream) args.push("--var", `MMSP_UPSTREAM:${upstream}`);

// The provider-backed models: a fake provider for each provider whose key is not set (see the top).
const devVars = (() => {
  try {
    return readFileSync(`${root}.dev.vars`, "utf8");
  } catch {
    return "";
  }
})();
const hasKey = (name) => Boolean(process.env[name]) || new RegExp(`^\\s*${name}\\s*=\\s*\\S`, "m").test(devVars);
const fakeProviders = [];
for (
  const [provider, key, base, model, path] of [
    ["anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "claude-haiku-4-5", ""],
    ["openai-chat", "OPENAI_API_KEY", "OPENAI_BASE_URL", "gpt-4.1-mini", "/v1"],
  ]
) {
  if (hasKey(key)) {
    if (process.env[key]) args.push("--var", `${key}:${process.env[key]}`);
    continue;
  }
  const { fakeProvider, parseCapture } = await import("../dist/testing/index.js");
  const capture = parseCapture(readFileSync(`${root}samples/providers/${provider}.sse`, "utf8"));
  const fakeKey = `dev-fake-${provider}-key`;
  const server = await serve(fakeProvider(provider, { streams: { [model]: { capture, pace: 25 } }, key: fakeKey }), {
    port: 0,
    host: "127.0.0.1",
  });
  fakeProviders.push({ provider, server });
  args.push("--var", `${key}:${fakeKey}`, "--var", `${base}:${server.url}${path}`);
}
args.push("--var", "ALLOW_ANONYMOUS:true");
if (process.env.SAMPLE_PACE_MS) args.push("--var", `SAMPLE_PACE_MS:${process.env.SAMPLE_PACE_MS}`);

// A taken port, said plainly before wrangler starts (workerd would print a stack trace first).
const taken = await new Promise((resolve) => {
  const probe = net.createServer();
  probe.once("error", (e) => resolve(e.code === "EADDRINUSE" ? e : null));
  probe.listen({ port: Number(port), host: ip, exclusive: true }, () => probe.close(() => resolve(null)));
});
if (taken) {
  console.error(
    `npm run dev: port ${port} on ${ip} is taken (another \`npm run dev\`, or another server).\n` +
      `Stop it, or use another port: PORT=8788 npm run dev   (or npm run dev -- --port 8788)`,
  );
  process.exit(1);
}

const env = { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env };
const wrangler = spawn(`${root}node_modules/.bin/wrangler`, ["dev", ...args], { cwd: root, env, stdio: "inherit" });
let stopping = false;
const stop = (signal) => {
  stopping = true;
  wrangler.kill(signal); // wrangler stops its workerd
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(signal));
// `npm run dev` is npm → sh → this script; killing npm leaves this one orphaned, not signalled
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent && !stopping) stop("SIGTERM");
}, 500).unref();
wrangler.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

const host = ip === "0.0.0.0" || ip === "::" ? "127.0.0.1" : ip;
const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}/`;
for (let i = 0; i < 240; i++) {
  await new Promise((r) => setTimeout(r, 500));
  try {
    const res = await fetch(url);
    await res.arrayBuffer();
    if (res.ok) {
      const mode = process.env.MMSP_UPSTREAM
        ? `relaying to ${process.env.MMSP_UPSTREAM}`
        : fake
        ? `relaying to a fake MMSP server on ${upstream} (npm run upstream's: the built-in samples)`
        : "replaying the built-in samples";
      console.log(
        `\n  mmsp-streams relay (${mode})\n  demo page:  ${url}\n  stream:     POST ${url}v1/stream  {"model": "sample-chat", "messages": []}  (the demo page's default)\n` +
          `  providers:  claude-fast (anthropic), gpt-fast (openai-chat): ${
            fakeProviders.length ? `${fakeProviders.map((f) => f.provider).join(", ")} faked (no key in .dev.vars)` : "real keys"
          }; GET ${url}v1/models\n`,
      );
      break;
    }
  } catch {
    // not up yet: ask again
  }
}
