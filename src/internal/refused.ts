/**
 * The events of a refused request (non-2xx): a readable that errors with the refusal's error, a
 * message that rejects with the same error, an empty snapshot and no timings. `fromResponse` and the
 * providers' `fromProviderResponse` share it, so a refusal reads the same from either.
 */
import { LiveMessage, type MessageSnapshot } from "../assemble/live-message.js";
import { NO_TIMINGS, type StreamTimings } from "../read/timings.js";
import type { UniEvent, UniMessage } from "../schema.js";
import { MessagePromise } from "./message-promise.js";

/** What a reader of an answer returns (`ResponseEvents`' members). */
export interface RefusedEvents {
  readable: ReadableStream<UniEvent>;
  message: Promise<UniMessage>;
  snapshot: () => MessageSnapshot;
  subscribe: (listener: () => void) => () => void;
  readonly timings: StreamTimings;
}

/** The events of an answer refused with the error `refusal` resolves to (or rejects with). */
export function refusedEvents(refusal: Promise<unknown>): RefusedEvents {
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
