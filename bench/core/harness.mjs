// The runtime-neutral timing core of the multi-runtime benchmark (issue #16): web APIs only, so
// Node, Deno, Bun, Chromium and workerd run the very same loop. A thin runner per runtime hands in
// the corpora's bytes, the contenders (core/contenders.mjs, built on what loads there) and its
// clocks; the result is plain JSON that bench/runtimes.mjs turns into that runtime's table.
//
// Method (as bench/run.mjs): per case (corpus × format × chunking) one warm-up run per contender,
// then rounds that run every contender once in an order rotated each round, a GC before each run
// where the runtime offers one; every run's count is checked against the corpus.

/**
 * Loads each peer on its own: `loaders` maps a package name to a function resolving to the members it
 * adds. One that does not load in this runtime drops only its contenders and is listed in `missing`.
 */
export async function loadEach(loaders) {
  const peers = {};
  const missing = [];
  for (const [name, get] of Object.entries(loaders)) {
    try {
      Object.assign(peers, await get());
    } catch (e) {
      missing.push(`${name}: ${String(e?.message ?? e).split("\n")[0]}`);
    }
  }
  return { peers, missing };
}

/** Deterministic PRNG (mulberry32): uniform in [0, 1); `.int(lo, hi)` inclusive, `.pick(list)`. */
export function rng(seed) {
  let s = seed | 0;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  next.pick = (list) => list[Math.floor(next() * list.length)];
  return next;
}

/** FNV-1a of a string: the chunking seed, the same in every runtime (no node:crypto). */
export function seedOf(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export const CHUNKINGS = {
  wide: { lo: 1024, hi: 16 * 1024, label: "1–16 KiB" },
  live: { lo: 64, hi: 512, label: "64–512 B" },
};

/** A chunking of the corpus `name` (`CHUNKINGS`), seeded by its name: the same chunks in every runtime. */
export function chunk(bytes, chunking, name) {
  const { lo, hi } = CHUNKINGS[chunking];
  return chunkSeeded(bytes, lo, hi, seedOf(`${name}/${chunking}`));
}

/** Seeded chunking: views (no copies) of lo..hi bytes, so every contender reads the same chunks. */
export function chunkSeeded(bytes, lo, hi, seed) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < bytes.length; ) {
    const n = r.int(lo, hi);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** The bytes of `parts`, one after another, in one new array. */
export function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length ? (s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) : NaN;
};

/** A warm-up run longer than this: the contender is timed from that one run only (flagged). */
export const SLOW_MS = 3000;

function check(corpus, k, seen) {
  const ok =
    seen.events !== undefined ? seen.events === corpus.events
    : seen.groups !== undefined ? seen.groups === corpus.groups
    : seen.messages >= corpus.events; // relay: one SSE message per event (+ [DONE] when written)
  if (!ok) throw new Error(`${k.id} on ${corpus.name}/${corpus.format} saw ${JSON.stringify(seen)}, expected ${corpus.events} events / ${corpus.groups} groups`);
}

/**
 * Runs `plan` ({ cases: [{ name, format, chunking, relay? }], rounds, warmup }) and returns
 * { cases: [{ name, format, chunking, relay, bytes, events, chunks, stats: { id: { ms: [], cpu: [], single } } }] }.
 * `getCorpus(name, format)` → { name, format, bytes, events, groups } (may be async);
 * `now()` wall ms; `cpu()` CPU ms of the process when the runtime has it (else null); `gc()` optional.
 */
export async function runSuite({ plan, getCorpus, contenders, now = () => performance.now(), cpu = null, gc = null, log = () => {} }) {
  const out = [];
  for (const cs of plan.cases) {
    const corpus = await getCorpus(cs.name, cs.format);
    const chunks = chunk(corpus.bytes, cs.chunking, cs.name);
    const ks = contenders.filter((k) => !!k.relay === !!cs.relay && !(k.sseOnly && cs.format !== "sse") && (!k.runsOn || k.runsOn(cs.format)) && !k.skip?.(cs.name));
    const stats = Object.fromEntries(ks.map((k) => [k.id, { ms: [], cpu: [], single: false, warmMs: 0 }]));
    const once = async (k) => {
      gc?.();
      const c0 = cpu?.();
      const t0 = now();
      const seen = await k.run(chunks, cs.format);
      const ms = now() - t0;
      const c = cpu ? cpu() - c0 : null;
      check(corpus, k, seen);
      return { ms, c };
    };
    const t = now();
    const active = [];
    for (const k of ks) {
      let w = null;
      for (let i = 0; i < plan.warmup; i++) {
        w = await once(k);
        stats[k.id].warmMs += w.ms;
      }
      if (w && w.ms > SLOW_MS) {
        Object.assign(stats[k.id], { ms: [w.ms], cpu: w.c === null ? [] : [w.c], single: true });
      } else active.push(k);
    }
    for (let r = 0; r < plan.rounds; r++) {
      for (let j = 0; j < active.length; j++) {
        const k = active[(j + r) % active.length];
        const { ms, c } = await once(k);
        stats[k.id].ms.push(ms);
        if (c !== null) stats[k.id].cpu.push(c);
      }
    }
    const floorId = cs.relay ? "relay-floor" : "floor";
    const f = stats[floorId];
    log(
      `${cs.name}/${cs.format}/${CHUNKINGS[cs.chunking].label}${cs.relay ? " relay" : ""} (${((now() - t) / 1000).toFixed(1)} s): ` +
        ks.map((k) => `${k.id} ${(median(f.ms) / median(stats[k.id].ms)).toFixed(2)}×`).join(", "),
    );
    out.push({ ...cs, relay: !!cs.relay, bytes: corpus.bytes.length, events: corpus.events, chunks: chunks.length, stats });
  }
  return { cases: out, readCost: plan.readCost === false ? null : await readCost(now) };
}

/**
 * What delivering one value through a web stream costs here: `n` small objects read one
 * `reader.read()` each (a source that enqueues 64 per pull, as a transform does per chunk), the
 * same through one extra TransformStream hop, and the same objects delivered as arrays of 64 (one
 * read per batch). µs per value, median of 5.
 */
export async function readCost(now = () => performance.now(), n = 200_000) {
  const values = Array.from({ length: 64 }, (_, i) => ({ i }));
  const source = (batched) => {
    let left = n;
    return new ReadableStream({
      pull(c) {
        const k = Math.min(64, left);
        if (batched) c.enqueue(values.slice(0, k));
        else for (let i = 0; i < k; i++) c.enqueue(values[i]);
        left -= k;
        if (left === 0) c.close();
      },
    }, { highWaterMark: 0 });
  };
  const drain = async (readable) => {
    const reader = readable.getReader();
    let seen = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen += Array.isArray(value) ? value.length : 1;
    }
    if (seen !== n) throw new Error(`readCost saw ${seen}`);
  };
  const runs = { read: [], hop: [], batched: [] };
  for (let r = 0; r < 6; r++) {
    let t = now();
    await drain(source(false));
    const a = now() - t;
    t = now();
    await drain(source(false).pipeThrough(new TransformStream()));
    const b = now() - t;
    t = now();
    await drain(source(true));
    const c = now() - t;
    if (r === 0) continue; // warm-up
    runs.read.push(a);
    runs.hop.push(b);
    runs.batched.push(c);
  }
  const us = (xs) => (median(xs) * 1000) / n;
  return { n, readUs: us(runs.read), hopUs: us(runs.hop), batchedUs: us(runs.batched) };
}
