// Stages chained by hand (the relay's doors and stream step: SPEC §8, §10; a relay file, not the reader core).
//
// Not by `pipeThrough`: workerd reports the pipe of a source that
// errors (a stream cancelled, an upstream failure: the events' ordinary ends) as an unhandled
// rejection, and a vitest run in workerd fails on one. Here every promise is handled, a source's
// error reaches the stage as an abort of its writable (an encoder writes it as its API's error
// event), and a cancel of the stage's readable cancels the source (SPEC §8: a client that leaves
// stops what feeds it).

/** A `{ writable, readable }` pair (a TransformStream, a CoreStream). */
export interface Stage<I, O> {
  readonly writable: WritableStream<I>;
  readonly readable: ReadableStream<O>;
}

/** `source` through `stage`, pumped by hand (backpressure kept: one write at a time); the stage's readable. */
export function through<I, O>(source: ReadableStream<I>, stage: Stage<I, O>): ReadableStream<O> {
  const reader = source.getReader();
  const writer = stage.writable.getWriter();
  // the stage errored (its reader left, or it failed): the source is cancelled now, not at its next chunk
  writer.closed.catch((e) => reader.cancel(e).catch(() => {}));
  void (async () => {
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) await writer.write(r.value);
      await writer.close();
    } catch (e) {
      // the source failed (the stage writes it) or the stage's reader left (the source is cancelled)
      reader.cancel(e).catch(() => {});
      writer.abort(e).catch(() => {});
    }
  })();
  return stage.readable;
}
