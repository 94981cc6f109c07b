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

  push(input: I, emit: (outputs: O[]) => void): void {
    const out: O[] = [];
    try {
      this.inner.push(input, (o) => void out.push(o));
    } finally {
      if (out.length > 0) emit(out);
    }
  }

  end(emit: (outputs: O[]) => void): void {
    const out: O[] = [];
    try {
      this.inner.end((o) => void out.push(o));
    } finally {
      if (out.length > 0) emit(out);
    }
  }

  dispose(): void {
    this.inner.dispose?.();
  }
}
