/**
 * A core whose outputs go out as one array per input chunk (what that chunk completed), for readers
 * whose cost is one `read()` per value (in Chromium and workerd a `read()` costs more than checking an
 * event). The wrapped core is unchanged; the strategy is chosen once, by wrapping. On an error, the
 * outputs before it still go out, as their own array, before the stream errors.
 */
import type { StreamCore } from "./core.js";

export class BatchingCore<I, O> implements StreamCore<I, O[]> {
  /** One array per input chunk, as arrived (the shell's slices would split a chunk's batch). */
  readonly wholeInputs = true;

  constructor(private readonly inner: StreamCore<I, O>) {}

  get finished(): boolean {
    return this.inner.finished;
  }

  /** The outputs of the wrapped core so far (a cut body's error counts events, not arrays: answer-events.ts). */
  count = 0;

  push(input: I, emit: (outputs: O[]) => void): void {
    const out: O[] = [];
    try {
      this.inner.push(input, (o) => void out.push(o));
    } finally {
      this.count += out.length;
      if (out.length > 0) emit(out);
    }
  }

  /** The wrapped core's end, waited for when it waits (a provider's core diagnosing a body that is no stream). */
  end(emit: (outputs: O[]) => void): void | Promise<void> {
    const out: O[] = [];
    const flush = (): void => {
      this.count += out.length;
      if (out.length > 0) emit(out.splice(0));
    };
    let ended: void | Promise<void>;
    try {
      ended = this.inner.end((o) => void out.push(o));
    } catch (e) {
      flush();
      throw e;
    }
    if (!ended) return flush();
    return ended.then(flush, (e: unknown) => {
      flush();
      throw e;
    });
  }

  dispose(): void {
    this.inner.dispose?.();
  }
}
