/**
 * Every stage is a small synchronous core (push input in, get outputs out through `emit`) inside
 * a thin stream shell (`CoreStream`). The fused `UniEventStream` composes the cores in one call.
 */
export interface StreamCore<I, O> {
  /** Handles one input; may throw (the shell turns that into the stream's error). */
  push(input: I, emit: (output: O) => void): void;
  /**
   * The input ended. May return a promise (a provider's core loads the diagnosis of a body that is no
   * stream only when one comes): the stream closes or errors once it settles.
   */
  end(emit: (output: O) => void): void | Promise<void>;
  /** Called once when the stream is built, with an `emit` usable at any time (e.g. from a timer). */
  start?(emit: (output: O) => void): void;
  /**
   * The writable side was aborted (or a pipe's source errored). When present, the core may emit
   * final outputs (an encoder writes an error event) and the readable then closes normally.
   */
  abort?(reason: unknown, emit: (output: O) => void): void;
  /** The stream is over (closed, errored or cancelled): release timers and the like. */
  dispose?(): void;
  /** True once the core wants no more input (e.g. after `[DONE]`): the source is then cancelled. */
  readonly finished: boolean;
  /** Its outputs are one per input (a batch): the shell hands it every chunk whole, never in slices. */
  readonly wholeInputs?: boolean;
}
