// CPU profile of one provider contender: `node --cpu-prof --cpu-prof-dir=DIR bench/providers/profile.mjs PROVIDER KIND [ID] [RUNS]`
// (ID: pes-read, pes-drain or a peer's id); prints ms per run. Open the .cpuprofile in DevTools or
// summarise it with bench/profile.mjs' reader.
import { chunk } from "../core/harness.mjs";
import { providerCorpus } from "./corpora.mjs";
import { loadProviderPeers, makeProviderContenders } from "./contenders.mjs";

const [provider = "openai-chat", kind = "chat", id = "pes-read", runs = "10"] = process.argv.slice(2);
const c = providerCorpus(provider, kind);
const chunks = chunk(c.bytes, "wide", c.name);
const { peers } = id.startsWith("pes") ? { peers: {} } : await loadProviderPeers();
const k = makeProviderContenders(await import("../../dist/providers/index.js"), peers, provider).find((x) => x.id === id);
await k.run(chunks);
const t0 = performance.now();
for (let i = 0; i < Number(runs); i++) await k.run(chunks);
console.log(
  `${id} on ${c.name}: ${((performance.now() - t0) / Number(runs)).toFixed(1)} ms per run, ${
    (c.bytes.length / 1e3 / ((performance.now() - t0) / Number(runs))).toFixed(1)
  } MB/s`,
);
