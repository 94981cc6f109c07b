/**
 * The stream shell around a core: a `{ readable, writable }` pair for `pipeThrough`.
 *
 * Why not a `TransformStream`: erroring a TransformStream drops the outputs still queued on its
 * readable side, and its `cancel` hook is missing in some runtimes. This shell delivers every output
 * produced before an error and only then errors the readable; it holds backpressure (a write waits
 * until the reader has taken the outputs of the previous one); a cancel of the readable errors the
 * writable, so a pipe into it cancels its source; and while `draining` (a reader's drain,
 * reader-stream.ts: the package consumes the readable itself when the caller only wants the final
 * result) no output is kept.
 */
import { StreamLimitError } from "../errors.js";
import type { StreamCore } from "./core.js";

/** Options every stream of the package takes: an abort signal and an idle time-out. */
export interface CoreStreamOptions {
  /** Aborting it errors the readable with the signal's reason and cancels the source. */
  signal?: AbortSignal;
  /**
   * When no input arrives for this long while the stream waits for input (time spent waiting for
   * a slow reader does not count), the stream fails with `StreamLimitError` (`limit: "idleTimeoutMs"`).
   */
  idleTimeoutMs?: number;
}

export interface CoreStreamHooks extends CoreStreamOptions {
  /**
   * A provider's stall watchdog (SPEC §10 "Stalls"): no input for `ms` fails the stream with
   * `error(ms)` (the provider's `StreamStalled`), as the idle time-out does with its own error.
   */
  stall?: { ms: number; error: (ms: number) => unknown } | undefined;
  /** The stream failed (core error, abort of the writable, or cancel of the readable). */
  onError?(error: unknown): void;
  /** The stream ended cleanly: the readable closed after the core's last output. */
  onClose?(): void;
}

/** The error of an input silent for `ms` (the reader's idle timeout; fromFetch's per connection). */
export const idleError = (ms: number): StreamLimitError =>
  new StreamLimitError({ limit: "idleTimeoutMs", value: ms, detail: `no input arrived for ${ms} ms (idleTimeoutMs=${ms})` });

/** The largest piece of a byte chunk the core is given at once (see `writeSliced`). */
const SLICE_BYTES = 64 * 1024;

/** Reason given to the source when the core needs no more input (after `[DONE]`). */
export class StreamFinished extends Error {
  override name = "StreamFinished";
  constructor() {
    super("the stream is complete: no more input is read");
  }
}

export class CoreStream<I, O> implements ReadableWritablePair<O, I> {
  readonly readable: ReadableStream<O>;
  readonly writable: WritableStream<I>;
  private rc!: ReadableStreamDefaultController<O>;
  private wc!: WritableStreamDefaultController;
  private pendingError: { error: unknown } | null = null;
  private wakeWriter: (() => void) | null = null;
  private settled = false;
  /** The package reads the readable itself (ReaderStream's drain): outputs are not kept. */
  protected draining = false;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private made = 0;
  private readonly onAbortSignal = (): void => this.interrupt(this.hooks.signal!.reason);

  constructor(
    private readonly core: StreamCore<I, O>,
    private readonly hooks: CoreStreamHooks = {},
  ) {
    const emit = (o: O): void => {
      this.made++;
      if (!this.draining && !this.settled) this.rc.enqueue(o);
    };
    this.readable = new ReadableStream<O>(
      {
        start: (c) => {
          this.rc = c;
        },
        pull: () => {
          if (this.pendingError) {
            const { error } = this.pendingError;
            this.pendingError = null;
            this.rc.error(error);
          }
          this.wake();
        },
        cancel: (reason) => this.interrupt(reason ?? new DOMException("The event stream was cancelled", "AbortError")),
      },
      { highWaterMark: 0 },
    );
    this.writable = new WritableStream<I>(
      {
        start: (c) => {
          this.wc = c;
        },
        write: (chunk) => {
          if (this.settled) return;
          this.disarmIdle();
          if (chunk instanceof Uint8Array && chunk.length > SLICE_BYTES && !this.core.wholeInputs) return this.writeSliced(chunk, emit);
          if (!this.step(chunk, emit)) return;
          if (this.backlogged()) return this.readerTook().then(() => this.armIdle());
          this.armIdle();
        },
        close: () => {
          if (this.settled) return;
          const failed = (error: unknown): never => {
            this.fail(error, true);
            throw error;
          };
          let ended: void | Promise<void>;
          try {
            ended = this.core.end(emit);
          } catch (error) {
            return failed(error);
          }
          if (ended) return ended.then(() => this.close(), failed);
          this.close();
        },
        abort: (reason) => {
          if (this.settled) return;
          if (this.core.abort) {
            try {
              this.core.abort(reason, emit);
            } catch (error) {
              this.fail(error, true);
              return;
            }
            this.close();
          } else this.fail(reason, true);
        },
      },
      { highWaterMark: 1 },
    );
    this.core.start?.(emit);
    const { signal } = hooks;
    if (signal?.aborted) this.interrupt(signal.reason);
    else {
      signal?.addEventListener("abort", this.onAbortSignal);
      this.armIdle();
    }
  }

  /** @internal The outputs made so far (a cut body's `ConnectionError` says how many events came before it). */
  get outputs(): number {
    return this.made;
  }

  /**
   * One input through the core; false once the stream is over (the core's end, `[DONE]`, closed it).
   * Throws the core's error, after failing the stream with it.
   */
  private step(input: I, emit: (o: O) => void): boolean {
    try {
      this.core.push(input, emit);
    } catch (error) {
      // a core that reached its end (`[DONE]`) in this chunk ends cleanly: what follows the
      // end in the same chunk is never read (bad bytes after it fail no more than later chunks)
      if (!this.core.finished) {
        this.fail(error, true);
        throw error;
      }
    }
    if (this.core.finished) {
      this.close();
      this.wc.error(new StreamFinished());
      return false;
    }
    return true;
  }

  /**
   * A large chunk of bytes (a whole body in one chunk: a file, a replay, `new Response(bytes)`), fed
   * to the core in slices, each once the reader has taken what the one before made: Node's
   * web-streams queue slows down with the thousands of outputs one such chunk makes at once (40k
   * chat events: 1.3 s against 0.14 s in 64 KiB chunks), and backpressure holds within the chunk too.
   * An output still leaves in the turn its last byte is handed to the core.
   */
  private async writeSliced(chunk: Uint8Array, emit: (o: O) => void): Promise<void> {
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
      if (this.settled) return;
      if (!this.step(chunk.subarray(at, at + SLICE_BYTES) as I & Uint8Array, emit)) return;
      if (this.backlogged()) await this.readerTook();
    }
    this.armIdle();
  }

  /** Outputs wait in the readable's queue (none are kept while draining). */
  private backlogged(): boolean {
    return !this.draining && !this.settled && (this.rc.desiredSize ?? 0) < 0;
  }

  /** Resolves when the reader has taken every queued output (or the stream ended). */
  private readerTook(): Promise<void> {
    return new Promise<void>((resolve) => (this.wakeWriter = resolve));
  }

  /**
   * Fails at once (queued outputs dropped) and cancels the source: for a cancel of the readable, an
   * abort or a time-out. (Once settled, the writable has errored or closed already.)
   */
  private interrupt(error: unknown): void {
    if (this.settled) return;
    this.fail(error, false);
    this.wc.error(error); // a pipe into the writable now cancels its source
    this.wake();
  }

  private armIdle(): void {
    const { idleTimeoutMs: idle, stall } = this.hooks;
    // (one timer: the shorter of the idle time-out and the stall watchdog, with its own error)
    const stalls = stall !== undefined && (idle === undefined || stall.ms < idle);
    const ms = stalls ? stall.ms : idle;
    if (ms === undefined || this.settled) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      // The time is up, but input the isolate had no turn to deliver (it was busy elsewhere: workerd
      // runs a process's isolates on one thread) goes first: one more turn, and the stream fails
      // only if none came (its arrival disarms this timer). A busy isolate is not a silent source.
      this.idleTimer = setTimeout(() => this.interrupt(stalls ? stall.error(ms) : idleError(ms)), 0);
    }, ms);
  }

  private disarmIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Releases timers and listeners once the stream is over. */
  private release(): void {
    this.disarmIdle();
    this.hooks.signal?.removeEventListener("abort", this.onAbortSignal);
    this.core.dispose?.();
  }

  protected wake(): void {
    const w = this.wakeWriter;
    this.wakeWriter = null;
    w?.();
  }

  private close(): void {
    if (this.settled) return;
    this.settled = true;
    this.rc.close();
    this.release();
    this.hooks.onClose?.();
  }

  /** Errors the readable once the outputs already queued have been read. */
  private fail(error: unknown, deliverQueued: boolean): void {
    if (this.settled) return;
    this.settled = true;
    if (deliverQueued && !this.draining && (this.rc.desiredSize ?? 0) < 0) this.pendingError = { error };
    else this.rc.error(error);
    this.release();
    this.hooks.onError?.(error);
  }
}
