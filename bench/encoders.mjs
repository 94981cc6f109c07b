// The provider-format encoders' speed (issue #47: each writes at ≥ 0.5× its floor). Each provider's
// seeded corpus (bench/providers/corpora.mjs: chat, tools, thinking) is read once into UniEvents by
// ProviderEventStream; then, interleaved, timed: the encoder (UniEvents → its API's SSE bytes through
// the web stream) against its floor (the same UniEvents through a stream stage that only writes the
// chunk records the encoder wrote: JSON.stringify, the SSE framing, TextEncoder; no logic, no checks). Both regimes: steady
// (warm, no forced GC) and gc (a full gc() before every run).
//
//   node --expose-gc bench/encoders.mjs [--rounds=N] [--warmup=N]
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";
import { KINDS, PROVIDER_NAMES, providerCorpus } from "./providers/corpora.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const opt = options(process.argv.slice(2));
const ROUNDS = Number(opt("rounds", 7));
const WARMUP = Number(opt("warmup", 2));
const gc = globalThis.gc ?? null;
if (!gc) console.error("[encoders] WARNING: no --expose-gc: the gc regime is the steady one");

const encode = await import(new URL("dist/encode.js", `file://${ROOT}`).href);
const { ProviderEventStream } = await import(new URL("dist/providers/index.js", `file://${ROOT}`).href);

const ENCODERS = {
  "chat-completions": () => new encode.ChatCompletionsEncoderStream({ id: "chatcmpl-1", model: "m", created: 1, includeUsage: true }),
  gemini: () => new encode.GeminiEncoderStream({ modelVersion: "m", responseId: "r" }),
};

async function eventsOf(corpus) {
  const events = [];
  const reader = new ProviderEventStream(corpus.name.split("/")[0]);
  const body = new ReadableStream({ start: (c) => (c.enqueue(corpus.bytes), c.close()) });
  for await (const e of body.pipeThrough(reader)) events.push(e);
  return events;
}

async function runEncoder(make, events) {
  const source = new ReadableStream({
    start: (c) => {
      for (const e of events) c.enqueue(e);
      c.close();
    },
  });
  let bytes = 0;
  for await (const chunk of source.pipeThrough(make())) bytes += chunk.length;
  return bytes;
}

/** The records the encoder wrote (its `data:` lines), for the floor. */
function recordsOf(text) {
  return text.split(/\r?\n\r?\n/).filter((m) => m.startsWith("data: ")).map((m) => m.slice(6)).map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}

/**
 * The floor: the same UniEvents through a web stream stage that does nothing but write the encoder's
 * records (JSON.stringify + the SSE framing + TextEncoder, one record per event while records remain,
 * the rest at the end): what any streaming stage writing those records costs, with no logic and no checks.
 */
async function runFloor(events, records, eol) {
  const utf8 = new TextEncoder();
  let k = 0;
  const write = (c) => {
    const r = records[k++];
    c.enqueue(utf8.encode(r === "[DONE]" ? `data: [DONE]${eol}` : `data: ${JSON.stringify(r)}${eol}`));
  };
  const stage = new TransformStream({
    transform: (_e, c) => {
      if (k < records.length) write(c);
    },
    flush: (c) => {
      while (k < records.length) write(c);
    },
  });
  return await runEncoder(() => stage, events);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const [name, make] of Object.entries(ENCODERS)) {
  for (const provider of PROVIDER_NAMES) {
    for (const kind of KINDS) {
      const corpus = providerCorpus(provider, kind);
      const events = await eventsOf(corpus);
      const chunks = [];
      const r = (await new Response(new ReadableStream({ start: (c) => (events.forEach((e) => c.enqueue(e)), c.close()) }).pipeThrough(make())).text());
      chunks.push(r);
      const records = recordsOf(r);
      const eol = name === "gemini" ? "\r\n\r\n" : "\n\n";
      for (const regime of ["steady", "gc"]) {
        const enc = [];
        const floor = [];
        for (let i = 0; i < WARMUP + ROUNDS; i++) {
          if (regime === "gc") gc?.();
          let t = performance.now();
          await runEncoder(make, events);
          const te = performance.now() - t;
          if (regime === "gc") gc?.();
          t = performance.now();
          await runFloor(events, records, eol);
          const tf = performance.now() - t;
          if (i >= WARMUP) enc.push(te), floor.push(tf);
        }
        const ratio = median(floor) / median(enc);
        rows.push({ encoder: name, corpus: corpus.name, regime, events: events.length, bytes: r.length, encoderMs: median(enc), floorMs: median(floor), ratio });
      }
    }
  }
}
console.log("| encoder | corpus (UniEvents) | regime | encoder ms | floor ms | × floor speed |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const x of rows) {
  console.log(`| ${x.encoder} | ${x.corpus} (${x.events}) | ${x.regime} | ${x.encoderMs.toFixed(2)} | ${x.floorMs.toFixed(2)} | ${x.ratio.toFixed(2)} |`);
}
const worst = rows.reduce((a, b) => (b.ratio < a.ratio ? b : a));
console.log(`\nworst: ${worst.encoder} on ${worst.corpus} (${worst.regime}) at ${worst.ratio.toFixed(2)}× the floor's speed (goal ≥ 0.5)`);
