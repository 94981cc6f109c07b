// Providers: a request's answer bytes handed to a sink as the provider's reader reads them (issue #47's
// pass-through, SPEC §10: the relay answers a client in the provider's own bytes while the reader makes
// its events). Kept beside the Request, never in it or in the provider's options: only the relay, which
// built the Request, registers a sink (relay/routing/pass-through.ts). The sink sees each chunk as the
// reader pulls it, then the end, or the error that cut the body. Here, not in the reader core: it is the
// providers' fetch (provider.ts) that hands its body over.

/** @internal Where a tapped request's answer bytes go. */
export interface ByteSink {
  chunk(bytes: Uint8Array): void;
  end(error?: unknown): void;
}

const SINKS = new WeakMap<Request, ByteSink>();

/** @internal Hands `request`'s answer bytes to `sink` (one sink per request). */
export function tapBytes(request: Request, sink: ByteSink): void {
  SINKS.set(request, sink);
}

/** @internal `body` as it is, or (a request with a sink) read through to its sink. */
export function tappedBody(
  request: Request,
  body: ReadableStream<Uint8Array> | null,
): ReadableStream<Uint8Array> | null {
  const sink = SINKS.get(request);
  if (!sink || body === null) return body;
  SINKS.delete(request);
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        sink.end(e);
        throw e;
      }
      if (r.done) {
        sink.end();
        controller.close();
      } else {
        sink.chunk(r.value);
        controller.enqueue(r.value);
      }
    },
    cancel(reason) {
      sink.end(reason ?? new Error("the provider's answer was cancelled"));
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
