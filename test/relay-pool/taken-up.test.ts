// Issue #48, SPEC §10 "A stream outlives its object": taken up again. In workerd through the real
// Durable Objects (STREAMS and QUOTAS: SQLite), the repository Worker's "fast" row (Claude with
// `continueOnFailure`, worker/models.ts) against the scripted Anthropic of providers.ts (`stall-first`:
// the first answer sends "Hello" and ", " and then nothing; asked with a prefill, it goes on from it).
// The stream's object is reset mid-answer (`state.abort()`, as a deploy or an eviction does, its
// storage kept); the next instance asks the same target to continue the stored text in the same open
// group (one continuation request, never a splice), and a client resuming from its last id gets the
// rest as if nothing happened: the whole text, one `.done` holding it, the stop. Charged once (the
// ledger's one row: the stored usage, the estimate of the stored text, then what the continuation
// reported), and the claim released at its end (concurrentStreams 1: the next stream is admitted).
// Each provider request is charged its own input (a continuation in flight: one request's and its
// prefix), and a take-up asks the target the duty names: the one serving after a live continuation.
import { env, runInDurableObject } from "cloudflare:test";
import { expect, test } from "vitest";
import { providerModels } from "../../worker/models.ts";
import { createRelay } from "../../src/relay/index.ts";
import { newTag, ORIGIN, streamIdOf } from "./relay.ts";

type Env = typeof env & Record<string, unknown>;
type Item = { type: string; text?: string };
type Event = {
  event_type?: string;
  content_items?: Item[];
  error?: { type: string };
  usage_metadata?: Record<string, number>;
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function setup(name: string) {
  const relay = createRelay<Env>({
    models: providerModels as never,
    quotas: { default: { concurrentStreams: 1 } },
  });
  const key = `key-of-${name}`;
  const e: Env = { ...env, RELAY_KEYS: JSON.stringify({ [name]: key }) };
  const call = (path: string, init: RequestInit = {}) =>
    relay.fetch(
      new Request(`${ORIGIN}${path}`, {
        ...init,
        headers: { "x-relay-key": key, ...init.headers },
      }),
      e,
    );
  const post = (model: string, tag: string, script: string) =>
    call("/v1/stream", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
      },
      body: JSON.stringify({
        model,
        messages: [{
          role: "user",
          content_items: [{
            type: "text.done",
            text: `tag:${tag} script:${script}`,
          }],
        }],
      }),
    });
  return { call, post };
}

/** Reads SSE text from `reader` until `done(text)` or the body ends or errs. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
): Promise<string> {
  const utf8 = new TextDecoder();
  let text = "";
  for (;;) {
    const r = await reader.read().catch(() => ({
      done: true as const,
      value: undefined,
    }));
    if (r.done) return text;
    text += utf8.decode(r.value, { stream: true });
    if (done(text)) return text;
  }
}

const recordsOf = (text: string): [number, Event][] =>
  [...text.matchAll(/^id: (\d+)\ndata: (\{.*\})$/gm)].map((
    m,
  ) => [Number(m[1]), JSON.parse(m[2]!) as Event]);
const deltasOf = (records: [number, Event][]): string =>
  records.flatMap(([, e]) =>
    (e.content_items ?? []).map((
      i,
    ) => (i.type === "text.delta" ? i.text ?? "" : ""))
  ).join("");

/** Resets the stream's object as a deploy does: its instance gone (its storage kept), its old code cut off from that storage. */
async function reset(id: string): Promise<void> {
  await runInDurableObject(
    env.STREAMS.get(env.STREAMS.idFromName(id)),
    (instance, state) => {
      const dead = {
        exec() {
          throw new Error("Durable Object reset");
        },
      };
      const store = (instance as {
        ctx: { store: { sql: unknown; log: { sql: unknown } } };
      }).ctx.store;
      store.sql = store.log.sql = dead;
      (state as unknown as { abort(reason?: string): void }).abort("a deploy");
    },
  ).catch(() => {}); // (abort throws in its caller)
}

/** The principal's ledger rows, once there is one. */
async function ledger(
  call: ReturnType<typeof setup>["call"],
  requests: number,
): Promise<Record<string, number>[]> {
  let rows: Record<string, number>[] = [];
  for (let i = 0; i < 200 && (rows[0]?.requests ?? 0) < requests; i++) {
    rows = ((await (await call("/v1/usage")).json()) as {
      data: Record<string, number>[];
    }).data;
    if ((rows[0]?.requests ?? 0) < requests) await sleep(50);
  }
  return rows;
}

/** Posts a `script` stream tagged `tag` and reads it until its text is `text`: its id, its records so far, its reader still open. */
async function startUntil(
  post: ReturnType<typeof setup>["post"],
  tag: string,
  script: string,
  text: string,
): Promise<{ id: string; reader: ReadableStreamDefaultReader<Uint8Array>; before: [number, Event][] }> {
  const first = await post("fast", tag, script);
  expect(first.status).toBe(200);
  const id = streamIdOf(first);
  const reader = first.body!.getReader();
  const before = recordsOf(await readUntil(reader, (t) => deltasOf(recordsOf(t)) === text));
  expect(deltasOf(before)).toBe(text);
  return { id, reader, before };
}

/** Resets the stream's object mid-answer (`reset`) and lets the connection `reader` reads go. */
async function cut(id: string, reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  await reset(id);
  reader.cancel().catch(() => {});
}

/** GET the stream `id` from the last of `before`'s ids (answered 200). */
async function resumeAfter(call: ReturnType<typeof setup>["call"], id: string, before: [number, Event][]): Promise<Response> {
  const resumed = await call(`/v1/streams/${id}`, {
    headers: { "last-event-id": String(before.at(-1)![0]), accept: "text/event-stream" },
  });
  expect(resumed.status).toBe(200);
  return resumed;
}

/** The records of an answer read to its end. */
const readAll = async (answer: Response): Promise<[number, Event][]> => recordsOf(await readUntil(answer.body!.getReader(), () => false));

/**
 * What a resume after `before` read (`after`) makes of the stream: taken up whole, "Hello, provider world!" —
 * the next id first (nothing twice, nothing skipped), no error event, the stop last. Returns that text and the stop event.
 */
function expectWhole(before: [number, Event][], after: [number, Event][]): { whole: string; stop: Event } {
  expect(after[0]![0]).toBe(before.at(-1)![0] + 1);
  expect(after.map(([, e]) => e.error?.type).filter(Boolean)).toEqual([]); // (before: a StreamInterrupted error event)
  const whole = deltasOf([...before, ...after]);
  expect(whole).toBe("Hello, provider world!");
  const stop = after.at(-1)![1];
  expect(stop.event_type).toBe("stop");
  return { whole, stop };
}

/** How many provider requests carried `tag` (the scripted providers count them as they arrive). */
async function providerCount(tag: string): Promise<number> {
  return ((await (await fetch(`http://upstream.test/__provider?tag=${tag}`)).json()) as { count: number }).count;
}

/** Waits until the provider has had `n` requests carrying `tag` (then exactly `n`). */
async function providerAsked(tag: string, n: number): Promise<void> {
  for (let i = 0; i < 400 && (await providerCount(tag)) < n; i++) await sleep(25);
  expect(await providerCount(tag)).toBe(n);
}

test(
  "a continueOnFailure stream whose object is reset mid-answer is taken up again: resumed from its last id it completes with the whole text, charged once, its claim released",
  async () => {
    const { call, post } = setup(`taken-up-${newTag()}`);
    const first = await startUntil(post, newTag(), "stall-first", "Hello, ");
    await cut(first.id, first.reader);
    const after = await readAll(await resumeAfter(call, first.id, first.before));
    const { whole } = expectWhole(first.before, after);
    const dones = after.flatMap(([, e]) => (e.content_items ?? []).filter((i) => i.type === "text.done"));
    expect(dones).toHaveLength(1);
    expect(dones[0]!.text).toBe(whole); // (one group: the continuation in the same open group, never spliced)
    // charged once: one ledger row, its input the first answer's 12 and the continuation's, its output at least the text's
    const rows = await ledger(call, 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ requests: 1 });
    expect(rows[0]!.input_tokens).toBeGreaterThanOrEqual(24);
    expect(rows[0]!.output_tokens).toBeGreaterThanOrEqual(
      Math.ceil(whole.length / 4) - 1,
    );
    // released: the principal's next stream (concurrentStreams 1) is admitted now, and is one request more
    const next = await post("fast", newTag(), "text");
    expect(next.status, await next.clone().text()).toBe(200);
    await next.arrayBuffer();
    expect((await ledger(call, 2))[0]).toMatchObject({ requests: 2 });
  },
  60_000,
);

test(
  "every object reset at once: each continueOnFailure stream is taken up by its own object and completes whole, each charged once",
  async () => {
    const name = `taken-up-all-${newTag()}`;
    const others = [setup(`${name}-a`), setup(`${name}-b`)]; // (two principals: concurrentStreams 1 each)
    const firsts = await Promise.all(others.map((o) => startUntil(o.post, newTag(), "stall-first", "Hello, ")));
    await Promise.all(firsts.map((f) => cut(f.id, f.reader))); // (every object in flight, as a deploy does)
    await Promise.all(firsts.map(async (first, i) => {
      expectWhole(first.before, await readAll(await resumeAfter(others[i]!.call, first.id, first.before)));
    }));
    for (const o of others) {
      const rows = await ledger(o.call, 1);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ requests: 1 });
    }
  },
  60_000,
);

test(
  "a stream reset again while its continuation is asked (the request sent, no text yet) is charged every request's own input once: 38, not 24",
  async () => {
    const { call, post } = setup(`taken-up-twice-${newTag()}`);
    const tag = newTag();
    const first = await startUntil(post, tag, "stall-two", "Hello, ");
    await cut(first.id, first.reader);
    // the take-up asks the target again: its request reaches the provider, which reports its input and sends nothing more
    const second = await resumeAfter(call, first.id, first.before);
    await providerAsked(tag, 2);
    await cut(first.id, second.body!.getReader()); // (before that continuation's first text: before it was stored with any batch)
    const after = await readAll(await resumeAfter(call, first.id, first.before));
    const { stop } = expectWhole(first.before, after);
    expect(await providerCount(tag)).toBe(3);
    // three requests, each charged once: the first's 12; the take-up's, cut before it answered, counted as
    // sent — one request's 12 and its prefix "Hello," (2); the second take-up's 12 as reported
    expect(stop.usage_metadata?.prompt_tokens).toBe(12 + 14 + 12);
    const rows = await ledger(call, 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ requests: 1, input_tokens: 38 });
  },
  60_000,
);

test(
  "a stream reset while a continuation past a provider's cut is asked (the request sent, no answer yet) is charged that request's own input too, its prefix included: 40, not 24 or 36",
  async () => {
    const { call, post } = setup(`taken-up-cut-${newTag()}`);
    const tag = newTag();
    // the first answer is cut after "Hello, provider"; the continuing target (the row's other Claude) is asked and stays silent
    const first = await startUntil(post, tag, "cut-then-silent", "Hello, provider");
    await providerAsked(tag, 2);
    await cut(first.id, first.reader); // (before the continuing target answered)
    const after = await readAll(await resumeAfter(call, first.id, first.before));
    const { stop } = expectWhole(first.before, after);
    expect(await providerCount(tag)).toBe(3);
    // the first answer's 12; the silent request counted as sent: one request's 12 and its prefix
    // "Hello, provider" (4), which the object dying in that window must not lose; the take-up's 12
    expect(stop.usage_metadata?.prompt_tokens).toBe(12 + 16 + 12);
    const rows = await ledger(call, 1);
    expect(rows[0]).toMatchObject({ requests: 1, input_tokens: 40 });
  },
  60_000,
);

test(
  "a stream reset after a live continuation moved it to another target is taken up as that target allows (the duty names it): the row's other Claude has no continueOnFailure, so the stream ends typed, charged every request once",
  async () => {
    const { call, post } = setup(`taken-up-moved-${newTag()}`);
    const tag = newTag();
    // the first Claude is cut after "Hello, provider"; the row's other Claude continues it (" wor") and stalls
    const answer = await post("fast", tag, "cut-then-stall");
    expect(answer.status).toBe(200);
    const id = streamIdOf(answer);
    const reader = answer.body!.getReader();
    const before = recordsOf(await readUntil(reader, (t) => deltasOf(recordsOf(t)) === "Hello, provider wor"));
    expect(deltasOf(before)).toBe("Hello, provider wor");
    await cut(id, reader);
    const after = await readAll(await resumeAfter(call, id, before));
    // (the first Claude, which failed, is not asked again: the target serving was the other one, which may not be continued)
    expect(after.map(([, e]) => e.error?.type).filter(Boolean)).toEqual(["StreamInterrupted"]);
    expect(await providerCount(tag)).toBe(2);
    // each request's input once: 12 (the first), 12 (the continuation, reported at its message_start)
    const rows = await ledger(call, 1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ requests: 1, input_tokens: 24 });
  },
  60_000,
);
