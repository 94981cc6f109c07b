/**
 * What a reader of one answer returns, made in one place for `fromResponse` and the providers'
 * `fromProviderResponse`, so an answer reads the same from either: a refused request (non-2xx) is a
 * readable that errors with the refusal's error, a message that rejects with the same error, an empty
 * snapshot and no timings; a streamed one is its body piped through the reader.
 */
import { LiveMessage } from "../assemble/live-message.js";
import type { ResponseEvents } from "../from-response.js";
import { NO_TIMINGS } from "../read/timings.js";
import type { UniEvent, UniMessage } from "../schema.js";
import { MessagePromise } from "./message-promise.js";
import type { ReaderStream } from "./reader-stream.js";

/** The events of an answer refused with the error `refusal` resolves to (or rejects with). */
export function refusedEvents(refusal: Promise<unknown>): ResponseEvents {
  const message = new MessagePromise<UniMessage>(() => {});
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

/** The events of an answer whose body (none: an empty one) is read by `stream`. */
export function streamedEvents(body: ReadableStream<Uint8Array> | null, stream: ReaderStream<Uint8Array, UniEvent>): ResponseEvents {
  const bytes = body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  return {
    readable: bytes.pipeThrough(stream),
    message: stream.message,
    snapshot: stream.snapshot,
    subscribe: stream.subscribe,
    get timings() {
      return stream.timings;
    },
  };
}
