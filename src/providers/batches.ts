/**
 * @internal A provider's events read in batches (issue #49): the provider's own request and reader
 * (the same core, checks and errors as `stream()`), its readable giving one array of UniEvents per
 * provider chunk (read.ts `ProviderBatchStream`). A relay's stateless path reads a provider this way:
 * one `read()` per chunk, the door's encoder then writing a chunk's events as one string
 * (relay/stream/encoding.ts). A side channel of the providers the factories make, kept beside them
 * (never on them: a `Provider` stays the documented shape); a provider made by hand has none, and
 * `batchesOf` reads its `stream()` one event per batch.
 */
import type { UniEvent } from "../schema.js";
import type { MmspRequest } from "./request.js";
import type { Provider, ProviderEvents } from "./provider.js";
import type { ProviderStreamOptions } from "./read.js";

/** A provider's events, its readable giving one array per provider chunk (never empty). */
export type ProviderBatches = Omit<ProviderEvents, "readable"> & { readonly readable: ReadableStream<UniEvent[]> };

type BatchedStream = (input: Request | MmspRequest, options?: ProviderStreamOptions) => ProviderBatches;

const BATCHED = new WeakMap<object, BatchedStream>();

/** Registers a factory's provider's batched stream (provider.ts). */
export function registerBatches(provider: Provider, stream: BatchedStream): void {
  BATCHED.set(provider, stream);
}

/** Events as batches of one (a stream of a provider made by hand, a continued answer). */
export function batchedOne(events: ReadableStream<UniEvent>): ReadableStream<UniEvent[]> {
  const reader = events.getReader();
  return new ReadableStream<UniEvent[]>({
    async pull(controller) {
      const r = await reader.read();
      if (r.done) controller.close();
      else controller.enqueue([r.value]);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/** `provider`'s stream of `request`, read in batches: its own batched reader when a factory made it, else its `stream()` one event per batch. */
export function batchesOf(provider: Provider, request: Request, options: ProviderStreamOptions): ProviderBatches {
  const own = BATCHED.get(provider);
  if (own) return own(request, options);
  const events = provider.stream(request, options);
  return {
    readable: batchedOne(events.readable),
    message: events.message,
    snapshot: events.snapshot,
    subscribe: events.subscribe,
    stop: () => events.stop(),
    get timings() {
      return events.timings;
    },
    get reportedUsage() {
      return events.reportedUsage;
    },
  };
}
