// Issue #48, SPEC §10 "A stream outlives its object", in workerd through the real Durable Objects
// (STREAMS and QUOTAS: SQLite): a stream's object reset mid-answer (`state.abort()`, as a deploy or
// an eviction does) leaves its duty in storage; the next instance ends the stream typed
// (StreamInterrupted, with the usage so far), charges it once (the ledger: input and output at least
// what was delivered) and releases its claim (the principal's next stream, concurrentStreams 1, is
// admitted at once, not half an hour later); the first connection ends instead of idling on
// keep-alives. The repository Worker's "claude-fast" against the scripted Anthropic of providers.ts
// (`script:endless`: text deltas every 5 ms for 8 s, input 12 reported at its start). And the duty
// itself: claim, target, running usage and request (a large body in parts) stored with the stream.
import { env, runInDurableObject } from "cloudflare:test";
import { expect, test } from "vitest";
import { providerModels } from "../../worker/models.ts";
import { createRelay } from "../../src/relay/index.ts";
import { newTag, ORIGIN, streamIdOf } from "./relay.ts";

type Env = typeof env & Record<string, unknown>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function setup(key: string, name: string) {
  const relay = createRelay<Env>({ models: providerModels as never, quotas: { default: { concurrentStreams: 1 } } });
  const e: Env = { ...env, RELAY_KEYS: JSON.stringify({ [name]: key }) };
  const as = { "x-relay-key": key };
  const call = (path: string, init: RequestInit = {}) => relay.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers: { ...as, ...init.headers } }), e);
  const post = (tag: string, script: string) =>
    call("/v1/stream", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({
        model: "claude-fast",
        messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:${script}` }] }],
      }),
    });
  return { call, post };
}

/** Reads SSE records from `reader` until `done(text)` or the body ends (or errors); the text so far and how it ended. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
): Promise<{ text: string; end: "until" | "closed" | "errored" }> {
  const utf8 = new TextDecoder();
  let text = "";
  for (;;) {
    let r: ReadableStreamReadResult<Uint8Array>;
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

/** The SSE records of `text` as [id, JSON]. */
const recordsOf = (text: string): [number, Record<string, unknown>][] =>
  [...text.matchAll(/^id: (\d+)\ndata: (\{.*\})$/gm)].map((m) => [Number(m[1]), JSON.parse(m[2]!) as Record<string, unknown>]);

/** The text of the deltas in `records`. */
const textOf = (records: [number, Record<string, unknown>][]): string =>
  records.flatMap(([, e]) => ((e.content_items as { type: string; text?: string }[] | undefined) ?? []).map((i) => (i.type === "text.delta" ? i.text ?? "" : ""))).join("");

test("an object reset mid-answer: the stream ends typed, is charged once from what was stored, its claim released at once; no connection hangs", async () => {
  const name = `outlives-${newTag()}`;
  const { call, post } = setup(`key-of-${name}`, name);
  const first = await post(newTag(), "endless");
  expect(first.status).toBe(200);
  const id = streamIdOf(first);
  const reader = first.body!.getReader();
  // a few deltas delivered, then the object is reset (its in-memory state gone; its storage kept)
  const before = await readUntil(reader, (t) => recordsOf(t).length >= 12);
  const stub = env.STREAMS.get(env.STREAMS.idFromName(id));
  await runInDurableObject(stub, (instance, state) => {
    // what a reset does to the old instance's storage in production, which Miniflare's keeps open
    // (its writes would then race the next instance's): every call throws
    const dead = {
      exec() {
        throw new Error("Durable Object reset");
      },
    };
    const store = (instance as { ctx: { store: { sql: unknown; log: { sql: unknown } } } }).ctx.store;
    store.sql = store.log.sql = dead;
    (state as unknown as { abort(reason?: string): void }).abort("a deploy");
  }).catch(() => {}); // (abort throws in its caller)
  // the first connection ends (a terminal event, an error or its close), not idling on keep-alives
  const startedWaiting = Date.now();
  const rest = await Promise.race([readUntil(reader, (t) => t.includes("[DONE]")), sleep(20_000).then(() => null)]);
  expect(rest?.end).not.toBe("until"); // (its object died: no terminal event from it, the connection errs; a resume gets the rest)
  expect(rest, "the first connection ended within 20 s").not.toBeNull();
  expect(Date.now() - startedWaiting).toBeLessThan(20_000);
  // a resume from the last id the client got: the events after it, then a typed end with the usage
  const got = recordsOf(before.text + rest!.text);
  const lastId = got.at(-1)![0];
  const resumed = await call(`/v1/streams/${id}`, { headers: { "last-event-id": String(lastId), accept: "text/event-stream" } });
  expect(resumed.status).toBe(200);
  const resumedText = (await readUntil(resumed.body!.getReader(), () => false)).text;
  const after = recordsOf(resumedText);
  expect(after.length).toBeGreaterThan(0);
  expect(after[0]![0]).toBe(lastId + 1); // nothing twice, nothing skipped
  const end = after.at(-1)![1] as { error?: { type: string; usage_metadata?: { prompt_tokens: number; response_tokens: number } } };
  expect(end.error?.type).toBe("StreamInterrupted");
  expect(end.error?.usage_metadata?.prompt_tokens).toBeGreaterThanOrEqual(12);
  // charged once: the ledger's one row, input the provider's 12, output at least the deltas delivered
  const delivered = textOf([...got, ...after]);
  let rows: Record<string, number>[] = [];
  for (let i = 0; i < 100 && rows.length === 0; i++) {
    rows = ((await (await call("/v1/usage")).json()) as { data: Record<string, number>[] }).data;
    if (rows.length === 0) await sleep(50);
  }
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ requests: 1 });
  expect(rows[0]!.input_tokens).toBeGreaterThanOrEqual(12);
  expect(rows[0]!.output_tokens).toBeGreaterThanOrEqual(Math.ceil(delivered.length / 4) - 1);
  // released: the principal's next stream (concurrentStreams 1) is admitted now
  const next = await post(newTag(), "text");
  expect(next.status, await next.clone().text()).toBe(200);
  await next.arrayBuffer();
  for (let i = 0; i < 100 && rows[0]!.requests < 2; i++) {
    await sleep(50);
    rows = ((await (await call("/v1/usage")).json()) as { data: Record<string, number>[] }).data;
  }
  expect(rows[0]).toMatchObject({ requests: 2 }); // (the interrupted stream not charged again: one more request, the new one)
}, 60_000);

test("an instance whose storage is gone under a live stream (reset, but its code still running): its answers end, with no keep-alive from a dead stream", async () => {
  const name = `orphan-${newTag()}`;
  const { post } = setup(`key-of-${name}`, name);
  const first = await post(newTag(), "endless");
  expect(first.status).toBe(200);
  const reader = first.body!.getReader();
  await readUntil(reader, (t) => recordsOf(t).length >= 12);
  await runInDurableObject(env.STREAMS.get(env.STREAMS.idFromName(streamIdOf(first))), (instance) => {
    const dead = {
      exec() {
        throw new Error("Durable Object reset");
      },
    };
    const store = (instance as { ctx: { store: { sql: unknown; log: { sql: unknown } } } }).ctx.store;
    store.sql = store.log.sql = dead;
  });
  // (before #48 the answer stayed open, a keep-alive every 15 s and never an end)
  const rest = await Promise.race([readUntil(reader, (t) => t.includes("[DONE]")), sleep(20_000).then(() => null)]);
  expect(rest, "the connection ended within 20 s").not.toBeNull();
  expect(rest!.end).toBe("errored");
}, 60_000);

test("a stream's duty is in its storage: its claim, its target and its request, a large body in parts of at most 1 MiB (a SQLite value holds 2 MB), no key kept", async () => {
  const name = `duty-${newTag()}`;
  const key = `key-of-${name}`;
  const { post } = setup(key, name);
  const tag = `${newTag()} ${"filler ".repeat(3 * 1024 * 1024 / 7)}`; // (a 3 MiB message)
  const answer = await post(tag, "text");
  expect(answer.status).toBe(200);
  await answer.arrayBuffer();
  const stub = env.STREAMS.get(env.STREAMS.idFromName(streamIdOf(answer)));
  const kept = await runInDurableObject(stub, async (instance, state) => {
    const sql = state.storage.sql;
    const parts = sql.exec<{ n: number }>("SELECT length(data) AS n FROM request ORDER BY part").toArray().map((r) => r.n);
    const duty = sql.exec<{ ticket: string | null; target: string | null; usage: string | null; headers: string }>("SELECT ticket, target, usage, headers FROM duty").one();
    const request = (instance as { ctx: { store: { request(): Request | null } } }).ctx.store.request()!;
    return { parts, duty, body: await request.text() };
  });
  expect(kept.parts.length).toBeGreaterThanOrEqual(3);
  for (const n of kept.parts) expect(n).toBeLessThanOrEqual(1024 * 1024);
  expect(kept.parts.reduce((a, b) => a + b, 0)).toBe(new TextEncoder().encode(kept.body).byteLength);
  expect(kept.body).toContain(tag); // (the request put together again, whole)
  expect(JSON.parse(decodeURIComponent(kept.duty.ticket!))).toMatchObject({ principal: name, model: "claude-fast" });
  expect(kept.duty.target).toBe("0"); // (the row's first target, x-mmsp-target)
  expect(JSON.parse(kept.duty.usage!)).toMatchObject({ settlement: { principal: name, input: 12, output: 6 } });
  expect(kept.duty.headers).not.toContain(key); // (the client's key never stored)
}, 60_000);

test("a live stream's object sets its alarm at most 10 s ahead: reset with no client coming back, it starts again within seconds, to end and settle the stream", async () => {
  const name = `watch-${newTag()}`;
  const { post } = setup(`key-of-${name}`, name);
  const first = await post(newTag(), "endless");
  expect(first.status).toBe(200);
  const reader = first.body!.getReader();
  await readUntil(reader, (t) => recordsOf(t).length >= 3);
  const stub = env.STREAMS.get(env.STREAMS.idFromName(streamIdOf(first)));
  const [alarm, now] = await runInDurableObject(stub, async (_instance, state) => [await state.storage.getAlarm(), Date.now()] as const);
  expect(alarm).not.toBeNull();
  expect(alarm! - now).toBeLessThanOrEqual(10_000); // (ABANDON_S is 60 s here: before #48 the alarm came a minute later)
  await reader.cancel();
}, 60_000);
