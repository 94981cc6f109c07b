/**
 * Every stage is a small synchronous core (push input in, get outputs out through `emit`) inside
 * a thin stream shell (`CoreStream`). The fused `UniEventStream` composes the cores in one call.
 */
export interface StreamCore<I, O> {
  /** Handles one input; may throw (the shell turns that into the stream's error). */
  push(input: I, emit: (output: O) => void): void;
  /** The input ended. */
  end(emit: (output: O) => void): void;
  /** True once the core wants no more input (e.g. after `[DONE]`): the source is then cancelled. */
  readonly finished: boolean;
}
