// The Anthropic Messages encoder's speed (issue #47): AnthropicMessagesEncoderStream against its floor —
// the same Messages records, each `JSON.stringify`d with the SSE framing (`event:` + `data:`), joined per
// chunk the encoder writes and UTF-8 encoded through a TransformStream, no checks and no state machine. The UniEvents
// are the providers' bench corpora (bench/providers/corpora.mjs: chat, tools, thinking) read once by
// ProviderEventStream. Two regimes, as bench/providers.mjs has them: steady (warm-up, no forced GC) and
// gc (a full gc() before every run). Prints the medians and the ratio floor / encoder (≥ 0.5 is the goal).
//
//   node --expose-gc bench/encode-anthropic.mjs [--rounds=N]
import { fileURLToPath } from "node:url";
import { options } from "./args.mjs";
import { KINDS, providerCorpus } from "./providers/corpora.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const opt = options(process.argv.slice(2));
const ROUNDS = Number(opt("rounds", 15));
const gc = globalThis.gc;
if (!gc) console.error("WARNING: no --expose-gc: the gc regime is the steady one");

const { ProviderEventStream } = await import(new URL("dist/providers/index.js", `file://${ROOT}`).href);
const { AnthropicMessagesEncoderStream } = await import(new URL("dist/encode.js", `file://${ROOT}`).href);
const OPTIONS = { id: "msg_bench", model: "claude-sonnet-4-5" };

const fromArray = (values) => {
  let i = 0;
  return new ReadableStream({ pull: (c) => (i < values.length ? c.enqueue(values[i++]) : c.close()) });
};
async function drain(stream) {
  const r = stream.getReader();
  let bytes = 0;
  for (let x = await r.read(); !x.done; x = await r.read()) bytes += x.value.byteLength;
  return bytes;
}

/** A corpus's UniEvents, and the records of each chunk the encoder writes for them (the floor's input). */
async function prepare(kind) {
  const corpus = providerCorpus("anthropic", kind);
  const events = [];
  const r = fromArray([corpus.bytes]).pipeThrough(new ProviderEventStream("anthropic")).getReader();
  for (let x = await r.read(); !x.done; x = await r.read()) events.push(x.value);
  const dec = new TextDecoder();
  const chunks = [];
  const out = fromArray(events).pipeThrough(new AnthropicMessagesEncoderStream(OPTIONS)).getReader();
  for (let x = await out.read(); !x.done; x = await out.read()) {
    chunks.push(dec.decode(x.value).split("\n\n").filter((f) => f).map((f) => JSON.parse(f.slice(f.indexOf("data: ") + 6))));
  }
  return { events, chunks };
}

/**
 * The floor: the same records, stringified and framed, one chunk per chunk the encoder wrote (it is
 * fed those chunks' records: no event it writes nothing for, no state machine — in its favour).
 */
function floor() {
  const utf8 = new TextEncoder();
  return new TransformStream({
    transform: (records, c) => {
      let s = "";
      for (const rec of records) s += `event: ${rec.type}\ndata: ${JSON.stringify(rec)}\n\n`;
      c.enqueue(utf8.encode(s));
    },
  });
}

/** Both contenders' medians, their runs interleaved (the order alternating each round: a busy machine's noise falls on both). */
async function time(runs, regime) {
  const times = runs.map(() => []);
  for (let i = 0; i < (regime === "steady" ? 3 : 1); i++) for (const run of runs) await run(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...runs.keys()].reverse() : [...runs.keys()];
    for (const k of order) {
      if (regime === "gc" && gc) gc();
      const t = performance.now();
      await runs[k]();
      times[k].push(performance.now() - t);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b)[t.length >> 1]);
}

console.log(`Anthropic Messages encoder vs its floor (Node ${process.version}, median of ${ROUNDS})`);
console.log("| corpus | events | regime | encoder ms | floor ms | floor / encoder |\n| --- | ---: | --- | ---: | ---: | ---: |");
for (const kind of KINDS) {
  const { events, chunks } = await prepare(kind);
  const a = await drain(fromArray(events).pipeThrough(new AnthropicMessagesEncoderStream(OPTIONS)));
  const b = await drain(fromArray(chunks).pipeThrough(floor()));
  if (a !== b) throw new Error(`${kind}: the encoder wrote ${a} bytes, the floor ${b}`);
  for (const regime of ["steady", "gc"]) {
    const [encoder, base] = await time([
      () => drain(fromArray(events).pipeThrough(new AnthropicMessagesEncoderStream(OPTIONS))),
      () => drain(fromArray(chunks).pipeThrough(floor())),
    ], regime);
    console.log(`| anthropic/${kind} | ${events.length} | ${regime} | ${encoder.toFixed(2)} | ${base.toFixed(2)} | ${(base / encoder).toFixed(2)}× |`);
  }
}
