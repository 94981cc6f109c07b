// Shared by the CLI tests (node --test test/cli/): run the CLI as a child process, as a user would.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CLI = fileURLToPath(new URL("../../cli/mmsp-streams.mjs", import.meta.url));
export const SAMPLES = fileURLToPath(new URL("../../samples/", import.meta.url));
export const SAMPLE_NAMES = ["audio", "chat", "embeddings", "error", "image", "tool-call"];

/**
 * Runs `mmsp-streams ARGS`; resolves with its exit code and output.
 * @param {string[]} args
 * @param {{ input?: string | Uint8Array, env?: Record<string, string | undefined>, onStdout?: (all: string) => void, timeout?: number, cli?: string }} [options]
 *   cli: another copy of the CLI to run (default: this repository's)
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
export function run(args, { input, env = {}, onStdout, timeout = 15000, cli = CLI } = {}) {
  const childEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: ROOT, env: childEnv, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mmsp-streams ${args.join(" ")} did not finish in ${timeout} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeout);
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
      onStdout?.(stdout);
    });
    child.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.on("error", () => {}); // the CLI may exit without reading stdin
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}

/** The part of inspect's output that describes the message (items, usage, finish, created): not timings or byte counts of the input. */
export function messageSummary(stdout) {
  const lines = stdout.split("\n");
  const start = lines.findIndex((l) => /^message: /.test(l));
  const end = lines.findIndex((l) => /^read: /.test(l));
  if (start < 0 || end < start) throw new Error(`no message summary in:\n${stdout}`);
  return lines.slice(start, end).join("\n");
}

/** The SSE records of a sample as [data, ...] (comments dropped). */
export function sseRecords(text) {
  return text
    .split(/\n\n/)
    .filter((block) => block.startsWith("data: "))
    .map((block) => block.slice("data: ".length));
}
