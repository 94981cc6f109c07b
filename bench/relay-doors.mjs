// The relay's doors in workerd (issues #45, #47 "Speed" and #49): workerd's CPU per provider event of
// one provider-backed stream asked through each door of the relay — MMSP (`POST /v1/stream`), Open
// Responses (`POST /v1/responses`, streamed), Chat Completions, Anthropic Messages, Gemini
// (`streamGenerateContent?alt=sse`) and useChat (`POST /api/chat`) — side by side in one run, beside
// ProviderEventStream alone, and, with `--ab=<path to another build's dist/>` (e.g. main's, copied
// first: `cp -r /work/main/dist bench/.cache/main-dist`), the same cells for that build in its own
// Miniflare: both Workers (bench/runtimes/relay-provider-worker.mjs, bundled once against each dist/)
// side by side, the cells interleaved (each round in its own seeded random order). Medians of the rounds.
// Each door is asked as its clients ask by default: the MMSP, Open Responses and useChat doors keep
// their streams in a Durable Object; Chat Completions, Messages and Gemini have no cancel of their own
// and answer stateless unless asked to keep (`--kept`: asked with `x-mmsp-keep: 1` too, more columns).
//   node bench/relay-doors.mjs [--ab=bench/.cache/main-dist] [--rounds=7 --warmup=2 --only=anthropic
//     --kinds=chat --doors=stream,responses --kept]
// Prints a markdown table: µs per event for each door (÷ the MMSP door's), and with --ab B ÷ A per
// door (> 1: this build is cheaper).
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";
import { median, rng, seedOf } from "./core/harness.mjs";
import { KINDS, PROVIDER_NAMES } from "./providers/corpora.mjs";
import { convertCpu, corpusBlobs, corpusDir, DOORS, RELAY_WORKER, relayMiniflare, removeCorpusDir, timed } from "./relay-harness.mjs";
import { bundleForWorkerd, compatibilityDate } from "./runtimes/workerd-kit.mjs";

const opt = options(process.argv.slice(2));
const other = opt("ab", null);
const rounds = Number(opt("rounds", 7));
const warmup = Number(opt("warmup", 2));
const providers = opt("only", null) ? String(opt("only")).split(",") : PROVIDER_NAMES;
const kinds = opt("kinds", null) ? String(opt("kinds")).split(",") : KINDS;
const log = (s) => console.error(`[relay-doors] ${s}`);
const STATELESS = ["chat", "messages", "gemini"];
const doors = opt("doors", null) ? String(opt("doors")).split(",") : Object.keys(DOORS);
for (const d of doors) {
  if (!DOORS[d]) {
    throw new Error(`--doors: no door ${d} (${Object.keys(DOORS).join(", ")})`);
  }
}
/** The door columns: each door, and with --kept the stateless ones asked to keep their stream. */
const columns = [
  ...doors.map((d) => ({ door: d, kept: false })),
  ...(opt("kept", false)
    ? doors.filter((d) => STATELESS.includes(d)).map((d) => ({
      door: d,
      kept: true,
    }))
    : []),
];
/** A copy of `list` in a random order (Fisher–Yates, `draw`: a seeded rng). */
const shuffled = (list, draw) => {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = draw.int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
};
const colName = (c) => `${c.door}${c.kept ? "+kept" : ""}`;
const colLabel = (c) => `${DOORS[c.door].label}${c.kept ? " kept" : STATELESS.includes(c.door) ? " (stateless)" : ""}`;

/** The worker bundled against `dist` (its `../../dist/…` imports redirected). */
const bundleAgainst = (dist) =>
  bundleForWorkerd({
    entryPoints: [RELAY_WORKER],
    plugins: [{
      name: "dist",
      setup(b) {
        b.onResolve({ filter: /^\.\.\/\.\.\/dist\// }, (args) => ({ path: join(resolve(dist), args.path.slice("../../dist/".length)) }));
      },
    }],
  });

const builds = { A: await bundleAgainst(fileURLToPath(new URL("../dist", import.meta.url))) };
if (typeof other === "string") builds.B = await bundleAgainst(other);
const names = Object.keys(builds);
const load0 = loadavg();
const started = new Date();

const dir = corpusDir("relay-doors-");
const rows = [];
try {
  for (const kind of kinds) {
    const { blobs, corpora } = corpusBlobs(dir, kind);
    const mfs = {};
    for (const [name, script] of Object.entries(builds)) mfs[name] = relayMiniflare(script, blobs);
    try {
      const urls = {};
      for (const name of names) urls[name] = await mfs[name].ready;
      const convert = (provider) => convertCpu(mfs.A, urls.A, provider, kind);
      const relayed = (build, column, provider) =>
        timed(async () => {
          const door = DOORS[column.door];
          const model = `bench-${provider}`;
          const headers = {
            "content-type": "application/json",
            ...(column.kept ? { "x-mmsp-keep": "1" } : {}),
          };
          const res = await mfs[build].dispatchFetch(
            new URL(door.path(model), urls[build]),
            { method: "POST", headers, body: JSON.stringify(door.body(model)) },
          );
          const text = await res.text();
          if (!res.ok || !text.includes(door.end)) {
            throw new Error(
              `${build} ${colName(column)} ${provider}/${kind}: ${res.status} ${text.slice(-300)}`,
            );
          }
        });
      const cells = [
        ["convert"],
        ...columns.flatMap((c) => names.map((b) => [b, c])),
      ];
      const key = (
        c,
      ) => (c[0] === "convert" ? "convert" : `${c[0]} ${colName(c[1])}`);
      for (const provider of providers) {
        const run = (
          c,
        ) => (c[0] === "convert" ? convert(provider) : relayed(c[0], c[1], provider));
        for (let i = 0; i < warmup; i++) for (const c of cells) await run(c);
        const ms = Object.fromEntries(cells.map((c) => [key(c), []]));
        // (each round in its own seeded order: a cell's neighbours — whose garbage its GC may pay —
        // change every round, so no build's cell always follows the same one)
        const draw = rng(seedOf(`${provider}/${kind}`));
        for (let r = 0; r < rounds; r++) {
          for (const c of shuffled(cells, draw)) ms[key(c)].push(await run(c));
        }
        const us = (c) => (median(ms[key(c)]) * 1000) / corpora[provider].events;
        const row = {
          provider,
          kind,
          events: corpora[provider].events,
          ...Object.fromEntries(cells.map((c) => [key(c), us(c)])),
        };
        log(
          `${provider}/${kind}: ${cells.map((c) => `${key(c)} ${us(c).toFixed(1)}`).join(", ")} µs/event`,
        );
        rows.push(row);
      }
    } finally {
      for (const name of names) await mfs[name].dispose();
    }
  }
} finally {
  removeCorpusDir(dir);
}
const load1 = loadavg();
const fx = (x) => x.toFixed(1);
const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
const mmsp = columns.find((c) => c.door === "stream" && !c.kept);
const head = ["provider · corpus", "events", "conversion alone"];
for (const c of columns) {
  head.push(`${colLabel(c)} A`);
  if (mmsp && c !== mmsp) head.push("÷ MMSP");
  if (builds.B) head.push("B", "B ÷ A");
}
if (mmsp) head.push("MMSP A ÷ conversion");
const cellsOf = (r) => {
  const out = [`${r.provider} · ${r.kind}`, String(r.events), fx(r.convert)];
  for (const c of columns) {
    const a = r[`A ${colName(c)}`];
    out.push(fx(a));
    if (mmsp && c !== mmsp) {
      out.push(`${(a / r[`A ${colName(mmsp)}`]).toFixed(2)}×`);
    }
    if (builds.B) {
      out.push(fx(r[`B ${colName(c)}`]), (r[`B ${colName(c)}`] / a).toFixed(2));
    }
  }
  if (mmsp) out.push(`${(r[`A ${colName(mmsp)}`] / r.convert).toFixed(2)}×`);
  return out;
};
const summary = columns.map((c) => {
  const parts = [];
  if (mmsp && c !== mmsp) {
    parts.push(
      `÷ MMSP geomean ${
        geomean(rows.map((r) => r[`A ${colName(c)}`] / r[`A ${colName(mmsp)}`]))
          .toFixed(2)
      }×`,
    );
  }
  if (builds.B) {
    parts.push(
      `B ÷ A geomean ${
        geomean(rows.map((r) => r[`B ${colName(c)}`] / r[`A ${colName(c)}`]))
          .toFixed(2)
      }`,
    );
  }
  return parts.length ? `- ${colLabel(c)}: ${parts.join(", ")}` : null;
}).filter(Boolean);
const la = (l) => l.map((x) => x.toFixed(2)).join(" ");
console.log(
  [
    `${started.toISOString()}; workerd (Miniflare, compatibility_date ${compatibilityDate}): workerd's CPU per provider event, median of ${rounds} interleaved rounds after ${warmup} warm-up; load average ${
      la(load0)
    } at start, ${la(load1)} at end; A = this checkout's dist/${
      builds.B ? `, B = ${other}` : ""
    }. Each cell one stream asked through the door for a provider-backed model and read to its end by its creator (a kept one stored in its Durable Object).`,
    "",
    `| ${head.join(" | ")} |`,
    `| ${head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((r) => `| ${cellsOf(r).join(" | ")} |`),
    "",
    ...summary,
  ].join("\n"),
);
