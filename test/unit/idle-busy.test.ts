// The idle time-out and the stall watchdog (internal/core-stream.ts) when the thread was busy
// elsewhere past the deadline: input that became due meanwhile is taken before the time-out fires
// (workerd runs a process's isolates on one thread: another stream's long synchronous work must not
// make this one look silent). Node's timers stand in for the input's arrival.
import { expect, test } from "vitest";
import { UniEventStream } from "../../src/index.ts";

const enc = new TextEncoder();
const event = (text: string) =>
  `data: ${JSON.stringify({ role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text }], usage_metadata: null, finish_reason: null })}\n\n`;
const busy = (ms: number): void => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};

test("input due while the thread was busy past idleTimeoutMs is read, not timed out", async () => {
  // the first input now, the next due 60 ms from now: 10 ms past the 50 ms time-out
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(enc.encode(event("a")));
      setTimeout(() => {
        controller.enqueue(enc.encode(event("b")));
        controller.close();
      }, 60);
    },
  });
  const stream = new UniEventStream({ idleTimeoutMs: 50 });
  stream.message.catch(() => {});
  const reader = source.pipeThrough(stream).getReader();
  expect((await reader.read()).value?.content_items[0]).toMatchObject({ text: "a" });
  const next = reader.read();
  busy(200); // the thread is elsewhere past both deadlines
  const r = await next.then((v) => v, (e: unknown) => e);
  expect(r).toMatchObject({ done: false, value: { content_items: [{ type: "text.delta", text: "b" }] } });
  await reader.cancel().catch(() => {});
});

test("a source silent past idleTimeoutMs still times out (one more turn, then the error)", async () => {
  const source = new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) }, { highWaterMark: 0 });
  const stream = new UniEventStream({ idleTimeoutMs: 30 });
  stream.message.catch(() => {});
  const t = Date.now();
  const error = await source.pipeThrough(stream).getReader().read().then(() => null, (e: unknown) => e);
  expect(error).toMatchObject({ name: "StreamLimitError", limit: "idleTimeoutMs" });
  expect(Date.now() - t).toBeLessThan(1000);
});
