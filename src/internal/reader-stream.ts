/**
 * The shell of every reader that builds the message (`UniEventStream`, `UniEventBatchStream`,
 * `MessageAssemblerStream`), written once so that the three cannot drift: the stream shell over the
 * reader's core, wired to `message` — it resolves when the stream closes cleanly and rejects with the
 * very error the readable errors with (SPEC §7), and awaiting it while nobody reads drains the stream —
 * and to the live message's `snapshot` / `subscribe` and the timings.
 */
import type { LiveMessage, MessageSnapshot } from "../assemble/live-message.js";
import type { ReadTimings, StreamTimings } from "../read/timings.js";
import type { StreamedMessage, UniMessage } from "../schema.js";
import type { StreamCore } from "./core.js";
import { CoreStream, type CoreStreamHooks, type CoreStreamOptions } from "./core-stream.js";
import { MessagePromise } from "./message-promise.js";

/** Why a drained readable cannot be read: said by every way of reading it. */
const DRAINED = "this readable was drained by the package: `message` was awaited (or .then() called) while nobody read " +
  "`readable`, so the package read it itself and kept no events (rule: start reading `readable` in the same " +
  "task as, or before, awaiting `message`)";

/** Makes every way of reading a drained readable fail with a sentence that says why. */
function refuseReads(readable: ReadableStream<unknown>): void {
  const refuse = (): never => {
    throw new TypeError(DRAINED);
  };
  for (const method of ["getReader", "pipeTo", "pipeThrough", "tee", "values", Symbol.asyncIterator] as const) {
    Object.defineProperty(readable, method, { value: refuse, configurable: true });
  }
}

/** What a reader's core builds beside its events. */
export interface ReaderParts {
  /** The message the grammar built, asked for once the stream has closed cleanly. */
  message(): UniMessage | undefined;
  live: LiveMessage;
  timings: ReadTimings;
}

/** A stream shell that also gives the finished message, the message so far and the timings. */
export class ReaderStream<I, O> extends CoreStream<I, O> {
  /**
   * The finished message: resolves when the input has ended cleanly after a valid stop event, and
   * rejects with the very error the readable errors with (SPEC §7). Awaiting it while nobody reads
   * the readable drains it (the events are then not kept).
   */
  readonly message: Promise<StreamedMessage>;

  /**
   * The message so far: the done items, then the open item's value so far (`partial: true`; tool
   * arguments parsed best-effort by `PartialJsonParser`), and usage once the stop event passed.
   * An immutable value (SPEC §7): the same object while nothing changed, a new one when anything
   * did, sharing every item that did not change (a done item never changes). It follows the events
   * the reader has parsed, which may be ahead of those you have read. Bound, so
   * `useSyncExternalStore(stream.subscribe, stream.snapshot)` works; nothing is tracked until the
   * first call (then it starts from the state so far).
   */
  readonly snapshot: () => MessageSnapshot;

  /**
   * Calls `listener` after each change of the snapshot (synchronously, as the events are parsed) and
   * returns the function that unsubscribes it. Bound (callable detached). A listener that throws is
   * reported asynchronously and does not fail the stream.
   */
  readonly subscribe: (listener: () => void) => () => void;

  private readonly clock: ReadTimings;

  /** The shell over `core`, with the reader's `parts`; `options`: the signal and the idle timeout; `stall`: a provider's watchdog. */
  constructor(core: StreamCore<I, O>, parts: ReaderParts, options: CoreStreamOptions, stall?: CoreStreamHooks["stall"]) {
    // (awaiting message drains this stream, which exists only once super() returned)
    const drained: { stream?: ReaderStream<I, O> } = {};
    const message = new MessagePromise<StreamedMessage>(() => void drained.stream?.drain());
    super(core, {
      signal: options.signal,
      idleTimeoutMs: options.idleTimeoutMs,
      stall,
      onError: (e) => message.reject(e),
      // (a stream carries only the streaming kinds: the grammar refuses the others)
      onClose: () => message.resolve(parts.message() as StreamedMessage),
    });
    drained.stream = this;
    this.message = message;
    this.snapshot = parts.live.snapshot;
    this.subscribe = parts.live.subscribe;
    this.clock = parts.timings;
  }

  /**
   * Consumes the readable inside the package (outputs are then not kept). Returns false when the
   * readable is already locked by a reader or a pipe.
   */
  private drain(): boolean {
    if (this.readable.locked) return false;
    this.draining = true;
    const reader = this.readable.getReader();
    refuseReads(this.readable);
    const loop = (): void => {
      reader.read().then((r) => (r.done ? undefined : loop()), () => {});
    };
    loop();
    this.wake();
    return true;
  }

  /**
   * When the first byte, the first event, the first content and the stop event arrived on this
   * client (`performance.now()` ms) and the characters per second; see `StreamTimings`. Also on the
   * snapshot (`snapshot().timings`).
   */
  get timings(): StreamTimings {
    return this.clock.value;
  }
}
