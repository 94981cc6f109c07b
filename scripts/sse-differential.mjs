// Differential test of SseDecoderStream against three real EventSource implementations (issue #11,
// "SSE as the standard says"): undici's (in this Node process), Deno's built-in one, and Debian's
// Chromium (playwright-core). A seeded generator makes random SSE bodies; a local HTTP server serves
// each by id, cut into random chunks; every client records (type, data, lastEventId) per event and
// closes at a sentinel event (or, for bodies that end without one, at the `error` the end of the
// connection fires). The package's decoder reads the same bytes in the same chunks and must agree.
// Prints one summary line per client, then "N passed, N failed" (one pass per client that agreed
// on every stream). Needs the built dist/ (`npm run -s build`). About 15-20 s on 2 cores.
//
// What it found (seeds 1-12, 24,000 streams a client): no stream where SseDecoderStream departs
// from the standard; one quirk in each client, modelled and excused below (QUIRKS), and only where
// the model gives exactly that client's output. A failure prints the body seed to re-run alone.
//
//   node scripts/sse-differential.mjs [--seed N] [--count N] [--chromium-count N] [--only BODYSEED]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventSource as UndiciEventSource } from "undici";
import { SseDecoderStream } from "../dist/index.js";
import { launchChromium } from "./chromium.mjs";
import { concat, rng } from "../bench/core/harness.mjs"; // the benchmark's seeded PRNG and byte join

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const SEED = arg("seed", 1);
const COUNT = arg("count", 2000); // bodies for undici and Deno
const CHROMIUM_COUNT = arg("chromium-count", 500); // the first bodies of the same set
const ONLY = arg("only", undefined); // one body seed, to reproduce a disagreement
const STREAM_TIMEOUT_MS = 5000;
const SENTINEL = "event: __end__\ndata: x\n\n";
const t0 = performance.now();

// --- the generator ----------------------------------------------------------------------------

const enc = new TextEncoder();
// Text pieces for values: ASCII, the field separator, NUL, tab, 2-, 3- and 4-byte characters
// (chunk cuts land inside them), the BOM character, and "ï»¿" (a BOM's bytes read as Latin-1).
const TEXT = ["a", "b", "z", "0", "7", " ", " ", ":", ": ", "\0", "\t", "é", "€", "中", "😀", "\uFEFF", "ï»¿", "{\"k\":1}", "[DONE]"];
// Invalid UTF-8, in values and comments (U+FFFD for each maximal bad part): a lone byte, a cut 2-
// and 3-byte sequence, an encoded surrogate, an overlong form.
const BAD = [[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80]];
const EVENT_TYPES = ["", "message", "delta", "error", "open", "é", "a b", "x:y", " lead", "trail ", "\t", "😀", "t\0u", "ï»¿", "\uFEFF"];
const IDS = ["1", "2", "42", "abc", "", " sp", "é", "😀", "a\0b", "\0", "ï»¿"];
// Never a small valid number: a reconnection must not happen before a client has closed.
const RETRIES = ["600000", "999999", "abc", "", "-1", "1.5", " 600000", "600000x"];
const UNKNOWN = ["foo", "Data", "DATA", "dat", "datas", "data ", " data", "ï»¿data", "\uFEFFdata", "ï»¿event", "ï»¿id", "\uFEFFid", "comment", "ë"];

/** One random SSE body: its bytes, its chunks (as served) and the event types a client must listen to. */
function generate(bodySeed) {
  const r = rng(bodySeed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const parts = []; // Uint8Array pieces
  const text = (s) => parts.push(enc.encode(s));
  const types = new Set(["message", "__end__"]);
  const style = pick(["\n", "\r\n", "\r", "mixed", "mixed"]);
  const eol = () => (style === "mixed" ? pick(["\n", "\r\n", "\r"]) : style);
  const value = (bad) => {
    let s = "";
    const n = Math.floor(r() * 6);
    for (let i = 0; i < n; i++) {
      if (bad && r() < 0.04) {
        if (s) text(s);
        s = "";
        parts.push(new Uint8Array(pick(BAD)));
      } else s += pick(TEXT);
    }
    if (r() < 0.005) s += pick(TEXT).repeat(2000 + Math.floor(r() * 20000)); // a long line, over many chunks
    text(s);
  };
  const field = (name, v) => {
    // `name`, `name:v` or `name: v`: with or without the colon, with or without the one space it drops
    const colon = r() < 0.88;
    const space = colon && r() < 0.7;
    text(name + (colon ? ":" + (space ? " " : "") : ""));
    if (!colon) return;
    if (v === undefined) value(name === "data");
    else {
      text(v);
      // now and then invalid bytes in a type or an id too (before a line end they decode on their own)
      if (r() < 0.03) {
        const bad = new Uint8Array(pick(BAD));
        parts.push(bad);
        v += new TextDecoder().decode(bad);
      }
      if (name === "event") types.add(space || v[0] !== " " ? v : v.slice(1));
    }
  };

  if (r() < 0.15) parts.push(new Uint8Array([0xef, 0xbb, 0xbf])); // a BOM at the very start
  if (r() < 0.04) parts.push(new Uint8Array([0xef, 0xbb, 0xbf])); // (a second one is text)
  const lines = 1 + Math.floor(r() * 28);
  const retryAt = Math.floor(r() * lines);
  for (let i = 0; i < lines; i++) {
    if (i === retryAt) text("retry: 600000" + eol());
    const k = r();
    if (k < 0.3) field("data");
    else if (k < 0.5) text(""); // a blank line
    else if (k < 0.58) field("event", pick(EVENT_TYPES));
    else if (k < 0.68) field("id", pick(IDS));
    else if (k < 0.71) field("retry", pick(RETRIES));
    else if (k < 0.81) field(pick(UNKNOWN), r() < 0.5 ? undefined : pick(TEXT));
    else if (k < 0.9) {
      text(":");
      value(true);
    } else if (k < 0.93) text(pick([" ", "\t", "  "])); // white space only: a field, not a blank line
    else text(""); // another blank line
    text(eol());
  }
  // Most bodies end with the sentinel, after a line end (so that it is a line of its own); the rest
  // end as they are, maybe inside a line or a message, which the standard discards.
  const sentinel = r() < 0.85;
  if (sentinel) {
    if (r() < 0.5) text(pick(["data: tail", "event: t", "id: 9", ": c", "data"])); // a field the sentinel's message takes up
    text(eol());
    text(SENTINEL);
  } else if (r() < 0.5) text(pick(["data: cut", "data: cut\n", "data: a\r\ndata: b\r\n", "id: 5", "event: z\n", "\n\ndata: é", "data: ok\n\n"]));
  // ... or inside a character, or with a CR whose LF never comes
  if (!sentinel && r() < 0.1) parts.push(new Uint8Array(pick([[0xe2], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x0d]])));

  const body = concat(parts);
  // Random chunking: up to 6 cuts anywhere (inside characters, between CR and LF; more in long
  // bodies), and now and then one byte a chunk.
  const cuts = new Set();
  if (r() < 0.05 && body.length < 200) for (let i = 1; i < body.length; i++) cuts.add(i);
  else for (let i = Math.floor(r() * 7) + (body.length >> 12); i > 0; i--) cuts.add(1 + Math.floor(r() * Math.max(1, body.length - 1)));
  const at = [0, ...[...cuts].filter((c) => c < body.length).sort((a, b) => a - b), body.length];
  const chunks = [];
  for (let i = 1; i < at.length; i++) if (at[i] > at[i - 1]) chunks.push(body.subarray(at[i - 1], at[i]));
  return { seed: bodySeed, body, chunks, types: [...types] };
}


// --- what the package reads -----------------------------------------------------------------

async function decode(chunks) {
  const source = new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(ch.slice());
      c.close();
    },
  });
  const events = [];
  for await (const m of source.pipeThrough(new SseDecoderStream())) {
    events.push([m.event ?? "message", m.data, m.id ?? ""]);
    if (m.event === "__end__") return { events, end: "sentinel" };
  }
  return { events, end: "error" };
}

// --- the client, the same code in Node (undici), Deno and Chromium -----------------------------

/**
 * Opens an EventSource per job (a few at a time) and records each event as [type, data, lastEventId]
 * until the sentinel type `__end__`, or until the connection's end fires `error` (a plain Event, told
 * apart from a message of type "error" by its lack of `data`). Self-contained: it is serialized.
 */
async function collectStreams({ base, jobs, concurrency, timeoutMs, ES }) {
  const EventSourceClass = ES || globalThis.EventSource;
  const results = new Array(jobs.length);
  const one = (job) =>
    new Promise((resolve) => {
      const events = [];
      const es = new EventSourceClass(base + job.path);
      let done = false;
      const finish = (end) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        es.close();
        resolve({ events, end });
      };
      const timer = setTimeout(() => finish("timeout"), timeoutMs);
      const onEvent = (e) => {
        if (done || typeof e.data !== "string") return;
        events.push([e.type, e.data, e.lastEventId]);
        if (e.type === "__end__") finish("sentinel");
      };
      for (const t of job.types) es.addEventListener(t, onEvent);
      es.addEventListener("error", (e) => {
        if (typeof e.data !== "string") finish("error");
      });
    });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await one(jobs[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return results;
}

// --- the server -------------------------------------------------------------------------------

const bodies = new Map(); // seed → generated body
const served = new Map(); // path → times requested
let reconnects = 0;
const server = createServer(async (req, res) => {
  const m = /^\/(\w+)\/(\d+)$/.exec(req.url ?? "");
  if (!m) {
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>sse</title>");
    return;
  }
  const n = (served.get(req.url) ?? 0) + 1;
  served.set(req.url, n);
  const b = bodies.get(Number(m[2]));
  if (n > 1 || !b) {
    // A reconnection (the client missed the end): 204 tells EventSource to stop for good.
    if (n > 1) reconnects++;
    res.writeHead(204).end();
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  res.flushHeaders();
  for (const c of b.chunks) {
    res.write(c);
    await new Promise((r) => setTimeout(r, 0)); // let each chunk go out on its own
  }
  res.end();
});
server.keepAliveTimeout = 1000;
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

// --- running ----------------------------------------------------------------------------------

const seeds = ONLY !== undefined ? [ONLY] : Array.from({ length: COUNT }, (_, i) => SEED * 1_000_000 + i);
const expected = new Map();
for (const s of seeds) {
  const b = generate(s);
  bodies.set(s, b);
  const got = await decode(b.chunks);
  for (const [t] of got.events) if (!b.types.includes(t)) b.types.push(t);
  expected.set(s, got);
}
const jobsFor = (prefix, list) => list.map((s) => ({ path: `/${prefix}/${s}`, types: bodies.get(s).types }));

// --- client quirks -------------------------------------------------------------------------------
// Known ways a client departs from the standard. Each is a model: the body rewritten so that the
// standard reads it as that client does. A disagreement is excused only when the client's output is
// exactly what SseDecoderStream yields for the rewritten body (so any other difference still fails).

const BOM = [0xef, 0xbb, 0xbf];
const startsWithBom = (b, at = 0) => b[at] === BOM[0] && b[at + 1] === BOM[1] && b[at + 2] === BOM[2];
const ascii = (b) => String.fromCharCode(...b);

const QUIRKS = {
  undici: [
    {
      // undici 7.30.2 (lib/web/eventsource/eventsource-stream.js, parseLine) sets the event type only
      // when the value is not empty, so `event`, `event:` and `event: ` keep an earlier `event: x` of
      // the same message instead of resetting the type to "message". Model: each such line made the
      // unknown field "_" (not removed: a CR before it and a LF after it would become one CRLF).
      name: "an empty `event` value does not reset the type",
      models(b) {
        const out = [];
        let i = startsWithBom(b.body) ? 3 : 0;
        out.push(b.body.subarray(0, i));
        while (i < b.body.length) {
          let j = i;
          while (j < b.body.length && b.body[j] !== 10 && b.body[j] !== 13) j++;
          const next = j === b.body.length ? j : b.body[j] === 13 && b.body[j + 1] === 10 ? j + 2 : j + 1;
          const line = ascii(b.body.subarray(i, j));
          if (j < b.body.length && ["event", "event:", "event: "].includes(line)) out.push(enc.encode("_"), b.body.subarray(j, next));
          else out.push(b.body.subarray(i, next));
          i = next;
        }
        return [concat(out)];
      },
    },
  ],
  deno: [
    {
      // Deno 2.9.6's TextDecoder in streaming mode (under its EventSource's TextDecoderStream) drops a
      // U+FEFF whose three bytes begin a decode call, that is, a network read: a U+FEFF that is text
      // (inside a value, or making `\uFEFFdata` an unknown field) vanishes. Model: the U+FEFF at the
      // start of any served chunks removed (any subset: TCP may join chunks).
      name: "a U+FEFF at the start of a read is dropped",
      models(b) {
        const at = [];
        let o = 0;
        for (const c of b.chunks) {
          if (o > 0 && startsWithBom(b.body, o)) at.push(o);
          o += c.length;
        }
        const out = [];
        for (let mask = 1; mask < 1 << Math.min(at.length, 6); mask++) {
          const drop = new Set(at.filter((_, k) => mask & (1 << k)));
          out.push(concat(at.length ? splitDropping(b.body, drop) : [b.body]));
        }
        return out;
      },
    },
  ],
  chromium: [
    {
      // Chromium 156 (blink EventSourceParser::AddBytes): after recognising a leading BOM it skips the
      // next byte's line-break check, so in a body that starts with BOM + CR or LF that break is not a
      // line end: it becomes the first character of the next line, which is then an unknown field.
      // Model: that byte replaced by "_" (a line "_…" is an unknown field as well).
      name: "the line break right after a leading BOM is not a line end",
      models(b) {
        if (!startsWithBom(b.body) || (b.body[3] !== 10 && b.body[3] !== 13)) return [];
        const body = b.body.slice();
        body[3] = 0x5f;
        return [body];
      },
    },
  ],
};

function splitDropping(body, drop) {
  const parts = [];
  let from = 0;
  for (const at of [...drop].sort((x, y) => x - y)) {
    parts.push(body.subarray(from, at));
    from = at + 3;
  }
  parts.push(body.subarray(from));
  return parts;
}

/** The name of the quirk that explains `got` exactly, if one does. */
async function excuse(client, b, got) {
  for (const q of QUIRKS[client]) {
    for (const body of q.models(b)) if (JSON.stringify(await decode([body])) === JSON.stringify(got)) return q.name;
  }
  return undefined;
}

async function compare(client, list, results) {
  let agreed = 0;
  const excused = new Map(); // quirk → count
  const agreedSeeds = new Set(), excusedSeeds = [];
  const bad = [];
  for (const [i, s] of list.entries()) {
    const want = expected.get(s);
    const got = results[i];
    if (JSON.stringify(want) === JSON.stringify(got)) {
      agreed++;
      agreedSeeds.add(s);
      continue;
    }
    const quirk = await excuse(client, bodies.get(s), got);
    if (quirk) {
      excused.set(quirk, (excused.get(quirk) ?? 0) + 1);
      excusedSeeds.push(s);
    }
    else bad.push({ seed: s, want, got });
  }
  return { agreed, excused, bad, agreedSeeds, excusedSeeds };
}

function show(client, { seed, want, got }) {
  const b = bodies.get(seed);
  const fatal = (() => {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(b.body);
      return false;
    } catch {
      return true;
    }
  })();
  console.log(`✗ ${client}: body seed ${seed} (reproduce: node scripts/sse-differential.mjs --only ${seed})`);
  console.log(`  body: ${JSON.stringify(new TextDecoder("utf-8", { ignoreBOM: true }).decode(b.body))}${fatal ? " (has invalid UTF-8: U+FFFD shown)" : ""}`);
  console.log(`  chunks: ${b.chunks.map((c) => c.length).join(",")}`);
  console.log(`  SseDecoderStream: ${JSON.stringify(want)}`);
  console.log(`  ${client}: ${JSON.stringify(got)}`);
}

async function runUndici(list) {
  return collectStreams({ base, jobs: jobsFor("u", list), concurrency: 24, timeoutMs: STREAM_TIMEOUT_MS, ES: UndiciEventSource });
}

async function runDeno(list) {
  const dir = mkdtempSync(join(tmpdir(), "sse-diff-"));
  try {
    const file = join(dir, "client.mjs");
    writeFileSync(
      file,
      `${collectStreams.toString()}\n` +
        `const input = JSON.parse(await new Response(Deno.stdin.readable).text());\n` +
        `console.log(JSON.stringify(await collectStreams(input)));\n` +
        // Deno's EventSource, closed in its "error" listener, still waits out the reconnection delay
        // (here 600 s) before the process can end: exit once the results are out.
        `Deno.exit(0);\n`,
    );
    const child = spawn("npx", ["deno", "run", "--no-config", `--allow-net=127.0.0.1`, file], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    });
    child.stdin.end(JSON.stringify({ base, jobs: jobsFor("d", list), concurrency: 24, timeoutMs: STREAM_TIMEOUT_MS }));
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    const code = await new Promise((r) => child.on("close", r));
    if (code !== 0) throw new Error(`deno exited with ${code}`);
    return JSON.parse(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runChromium(list) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(base + "/");
    const results = [];
    // Batches: HTTP/1.1 allows Chromium 6 connections to a host, and an EventSource holds one.
    for (let i = 0; i < list.length; i += 100) {
      const jobs = jobsFor("c", list.slice(i, i + 100));
      results.push(...(await page.evaluate(collectStreams, { base, jobs, concurrency: 5, timeoutMs: STREAM_TIMEOUT_MS })));
    }
    return { results, version: browser.version() };
  } finally {
    await browser.close();
  }
}

const versionOf = (pkg) => JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), "utf8")).version;
const clients = [
  ["undici", seeds, () => runUndici(seeds).then((results) => ({ results, version: `undici ${versionOf("undici")}` }))],
  ["deno", seeds, () => runDeno(seeds).then((results) => ({ results, version: `deno ${versionOf("deno")}` }))],
  ["chromium", seeds.slice(0, CHROMIUM_COUNT), () => runChromium(seeds.slice(0, CHROMIUM_COUNT))],
];
let passed = 0, failed = 0;
const outcomes = new Map(); // client → compare()
const settled = await Promise.allSettled(clients.map(([, , run]) => run()));
for (const [k, [name, list]] of clients.entries()) {
  const s = settled[k];
  if (s.status === "rejected") {
    failed++;
    console.log(`${name}: could not run: ${s.reason?.stack ?? s.reason}`);
    continue;
  }
  const outcome = await compare(name, list, s.value.results);
  outcomes.set(name, outcome);
  const { agreed, excused, bad } = outcome;
  for (const d of bad.slice(0, 3)) show(name, d);
  if (bad.length > 3) console.log(`  … and ${bad.length - 3} more ${name} disagreements`);
  const quirks = [...excused].map(([q, n]) => `${n}× ${q}`).join("; ");
  console.log(`${name} (${s.value.version}): ${list.length} streams, ${agreed} agreed, ${bad.length} disagreed` +
    (quirks ? `, excused as its known quirk: ${quirks}` : ""));
  if (bad.length === 0) passed++;
  else failed++;
}
// A check on the excuses: a body excused for one client should read, in another, as the package reads it.
const excusedAll = [...outcomes].flatMap(([name, o]) => o.excusedSeeds.map((s) => [name, s]));
const confirmed = excusedAll.filter(([name, s]) => [...outcomes].some(([other, o]) => other !== name && o.agreedSeeds.has(s)));
if (excusedAll.length) console.log(`excused streams: ${excusedAll.length}, of which ${confirmed.length} read exactly as SseDecoderStream does in another client`);
if (reconnects) console.log(`note: ${reconnects} reconnection(s) refused with 204`);
server.close();
server.closeAllConnections();
console.log(`(${Math.round(performance.now() - t0)} ms, seed ${SEED})`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
