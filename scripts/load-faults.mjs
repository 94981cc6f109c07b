#!/usr/bin/env node
// `npm run load -- --faults` (issue #48, SPEC §10 "A stream outlives its object"): concurrent streams
// through the relay Worker in workerd while its objects are reset and its process is killed at random
// points, against the kit's fakeProvider("anthropic") on 127.0.0.1. The Worker runs in Miniflare with
// its Durable Objects persisted to a temp directory (scripts/workerd-faults.mjs): a kill is SIGKILL
// to the workerd process, then a new one on the same storage and port; a reset is one stream's object
// calling `ctx.abort()` with its storage cut (as a deploy or an eviction does to an object).
//
// Stream k (EVENTS text deltas "f<k>.<i> ", PACE ms apart, the provider reporting input 12, a
// continuation its prefix too: UTF-8 bytes / 4) asks the
// Worker's "fast" row (its Claude has `continueOnFailure`: a faulted answer is continued) or, every
// 4th, "claude-fast" (no `continueOnFailure`: a faulted answer ends typed, StreamInterrupted), for
// principal k % 3, whose quota is exactly its share of the streams at once (concurrentStreams). Each
// client is `fromFetch`, resuming from its last id after a cut. Once every stream has its first event
// the faults come, one every 0.3–1.5 s (seeded), while any stream is live. It prints completed, ended
// typed, lost, duplicated, charged (the ledger, GET /v1/usage?all=1) and released (each principal's
// next streams, its whole quota at once, admitted), against what the fake provider counted (its
// requests, and the deltas it sent). Checks: 0 lost, 0 duplicated, every "fast" stream whole, every
// stream completed or ended typed, each charged once with at least what was delivered, every request's
// input charged once (at least what the provider reported, at most one count per request it received),
// all released.
//
//   npm run load -- --faults                          24 streams, 100 events, 2 kills, 4 resets
//   node scripts/load.mjs --faults --streams 8 --events 40 --kills 1 --resets 2 --seed 3
//   node scripts/load.mjs --faults --tiny             the CI smoke (relay-faults): 6 streams, 1 kill, 1 reset
//
// Bounded: --timeout seconds for the whole run (default 180); ends with "<label>: N passed, N failed".
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromFetch } from "../dist/index.js";
import { fakeProvider } from "../dist/testing/index.js";
import { seeded } from "../dist/testing/replay.js";
import { serve } from "./upstream.mjs";
import { killWorkerd, resetObject, startRelay } from "./workerd-faults.mjs";
import { allUsage, anthropicCapture, askingFor, checks, commandLine, deadline, inRanges, ledgerCounting, ownModel } from "./load-kit.mjs";

const t0 = performance.now();
const { flag, option } = commandLine();
const tiny = flag("tiny");
const STREAMS = option("streams", tiny ? 6 : 24);
const EVENTS = option("events", tiny ? 60 : 100);
const PACE_MS = option("pace", 50);
const KILLS = option("kills", tiny ? 1 : 2);
const RESETS = option("resets", tiny ? 1 : 4);
const SEED = option("seed", 1);
const TIMEOUT_S = option("timeout", tiny ? 120 : 180);
const LABEL = tiny ? "relay-faults" : "load-faults";
inRanges([
  ["streams", STREAMS, 1, 500],
  ["events", EVENTS, 4, 10_000],
  ["pace", PACE_MS, 1, 10_000],
  ["kills", KILLS, 0, 100],
  ["resets", RESETS, 0, 1000],
  ["timeout", TIMEOUT_S, 1, 3600],
], { whole: true });
const rand = seeded(SEED);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the provider --------------------------------------------------------------------------------------

const INPUT = 12;
const words = (k) => Array.from({ length: EVENTS }, (_, i) => `f${k}.${i} `);
const capture = (k, n) => anthropicCapture({ id: `msg_${k}`, texts: k === null ? ["next "] : words(k).slice(0, n), input: INPUT });
const KEY = "sk-ant-faults-fake-key";
const streams = { next: capture(null) };
for (let k = 0; k < STREAMS; k++) streams[`f-${k}`] = { capture: capture(k, EVENTS), pace: 1000 / PACE_MS };
const provider = fakeProvider("anthropic", { streams, key: KEY });
let deltasSent = 0; // what the fake provider sent: text deltas that left it
const inputSent = new Map(); // and the input it reported, per stream (each answer's message_start that left it)
const inputAsked = new Map(); // and the input of every request it received, per stream (what it would report)
/**
 * The input of a request as the fake provider counts it: INPUT, and a continuation's prefix (its final
 * assistant message, Anthropic's prefill) as the relay estimates text, UTF-8 bytes / 4, as a provider
 * counts a prefill as input too.
 */
const inputOf = (json) => {
  const last = json.messages?.at(-1);
  if (last?.role !== "assistant") return INPUT;
  const text = typeof last.content === "string" ? last.content : last.content.map((p) => p.text ?? "").join("");
  return INPUT + Math.ceil(new TextEncoder().encode(text).length / 4);
};
/** Counts the deltas of an answer's body as they leave, its message_start reporting `input` (whole records passed on). */
const counted = (body, k, input) => {
  const utf8 = new TextDecoder();
  const bytes = new TextEncoder();
  let held = "";
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        held += utf8.decode(chunk, { stream: true });
        const records = held.split("\n\n");
        held = records.pop();
        if (records.length === 0) return;
        deltasSent += records.filter((r) => r.startsWith("event: content_block_delta")).length;
        const started = records.filter((r) => r.startsWith("event: message_start")).length;
        if (started > 0) inputSent.set(k, (inputSent.get(k) ?? 0) + input * started);
        const out = records.map((r) => r.replace(`"input_tokens":${INPUT},`, `"input_tokens":${input},`) + "\n\n").join("");
        controller.enqueue(bytes.encode(out));
      },
      flush(controller) {
        if (held !== "") controller.enqueue(bytes.encode(held));
      },
    }),
  );
};
// (the Worker asks for one model id: the stream's own rides in the user's text, as in load.mjs)
const upstream = await serve(async (request) => {
  const json = await request.json();
  const model = ownModel(json);
  const input = inputOf(json);
  inputAsked.set(model, (inputAsked.get(model) ?? 0) + input);
  const answer = await provider(askingFor(request, json, model));
  return answer.body === null ? answer : new Response(counted(answer.body, model, input), answer);
});

// ---- the relay in workerd on persisted storage ------------------------------------------------------

const PRINCIPALS = 3;
const principalOf = (k) => `faults-p${k % PRINCIPALS}`;
const keyOf = (p) => `relay-key-of-${p}`;
const ADMIN_KEY = "faults-admin-key-0123456789";
const QUOTA = Math.ceil(STREAMS / PRINCIPALS); // each principal's streams at once: exactly its share
const bindings = {
  ANTHROPIC_API_KEY: KEY,
  ANTHROPIC_BASE_URL: upstream.url,
  OPENAI_API_KEY: "sk-faults-openai-unused", // (both keys make the "fast" row)
  OPENAI_BASE_URL: `${upstream.url}/v1`,
  RELAY_KEYS: JSON.stringify(Object.fromEntries(Array.from({ length: PRINCIPALS }, (_, i) => [principalOf(i), keyOf(principalOf(i))]))),
  ADMIN_KEY,
  RELAY_QUOTAS: JSON.stringify({ default: { concurrentStreams: QUOTA } }),
};
const dir = await mkdtemp(join(tmpdir(), "mmsp-faults-"));
let relay = await startRelay(dir, bindings);
const base = relay.url.href.replace(/\/$/, "");
console.log(`relay in workerd (Miniflare, storage persisted) on ${base}, pid ${relay.pid}; upstream ${upstream.url}`);
async function stopAll() {
  await relay?.mf.dispose().catch(() => {});
  await upstream.close();
  await rm(dir, { recursive: true, force: true }).catch(() => {});
}
const timer = deadline(LABEL, TIMEOUT_S, stopAll);

// ---- the clients ----------------------------------------------------------------------------------------

const live = new Map(); // k → { id } while the stream is read
async function runStream(k, started) {
  const row = k % 4 === 3 ? "claude-fast" : "fast";
  const principal = principalOf(k);
  let id = null;
  let connections = 0;
  const recording = async (input, init) => {
    connections++;
    const res = await fetch(input, init);
    id ??= res.headers.get("content-location")?.split("/").at(-1) ?? null;
    return res;
  };
  const { readable, message } = fromFetch(
    `${base}/v1/stream`,
    {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", "x-relay-key": keyOf(principal) },
      body: JSON.stringify({ model: row, messages: [{ role: "user", content_items: [{ type: "text.done", text: `f-${k}` }] }] }),
    },
    { fetch: recording, reconnect: { retries: 10, delayMs: 100 } },
  );
  const seen = new Map();
  let error = null;
  let events = 0;
  try {
    for await (const e of readable) {
      if (events++ === 0) {
        live.set(k, { id, faulted: false });
        started();
      }
      for (const item of e.content_items) if (item.type === "text.delta") seen.set(item.text, (seen.get(item.text) ?? 0) + 1);
    }
  } catch (e) {
    error = e;
  }
  if (events === 0) started();
  const faulted = live.get(k)?.faulted ?? false;
  live.delete(k);
  const m = await message.catch(() => null);
  const expected = words(k);
  const delivered = expected.slice(0, 1 + Math.max(-1, ...expected.map((t, i) => (seen.has(t) ? i : -1))));
  const lost = delivered.filter((t) => !seen.has(t)).length;
  const duplicated = [...seen.values()].reduce((s, n) => s + n - 1, 0);
  const whole = error === null && m?.finish_reason === "stop" && m.content_items.length === 1 &&
    m.content_items[0].text === expected.join("");
  const typed = error?.errorType === "StreamInterrupted";
  return {
    k,
    row,
    principal,
    faulted,
    events,
    lost,
    duplicated,
    whole,
    typed,
    error,
    resumes: connections - 1,
    delivered: delivered.join(""),
    input: m?.usage_metadata?.prompt_tokens ?? null, // (what the stop event says the stream's input was)
  };
}

const tRun = performance.now();
const firsts = []; // (each stream's first event: the faults begin once every stream is live)
const running = Array.from({ length: STREAMS }, (_, k) => {
  let started;
  firsts.push(new Promise((r) => (started = r)));
  return runStream(k, started);
});
await Promise.all(firsts);

// ---- the faults ---------------------------------------------------------------------------------------------

const plan = [...Array(KILLS).fill("kill"), ...Array(RESETS).fill("reset")];
for (let i = plan.length - 1; i > 0; i--) {
  const j = Math.floor(rand() * (i + 1));
  [plan[i], plan[j]] = [plan[j], plan[i]];
}
const done = { kill: 0, reset: 0, hit: 0, restartMs: [] };
for (const fault of plan) {
  await sleep(300 + rand() * 1200);
  if (live.size === 0) break;
  if (fault === "kill") {
    for (const s of live.values()) s.faulted = true;
    done.hit += live.size;
    const t = performance.now();
    await killWorkerd(relay);
    relay = await startRelay(dir, bindings, relay.port);
    done.restartMs.push(Math.round(performance.now() - t));
    done.kill++;
  } else {
    const ids = [...live.values()].filter((s) => s.id !== null);
    if (ids.length === 0) continue;
    const s = ids[Math.floor(rand() * ids.length)];
    s.faulted = true;
    done.hit++;
    await resetObject(relay, s.id).catch(() => {});
    done.reset++;
  }
}
const results = await Promise.all(running);
const runMs = performance.now() - tRun;

// ---- charged and released -------------------------------------------------------------------------------

const ledger = await ledgerCounting(allUsage(base, ADMIN_KEY, (r) => r.principal.startsWith("faults-p")), STREAMS, { everyMs: 200 });
const tReleased = Date.now();
const admitted = new Map();
for (let i = 0; i < PRINCIPALS; i++) {
  const p = principalOf(i);
  let n = 0;
  while (n < QUOTA && Date.now() - tReleased < 60_000) {
    const answers = await Promise.all(Array.from({ length: QUOTA }, () =>
      fetch(`${base}/v1/stream`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-relay-key": keyOf(p) },
        body: JSON.stringify({ model: "claude-fast", messages: [{ role: "user", content_items: [{ type: "text.done", text: "next" }] }] }),
      })));
    // (all asked at once, then read: the claims held together)
    n = answers.filter((a) => a.status === 200).length;
    await Promise.all(answers.map((a) => a.arrayBuffer()));
    if (n < QUOTA) await sleep(250);
  }
  admitted.set(p, n);
}
const releasedMs = Date.now() - tReleased;
clearTimeout(timer);
await stopAll();

// ---- report -------------------------------------------------------------------------------------------

// (each stream's check is printed in the CI smoke, or when it fails)
const { check, finish } = checks(LABEL, (name) => tiny || !name.startsWith("stream "));
for (const r of results) {
  // a "fast" stream is whole whatever happened; a "claude-fast" one whole, or (faulted) ended typed
  const ok = r.lost === 0 && r.duplicated === 0 && (r.whole || (r.row === "claude-fast" && r.faulted && r.typed));
  const how = r.whole
    ? "whole"
    : r.typed
    ? "ended typed (StreamInterrupted)"
    : `error ${r.error?.name} ${r.error?.errorType ?? ""}: ${r.error?.message}`;
  check(
    ok,
    `stream ${r.k} (${r.row}${
      r.faulted ? ", faulted" : ""
    }): ${r.events} events, ${r.resumes} resumes, lost ${r.lost}, duplicated ${r.duplicated}, ${how}`,
  );
}
const completed = results.filter((r) => r.whole);
// (each request's input charged once: at least what the provider reported — its message_starts that left
// it — and at most one count per request it received, its prefix included; a request cut before it
// answered is counted as sent: one request's input and its prefix)
const askedOf = (k) => provider.requests.filter((r) => r.model === `f-${k}`).length;
const mischarged = completed.filter((r) => !(r.input >= (inputSent.get(`f-${r.k}`) ?? 0) && r.input <= (inputAsked.get(`f-${r.k}`) ?? 0)));
for (const r of mischarged) {
  console.log(
    `  stream ${r.k}: its stop event says input ${r.input}; the provider reported ${inputSent.get(`f-${r.k}`)} for ${
      askedOf(r.k)
    } requests`,
  );
}
const typed = results.filter((r) => !r.whole && r.typed);
const lost = results.reduce((n, r) => n + r.lost, 0);
const duplicated = results.reduce((n, r) => n + r.duplicated, 0);
const asked = provider.requests.filter((r) => /^f-\d+$/.test(r.model ?? ""));
const continued = asked.length - STREAMS;
console.log(
  `faults: ${done.kill} process kills (SIGKILL; restarted in ${done.restartMs.join(", ") || "-"} ms), ${done.reset} objects reset; ` +
    `${results.filter((r) => r.faulted).length} of ${STREAMS} streams faulted (${done.hit} hits)`,
);
check(
  lost === 0 && duplicated === 0 && completed.length + typed.length === STREAMS,
  `completed ${completed.length} (${
    completed.filter((r) => r.faulted).length
  } of them faulted and taken up again), ended typed ${typed.length}, ` +
    `lost ${lost}, duplicated ${duplicated} (of ${STREAMS} streams × ${EVENTS} deltas)`,
);
const requests = ledger.reduce((n, r) => n + r.requests, 0);
const reportedInput = [...inputSent].reduce((n, [model, i]) => (model === "next" ? n : n + i), 0);
const input = ledger.reduce((n, r) => n + r.input_tokens, 0);
const output = ledger.reduce((n, r) => n + r.output_tokens, 0);
const estimated = ledger.reduce((n, r) => n + r.estimated_tokens, 0);
const deliveredTokens = results.reduce((n, r) => n + r.delivered.split(" ").length - 1, 0);
for (const r of ledger) {
  console.log(
    `  ledger ${r.principal} ${r.model}: ${r.requests} requests, input ${r.input_tokens}, output ${r.output_tokens}, estimated ${r.estimated_tokens}`,
  );
}
const perPrincipal = Array.from({ length: PRINCIPALS }, (_, i) => {
  const p = principalOf(i);
  return [p, ledger.filter((r) => r.principal === p).reduce((n, r) => n + r.requests, 0), results.filter((r) => r.principal === p).length];
});
check(
  requests === STREAMS && perPrincipal.every(([, got, want]) => got === want) && input >= STREAMS * INPUT && output >= deliveredTokens,
  `charged: ${requests} requests in the ledger for ${STREAMS} streams (${
    perPrincipal.map(([p, got, want]) => `${p} ${got}/${want}`).join(", ")
  }), ` +
    `input ${input}, output ${output} (${estimated} estimated) for ${deliveredTokens} delivered deltas; the fake provider counted ` +
    `${asked.length} requests (${continued} to continue an answer after a fault), input ${reportedInput} reported, ${deltasSent} deltas sent`,
);
const askedInput = [...inputAsked].reduce((n, [model, i]) => (model === "next" ? n : n + i), 0);
check(
  mischarged.length === 0 && input >= reportedInput && input <= askedInput,
  `input charged once per request: the ledger's ${input} between the ${reportedInput} the provider reported and ` +
    `${askedInput} (${INPUT} for each of the ${asked.length} requests it received, and each continuation's prefix); ` +
    `${completed.length - mischarged.length} of ${completed.length} whole streams' stop events within their own requests' bounds`,
);
check(
  [...admitted.values()].every((n) => n === QUOTA),
  `released: each principal's next ${QUOTA} streams at once (its whole quota) admitted ${releasedMs} ms after the ledger ` +
    `(${[...admitted].map(([p, n]) => `${p} ${n}/${QUOTA}`).join(", ")})`,
);
console.log(`${LABEL}: ${STREAMS} streams × ${EVENTS} deltas in ${(runMs / 1000).toFixed(2)} s, seed ${SEED}`);
finish(t0);
