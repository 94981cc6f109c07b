// Deterministic benchmark corpora: valid MMSP streams (SPEC §3/§4) as SSE and NDJSON bytes.
//
// Every corpus is generated from a seeded PRNG, so two runs (and two machines) read the same
// bytes. `loadCorpus` caches the encoded bytes under bench/.cache/ (gitignored) so that the
// memory-measuring child processes can read a file instead of generating (generating in the
// measuring process would leave freed pages in its RSS and hide the reader's own growth).
//
//   node bench/corpora.mjs            # generate + cache every corpus, print their sizes
//
// Corpora (SPEC §3: K.delta+ K.done groups, one stop event; bytes as padded base64; each .done
// built from its fragments):
//   chat        20k thinking/text deltas of 1–8 code points; thinking groups close with a
//               signature-only fragment (`thinking: ""` + `fidelity: {signature}`)
//   tools       400 tool calls, arguments in 5–20-char fragments, ~15% single-fragment calls,
//               a quarter with a fidelity on the first fragment
//   media       one 4 MiB image (random bytes) in 64 KiB chunks, then its .done
//   embeddings  500 vectors of 1536 floats: one embedding.delta + embedding.done each
//   mixed       agentic rounds of every kind: thinking, text, tool calls, images, audio,
//               inline thinking, embeddings
//   chat4x      chat at 4× the length (memory linearity)
//   media40     media with a 40 MiB image (time and memory linearity)
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync, existsSync, renameSync, readdirSync, unlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chunkSeeded, concat, rng } from "./core/harness.mjs";

/** A hash of this file: it names the cache files, so editing the generator never reads stale bytes. */
export const GENERATOR_VERSION = createHash("sha256").update(readFileSync(fileURLToPath(import.meta.url))).digest("hex").slice(0, 10);
export const CACHE_DIR = fileURLToPath(new URL("./.cache/", import.meta.url));

/** Deterministic PRNG (mulberry32), the one the runtime-neutral harness uses too. */
export { rng };

/** `n` pseudo-random bytes (xorshift32 words seeded from `r`), fast enough for 40 MiB. */
function randomBytes(r, n) {
  const out = new Uint8Array(n);
  const words = new Uint32Array(out.buffer, 0, n >>> 2);
  let x = (Math.floor(r() * 0xffffffff) | 1) >>> 0;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  for (let i = words.length * 4; i < n; i++) out[i] = Math.floor(r() * 256);
  return out;
}

const b64 = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");

// Prose with what real model output has: ASCII words, punctuation, newlines, quotes and
// backslashes (JSON escapes), accented letters, CJK (3-byte UTF-8) and emoji (4-byte, surrogates).
const WORDS = (
  "the of and to in is that for it as with was on be by this are from or have not but what all " +
  "were when we there can an your which their said if do will each about how up out them then " +
  "she many some so these would other into has more two like him see time could no make than " +
  "first been its who now people my made over did down only way find use may water long little " +
  "very after words called just where most know function return const value stream event token"
).split(" ");
const EXTRA = ["café", "naïve", "Straße", "日本語", "中文", "한국어", "😀", "🚀", "👍🏽", "€", "—", "“quoted”", '"q"', "a\\b", "x\ty"];
const PUNCT = [",", ".", ";", ":", "!", "?", "\n", "\n\n", " - ", "`", "(", ")"];

function prose(r, codePoints) {
  let s = "";
  let n = 0;
  while (n < codePoints) {
    const p = r();
    const w = p < 0.82 ? r.pick(WORDS) : p < 0.9 ? r.pick(PUNCT) : r.pick(EXTRA);
    s += w + (p < 0.82 ? " " : "");
    n += Array.from(w).length + 1;
  }
  return s;
}

/** Splits a string into fragments of lo..hi code points (never inside a surrogate pair). */
function fragments(r, text, lo, hi) {
  const cps = Array.from(text);
  const out = [];
  for (let i = 0; i < cps.length; ) {
    const n = r.int(lo, hi);
    out.push(cps.slice(i, i + n).join(""));
    i += n;
  }
  return out;
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const randomId = (r, prefix, n) => prefix + Array.from({ length: n }, () => r.pick(alnum)).join("");

/** Collects events and counts groups; `group*` helpers emit a whole `K.delta+ K.done` group. */
class Stream {
  constructor(r) {
    this.r = r;
    this.events = [];
    this.groups = 0;
    this.t = 1_767_225_600_000;
  }
  delta(item) {
    this.t += this.r.int(0, 3);
    this.events.push({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null, created_at: this.t });
  }
  stop(finish_reason, usage) {
    this.t += 1;
    this.events.push({ role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason, created_at: this.t });
  }
  /** text or thinking; `signature` closes the group with a signature-only fragment. */
  textGroup(kind, text, { signature, lo = 1, hi = 8 } = {}) {
    const parts = fragments(this.r, text, lo, hi);
    for (const p of parts) this.delta({ type: `${kind}.delta`, [kind]: p });
    const done = { type: `${kind}.done`, [kind]: parts.join("") };
    if (signature) {
      const fidelity = { signature };
      this.delta({ type: `${kind}.delta`, [kind]: "", fidelity });
      done.fidelity = fidelity;
    }
    this.delta(done);
    this.groups++;
    return parts.length + (signature ? 1 : 0);
  }
  toolCall(name, args, { single = false, fidelity } = {}) {
    const text = JSON.stringify(args);
    const id = randomId(this.r, "call_", 24);
    const parts = single ? [text] : fragments(this.r, text, 5, 20);
    parts.forEach((p, i) => {
      const item = { type: "tool_call.delta", name: i === 0 ? name : "", tool_call_id: i === 0 ? id : "", arguments: p };
      if (i === 0 && fidelity) item.fidelity = fidelity;
      this.delta(item);
    });
    const done = { type: "tool_call.done", name, arguments: JSON.parse(parts.join("")), tool_call_id: id };
    if (fidelity) done.fidelity = fidelity;
    this.delta(done);
    this.groups++;
  }
  /** inline_data / inline_thinking: `bytes` in chunks of `chunkSize` raw bytes, each padded base64. */
  bytesGroup(kind, mime_type, bytes, chunkSize) {
    for (let i = 0; i < bytes.length; i += chunkSize) {
      this.delta({ type: `${kind}.delta`, data: b64(bytes.subarray(i, i + chunkSize)), mime_type });
    }
    this.delta({ type: `${kind}.done`, data: b64(bytes), mime_type });
    this.groups++;
  }
  embedding(vector) {
    this.delta({ type: "embedding.delta", embedding: vector });
    this.delta({ type: "embedding.done", embedding: vector });
    this.groups++;
  }
}

const usage = (r) => ({ cached_tokens: r.int(0, 2048), prompt_tokens: r.int(100, 50_000), thoughts_tokens: r.int(0, 8000), response_tokens: r.int(1, 8000) });
const signature = (r) => b64(randomBytes(r, 256));

function toolArgs(r) {
  const kind = r.int(0, 3);
  if (kind === 0) return { path: `src/${r.pick(WORDS)}/${r.pick(WORDS)}.ts`, content: prose(r, r.int(80, 700)), mode: "overwrite" };
  if (kind === 1) return { query: prose(r, r.int(5, 40)), limit: r.int(1, 50), filters: { lang: r.pick(["en", "de", "ja"]), after: "2025-01-01" } };
  if (kind === 2) return { command: `grep -rn "${r.pick(WORDS)}" src | head -${r.int(5, 40)}`, timeout_ms: r.int(1000, 60000), env: { CI: "1" } };
  return { points: Array.from({ length: r.int(2, 30) }, () => ({ x: r.int(-1000, 1000), y: Math.round(r() * 1e6) / 1e3, label: r.pick(EXTRA) })), closed: r() < 0.5, style: null };
}
const TOOL_NAMES = ["write_file", "search", "run_shell", "plot", "read_file", "get_weather"];

function vector(r, dims) {
  // Shortest float32-like text, as embedding APIs send (e.g. -0.0069879326).
  return Array.from({ length: dims }, () => Number(((r() * 2 - 1) * 0.08).toPrecision(8)));
}

const GENERATORS = {
  chat(scale = 1) {
    const r = rng(1001);
    const s = new Stream(r);
    const target = 20_000 * scale;
    let deltas = 0;
    while (deltas < target) {
      const left = target - deltas;
      // thinking ~ 40%, text ~ 60% of a segment of ~2000 deltas (avg fragment 4.5 code points)
      const seg = Math.min(left, 2000);
      deltas += s.textGroup("thinking", prose(r, Math.max(1, Math.round(seg * 0.4 * 4.5))), { signature: signature(r) });
      deltas += s.textGroup("text", prose(r, Math.max(1, Math.round(seg * 0.6 * 4.5))));
    }
    s.stop("stop", usage(r));
    return s;
  },
  tools() {
    const r = rng(2002);
    const s = new Stream(r);
    s.textGroup("text", "Let me run those for you.");
    for (let i = 0; i < 400; i++) {
      const fidelity = r() < 0.25 ? { thought_signature: signature(r).slice(0, 120) } : undefined;
      s.toolCall(r.pick(TOOL_NAMES), toolArgs(r), { single: r() < 0.15, fidelity });
    }
    s.stop("tool_call", usage(r));
    return s;
  },
  media(imageBytes = 4 * 1024 * 1024) {
    const r = rng(3003);
    const s = new Stream(r);
    s.textGroup("text", "Here is the image you asked for:");
    s.bytesGroup("inline_data", "image/png", randomBytes(r, imageBytes), 64 * 1024);
    s.stop("stop", usage(r));
    return s;
  },
  embeddings() {
    const r = rng(4004);
    const s = new Stream(r);
    for (let i = 0; i < 500; i++) s.embedding(vector(r, 1536));
    s.stop("stop", { cached_tokens: 0, prompt_tokens: r.int(5000, 50000), thoughts_tokens: null, response_tokens: null });
    return s;
  },
  mixed() {
    const r = rng(5005);
    const s = new Stream(r);
    for (let round = 0; round < 40; round++) {
      s.textGroup("thinking", prose(r, r.int(100, 900)), { signature: signature(r) });
      if (round % 4 === 1) s.bytesGroup("inline_thinking", "image/png", randomBytes(r, r.int(8, 24) * 1024), 8 * 1024);
      s.textGroup("text", prose(r, r.int(100, 1400)));
      const calls = r.int(1, 3);
      for (let i = 0; i < calls; i++) s.toolCall(r.pick(TOOL_NAMES), toolArgs(r), { single: r() < 0.15 });
      if (round % 5 === 2) s.bytesGroup("inline_data", "image/jpeg", randomBytes(r, r.int(40, 160) * 1024), 16 * 1024);
      if (round % 7 === 3) s.bytesGroup("inline_data", "audio/wav", randomBytes(r, r.int(32, 96) * 1024), 4800);
      if (round % 10 === 5) s.embedding(vector(r, 256));
    }
    s.textGroup("text", prose(r, 400));
    s.stop("stop", usage(r));
    return s;
  },
};

/** name → how to make it. */
export const CORPORA = {
  chat: () => GENERATORS.chat(1),
  tools: () => GENERATORS.tools(),
  media: () => GENERATORS.media(4 * 1024 * 1024),
  embeddings: () => GENERATORS.embeddings(),
  mixed: () => GENERATORS.mixed(),
  chat4x: () => GENERATORS.chat(4),
  media40: () => GENERATORS.media(40 * 1024 * 1024),
};
/** The five corpora of the main table. */
export const MAIN_CORPORA = ["chat", "tools", "media", "embeddings", "mixed"];

/** Event objects → wire bytes. SSE: `data: <json>\n\n` each, then `data: [DONE]\n\n`. */
export function encode(events, format) {
  const enc = new TextEncoder();
  const parts = events.map((e) => enc.encode(format === "sse" ? `data: ${JSON.stringify(e)}\n\n` : `${JSON.stringify(e)}\n`));
  if (format === "sse") parts.push(enc.encode("data: [DONE]\n\n"));
  return concat(parts);
}

const cachePath = (name, format) => `${CACHE_DIR}${name}.v${GENERATOR_VERSION}.${format}`;

/**
 * The bytes of a corpus in a format, with `events` (UniEvents, the stop included; not `[DONE]`)
 * and `groups` (done items of the message). Read from bench/.cache/ when there, else generated
 * (and written there when `write`).
 */
export function loadCorpus(name, format, { write = true } = {}) {
  const path = cachePath(name, format);
  if (existsSync(path) && existsSync(`${path}.json`)) {
    const meta = JSON.parse(readFileSync(`${path}.json`, "utf8"));
    return { name, format, bytes: new Uint8Array(readFileSync(path)), ...meta };
  }
  const made = generateBoth(name, write);
  return made[format];
}

function generateBoth(name, write) {
  const s = CORPORA[name]();
  const meta = { events: s.events.length, groups: s.groups };
  const out = {};
  for (const format of ["sse", "ndjson"]) {
    const bytes = encode(s.events, format);
    out[format] = { name, format, bytes, ...meta };
    if (write) {
      mkdirSync(CACHE_DIR, { recursive: true });
      // drop this corpus's files from older generator versions
      for (const f of readdirSync(CACHE_DIR)) if (f.startsWith(`${name}.`) && !f.startsWith(`${name}.v${GENERATOR_VERSION}.`)) unlinkSync(CACHE_DIR + f);
      const path = cachePath(name, format);
      writeFileSync(`${path}.tmp`, bytes);
      renameSync(`${path}.tmp`, path); // never leave a half-written cache file
      writeFileSync(`${path}.json`, JSON.stringify(meta));
    }
  }
  return out;
}

/** The chunking seed of a corpus and chunking name (e.g. "chat", "wide"): every script cuts the same chunks. */
export function chunkSeed(name, chunking) {
  return createHash("sha256").update(`${name}/${chunking}`).digest().readUInt32LE(0);
}

/** Seeded chunking (`chunk(bytes, lo, hi, seed)`): the core harness's, one loop for both benchmarks. */
export { chunkSeeded as chunk };

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const name of Object.keys(CORPORA)) {
    const t = performance.now();
    const { bytes, events, groups } = loadCorpus(name, "sse");
    const nd = loadCorpus(name, "ndjson");
    console.log(`${name.padEnd(11)} sse ${(bytes.length / 1e6).toFixed(2)} MB, ndjson ${(nd.bytes.length / 1e6).toFixed(2)} MB, ${events} events, ${groups} groups (${(performance.now() - t).toFixed(0)} ms)`);
  }
}
