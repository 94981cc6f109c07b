// Issue #48, SPEC §10 "A stream outlives its object": the whole workerd process killed (SIGKILL)
// mid-stream and started again on the same persisted storage. The relay Worker (worker/, bundled as
// wrangler does) in Miniflare with its Durable Objects persisted to a temp directory
// (scripts/workerd-faults.mjs), against the kit's fakeProvider("anthropic") on 127.0.0.1: 100 text
// deltas 50 ms apart per stream. Two streams of one principal are live when workerd dies:
// - "fast" (its Claude has `continueOnFailure`): after the restart, a client resuming from its last
//   id gets the rest, and the message is the whole text (the provider asked once more, to continue);
// - "claude-fast" (no `continueOnFailure`): a resume gets the events it missed, then StreamInterrupted.
// The first connections end (they die with the process: the client sees an error); the resumed ones
// end within 20 s (the bound); the ledger shows each stream once with input and output at
// least what was delivered; the principal's next streams (concurrentStreams 2) are admitted (polled,
// with a 60 s cap: how long it took is printed, not asserted). And a "fast" stream taken up twice
// (killed again while its continuation streams): whole, its stop event counting all three requests' input.
// Prints "relay-process-kill: N passed, N failed".
//
// Run: node test/relay/process-kill.mjs   (after `npm run build`)
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeProvider } from "mmsp-streams/testing";
import { serve } from "../../scripts/upstream.mjs";
import { killWorkerd, startRelay } from "../../scripts/workerd-faults.mjs";
import { allUsage, anthropicCapture, askingFor, ledgerCounting, ownModel } from "../../scripts/load-kit.mjs";
import { namedTests } from "../../scripts/named-tests.mjs";

const t0 = performance.now();
const LABEL = "relay-process-kill";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const DELTAS = 100;
const SENT = 20; // deltas sent before the kill

// ---- the provider: Anthropic's events, input 12, DELTAS text deltas "<tag><i> " 50 ms apart -------------

const words = (tag) => Array.from({ length: DELTAS }, (_, i) => `${tag}${String(i).padStart(3, "0")} `);
const capture = (tag, n = DELTAS) => anthropicCapture({ id: `msg_${tag}`, texts: words(tag).slice(0, n), input: 12 });
const KEY = "sk-ant-kill-fake-key";
const provider = fakeProvider("anthropic", {
  streams: {
    // the first answers: 20 deltas, then silent (held open) until the relay's process dies
    "kill-a": { capture: capture("a"), pace: 20, cutAfterEvents: 2 + SENT, stallMs: Infinity },
    "kill-b": { capture: capture("b"), pace: 20, cutAfterEvents: 2 + SENT, stallMs: Infinity },
    // a request to continue (an assistant message last): the whole answer, from where that message ends
    "kill-a@more": { capture: capture("a"), pace: 20 },
    // a stream taken up twice: its first answer held open as "kill-a"'s, its continuations slower (10 a second)
    "kill-c": { capture: capture("c"), pace: 20, cutAfterEvents: 2 + SENT, stallMs: Infinity },
    "kill-c@more": { capture: capture("c"), pace: 10 },
    next: { capture: capture("n", 3) },
  },
  key: KEY,
});
// (the Worker asks for one model id: the stream's own rides in the user's text, as in scripts/load.mjs;
// "@more" when it asks to continue an answer)
const byText = async (request) => {
  const json = await request.json();
  const model = json.messages?.at(-1)?.role === "assistant" ? `${ownModel(json)}@more` : ownModel(json);
  return provider(askingFor(request, json, model));
};
const upstream = await serve(byText);
const asked = (model) => provider.requests.filter((r) => r.model === model);

// ---- the relay in workerd on persisted storage --------------------------------------------------------

const RELAY_KEY = "kill-key-0123456789";
const ADMIN_KEY = "kill-admin-key-0123456789";
const bindings = {
  ANTHROPIC_API_KEY: KEY,
  ANTHROPIC_BASE_URL: upstream.url,
  // (both keys make the "fast" row: Claude with continueOnFailure, GPT, another Claude)
  OPENAI_API_KEY: "sk-kill-openai-unused",
  OPENAI_BASE_URL: `${upstream.url}/v1`,
  RELAY_KEYS: JSON.stringify({ "kill-p": RELAY_KEY }),
  ADMIN_KEY,
  RELAY_QUOTAS: JSON.stringify({ default: { concurrentStreams: 2 } }),
};
const dir = await mkdtemp(join(tmpdir(), "mmsp-kill-"));
let relay = await startRelay(dir, bindings);

const headers = { "content-type": "application/json", accept: "text/event-stream", "x-relay-key": RELAY_KEY };
const post = (model, text) =>
  fetch(new URL("/v1/stream", relay.url), {
    method: "POST",
    headers,
    body: JSON.stringify({ model, messages: [{ role: "user", content_items: [{ type: "text.done", text }] }] }),
  });
const resume = (location, lastId) => fetch(new URL(location, relay.url), { headers: { ...headers, "last-event-id": String(lastId) } });

/** Reads SSE records until `done(text)` or the body ends or errs: the text so far and how it ended. */
async function readUntil(reader, done) {
  const utf8 = new TextDecoder();
  let text = "";
  for (;;) {
    let r;
    try {
      r = await reader.read();
    } catch {
      return { text, end: "errored" };
    }
    if (r.done) return { text, end: "closed" };
    text += utf8.decode(r.value, { stream: true });
    if (done(text)) return { text, end: "until" };
  }
}
/** The SSE records of `text` as [id, event]. */
const recordsOf = (text) => [...text.matchAll(/^id: (\d+)\ndata: (\{.*\})$/gm)].map((m) => [Number(m[1]), JSON.parse(m[2])]);
const deltaText = (records) =>
  records.flatMap(([, e]) => (e.content_items ?? []).filter((i) => i.type === "text.delta").map((i) => i.text)).join("");
/** `promise`, or "timeout" after `ms`. */
const within = (promise, ms) => Promise.race([promise, sleep(ms).then(() => "timeout")]);

// ---- the tests (in order: each goes on from the one before) -----------------------------------------

const streams = {}; // a: the "fast" stream, b: the "claude-fast" one: { location, records, first }
const { test, run } = namedTests(LABEL);

/** Resumes stream `s` from its last id on the new process: the rest (read to its end within 20 s) and its records, some. */
async function resumeRest(s) {
  const res = await resume(s.location, s.lastId);
  if (res.status !== 200) assert.fail(`${res.status}: ${await res.text()}`);
  const rest = await within(readUntil(res.body.getReader(), () => false), 20_000);
  assert.notEqual(rest, "timeout", "the resumed connection ended within 20 s");
  const after = recordsOf(rest.text);
  assert.ok(after.length > 0);
  return { rest, after };
}

test("two streams live (a continueOnFailure row, a row without), then workerd is killed (SIGKILL): the first connections end", async () => {
  for (const [which, model] of [["a", "fast"], ["b", "claude-fast"]]) {
    const res = await post(model, `kill-${which}`);
    if (res.status !== 200) assert.fail(`${res.status}: ${await res.text()}`);
    streams[which] = { location: res.headers.get("content-location"), reader: res.body.getReader() };
  }
  // a share of the provider's first SENT deltas delivered (and stored); it then holds its answers open
  for (const s of Object.values(streams)) s.before = await readUntil(s.reader, (t) => recordsOf(t).length >= SENT / 2);
  const killed = relay.pid;
  await killWorkerd(relay);
  for (const [which, s] of Object.entries(streams)) {
    const rest = await within(readUntil(s.reader, (t) => t.includes("[DONE]")), 20_000);
    assert.notEqual(rest, "timeout", `stream ${which}: the first connection ended within 20 s`);
    assert.notEqual(rest.end, "until", `stream ${which}: no end from a dead process: ${(s.before.text + rest.text).slice(-600)}`);
    s.records = recordsOf(s.before.text + rest.text);
    s.lastId = s.records.at(-1)[0];
    s.firstEnd = rest.end;
  }
  relay = await startRelay(dir, bindings);
  assert.notEqual(relay.pid, killed, "a new workerd process");
  console.log(
    `  killed workerd ${killed} after events ${streams.a.lastId} (a) and ${streams.b.lastId} (b); the first connections ${streams.a.firstEnd}, ${streams.b.firstEnd}; new workerd ${relay.pid}`,
  );
});

test("the continueOnFailure stream, resumed from its last id on the new process, ends within 20 s with the whole text: nothing lost, nothing twice", async () => {
  const s = streams.a;
  const t = performance.now();
  const { rest, after } = await resumeRest(s);
  assert.equal(after[0][0], s.lastId + 1, "the events after the last id, none twice, none skipped");
  after.forEach(([id], i) => assert.equal(id, s.lastId + 1 + i));
  const all = [...s.records, ...after];
  assert.equal(deltaText(all), words("a").join(""), "the whole text, each word once, in order");
  const done = all.flatMap(([, e]) => (e.content_items ?? []).filter((i) => i.type === "text.done"));
  assert.deepEqual(done.map((i) => i.text), [words("a").join("")], "one text.done holding the whole text (one group, never spliced)");
  const last = all.at(-1)[1];
  assert.equal(last.event_type, "stop", JSON.stringify(last));
  assert.equal(last.finish_reason, "stop");
  assert.ok(rest.text.endsWith("data: [DONE]\n\n"));
  assert.equal(asked("kill-a").length, 1);
  assert.equal(asked("kill-a@more").length, 1, "the provider asked once more after the restart, to continue the answer");
  console.log(`  resumed a after event ${s.lastId}: ${after.length} events in ${Math.round(performance.now() - t)} ms`);
});

test("the stream whose row cannot continue, resumed from its last id, gets the events it missed, then StreamInterrupted with its usage", async () => {
  const s = streams.b;
  const { rest, after } = await resumeRest(s);
  after.forEach(([id], i) => assert.equal(id, s.lastId + 1 + i, "nothing twice, nothing skipped"));
  s.delivered = deltaText([...s.records, ...after]);
  assert.ok(words("b").join("").startsWith(s.delivered), "a whole prefix of the text");
  const end = after.at(-1)[1];
  assert.equal(end.error?.type, "StreamInterrupted", JSON.stringify(end));
  assert.ok(end.error.usage_metadata.prompt_tokens >= 12, JSON.stringify(end.error.usage_metadata));
  assert.ok(rest.text.endsWith("data: [DONE]\n\n"));
  assert.equal(asked("kill-b").length, 1, "not asked again");
});

test("the ledger: each stream once, input and output at least what was delivered", async () => {
  const rows = await ledgerCounting(allUsage(relay.url.href.replace(/\/$/, ""), ADMIN_KEY, (r) => r.principal === "kill-p"), 2);
  for (const r of rows) {
    console.log(
      `  ledger ${r.principal} ${r.model}: ${r.requests} requests, input ${r.input_tokens}, output ${r.output_tokens}, estimated ${r.estimated_tokens}`,
    );
  }
  const a = rows.find((r) => r.model === "fast");
  const b = rows.find((r) => r.model === "claude-fast");
  assert.equal(rows.length, 2, JSON.stringify(rows));
  assert.equal(a?.requests, 1);
  assert.equal(b?.requests, 1);
  // a: the provider's 12 before the restart, then the continuation's; the whole text, DELTAS words
  assert.ok(a.input_tokens >= 12, JSON.stringify(a));
  assert.ok(a.output_tokens >= DELTAS, JSON.stringify(a));
  // b: the provider's 12; its output estimated from the stored text (4 bytes a token; each word 5 bytes)
  assert.ok(b.input_tokens >= 12, JSON.stringify(b));
  assert.ok(b.output_tokens >= Math.floor(streams.b.delivered.length / 5), JSON.stringify(b));
});

test("released: the principal's next two streams (concurrentStreams 2) are admitted, with no Retry-After of half an hour", async () => {
  const t = Date.now();
  const statuses = [];
  let admitted = 0;
  while (admitted < 2 && Date.now() - t < 60_000) {
    admitted = 0;
    const answers = await Promise.all([post("claude-fast", "next"), post("claude-fast", "next")]);
    for (const answer of answers) {
      statuses.push(answer.status === 429 ? `429 (Retry-After ${answer.headers.get("retry-after")})` : answer.status);
      if (answer.status === 429) assert.ok(Number(answer.headers.get("retry-after")) <= 60, "Retry-After says seconds, not half an hour");
      if (answer.status === 200) admitted++;
      await answer.arrayBuffer();
    }
    if (admitted < 2) await sleep(250);
  }
  assert.equal(admitted, 2, statuses.join(", "));
  console.log(`  admitted after ${Date.now() - t} ms (${statuses.join(", ")})`);
});

test("a stream taken up twice (workerd killed again while its continuation streams): it completes whole, its stop event counts the input of all three requests", async () => {
  const res = await post("fast", "kill-c");
  if (res.status !== 200) assert.fail(`${res.status}: ${await res.text()}`);
  const location = res.headers.get("content-location");
  let all = recordsOf((await readUntil(res.body.getReader(), (t) => recordsOf(t).length >= SENT / 2)).text);
  for (let kill = 0; kill < 2; kill++) {
    await killWorkerd(relay);
    relay = await startRelay(dir, bindings);
    const again = await resume(location, all.at(-1)[0]);
    assert.equal(again.status, 200);
    // the first time, some of the continuation's events (stored with what it reported), then the kill; the second, to the end
    const rest = await within(readUntil(again.body.getReader(), (t) => kill === 0 && recordsOf(t).length >= 10), 20_000);
    assert.notEqual(rest, "timeout", "the resumed connection ended within 20 s");
    const after = recordsOf(rest.text);
    after.forEach(([id], i) => assert.equal(id, all.at(-1)[0] + 1 + i, "nothing twice, nothing skipped"));
    all = [...all, ...after];
  }
  assert.equal(deltaText(all), words("c").join(""));
  assert.deepEqual(asked("kill-c").length + asked("kill-c@more").length, 3);
  const stop = all.at(-1)[1];
  assert.equal(stop.event_type, "stop");
  // (each of the three requests reported input 12: a settlement from the stop event pays for all three)
  assert.equal(stop.usage_metadata.prompt_tokens, 36, JSON.stringify(stop.usage_metadata));
});

// ---- run ------------------------------------------------------------------------------------------

await run({
  timeoutMs: 90_000,
  t0,
  async cleanup() {
    await relay.mf.dispose().catch(() => {});
    await upstream.close();
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  },
});
