// The provider-format encoders' speed (issue #47: each writes at ≥ 0.5× its floor). Each provider's
// seeded corpus (bench/providers/corpora.mjs: chat, tools, thinking) is read once into UniEvents by
// ProviderEventStream; then, interleaved, timed: the encoder (UniEvents → its API's SSE bytes through
// the web stream) against its floor (the same UniEvents through a stream stage that only writes the
// records the encoder wrote: JSON.stringify, the SSE framing — `event:` lines where the API has them —,
// TextEncoder; no logic, no checks). Every encoder of `mmsp-streams/encode`: Chat Completions, Gemini,
// Anthropic Messages, Open Responses (its bytes in one stage, `OpenResponsesSseEncoderStream`; and as
// `open-responses-events`, its event objects framed by `openResponsesSse`: the same bytes in two stages).
// Both regimes: steady (warm, no forced GC) and gc (a full gc() before every run).
//
//   node --expose-gc bench/encoders.mjs [--rounds=N] [--warmup=N] [--encoders=gemini,open-responses]
// `npm run bench:providers` runs it after its own tables (unless --no-encoders).
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";
import { KINDS, PROVIDER_NAMES, providerCorpus } from "./providers/corpora.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const gc = globalThis.gc ?? null;

const encode = await import(new URL("dist/encode.js", `file://${ROOT}`).href);
const { ProviderEventStream } = await import(new URL("dist/providers/index.js", `file://${ROOT}`).href);

/** Each encoder as a { writable, readable } pair writing its API's SSE bytes. */
const ENCODERS = {
  "chat-completions": () => new encode.ChatCompletionsEncoderStream({ id: "chatcmpl-1", model: "m", created: 1, includeUsage: true }),
  gemini: () => new encode.GeminiEncoderStream({ modelVersion: "m", responseId: "r" }),
  "anthropic-messages": () => new encode.AnthropicMessagesEncoderStream({ id: "msg_bench", model: "m" }),
  // its bytes in one stage (OpenResponsesSseEncoderStream; a build without it: the two stages below)
  "open-responses": () =>
    encode.OpenResponsesSseEncoderStream
      ? new encode.OpenResponsesSseEncoderStream({ id: "resp_bench", model: "m", createdAt: 1 })
      : ENCODERS["open-responses-events"](),
  // its events as objects, framed by `openResponsesSse` (the same bytes in two stages)
  "open-responses-events": () => {
    const events = new encode.OpenResponsesEncoderStream({ id: "resp_bench", model: "m", createdAt: 1 });
    return { writable: events.writable, readable: events.readable.pipeThrough(encode.openResponsesSse()) };
  },
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

/** The records the encoder wrote (each message's `event:` name if any, its `data:` parsed), for the floor. */
function recordsOf(text) {
  return text.split(/\r?\n\r?\n/).filter((m) => m.includes("data: ")).map((m) => {
    const event = /^event: (.*)$/m.exec(m)?.[1] ?? null;
    const d = m.slice(m.indexOf("data: ") + 6);
    return { event, data: d === "[DONE]" ? d : JSON.parse(d) };
  });
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
    const { event, data } = records[k++];
    const head = event === null ? "" : `event: ${event}\n`;
    c.enqueue(utf8.encode(data === "[DONE]" ? `${head}data: [DONE]${eol}` : `${head}data: ${JSON.stringify(data)}${eol}`));
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
/** Runs the figure: { rows, markdown }. */
export async function encoders({ rounds = 7, warmup = 2, names = Object.keys(ENCODERS), log = () => {} } = {}) {
  const load0 = loadavg();
  const rows = [];
  for (const name of names) {
    const make = ENCODERS[name];
    if (!make) throw new Error(`no encoder ${name} (${Object.keys(ENCODERS).join(", ")})`);
    for (const provider of PROVIDER_NAMES) {
      for (const kind of KINDS) {
        const corpus = providerCorpus(provider, kind);
        const events = await eventsOf(corpus);
        const chunks = [];
        const r = await new Response(
          new ReadableStream({ start: (c) => (events.forEach((e) => c.enqueue(e)), c.close()) }).pipeThrough(make()),
        ).text();
        chunks.push(r);
        const records = recordsOf(r);
        const eol = name === "gemini" ? "\r\n\r\n" : "\n\n";
        for (const regime of ["steady", "gc"]) {
          const enc = [];
          const floor = [];
          for (let i = 0; i < warmup + rounds; i++) {
            if (regime === "gc") gc?.();
            let t = performance.now();
            await runEncoder(make, events);
            const te = performance.now() - t;
            if (regime === "gc") gc?.();
            t = performance.now();
            await runFloor(events, records, eol);
            const tf = performance.now() - t;
            if (i >= warmup) enc.push(te), floor.push(tf);
          }
          const ratio = median(floor) / median(enc);
          log(`${name} ${corpus.name} ${regime}: ${(median(floor) / median(enc)).toFixed(2)}× the floor`);
          rows.push({
            encoder: name,
            corpus: corpus.name,
            regime,
            events: events.length,
            bytes: r.length,
            encoderMs: median(enc),
            floorMs: median(floor),
            ratio,
          });
        }
      }
    }
  }
  const load1 = loadavg();
  const L = [];
  const la = (l) => l.map((x) => x.toFixed(2)).join(" ");
  L.push(
    `Node ${process.version}, ${new Date().toISOString()}, median of ${rounds} rounds after ${warmup} warm-up, load average ${
      la(load0)
    } at start, ${la(load1)} at end${
      gc ? "" : " (no --expose-gc: the gc regime is the steady one)"
    }. × floor = floor ms ÷ encoder ms (≥ 0.5 is the goal).`,
    "",
  );
  L.push("| encoder | corpus (UniEvents) | regime | encoder ms | floor ms | × floor speed |");
  L.push("| --- | --- | --- | ---: | ---: | ---: |");
  for (const x of rows) {
    L.push(
      `| ${x.encoder} | ${x.corpus} (${x.events}) | ${x.regime} | ${x.encoderMs.toFixed(2)} | ${x.floorMs.toFixed(2)} | ${
        x.ratio.toFixed(2)
      } |`,
    );
  }
  L.push("");
  for (const name of names) {
    for (const regime of ["steady", "gc"]) {
      const mine = rows.filter((x) => x.encoder === name && x.regime === regime);
      const worst = mine.reduce((a, b) => (b.ratio < a.ratio ? b : a));
      const geo = Math.exp(mine.reduce((s, x) => s + Math.log(x.ratio), 0) / mine.length);
      L.push(
        `- ${name}, ${regime}: geomean ${geo.toFixed(2)}×, worst ${worst.ratio.toFixed(2)}× (${worst.corpus}): ${
          worst.ratio >= 0.5 ? "met" : "missed"
        }`,
      );
    }
  }
  return { rows, markdown: L.join("\n") };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const opt = options(process.argv.slice(2));
  if (!gc) console.error("[encoders] WARNING: no --expose-gc: the gc regime is the steady one");
  const r = await encoders({
    rounds: Number(opt("rounds", 7)),
    warmup: Number(opt("warmup", 2)),
    names: opt("encoders", null) ? String(opt("encoders")).split(",") : Object.keys(ENCODERS),
    log: (s) => console.error(`[encoders] ${s}`),
  });
  console.log(r.markdown);
}
