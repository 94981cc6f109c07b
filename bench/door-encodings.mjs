// A door's answer loop alone, in Node (issue #47 "Speed": what a door's encoding adds to a kept
// stream's CPU per event over the MMSP door's, which sends its stored bytes as they are): each door's
// encoding (src/relay/doors/<api>/encoding.ts) run as the stream's object runs it on the live edge
// (door-answer.ts: its sealing step, the EncodedWriter with event ids, each slice written into one
// Utf8Out — a hot fragment as bytes, other records as text — and copied out once; a build before
// stream/utf8-out.ts: each slice's text joined and made UTF-8 once) over one provider corpus's checked
// UniEvents, read first by ProviderEventStream. No workerd, no storage, no transport: the part of bench/relay-doors.mjs's "÷ MMSP" that is the door's
// own, measured fast enough to A/B an encoder change (`--ab=<another build's dist/>`, cells
// interleaved, their order reversed every other round; medians of the rounds).
//   node bench/door-encodings.mjs [--doors=messages,responses --only=anthropic --kinds=chat
//     --rounds=15 --ab=bench/.cache/main-dist]
// Prints a markdown table: µs per event per door and corpus (with --ab: B ÷ A, > 1 this build cheaper).
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { options } from "./args.mjs";
import { median } from "./core/harness.mjs";
import { DOOR_ENCODINGS } from "./core/door-encodings.mjs";
import { answerLoop } from "./core/door-answer-loop.mjs";
import { KINDS, PROVIDER_NAMES, providerCorpus } from "./providers/corpora.mjs";

const opt = options(process.argv.slice(2));
const ENCODINGS = DOOR_ENCODINGS;
const doors = opt("doors", null) ? String(opt("doors")).split(",") : Object.keys(ENCODINGS);
for (const d of doors) if (!ENCODINGS[d]) throw new Error(`--doors: no door ${d} (${Object.keys(ENCODINGS).join(", ")})`);
const providers = opt("only", null) ? String(opt("only")).split(",") : PROVIDER_NAMES;
const kinds = opt("kinds", null) ? String(opt("kinds")).split(",") : KINDS;
const rounds = Number(opt("rounds", 15));
const other = opt("ab", null);

/** A build's door encodings, its EncodedWriter and its provider reader. */
async function build(dist) {
  const at = (path) => import(pathToFileURL(resolve(dist, path)).href);
  const encodings = {};
  for (const d of doors) encodings[d] = (await at(`relay/doors/${ENCODINGS[d][0]}`))[ENCODINGS[d][1]];
  const { EncodedWriter } = await at("relay/stream/encoding.js");
  const { ProviderEventStream } = await at("providers/index.js");
  // (a build with stream/utf8-out.ts writes its answers as bytes; an older one joins each slice's text)
  const { Utf8Out } = await at("relay/stream/utf8-out.js").catch(() => ({}));
  return { encodings, EncodedWriter, ProviderEventStream, Utf8Out };
}
const builds = { A: await build(fileURLToPath(new URL("../dist", import.meta.url))) };
if (typeof other === "string") builds.B = await build(other);

const rows = [];
for (const kind of kinds) {
  for (const provider of providers) {
    const events = {};
    for (const [name, b] of Object.entries(builds)) {
      const c = providerCorpus(provider, kind);
      events[name] = [];
      for await (const e of new Response(c.bytes).body.pipeThrough(new b.ProviderEventStream(provider))) events[name].push(e);
    }
    const cells = doors.flatMap((d) => Object.keys(builds).map((b) => [b, d]));
    const ms = Object.fromEntries(cells.map((c) => [c.join(" "), []]));
    const run = async ([b, d]) => {
      const t0 = performance.now();
      let n = 0;
      do await answerLoop(builds[b], builds[b].encodings[d], events[b]), n++; while (performance.now() - t0 < 20);
      return (performance.now() - t0) / n;
    };
    for (let i = 0; i < 3; i++) for (const c of cells) await run(c);
    for (let r = 0; r < rounds; r++) for (const c of r % 2 ? [...cells].reverse() : cells) ms[c.join(" ")].push(await run(c));
    const row = { name: `${provider} · ${kind}`, events: events.A.length };
    for (const c of cells) row[c.join(" ")] = (median(ms[c.join(" ")]) * 1000) / events.A.length;
    console.error(`[door-encodings] ${row.name}: ${cells.map((c) => `${c.join(" ")} ${row[c.join(" ")].toFixed(3)}`).join(", ")} µs/event`);
    rows.push(row);
  }
}
const head = ["provider · corpus", "events", ...doors.flatMap((d) => (builds.B ? [`${d} A`, "B", "B ÷ A"] : [`${d} A`]))];
console.log(
  `\nNode ${process.version}: a door's answer loop alone, µs per event, median of ${rounds} rounds; A = this checkout's dist/${
    builds.B ? `, B = ${other}` : ""
  }\n`,
);
console.log(`| ${head.join(" | ")} |\n| ${head.map((_, i) => (i ? "---:" : "---")).join(" | ")} |`);
for (const r of rows) {
  const cells = [r.name, String(r.events)];
  for (const d of doors) {
    cells.push(r[`A ${d}`].toFixed(3));
    if (builds.B) cells.push(r[`B ${d}`].toFixed(3), (r[`B ${d}`] / r[`A ${d}`]).toFixed(2));
  }
  console.log(`| ${cells.join(" | ")} |`);
}
if (builds.B) {
  const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
  for (const d of doors) console.log(`- ${d}: B ÷ A geomean ${geomean(rows.map((r) => r[`B ${d}`] / r[`A ${d}`])).toFixed(2)}`);
}
