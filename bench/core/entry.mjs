// What every runtime's runner imports: the built package, the peers that load in this runtime,
// and the timing core. Web APIs only; bundled by esbuild for Chromium and workerd.
import * as lib from "../../dist/index.js";
import { makeContenders } from "./contenders.mjs";
import { loadEach, runSuite } from "./harness.mjs";

export { readCost } from "./harness.mjs";

/** The peers, each loaded on its own: one that does not load here drops only its contenders. */
export function loadPeers() {
  return loadEach({
    "eventsource-parser": async () => ({ EventSourceParserStream: (await import("eventsource-parser/stream")).EventSourceParserStream }),
    zod: async () => ({ z: (await import("zod")).z }),
    "@ai-sdk/provider-utils": async () => ({ parseJsonEventStream: (await import("@ai-sdk/provider-utils")).parseJsonEventStream }),
    openai: async () => ({ OpenAIStream: (await import("openai/streaming")).Stream }),
  });
}

/** Runs the plan here; returns JSON-able results with the contenders' legend and what did not load. */
export async function bench({ plan, getCorpus, now, cpu, gc, log }) {
  const { peers, missing } = await loadPeers();
  let contenders = makeContenders(lib, peers);
  if (plan.only) contenders = contenders.filter((k) => plan.only.includes(k.id) || k.id === "floor" || k.relay);
  const result = await runSuite({ plan, getCorpus, contenders, now, cpu, gc, log });
  return {
    ...result,
    missing,
    contenders: contenders.map(({ id, label, what, sseOnly, validating, relay, library }) => ({ id, label, what, sseOnly: !!sseOnly, validating: !!validating, relay: !!relay, library: !!library })),
  };
}
