// The relay's doors in workerd, A/B (issues #45 and #49): workerd's CPU per provider event of one
// provider-backed stream through the relay's Durable Object, asked through the MMSP door (`POST
// /v1/stream`) and through the Open Responses door (`POST /v1/responses`, streamed), for this
// checkout's dist/ and another build's (`--ab=<path to its dist/>`, e.g. main's), in one run: both
// Workers (bench/runtimes/relay-provider-worker.mjs, bundled once against each dist/) run side by
// side in their own Miniflare, the cells interleaved (their order reversed every other round),
// beside ProviderEventStream alone. Medians of the rounds.
//   node bench/relay-doors.mjs --ab=/work/main/dist [--rounds=7 --warmup=2 --only=anthropic --kinds=chat]
// Prints a markdown table: µs per event for each door and build, and B ÷ A (> 1: this build is cheaper).
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";
import { median } from "./core/harness.mjs";
import { KINDS, PROVIDER_NAMES } from "./providers/corpora.mjs";
import { convertCpu, corpusBlobs, corpusDir, RELAY_WORKER, relayMiniflare, removeCorpusDir, timed } from "./relay-harness.mjs";
import { bundleForWorkerd, compatibilityDate } from "./runtimes/workerd-kit.mjs";
const opt = options(process.argv.slice(2));
const other = opt("ab", null);
if (typeof other !== "string") throw new Error("--ab=<path to another build's dist/> (e.g. /work/main/dist)");
const rounds = Number(opt("rounds", 7));
const warmup = Number(opt("warmup", 2));
const providers = opt("only", null) ? String(opt("only")).split(",") : PROVIDER_NAMES;
const kinds = opt("kinds", null) ? String(opt("kinds")).split(",") : KINDS;
const log = (s) => console.error(`[relay-doors] ${s}`);

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

const builds = { A: await bundleAgainst(fileURLToPath(new URL("../dist", import.meta.url))), B: await bundleAgainst(other) };
const BODY = {
  stream: (provider) => ({ model: `bench-${provider}`, messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] }),
  responses: (provider) => ({ model: `bench-${provider}`, input: "Hi", stream: true }),
};
const END = { stream: '"event_type":"stop"', responses: "event: response.completed" };

const dir = corpusDir("relay-doors-");
const rows = [];
try {
  for (const kind of kinds) {
    const { blobs, corpora } = corpusBlobs(dir, kind);
    const mfs = {};
    for (const [name, script] of Object.entries(builds)) mfs[name] = relayMiniflare(script, blobs);
    try {
      const urls = { A: await mfs.A.ready, B: await mfs.B.ready };
      const convert = (provider) => convertCpu(mfs.A, urls.A, provider, kind);
      const relayed = (build, door, provider) =>
        timed(async () => {
          const res = await mfs[build].dispatchFetch(new URL(`/v1/${door}`, urls[build]), {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(BODY[door](provider)),
          });
          const text = await res.text();
          if (!res.ok || !text.includes(END[door])) throw new Error(`${build} /v1/${door} ${provider}/${kind}: ${res.status} ${text.slice(-300)}`);
        });
      const cells = [["convert"], ["A", "stream"], ["B", "stream"], ["A", "responses"], ["B", "responses"]];
      const key = (c) => c.join(" ");
      for (const provider of providers) {
        const run = (c) => (c[0] === "convert" ? convert(provider) : relayed(c[0], c[1], provider));
        for (let i = 0; i < warmup; i++) for (const c of cells) await run(c);
        const ms = Object.fromEntries(cells.map((c) => [key(c), []]));
        for (let r = 0; r < rounds; r++) for (const c of r % 2 ? [...cells].reverse() : cells) ms[key(c)].push(await run(c));
        const us = (c) => (median(ms[key(c)]) * 1000) / corpora[provider].events;
        const row = { provider, kind, events: corpora[provider].events, ...Object.fromEntries(cells.map((c) => [key(c), us(c)])) };
        log(`${provider}/${kind}: ${cells.map((c) => `${key(c)} ${us(c).toFixed(1)}`).join(", ")} µs/event`);
        rows.push(row);
      }
    } finally {
      await mfs.A.dispose();
      await mfs.B.dispose();
    }
  }
} finally {
  removeCorpusDir(dir);
}
const fx = (x) => x.toFixed(1);
console.log(
  [
    `workerd (Miniflare, compatibility_date ${compatibilityDate}): workerd's CPU per provider event, median of ${rounds} interleaved rounds after ${warmup} warm-up; A = this checkout's dist/, B = ${other}. Each cell one stream created through the door for a provider-backed model, stored in its Durable Object and read to its end by its creator.`,
    "",
    "| provider · corpus | events | conversion alone | `/v1/stream` A | `/v1/stream` B | B ÷ A | `/v1/responses` A | `/v1/responses` B | B ÷ A | responses ÷ stream (A) |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map((r) =>
      `| ${r.provider} · ${r.kind} | ${r.events} | ${fx(r.convert)} | ${fx(r["A stream"])} | ${fx(r["B stream"])} | ${(r["B stream"] / r["A stream"]).toFixed(2)} | ${
        fx(r["A responses"])
      } | ${fx(r["B responses"])} | ${(r["B responses"] / r["A responses"]).toFixed(2)} | ${(r["A responses"] / r["A stream"]).toFixed(2)} |`
    ),
  ].join("\n"),
);
