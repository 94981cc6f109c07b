/**
 * What a reader of one answer returns, made in one place for `fromResponse` and the providers'
 * `fromProviderResponse`, so an answer reads the same from either: a refused request (non-2xx) is a
 * readable that errors with the refusal's error, a message that rejects with the same error, an empty
 * snapshot and no timings; a streamed one is its body piped through the reader.
 */
import { LiveMessage } from "../assemble/live-message.js";
import type { ResponseEvents } from "../from-response.js";
import { NO_TIMINGS } from "../read/timings.js";
import type { StreamedMessage, UniEvent } from "../schema.js";
import { cutError } from "./http.js";
import { MessagePromise } from "./message-promise.js";
import type { ReaderStream } from "./reader-stream.js";

/** An answer's events whose readable gives `O` (UniEvents; arrays of them for a batched reader). */
export type EventsOf<O> = Omit<ResponseEvents, "readable"> & { readable: ReadableStream<O> };

/** The events of an answer refused with the error `refusal` resolves to (or rejects with). */
export function refusedEvents(refusal: Promise<unknown>): ResponseEvents {
  const message = new MessagePromise<StreamedMessage>(() => {});
  const readable = new ReadableStream<UniEvent>({
    start: async (controller) => {
      const error = await refusal.catch((e: unknown) => e);
      controller.error(error);
      message.reject(error);
    },
  });
  const empty = new LiveMessage();
  return { readable, message, snapshot: empty.snapshot, subscribe: empty.subscribe, timings: NO_TIMINGS };
}

/**
 * The events of an answer whose body the package owns (a `Response` handed to it, or one it fetched),
 * read by `stream`. `body`: the body (none: an empty one), or what fetches it at the first pull (its
 * errors pass as they are). The one place such a body is read: a read that fails (the connection cut
 * mid-body) is a `ConnectionError` (http.ts `cutError`) after every event before it; a caller's own
 * `body.pipeThrough(stage)` keeps the body's error as it is (WHATWG). `onCancel`: the readable was cancelled.
 */
export function streamedEvents<O = UniEvent>(
  body: ReadableStream<Uint8Array> | null | (() => Promise<ReadableStream<Uint8Array> | null>),
  url: string,
  stream: ReaderStream<Uint8Array, O>,
  onCancel?: (reason: unknown) => void,
): EventsOf<O> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | null | undefined;
  let bytes = 0;
  // (pulled, not piped: a pipe gives no say over the source's error; highWaterMark 0: read as the reader asks)
  const source = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (reader === undefined) reader = (typeof body === "function" ? await body() : body)?.getReader() ?? null;
      if (reader === null) return controller.close();
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        throw cutError(e, url, bytes, stream.outputs);
      }
      if (r.done) return controller.close();
      bytes += r.value?.byteLength ?? 0;
      controller.enqueue(r.value);
    },
    cancel: (reason) => {
      onCancel?.(reason);
      return reader?.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
  return {
    readable: source.pipeThrough(stream),
    message: stream.message,
    snapshot: stream.snapshot,
    subscribe: stream.subscribe,
    get timings() {
      return stream.timings;
    },
  };
}
