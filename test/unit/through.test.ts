// internal/through.ts: stages chained by hand (the relay's doors and stream step). What pipeThrough
// gave them must hold: a cancel of the output reaches the source at once (not at its next chunk),
// a source's error reaches the stage as an abort (an encoder writes it), backpressure, no rejection
// left unhandled.
import { expect, test } from "vitest";
import { through } from "../../src/relay/through.ts";

const idle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

test("a cancel of the stage's readable cancels a source that is waiting for its next chunk", async () => {
  let cancelled: unknown = null;
  const source = new ReadableStream<number>({
    start: (c) => c.enqueue(1), // then silent: the pump waits in read()
    cancel: (reason) => void (cancelled = reason),
  });
  const out = through(source, new TransformStream<number, number>()).getReader();
  expect(await out.read()).toEqual({ done: false, value: 1 });
  await out.cancel("the client left");
  await idle();
  expect(cancelled).toBe("the client left");
});

test("a source's error aborts the stage's writable: a stage with an abort hook writes it, then closes", async () => {
  let seen: unknown = null;
  const stage = (() => {
    let emit!: ReadableStreamDefaultController<string>;
    const readable = new ReadableStream<string>({ start: (c) => void (emit = c) });
    const writable = new WritableStream<number>({
      write: (n) => emit.enqueue(`n${n}`),
      close: () => emit.close(),
      abort: (reason) => {
        seen = reason;
        emit.enqueue("error");
        emit.close();
      },
    });
    return { readable, writable };
  })();
  let n = 0;
  const source = new ReadableStream<number>({
    pull: (c) => (++n === 1 ? c.enqueue(1) : c.error(new Error("upstream broke"))),
  }, { highWaterMark: 0 });
  const got: string[] = [];
  const out = through(source, stage).getReader();
  for (let r = await out.read(); !r.done; r = await out.read()) got.push(r.value);
  expect(got).toEqual(["n1", "error"]);
  expect((seen as Error).message).toBe("upstream broke");
});

test("backpressure: the source is read no faster than the stage's reader takes", async () => {
  let pulled = 0;
  const source = new ReadableStream<number>({ pull: (c) => c.enqueue(pulled++) }, { highWaterMark: 0 });
  const out = through(source, new TransformStream<number, number>(undefined, { highWaterMark: 0 }, { highWaterMark: 0 })).getReader();
  await idle();
  expect(pulled).toBeLessThanOrEqual(3);
  await out.read();
  await out.cancel();
});

test("an erroring source and a stage that errors leave no unhandled rejection", async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    const source = new ReadableStream<number>({ start: (c) => c.error(new Error("gone")) });
    const out = through(source, new TransformStream<number, number>());
    await expect(out.getReader().read()).rejects.toThrow("gone");
    await idle();
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  expect(unhandled).toEqual([]);
});
