// The smaller holes: an upstream address never printed with its credentials (with or without a
// scheme), the relay's key never passed upstream (even when offered twice), an upload cut off
// mid-body one log line (no stack), and an upstream that never sends its headers given up on: by
// the client leaving (stateless), by ABANDON_S from its request, by MAX_STREAM_S (kept).
import { env, listDurableObjectIds, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { expect, test, vi } from "vitest";
import { createRelay } from "../../src/relay/index.ts";
import { openUpstream } from "../../src/relay/routing/upstream.ts";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN, upstreamCancelled, upstreamRequests } from "./relay.ts";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const post = (body = "{}"): Request => new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers: { "content-type": "application/json" }, body });

test("an upstream address with credentials is never printed: scheme-less, with a scheme, unreachable", async () => {
  for (const base of ["admin:hunter2@host/v1", "admin:hunter2@upstream.test/v1", "https://admin:hunter2@unreachable.invalid/v1", "ftp://admin:hunter2@host/v1"]) {
    const res = await openUpstream(post(), base);
    expect(res.status, base).toBeGreaterThanOrEqual(400);
    const text = await res.text();
    expect(text, base).not.toContain("hunter2");
    expect(text, base).not.toContain("admin");
  }
  expect(() => createRelay({ upstream: "admin:hunter2@host/v1" })).toThrow(/http:\/\/ or https:\/\//);
});

test("x-relay-key: K and Authorization: Bearer K together: the key is not passed upstream", async () => {
  const relay = createRelay({ upstream: "https://mmsp.internal/v1" });
  const withKey = (authorization: string): Request =>
    new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers: { "content-type": "application/json", "x-relay-key": "K", authorization }, body: "{}" });
  const admitted = await relay.admit(withKey("Bearer K"), { RELAY_KEY: "K" });
  expect(admitted).toBeInstanceOf(Request);
  expect((admitted as Request).headers.get("authorization")).toBeNull();
  expect((admitted as Request).headers.get("x-relay-key")).toBeNull();
  // another Authorization next to the key is the upstream's: passed on
  const other = await relay.admit(withKey("Bearer up"), { RELAY_KEY: "K" });
  expect((other as Request).headers.get("authorization")).toBe("Bearer up");
});

test("an upload cut off mid-body: a 400 refusal, one log line, no stack", async () => {
  const logged: unknown[][] = [];
  const spies = (["error", "warn", "log"] as const).map((level) => vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args)));
  try {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 2) controller.enqueue(new TextEncoder().encode('{"messages":[' + " ".repeat(1000)));
        else controller.error(new Error("the client went away"));
      },
    });
    // (the relay's handler called directly: through SELF, workerd ends a body that errors instead of erroring it)
    const relay = createRelay({ upstream: "https://mmsp.internal/v1" });
    const request = new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers: { "content-type": "application/json" }, body, duplex: "half" } as RequestInit);
    const res = await relay.fetch(request, {});
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("InvalidRequestError");
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  expect(logged.length).toBe(1);
  expect(logged[0]!.every((a) => typeof a === "string" && !a.includes("\n    at "))).toBe(true);
});

test("stateless (/api/chat without an id): a client that leaves before the upstream's headers cancels the upstream request", async () => {
  const tag = newTag();
  const controller = new AbortController();
  const answer = SELF.fetch(`${ORIGIN}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "hi" }] }], model: "silent", config: { tag } }),
    signal: controller.signal,
  }).catch(() => null);
  await sleep(300);
  expect(await upstreamRequests(tag)).toBe(1);
  controller.abort();
  await answer;
  expect(await upstreamCancelled(tag, 2000), "the upstream saw its request aborted").not.toBeNull();
});

/** The stream object that is waiting for its upstream's headers now (there is one). */
async function pendingObject(): Promise<DurableObjectStub> {
  for (let tries = 0; tries < 50; tries++) {
    for (const id of await listDurableObjectIds(env.STREAMS)) {
      const stub = env.STREAMS.get(id);
      if (await runInDurableObject(stub, (instance) => (instance as unknown as { pending: boolean }).pending === true)) return stub;
    }
    await sleep(20);
  }
  throw new Error("no stream object is waiting for its upstream");
}

test("kept: an upstream silent past ABANDON_S after its creator left is cancelled; past MAX_STREAM_S the creator gets a refusal", async () => {
  // the creator leaves; the abandon clock runs from then (moved back here instead of waiting 60 s)
  const tag = newTag();
  const controller = new AbortController();
  const leaving = SELF.fetch(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "silent", messages: [], tag }),
    signal: controller.signal,
  }).catch(() => null);
  const stub = await pendingObject();
  controller.abort();
  await leaving;
  await sleep(100);
  await runInDurableObject(stub, (instance) => {
    (instance as unknown as { lastRead: number }).lastRead -= 61_000;
  });
  await runDurableObjectAlarm(stub);
  expect(await upstreamCancelled(tag, 2000), "the upstream saw its request aborted").not.toBeNull();

  // the creator waits, but MAX_STREAM_S passes before the headers
  const tag2 = newTag();
  const waiting = SELF.fetch(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "silent", messages: [], tag: tag2 }),
  });
  const stub2 = await pendingObject();
  await runInDurableObject(stub2, (instance) => {
    (instance as unknown as { startedAt: number }).startedAt -= 1801_000;
  });
  await runDurableObjectAlarm(stub2);
  const refused = await waiting;
  expect(refused.status).toBe(504);
  expect(((await refused.json()) as { error: { type: string } }).error.type).toBe("StreamLimitExceeded");
  expect(await upstreamCancelled(tag2, 2000)).not.toBeNull();
});

test("kept: an upstream that never sends its headers is given up ABANDON_S (+ at most 2 s) after its request, whether or not its creator's leaving is told", async () => {
  // the Worker's handler called directly: the object's request is not aborted when the client goes
  // away (as through Miniflare's HTTP), so only the object's own clock can give the upstream up
  const tag = newTag();
  const controller = new AbortController();
  const request = new Request(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "silent", messages: [], tag }),
    signal: controller.signal,
  });
  const waiting = worker.fetch(request, env as never).catch(() => null);
  const stub = await pendingObject();
  // ABANDON_S = 3 for this object (the pool's bindings keep the default 60 s), its alarm set again
  const madeAt = await runInDurableObject(stub, async (instance) => {
    const object = instance as unknown as { env: object; startedAt: number; schedule(): Promise<void> };
    object.env = { ...object.env, ABANDON_S: "3" };
    await object.schedule();
    return object.startedAt;
  });
  await sleep(300);
  controller.abort();
  const cancelledAt = await upstreamCancelled(tag, 6000);
  expect(cancelledAt, "the upstream saw its request aborted").not.toBeNull();
  expect(cancelledAt! - madeAt).toBeLessThan(3000 + 2000);
  expect(cancelledAt! - madeAt).toBeGreaterThanOrEqual(2900);
  const refused = await waiting;
  if (refused) expect(((await refused.json()) as { error: { type: string } }).error.type).toBe("UpstreamTimeout");
}, 20_000);
