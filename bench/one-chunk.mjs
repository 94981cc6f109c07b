// A body in one chunk against the same body in 64 KiB chunks (issue #26): the reader's time should
// not depend on how the body was chunked. Prints the figures (no assertion): node bench/one-chunk.mjs
// [DIST/index.js] [--events=40000,80000] [--rounds=3]. Also prints a plain TransformStream that
// enqueues every event of a chunk at once, the cost the reader avoids by feeding a large chunk in slices.

const argv = process.argv.slice(2);
const dist = argv.find((x) => !x.startsWith("--")) ?? "dist/index.js";
const opt = (n, d) => argv.find((x) => x.startsWith(`--${n}=`))?.split("=")[1] ?? d;
const counts = opt("events", "40000,80000").split(",").map(Number);
const rounds = Number(opt("rounds", 3));
const { UniEventStream, UniEventBatchStream } = await import(new URL(dist, `file://${process.cwd()}/`).href);

const sse = (events) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";

const chatEvent = (i) => ({
  role: "assistant",
  event_type: "delta",
  content_items: [{ type: "text.delta", text: `token ${i % 97} ` }],
  usage_metadata: null,
  finish_reason: null,
  created_at: 1767225600000 + i,
});

function body(n) {
  const events = Array.from({ length: n }, (_, i) => chatEvent(i));
  const joined = events.map((e) => e.content_items[0].text).join("");
  events.push({ ...chatEvent(n), content_items: [{ type: "text.done", text: joined }] });
  events.push({
    role: "assistant",
    event_type: "stop",
    content_items: [],
    usage_metadata: { cached_tokens: 0, prompt_tokens: 10, thoughts_tokens: null, response_tokens: n },
    finish_reason: "stop",
    created_at: 1767225700000,
  });
  return new TextEncoder().encode(sse(events));
}

const inChunks = (bytes, size) => {
  const out = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
};
const source = (chunks) => new ReadableStream({ start: (c) => (chunks.forEach((x) => c.enqueue(x)), c.close()) });

async function readAll(chunks, Stream) {
  let n = 0;
  const s = new Stream();
  for await (const x of source(chunks).pipeThrough(s)) n += Array.isArray(x) ? x.length : 1;
  await s.message;
  return n;
}

/** A plain TransformStream that enqueues all of a chunk's lines at once (what the reader avoids). */
async function plain(chunks) {
  let n = 0;
  const t = new TransformStream({ transform: (c, ctl) => { for (const line of new TextDecoder().decode(c).split("\n\n")) if (line) ctl.enqueue(line); } });
  for await (const _ of source(chunks).pipeThrough(t)) n++;
  return n;
}

const ms = async (f) => {
  const times = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
};

console.log(`${process.release?.name ?? "?"} ${process.version}, ${dist}, median of ${rounds}`);
for (const n of counts) {
  const bytes = body(n);
  const one = [bytes];
  const wide = inChunks(bytes, 64 * 1024);
  await readAll(wide, UniEventStream); // warm up
  const row = [
    ["UniEventStream", await ms(() => readAll(one, UniEventStream)), await ms(() => readAll(wide, UniEventStream))],
    ["UniEventBatchStream", await ms(() => readAll(one, UniEventBatchStream)), await ms(() => readAll(wide, UniEventBatchStream))],
    ["plain TransformStream (split only)", await ms(() => plain(one)), await ms(() => plain(wide))],
  ];
  console.log(`\n${n} chat events, ${(bytes.length / 1e6).toFixed(1)} MB: one chunk vs 64 KiB chunks`);
  for (const [name, a, b] of row) console.log(`  ${name.padEnd(36)} ${a.toFixed(0).padStart(6)} ms  ${b.toFixed(0).padStart(6)} ms  (${(a / b).toFixed(2)}×)`);
}
