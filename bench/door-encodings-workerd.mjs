// A door's answer loop alone, in workerd (issue #47 "Speed"): bench/door-encodings.mjs's loop (the door's
// sealing step, the EncodedWriter with event ids, each slice of ~300 events joined and made UTF-8 once,
// as door-answer.ts writes a kept stream's answer) run inside one Worker over one provider corpus's
// checked UniEvents, read there first by ProviderEventStream (a build with stream/utf8-out.ts: "full"
// writes each slice into one Utf8Out as door-answer.ts does, a hot fragment as bytes); workerd's CPU per event (its processes'
// schedstat, as bench/relay-doors.mjs measures), A/B against another build (both bundled into the one
// Worker: `--ab=<another build's dist/>`), cells interleaved, medians of the rounds. Beside the whole
// loop ("full"), what it costs without the UTF-8 (`noutf8`: the slices joined only) and without the join
// too (`nojoin`: the door's encoder, writer and sealing alone): what share of a door's cost in
// relay-doors.mjs's "÷ MMSP" is its loop at all, and of the loop, its encoder.
//   node bench/door-encodings-workerd.mjs [--doors=responses,messages --only=anthropic --kinds=chat
//     --modes=full,nojoin --rounds=11 --ab=bench/.cache/main-dist]
// Prints a markdown table: µs per event per door, mode and corpus (with --ab: B ÷ A, > 1 this build cheaper).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { options } from "./args.mjs";
import { median } from "./core/harness.mjs";
import { DOOR_ENCODINGS } from "./core/door-encodings.mjs";
import { KINDS, PROVIDER_NAMES, providerCorpus } from "./providers/corpora.mjs";
import { bundleForWorkerd, compatibilityDate, workerdCpuMs } from "./runtimes/workerd-kit.mjs";

const opt = options(process.argv.slice(2));
const ENCODINGS = DOOR_ENCODINGS;
const doors = opt("doors", null) ? String(opt("doors")).split(",") : ["responses"];
for (const d of doors) if (!ENCODINGS[d]) throw new Error(`--doors: no door ${d} (${Object.keys(ENCODINGS).join(", ")})`);
const providers = opt("only", null) ? String(opt("only")).split(",") : PROVIDER_NAMES;
const kinds = opt("kinds", null) ? String(opt("kinds")).split(",") : KINDS;
const modes = opt("modes", null) ? String(opt("modes")).split(",") : ["full", "nojoin"];
const rounds = Number(opt("rounds", 11));
const other = opt("ab", null);
const dists = { A: fileURLToPath(new URL("../dist", import.meta.url)) };
if (typeof other === "string") dists.B = resolve(other);

/** The Worker: each build's encodings, writer and reader imported by path, the loop, a route to load a corpus and one to run it. */
// (a build with stream/utf8-out.ts writes its answers as bytes, door-answer.ts; an older one joins each slice's text)
const bytesOf = (dist) => existsSync(`${dist}/relay/stream/utf8-out.js`);
const imports = Object.entries(dists).map(([b, dist]) =>
  [
    ...doors.map((d, i) => `import { ${ENCODINGS[d][1]} as ${b}e${i} } from ${JSON.stringify(`${dist}/relay/doors/${ENCODINGS[d][0]}`)};`),
    `import { EncodedWriter as ${b}W } from ${JSON.stringify(`${dist}/relay/stream/encoding.js`)};`,
    `import { ProviderEventStream as ${b}P } from ${JSON.stringify(`${dist}/providers/index.js`)};`,
    bytesOf(dist) ? `import { Utf8Out as ${b}U } from ${JSON.stringify(`${dist}/relay/stream/utf8-out.js`)};` : `const ${b}U = null;`,
  ].join("\n")
).join("\n");
const builds = Object.keys(dists).map((b) =>
  `${b}: { W: ${b}W, P: ${b}P, U: ${b}U, doors: { ${doors.map((d, i) => `${JSON.stringify(d)}: ${b}e${i}`).join(", ")} } }`
);
const source = `${imports}
import { answerLoop } from ${JSON.stringify(fileURLToPath(new URL("./core/door-answer-loop.mjs", import.meta.url)))};
const builds = { ${builds.join(", ")} };
const events = {};
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const b = builds[url.searchParams.get("build")];
    if (url.pathname === "/load") {
      const list = [];
      const reader = request.body.pipeThrough(new b.P(url.searchParams.get("provider"))).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) list.push(r.value);
      events[url.searchParams.get("build")] = list;
      return new Response(String(list.length));
    }
    const list = events[url.searchParams.get("build")];
    let bytes = 0;
    for (let i = Number(url.searchParams.get("n")); i > 0; i--) bytes += await answerLoop({ EncodedWriter: b.W, Utf8Out: b.U }, b.doors[url.searchParams.get("door")], list, url.searchParams.get("mode"));
    return new Response(String(bytes));
  },
};`;
const script = await bundleForWorkerd({
  stdin: { contents: source, resolveDir: fileURLToPath(new URL("..", import.meta.url)), loader: "js" },
});
const mf = new Miniflare({ modules: true, script, compatibilityDate });
const url = await mf.ready;
const ask = async (path) => {
  const res = await mf.dispatchFetch(new URL(path, url));
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return Number(await res.text());
};

const rows = [];
try {
  for (const kind of kinds) {
    for (const provider of providers) {
      let count = 0;
      for (const b of Object.keys(dists)) {
        const res = await mf.dispatchFetch(new URL(`/load?build=${b}&provider=${provider}`, url), {
          method: "POST",
          body: providerCorpus(provider, kind).bytes,
        });
        count = Number(await res.text());
      }
      // (about 60 000 events per timed request: enough CPU to measure, little enough to interleave)
      const n = Math.max(1, Math.round(60_000 / count));
      const cells = doors.flatMap((d) => modes.flatMap((m) => Object.keys(dists).map((b) => [b, d, m])));
      const cpu = Object.fromEntries(cells.map((c) => [c.join(" "), []]));
      const run = async ([b, d, m]) => {
        const c0 = workerdCpuMs();
        await ask(`/run?build=${b}&door=${d}&mode=${m}&n=${n}`);
        return (workerdCpuMs() - c0) / n;
      };
      for (const c of cells) await run(c);
      for (let r = 0; r < rounds; r++) for (const c of r % 2 ? [...cells].reverse() : cells) cpu[c.join(" ")].push(await run(c));
      const row = { name: `${provider} · ${kind}`, events: count };
      for (const c of cells) row[c.join(" ")] = (median(cpu[c.join(" ")]) * 1000) / count;
      console.error(
        `[door-encodings-workerd] ${row.name}: ${cells.map((c) => `${c.join(" ")} ${row[c.join(" ")].toFixed(3)}`).join(", ")} µs/event`,
      );
      rows.push(row);
    }
  }
} finally {
  await mf.dispose();
}
const columns = doors.flatMap((d) => modes.map((m) => [d, m]));
const head = ["provider · corpus", "events", ...columns.flatMap(([d, m]) => (dists.B ? [`${d} ${m} A`, "B", "B ÷ A"] : [`${d} ${m} A`]))];
console.log(
  `\nworkerd (Miniflare, compatibility_date ${compatibilityDate}): a door's answer loop alone, workerd's CPU µs per event, median of ${rounds} rounds; A = this checkout's dist/${
    dists.B ? `, B = ${other}` : ""
  }\n`,
);
console.log(`| ${head.join(" | ")} |\n| ${head.map((_, i) => (i ? "---:" : "---")).join(" | ")} |`);
for (const r of rows) {
  const cells = [r.name, String(r.events)];
  for (const [d, m] of columns) {
    cells.push(r[`A ${d} ${m}`].toFixed(3));
    if (dists.B) cells.push(r[`B ${d} ${m}`].toFixed(3), (r[`B ${d} ${m}`] / r[`A ${d} ${m}`]).toFixed(2));
  }
  console.log(`| ${cells.join(" | ")} |`);
}
if (dists.B) {
  const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
  for (const [d, m] of columns) {
    console.log(`- ${d} ${m}: B ÷ A geomean ${geomean(rows.map((r) => r[`B ${d} ${m}`] / r[`A ${d} ${m}`])).toFixed(2)}`);
  }
}
