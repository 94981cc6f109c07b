// The profiled program of bench/profile-runtimes.mjs in Node, Deno and Bun (each started under its
// own CPU profiler): reads one corpus with one contender of bench/core/contenders.mjs, warm-up
// first, then `runs` times. node:fs is the one non-web API here (all three runtimes have it).
import { readFileSync } from "node:fs";
import * as lib from "../../dist/index.js";
import { makeContenders } from "../core/contenders.mjs";
import { loadPeers } from "../core/entry.mjs";
import { chunk } from "../core/harness.mjs";

const [path, name, format, chunking, id, runs] = (globalThis.Deno?.args ?? globalThis.Bun?.argv.slice(2) ?? process.argv.slice(2));
const { peers } = await loadPeers();
const k = makeContenders(lib, peers).find((c) => c.id === id);
const chunks = chunk(new Uint8Array(readFileSync(path)), chunking, name);
await k.run(chunks, format);
const t0 = performance.now();
for (let i = 0; i < Number(runs); i++) await k.run(chunks, format);
console.log(`${id} on ${name}/${format}/${chunking}: ${((performance.now() - t0) / Number(runs)).toFixed(1)} ms per run`);
