// fc.assert for the shared cases, with a failure that says how to replay it: the seed, the path, the
// counterexample and the assertion that failed (which names the input), in every runtime.
//
// Replaying: MMSP_FC_SEED=<seed> MMSP_FC_PATH=<path> in Node and Bun (the env of the test run), or
// set globalThis.MMSP_FC = { seed, path } first (workerd, Deno without --allow-env, a browser).
import fc from "fast-check";
import { AssertionError } from "./harness.ts";

interface Replay {
  seed: number;
  path?: string;
}

/** A replay the run was asked for, if any (never throws where the env cannot be read). */
function replay(): Replay | undefined {
  const set = (globalThis as { MMSP_FC?: Replay }).MMSP_FC;
  if (set) return set;
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
    const seed = env?.MMSP_FC_SEED;
    if (seed !== undefined && seed !== "") return { seed: Number(seed), path: env?.MMSP_FC_PATH || undefined };
  } catch {
    // Deno without --allow-env: no replay from the env
  }
  return undefined;
}

/** What a failed run says: how to replay it, the counterexample, and the assertion that failed. */
function report<Ts>(details: fc.RunDetails<Ts>): string {
  const { seed, counterexamplePath, numRuns, numShrinks, errorInstance } = details;
  const cause = errorInstance instanceof Error ? errorInstance.message : String(errorInstance);
  return [
    `property failed after ${numRuns} run(s), shrunk ${numShrinks} time(s)`,
    `replay: MMSP_FC_SEED=${seed} MMSP_FC_PATH=${JSON.stringify(counterexamplePath ?? "")} (Node, Bun), ` +
    `or globalThis.MMSP_FC = { seed: ${seed}, path: ${JSON.stringify(counterexamplePath ?? "")} } before the case`,
    `counterexample: ${fc.stringify(details.counterexample)}`,
    `failure: ${cause}`,
  ].join("\n");
}

function settle<Ts>(details: fc.RunDetails<Ts>): void {
  if (details.failed) throw new AssertionError(report(details), { cause: details.errorInstance });
}

/** Like fc.assert, with a failure message that replays (see the top of this file). */
export function holds<Ts>(property: fc.IProperty<Ts>, params?: fc.Parameters<Ts>): void;
export function holds<Ts>(property: fc.IAsyncProperty<Ts>, params?: fc.Parameters<Ts>): Promise<void>;
export function holds<Ts>(property: fc.IRawProperty<Ts>, params: fc.Parameters<Ts> = {}): void | Promise<void> {
  const again = replay();
  const run = { ...params, ...(again ? { seed: again.seed, path: again.path, endOnFailure: true } : {}) };
  const details = fc.check(property, run);
  if (details instanceof Promise) return details.then(settle);
  settle(details);
}
