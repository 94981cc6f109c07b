// `wrangler dev` for the checks that drive the relay Worker over real HTTP (demo page, AI SDK chat, load):
// one way to start it, wait until it answers, and stop it with everything it spawned.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { readFile } from "node:fs/promises";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** A TCP port nobody listens on now (127.0.0.1). */
export const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/**
 * Starts `wrangler dev` (the top-level wrangler.toml, or the one in `cwd`) in its own process group (setsid), so wrangler,
 * esbuild and workerd stop together; resolves once `ready(base)` says it answers.
 *
 * @param {{ logPath: string, persistTo: string, vars?: Record<string, string>, ready?: (base: string) => Promise<boolean>, cwd?: string }} o
 *   `persistTo`: its own local state (two workerd processes on one SQLite file fail with "database is locked");
 *   `cwd`: the project whose wrangler.toml is run (default: the repository), with the repository's wrangler
 * @returns {Promise<{ base: string, stop: () => Promise<void>, pid: number }>} `base` without a trailing
 *   slash; `pid`: the process group's id (wrangler's own pid)
 */
export async function startWranglerDev({ logPath, persistTo, vars = {}, ready = async (base) => (await fetch(`${base}/`)).ok, cwd = root }) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const log = createWriteStream(logPath);
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(await freePort()), "--persist-to", persistTo];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn(`${root}node_modules/.bin/wrangler`, args, {
    cwd,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", CI: "true" },
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  let exited = false;
  child.on("exit", () => (exited = true));
  const kill = (signal) => {
    try {
      process.kill(-child.pid, signal); // the process group: wrangler, esbuild, workerd
    } catch {}
  };
  process.on("exit", () => exited || kill("SIGKILL"));
  const stop = async () => {
    if (exited) return;
    kill("SIGTERM");
    for (let i = 0; i < 50 && !exited; i++) await sleep(100);
    if (!exited) kill("SIGKILL");
  };
  // (each try bounded: a Worker that failed at startup can leave a request open forever, and the
  // whole wait is a minute, so a run never hangs on it)
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !exited) {
    try {
      if (await Promise.race([ready(base), sleep(5_000, false, { ref: false })])) return { base, stop, pid: child.pid };
    } catch {}
    await sleep(250);
  }
  await stop();
  throw new Error(`wrangler dev did not start:\n${await readFile(logPath, "utf8").catch(() => "")}`);
}
