// Codex (`codex exec`, @openai/codex 0.171.0) against the relay's Open Responses door, offline, in Node
// (issue #46): scripts/codex-relay.mjs serves the relay (dist/) over the kit's fake OpenAI Responses
// provider, which answers a call of Codex's shell tool (exec_command), then text once the call's output
// comes back; Codex runs with a minimal custom provider and its sandbox bypass flag. Its request goes
// through the door's state (include: reasoning.encrypted_content, store: false) and its tool loop as
// Codex wrote it (prompt_cache_key, client_metadata accepted; its web_search and namespace tools left
// out by the row's `hostedTools: "drop"`, the answer's x-mmsp-warning naming them). Skipped, with the
// reason printed, where the codex binary cannot run.
import { execFileSync, spawnSync } from "node:child_process";
import { expect, test } from "vitest";

function codexRuns(): string | null {
  try {
    execFileSync("npx", ["codex", "--version"], { stdio: "pipe", timeout: 60_000 });
    return null;
  } catch (e) {
    return `the codex binary does not run here (${(e as Error).message.split("\n")[0]})`;
  }
}

const reason = codexRuns();
if (reason) console.warn(`codex.test.ts skipped: ${reason}`);

test.skipIf(reason !== null)("codex exec with a custom Responses provider runs its shell tool through the relay and finishes", () => {
  const run = spawnSync("node", ["scripts/codex-relay.mjs"], { env: process.env, encoding: "utf8", timeout: 150_000 });
  expect(run.stdout, run.stderr).toContain("the shell call's output came back with relay-ok: true");
  expect(run.stdout).toContain("The command printed relay-ok.");
  expect(run.stdout).toMatch(/warning: the hosted tools .*\(web_search\).* were left out/);
  expect(run.status, run.stdout + run.stderr).toBe(0);
}, 180_000);
