#!/usr/bin/env node
// `npm run dev`: the relay Worker under `wrangler dev` (local workerd, top-level wrangler.toml; the
// pinned wrangler 4.86.0, the last whose CLI runs on Node 20), and the demo page's URL once it answers.
//
//   npm run dev                                    replay the built-in samples
//   MMSP_UPSTREAM=http://127.0.0.1:25752/v1 npm run dev    relay to an MMSP server
//   PORT=8788 npm run dev   |   npm run dev -- --port 8788    another port (default 8787)
//   SAMPLE_PACE_MS=150 npm run dev                 slower replay (N or A-B ms per event)
// Other arguments go to wrangler dev. Ctrl-C stops everything, and so does killing `npm` (the shell
// npm runs this in does not pass signals on: this script watches for its parent going away).
import { spawn } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const args = process.argv.slice(2);
const portArg = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
let port = process.env.PORT || "8787";
if (portArg >= 0) port = args[portArg].includes("=") ? args[portArg].split("=")[1] : args[portArg + 1];
else args.push("--port", port);
const ipArg = args.findIndex((a) => a === "--ip" || a.startsWith("--ip="));
let ip = "127.0.0.1";
if (ipArg >= 0) ip = args[ipArg].includes("=") ? args[ipArg].split("=")[1] : args[ipArg + 1];
else args.push("--ip", ip);
for (const name of ["MMSP_UPSTREAM", "SAMPLE_PACE_MS"]) if (process.env[name]) args.push("--var", `${name}:${process.env[name]}`);

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
      const mode = process.env.MMSP_UPSTREAM ? `relaying to ${process.env.MMSP_UPSTREAM}` : "replaying the built-in samples";
      console.log(
        `\n  mmsp-streams relay (${mode})\n  demo page:  ${url}\n  stream:     POST ${url}v1/stream  {"model": "sample-tools", "messages": []}\n`,
      );
      break;
    }
  } catch {
    // not up yet: ask again
  }
}
