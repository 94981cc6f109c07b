#!/usr/bin/env node
// `npm run load`: many concurrent resumable streams through the relay Worker under `wrangler dev`
// (local workerd, one Durable Object per stream), against the kit's fake MMSP server on 127.0.0.1
// (mmsp-streams/testing, served by scripts/upstream.mjs),
// with the clients' connections cut at random points and resumed by `fromFetch`.
//
// Each stream's upstream answer is known in advance (text deltas "s<k>.<i> "), so the run can tell,
// per stream, which events were lost or delivered twice (both must be 0), whether the message is the
// one an uninterrupted read gives, and how many requests the upstream got (must be 1). It reports the
// resumes made and the peak memory of workerd (VmHWM of its processes, and the largest RSS sampled).
// A share of the streams (--stop) is stopped mid-way by its client (DELETE on its Content-Location,
// SPEC §8): each must end with StreamCancelled after a whole prefix of its events (none lost or
// duplicated), and its upstream must see its request aborted within a second.
//
//   npm run load                                   50 streams, 80 events each, random drops, 20% stopped
//   node scripts/load.mjs --streams 200 --events 40 --seed 7 --drop 0.6 --stop 0.1
//   node scripts/load.mjs --tiny                    6 streams: the `npm test` step (resume-wrangler)
//   npm run load -- --faults                       objects reset and workerd killed at random points
//                                                  (scripts/load-faults.mjs: Miniflare on persisted storage;
//                                                  completed, ended typed, lost, duplicated, charged, released)
//   npm run load -- --provider                     the same against the Worker's provider-backed row "fast"
//                                                  (worker/models.ts: Claude, GPT, another Claude), answered
//                                                  by the kit's fakeProvider("anthropic") and
//                                                  ("openai-chat"), each stream's capture in the provider's
//                                                  own events (the relay converts them); the streams spend
//                                                  for PRINCIPALS principals (RELAY_KEYS, stream k with key
//                                                  k % 3), and the run ends with the ledger (GET
//                                                  /v1/usage?all=1, ADMIN_KEY) against what the fake
//                                                  providers counted: 0 tokens unaccounted. Failing
//                                                  targets (issue #38): of the streams not stopped, the 2nd
//                                                  of every 4 has its Claude refuse (429: GPT serves it, a
//                                                  fallback before the first event), the 4th has it cut its
//                                                  answer mid-text (the other Claude continues it); the run
//                                                  prints how many each path saved, and how many continued
//                                                  answers were spliced (must be 0: the message is the one
//                                                  whole expected text, no character repeated or lost).
//                                                  Then the budget (issue #44): the rows set no max_tokens
//                                                  (MODEL_MAX_TOKENS=none, DEFAULT_MAX_TOKENS=BUDGET_MAX),
//                                                  and two more principals with their own tokensPerDay
//                                                  (RELAY_QUOTAS `principals`) send BUDGET_ROUNDS rounds of
//                                                  BUDGET_PARALLEL requests to a provider that reports
//                                                  hostile counts (input -1 000 000, or 1e300) and spends
//                                                  all the output it is asked for: every provider request
//                                                  asks for BUDGET_MAX, and each principal's charge is
//                                                  0 ≤ charged ≤ its budget
//
// Bounded: --timeout seconds for the whole run (default 120); it ends with
// "<label>: N passed, N failed" (one check per stream, plus the totals).
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromFetch } from "../dist/index.js";
import { fakeMmspServer, fakeProvider } from "../dist/testing/index.js";
import { seeded } from "../dist/testing/replay.js";
import { serve } from "./upstream.mjs";
import { cutAfter } from "./cut-body.mjs";
import { startWranglerDev } from "./wrangler-dev.mjs";
import { allUsage, anthropicCapture, askingFor, checks, commandLine, deadline, inRanges, ledgerCounting, ownModel } from "./load-kit.mjs";

// (the fault mode is its own script: workerd in Miniflare, whose process it kills, not wrangler dev)
if (process.argv.includes("--faults")) {
  await import("./load-faults.mjs");
  await new Promise(() => {}); // (it exits by itself)
}

const t0 = performance.now();
const root = fileURLToPath(new URL("../", import.meta.url));

// ---- options ---------------------------------------------------------------------------------------

const { flag, option } = commandLine();
const tiny = flag("tiny");
const STREAMS = option("streams", tiny ? 6 : 50);
const EVENTS = option("events", tiny ? 30 : 80); // text deltas per stream (+ text.done + stop)
const PACE_MS = option("pace", 8); // upstream delay between events
const DROP = option("drop", 0.7); // chance that a connection is cut
const STOP = option("stop", 0.2); // share of the streams their client stops (DELETE) mid-way
const SEED = option("seed", 1);
const TIMEOUT_S = option("timeout", tiny ? 60 : 120);
const PROVIDER = flag("provider");
const LABEL = (tiny ? "resume-wrangler" : "load") + (PROVIDER ? "-provider" : "");
inRanges([
  ["streams", STREAMS, 1, 2000],
  ["events", EVENTS, 1, 100_000],
  ["pace", PACE_MS, 0, 10_000],
  ["drop", DROP, 0, 1],
  ["stop", STOP, 0, 1],
  ["timeout", TIMEOUT_S, 1, 3600],
]);

const rand = seeded(SEED); // (the kit's generator: the same --seed cuts at the same places)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the scripted upstream ---------------------------------------------------------------------------

const delta = (item) => ({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null });
const tokens = (k) => Array.from({ length: EVENTS }, (_, i) => `s${k}.${i} `);
/** Stream k's events: EVENTS text deltas, the text.done, the stop event. */
function streamEvents(k) {
  const parts = tokens(k);
  return [
    ...parts.map((text) => delta({ type: "text.delta", text })),
    delta({ type: "text.done", text: parts.join("") }),
    {
      role: "assistant",
      event_type: "stop",
      content_items: [],
      usage_metadata: { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: 0, response_tokens: EVENTS },
      finish_reason: "stop",
    },
  ];
}

/** Stream k's events as a capture (SSE: the relay reads its upstream as MMSP speaks it). */
const captureOf = (k) => ({
  status: 200,
  headers: [["content-type", "text/event-stream"]],
  body: new TextEncoder().encode(streamEvents(k).map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n"),
});
// The upstream: the kit's fake MMSP server (mmsp-streams/testing), one model per stream. "load-<k>:stop":
// half the events, then silence until the relay aborts the request (or 60 s), then a cut.
const pace = PACE_MS > 0 ? { pace: 1000 / PACE_MS } : {};
const streams = {};
for (let k = 0; k < STREAMS; k++) {
  streams[`load-${k}`] = { capture: captureOf(k), ...pace };
  streams[`load-${k}:stop`] = { capture: captureOf(k), ...pace, cutAfterEvents: Math.ceil(EVENTS / 2), stallMs: 60_000 };
}
/** Stream k's events as OpenAI Chat Completions streams them (the row's GPT, serving a stream its Claude refused). */
const openaiCaptureOf = (k) => {
  const chunk = (delta, finish = null) => ({ id: `chatcmpl-${k}`, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
  const records = [
    chunk({ role: "assistant", content: "" }),
    ...tokens(k).map((content) => chunk({ content })),
    chunk({}, "stop"),
    { id: `chatcmpl-${k}`, object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 1, completion_tokens: EVENTS, total_tokens: 1 + EVENTS } },
  ];
  const body = records.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
  return { status: 200, headers: [["content-type", "text/event-stream"]], body: new TextEncoder().encode(body) };
};
/** Stream k's events as Anthropic streams them (what a provider-backed model's provider sends). */
const anthropicCaptureOf = (k) => anthropicCapture({ id: `msg_${k}`, texts: tokens(k), input: 1 });
const PROVIDER_KEY = "sk-ant-load-fake-key";
const OPENAI_KEY = "sk-load-fake-openai-key";
/** The failing targets of the provider run (issue #38): what the n-th stream not stopped has its first target do. */
const failureOf = (n) => (!PROVIDER ? null : n % 4 === 1 ? "refuse" : n % 4 === 3 ? "cut" : null);
let notStopped = 0; // (counted as the streams start, in order: runStream draws before its first await)
/** The deltas a cut first target sends before its connection breaks. */
const CUT_DELTAS = Math.ceil(EVENTS / 2);
// the principals of the provider run (issue #37): stream k spends for principal k % PRINCIPALS
const PRINCIPALS = 3;
const principalOf = (k) => `load-p${k % PRINCIPALS}`;
const keyOf = (name) => `relay-key-of-${name}`;
const ADMIN_KEY = "load-admin-key-0123456789";
// the budget phase (issue #44): principals with a day's budget, a provider reporting hostile input counts
const BUDGET = 1000;
const BUDGET_MAX = 200; // (DEFAULT_MAX_TOKENS: the rows set none)
const BUDGET_ROUNDS = 2;
const BUDGET_PARALLEL = 4;
const HOSTILE = [{ principal: "load-b0", input: -1_000_000 }, { principal: "load-b1", input: 1e300 }];
/** A hostile provider's answer: its input count `input`, the output it was asked for spent whole (BUDGET_MAX). */
const hostileCaptureOf = (input) => anthropicCapture({ id: "msg_b", texts: ["spent "], input, output: BUDGET_MAX, stop: "max_tokens" });
if (PROVIDER) {
  for (const { principal, input } of HOSTILE) {
    for (let i = 0; i < BUDGET_ROUNDS * BUDGET_PARALLEL; i++) streams[`${principal}-${i}`] = { capture: hostileCaptureOf(input), ...pace };
  }
  for (let k = 0; k < STREAMS; k++) {
    streams[`load-${k}`] = { capture: anthropicCaptureOf(k), ...pace };
    streams[`load-${k}:stop`] = { capture: anthropicCaptureOf(k), ...pace, cutAfterEvents: 2 + Math.ceil(EVENTS / 2), stallMs: 60_000 };
    // the failing first targets, and the second Claude that continues a cut answer (the fake honours its prefill)
    streams[`load-${k}:refuse`] = { capture: anthropicCaptureOf(k), refuse: 429 };
    streams[`load-${k}:cut`] = { capture: anthropicCaptureOf(k), ...pace, cutAfterEvents: 2 + CUT_DELTAS };
    streams[`load-${k}:cut@second`] = { capture: anthropicCaptureOf(k), ...pace };
  }
}
const fake = PROVIDER ? fakeProvider("anthropic", { streams, key: PROVIDER_KEY }) : fakeMmspServer({ streams });
const gptStreams = {};
for (let k = 0; k < STREAMS; k++) gptStreams[`load-${k}:refuse`] = { capture: openaiCaptureOf(k), ...pace };
const gpt = fakeProvider("openai-chat", { streams: gptStreams, key: OPENAI_KEY });
const fakes = PROVIDER ? [fake, gpt] : [fake];
// (the Worker asks the provider for one model id: the stream's own, "load-<k>", rides in the user's text;
// the row's second Claude, "claude-sonnet-4-5", is asked for "load-<k>@second")
const byText = async (request) => {
  const json = await request.json();
  const own = ownModel(json);
  const model = json.model === "claude-sonnet-4-5" ? `${own}@second` : own;
  const served = new URL(request.url).pathname === "/v1/chat/completions" ? gpt : fake;
  return served(askingFor(request, json, model));
};
const upstream = await serve(PROVIDER ? byText : fake);
const upstreamBase = `${upstream.url}/v1`;
/** Upstream requests of a stream (by the `model` of the request: "load-<k>", and "load-<k>@second" for the row's second Claude). */
const upstreamRequests = (model) => fakes.flatMap((f) => f.requests).filter((r) => r.model === model || r.model === `${model}@second`).length;
/** When a stream's upstream request was aborted (Date.now() ms), or undefined. */
const abortedAt = (model) => {
  const r = fake.requests.find((q) => q.model === model && q.aborted !== null);
  return r && r.at + r.aborted;
};

// ---- the relay under wrangler dev --------------------------------------------------------------------

await mkdir(`${root}.ci-out`, { recursive: true });
const state = await mkdtemp(join(tmpdir(), "mmsp-load-")); // its own state: no SQLITE_BUSY with other instances
const logPath = `${root}.ci-out/${LABEL}.wrangler.log`;
let worker;
async function stopAll() {
  await worker?.stop();
  await upstream.close();
  await rm(state, { recursive: true, force: true }).catch(() => {});
}
const timer = deadline(LABEL, TIMEOUT_S, stopAll);

try {
  const vars = PROVIDER
    ? {
      ANTHROPIC_API_KEY: PROVIDER_KEY,
      ANTHROPIC_BASE_URL: upstream.url,
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      RELAY_KEYS: JSON.stringify(
        Object.fromEntries([...Array.from({ length: PRINCIPALS }, (_, i) => principalOf(i)), ...HOSTILE.map((h) => h.principal)].map((p) => [p, keyOf(p)])),
      ),
      ADMIN_KEY,
      MODEL_MAX_TOKENS: "none",
      DEFAULT_MAX_TOKENS: String(BUDGET_MAX),
      RELAY_QUOTAS: JSON.stringify({ principals: Object.fromEntries(HOSTILE.map((h) => [h.principal, { tokensPerDay: BUDGET }])) }),
    }
    : { MMSP_UPSTREAM: upstreamBase };
  worker = await startWranglerDev({ logPath, persistTo: state, vars });
} catch (e) {
  console.log(String(e?.message ?? e));
  console.log(`${LABEL}: 0 passed, 1 failed`);
  await stopAll();
  process.exit(1);
}
const { base } = worker;
console.log(`wrangler dev on ${base} (${Math.round(performance.now() - t0)} ms), upstream ${upstreamBase}`);

// ---- workerd's memory ----------------------------------------------------------------------------------

/** The workerd processes of wrangler's process group, with their RSS and peak RSS (kB). */
async function workerdMemory() {
  const out = [];
  for (const pid of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgid !== worker.pid) continue;
      const cmd = await readFile(`/proc/${pid}/cmdline`, "utf8");
      if (!cmd.includes("workerd")) continue;
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
      out.push({ pid: Number(pid), rss: kb("VmRSS"), hwm: kb("VmHWM") });
    } catch {}
  }
  return out;
}
const baseline = (await workerdMemory()).reduce((s, p) => s + p.rss, 0);
let peakSampled = baseline;
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const rss = (await workerdMemory()).reduce((s, p) => s + p.rss, 0);
    peakSampled = Math.max(peakSampled, rss);
    await sleep(100);
  }
})();

// ---- the clients ---------------------------------------------------------------------------------------

const streamBytes = EVENTS * 140; // about the size of one stream's answer, to place the cuts
let resumes = 0;
let deleteRetries = 0;

async function runStream(k) {
  const format = k % 3 === 2 ? "ndjson" : "sse";
  // a stopped stream: its client sends DELETE after `stopAfter` events (its upstream then waits, silent)
  // (a stream whose first target fails is not stopped: it counts for the path that saved it)
  const stopAfter = rand() < STOP ? 1 + Math.floor(rand() * Math.ceil(EVENTS / 2)) : null;
  const failure = stopAfter === null ? failureOf(notStopped++) : null;
  const model = failure !== null ? `load-${k}:${failure}` : stopAfter === null ? `load-${k}` : `load-${k}:stop`;
  let served = null; // x-mmsp-provider of the answer
  let connections = 0;
  let location = null;
  const dropping = async (input, init) => {
    connections++;
    if (connections > 1) resumes++;
    const res = await fetch(input, init);
    location ??= res.headers.get("content-location");
    served ??= res.headers.get("x-mmsp-provider");
    if (!res.ok || rand() >= DROP) return res;
    return new Response(cutAfter(res.body, Math.floor(rand() * streamBytes), "dropped by the load run"), {
      status: res.status,
      headers: res.headers,
    });
  };
  const { readable, message } = fromFetch(
    `${base}/v1/stream`,
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: format === "ndjson" ? "application/x-ndjson" : "text/event-stream",
        ...(PROVIDER ? { "x-relay-key": keyOf(principalOf(k)) } : {}),
      },
      body: JSON.stringify(
        PROVIDER
          ? { model: "fast", messages: [{ role: "user", content_items: [{ type: "text.done", text: model }] }] }
          : { model, messages: [] },
      ),
    },
    { fetch: dropping, reconnect: { retries: 6, delayMs: 20 } },
  );
  const seenText = new Map();
  let error;
  let events = 0;
  let stop = null; // {at, status}: when the DELETE was answered, and how
  try {
    for await (const e of readable) {
      events++;
      const item = e.content_items[0];
      if (item?.type === "text.delta") seenText.set(item.text, (seenText.get(item.text) ?? 0) + 1);
      if (events === stopAfter && location !== null) {
        // DELETE is idempotent (204 once ended), so a 503 is retried: wrangler dev's proxy answers one
        // that it could not pass on ("Your worker restarted mid-request"; it retries only GET and HEAD)
        stop = { retries: 0 };
        for (;;) {
          const res = await fetch(new URL(location, base), { method: "DELETE", headers: PROVIDER ? { "x-relay-key": keyOf(principalOf(k)) } : {} });
          await res.arrayBuffer();
          Object.assign(stop, { at: Date.now(), status: res.status });
          if (res.status !== 503 || stop.retries >= 5) break;
          stop.retries++;
          await sleep(100);
        }
        if (stop.retries > 0) deleteRetries += stop.retries;
      }
    }
  } catch (e) {
    error = e;
  }
  const m = await message.catch(() => null);
  // a stopped stream has a whole prefix of the events: what it lost is a gap before its last one
  const expected = stopAfter === null
    ? tokens(k)
    : tokens(k).slice(0, 1 + Math.max(-1, ...tokens(k).map((t, i) => (seenText.has(t) ? i : -1))));
  const lost = expected.filter((t) => !seenText.has(t)).length;
  const duplicated = [...seenText.values()].reduce((s, n) => s + n - 1, 0);
  const messageOk = stopAfter === null ? m?.content_items?.[0]?.text === expected.join("") && m?.finish_reason === "stop" : m === null;
  if (stop !== null) {
    // the upstream sees its request aborted within a second of the DELETE's answer
    for (let i = 0; i < 50 && abortedAt(model) === undefined; i++) await sleep(20);
    stop.abortedMs = abortedAt(model) !== undefined ? Math.max(0, abortedAt(model) - stop.at) : null;
  }
  // a continued answer is spliced when its message is not the one text expected, whole (one item, every character once)
  const spliced = failure === "cut" && !(m?.content_items?.length === 1 && m.content_items[0].text === tokens(k).join(""));
  const upstreamExpected = failure === null ? 1 : 2;
  return {
    k,
    format,
    events,
    lost,
    duplicated,
    connections,
    messageOk,
    error,
    stopAfter,
    stop,
    failure,
    served,
    spliced,
    upstreamExpected,
    upstream: upstreamRequests(model),
  };
}

const tRun = performance.now();
const results = await Promise.all(Array.from({ length: STREAMS }, (_, k) => runStream(k)));
const runMs = performance.now() - tRun;
// the ledger (provider run): every stream settled (in its object's waitUntil, after its end)
const ledger = PROVIDER ? await ledgerCounting(allUsage(base, ADMIN_KEY, (r) => r.principal.startsWith("load-p")), STREAMS, { ms: 10_000 }) : [];
// the budget (issue #44): rounds of parallel requests per principal, each read whole as bytes (the
// hostile counts reach the client as the provider's reader passed them on)
const budget = [];
if (PROVIDER) {
  for (const { principal, input } of HOSTILE) {
    const seen = { principal, input, admitted: 0, refused: 0, other: 0, retrying: 0, shouldRetry: [], charged: null };
    for (let round = 0; round < BUDGET_ROUNDS; round++) {
      await Promise.all(Array.from({ length: BUDGET_PARALLEL }, async (_, j) => {
        const res = await fetch(`${base}/v1/stream`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-relay-key": keyOf(principal) },
          body: JSON.stringify({
            model: "claude-fast",
            messages: [{ role: "user", content_items: [{ type: "text.done", text: `${principal}-${round * BUDGET_PARALLEL + j}` }] }],
          }),
        });
        await res.arrayBuffer();
        if (res.status === 200) seen.admitted++;
        else if (res.status === 429) {
          seen.refused++;
          const [should, after] = [res.headers.get("x-should-retry"), Number(res.headers.get("retry-after"))];
          seen.shouldRetry.push(`${should} (Retry-After ${after})`);
          // (a day's budget spent: no SDK should sleep till midnight, x-should-retry says so past a minute)
          if (after > 60 && should !== "false") seen.retrying++;
        } else seen.other++; // (anything else: the check fails)
      }));
    }
    const [row] = await ledgerCounting(allUsage(base, ADMIN_KEY, (r) => r.principal === principal), seen.admitted, { ms: 10_000 });
    seen.charged = row ? row.input_tokens + row.output_tokens : null;
    budget.push(seen);
  }
}
sampling = false;
await sampler;
const final = await workerdMemory();
clearTimeout(timer);
await stopAll();

// ---- report -------------------------------------------------------------------------------------------

const { check, finish } = checks(LABEL, (name) => tiny || name.includes("stopped by DELETE") || name.startsWith("budget:"));
for (const r of results) {
  const common = r.lost === 0 && r.duplicated === 0 && r.messageOk && r.upstream === r.upstreamExpected && !r.spliced;
  const errorText = r.error ? `, error ${r.error?.name}${r.error?.errorType ? ` ${r.error.errorType}` : ""}: ${r.error?.message}` : "";
  if (r.stopAfter === null) {
    const ok = common && !r.error && r.events === EVENTS + 2;
    check(
      ok,
      `stream ${r.k} (${r.format})${r.failure ? ` (first target: ${r.failure}, served by ${r.served})` : ""}: ${r.events} events, ${
        r.connections - 1
      } resumes, lost ${r.lost}, duplicated ${r.duplicated}, upstream requests ${r.upstream}${errorText}`,
    );
  } else {
    const ok = common && r.stop?.status === 204 && r.error?.errorType === "StreamCancelled" && r.stop.abortedMs !== null &&
      r.stop.abortedMs < 1000 && r.events >= r.stopAfter;
    const aborted = r.stop?.abortedMs == null ? "not aborted" : `aborted ${Math.round(r.stop.abortedMs)} ms after`;
    check(
      ok,
      `stream ${r.k} (${r.format}) stopped after event ${r.stopAfter}: DELETE ${
        r.stop?.status ?? "not sent"
      }, upstream ${aborted}; ${r.events} events, ${
        r.connections - 1
      } resumes, lost ${r.lost}, duplicated ${r.duplicated}, upstream requests ${r.upstream}${errorText}`,
    );
  }
}
const lost = results.reduce((s, r) => s + r.lost, 0);
const duplicated = results.reduce((s, r) => s + r.duplicated, 0);
const cut = results.filter((r) => r.connections > 1).length;
const upstreamTotal = results.reduce((s, r) => s + r.upstream, 0);
const upstreamWanted = results.reduce((s, r) => s + r.upstreamExpected, 0);
const stopped = results.filter((r) => r.stopAfter !== null).length;
check(
  lost === 0 && duplicated === 0,
  `lost events: ${lost}, duplicated events: ${duplicated} (${STREAMS - stopped} whole streams of ${EVENTS + 2} events, ${stopped} stopped)`,
);
check(
  STOP === 0 || stopped > 0,
  `${stopped} of ${STREAMS} streams stopped by DELETE (--stop ${STOP}; ${deleteRetries} DELETEs retried after a 503 from wrangler dev)`,
);
check(resumes > 0, `${resumes} resumes over ${cut} of ${STREAMS} streams (drop chance ${DROP} per connection, seed ${SEED})`);
check(upstreamTotal === upstreamWanted, `upstream requests: ${upstreamTotal} for ${STREAMS} streams (${upstreamWanted - STREAMS} to failing first targets)`);
if (PROVIDER) {
  // what the fake provider counted: each whole stream's usage (input 1, output EVENTS); a stopped one's
  // input (1, at message_start) as the provider reported it, its output (cut before message_delta) estimated
  const whole = results.filter((r) => r.stopAfter === null);
  // (a continued stream's stop event adds the first target's text before its cut, estimated at 4 bytes a token, and
  // the input it reported at message_start, 1: SPEC §10)
  const cutOnes = results.filter((r) => r.failure === "cut");
  const carried = cutOnes.reduce((n, r) => n + 1 + Math.ceil(tokens(r.k).slice(0, CUT_DELTAS).join("").length / 4), 0);
  const providerTokens = whole.length * (1 + EVENTS) + carried + stopped * 1;
  const exact = ledger.reduce((n, r) => n + r.input_tokens + r.output_tokens - r.estimated_tokens, 0);
  const requests = ledger.reduce((n, r) => n + r.requests, 0);
  const stoppedRows = ledger.reduce((n, r) => n + r.stopped, 0);
  for (const r of ledger) {
    console.log(
      `  ledger ${r.principal} ${r.model} ${r.day}: ${r.requests} requests, input ${r.input_tokens}, output ${r.output_tokens}, ` +
        `estimated ${r.estimated_tokens}, stopped ${r.stopped}`,
    );
  }
  for (let i = 0; i < PRINCIPALS; i++) {
    const mine = results.filter((r) => r.k % PRINCIPALS === i);
    const row = ledger.find((r) => r.principal === principalOf(i));
    check(row?.requests === mine.length, `principal ${principalOf(i)}: ${row?.requests ?? 0} requests in the ledger for ${mine.length} streams`);
  }
  check(
    requests === STREAMS && stoppedRows === stopped && exact === providerTokens,
    `ledger: ${requests} requests, ${stoppedRows} stopped (estimated), ${exact} tokens as the provider reported them for ` +
      `${whole.length} whole streams, the fake provider counted ${providerTokens} (${carried} of them the cut answers' first parts): ` +
      `${providerTokens - exact} tokens unaccounted`,
  );
  // the budget: every provider request asked for the reserve, each principal charged within its budget
  const asked = fake.requests.filter((r) => r.model?.startsWith("load-b")).map((r) => r.json?.max_tokens);
  check(
    asked.length > 0 && asked.every((n) => n === BUDGET_MAX),
    `budget: ${asked.length} provider requests of the rows without max_tokens, each asked for max_tokens ${
      [...new Set(asked)].join(", ")
    } (DEFAULT_MAX_TOKENS ${BUDGET_MAX})`,
  );
  for (const b of budget) {
    const { principal, input, admitted, refused, other, retrying, charged } = b;
    check(
      charged !== null && charged >= 0 && charged <= BUDGET && admitted > 0 && refused > 0 && other === 0 && retrying === 0,
      `budget: principal ${principal} (the provider reports input ${input}): charged ${charged} ≤ budget ${BUDGET}; ${admitted} admitted, ` +
        `${refused} refused (x-should-retry: ${b.shouldRetry.join(", ")}), ${other} other answers`,
    );
  }
  // the failing targets: how many streams each path saved, and no continued answer spliced
  const refused = results.filter((r) => r.failure === "refuse");
  const byFallback = refused.filter((r) => r.messageOk && !r.error && r.served === "openai-chat").length;
  const byContinuation = cutOnes.filter((r) => r.messageOk && !r.error && !r.spliced).length;
  const spliced = cutOnes.filter((r) => r.spliced).length;
  check(
    refused.length > 0 && cutOnes.length > 0 && byFallback === refused.length && byContinuation === cutOnes.length && spliced === 0,
    `failing first targets: ${byFallback} of ${refused.length} streams saved by a fallback before the first event (Claude 429, GPT served), ` +
      `${byContinuation} of ${cutOnes.length} by a continuation after it (Claude cut mid-text, the other Claude went on); ${spliced} spliced`,
  );
}
const mb = (kb) => `${(kb / 1024).toFixed(1)} MB`;
const hwm = final.reduce((s, p) => s + p.hwm, 0);
console.log(
  `${LABEL}: ${STREAMS} streams × ${EVENTS + 2} events in ${(runMs / 1000).toFixed(2)} s; ${resumes} resumes; ` +
    `workerd memory: ${mb(baseline)} before, peak ${mb(peakSampled)} sampled, VmHWM ${mb(hwm)} (${final.length} process${
      final.length === 1 ? "" : "es"
    })`,
);
finish(t0);
