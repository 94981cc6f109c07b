// Reads without a stream hop (SPEC §10 "A stream outlives its object"; issue #49: the relay's CPU per
// event). A stream of the relay's own making that only passes on what a read of its source gives
// (routing/target.ts: a provider's events, its errors without the provider's secrets) is a
// ReadableStream like any, for any reader; its one reader in the relay, the stream's object
// (stream/run.ts), takes its reads instead (`readsOf`): the same values, the same errors and the same
// cancel, without one ReadableStream pull, enqueue and read (three promises) per event on the way.
// The stream is locked when its reads are taken: it can never be read twice.

import type { UniEvent } from "../schema.js";

/** One read of a source, as a ReadableStream's reader gives it. */
export type Read<T> = () => Promise<ReadableStreamReadResult<T>>;

/** What a reader of the relay does with a stream: reads it, cancels it. */
export interface Reads<T> {
  read: Read<T>;
  cancel(reason?: unknown): Promise<void>;
}

const DIRECT = new WeakMap<ReadableStream<unknown>, Read<unknown>>();

/**
 * A ReadableStream giving what `read` gives (its errors as the stream's), `cancel` called when it is
 * cancelled; its reads may be taken directly with {@link readsOf}. `read` answers as a reader does once
 * its source ended (`done` again) or failed (the error again).
 */
export function passing<T>(
  read: Read<T>,
  cancel: (reason: unknown) => Promise<void>,
): ReadableStream<T> {
  const stream = new ReadableStream<T>({
    async pull(controller) {
      const r = await read();
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel,
  }, { highWaterMark: 0 });
  DIRECT.set(stream as ReadableStream<unknown>, read as Read<unknown>);
  return stream;
}

/**
 * `stream`'s reads (the stream locked): a stream of {@link passing}'s gives its source's reads
 * directly (a cancel goes to its source the same way), any other its reader's.
 */
export function readsOf<T>(stream: ReadableStream<T>): Reads<T> {
  const direct = DIRECT.get(stream as ReadableStream<unknown>) as
    | Read<T>
    | undefined;
  const reader = stream.getReader();
  if (direct === undefined) {
    return {
      read: () => reader.read(),
      cancel: (reason) => reader.cancel(reason),
    };
  }
  DIRECT.delete(stream as ReadableStream<unknown>);
  return { read: direct, cancel: (reason) => reader.cancel(reason) };
}

/**
 * Events read in batches (one array per provider chunk: providers/batches.ts; a lone event counts as a
 * batch of one) as one event per read, for what reads events (the stream's object, a continuation, a
 * whole answer); its reads, and its source's, may be taken directly like any of {@link passing}'s.
 */
export function flattened(batches: ReadableStream<UniEvent[] | UniEvent>): ReadableStream<UniEvent> {
  const source = readsOf(batches);
  let batch: readonly UniEvent[] = [];
  let at = 0;
  const read = async (): Promise<ReadableStreamReadResult<UniEvent>> => {
    while (at >= batch.length) {
      const r = await source.read();
      if (r.done) return { done: true, value: undefined };
      [batch, at] = [Array.isArray(r.value) ? r.value : [r.value], 0];
    }
    return { done: false, value: batch[at++]! };
  };
  return passing(read, (reason) => source.cancel(reason));
}
