/**
 * Reading one provider's answer, given its spec (not its name, so that a bundle of one provider
 * carries no other): the stream over the provider core, and a `Response` read as `fromResponse`
 * reads one — a refusal becomes the provider's `UpstreamError`, a 2xx body goes through the stream.
 */
import type { BodyContext } from "../framing/framer.js";
import type { ResponseEvents } from "../from-response.js";
import type { CoreStreamHooks, CoreStreamOptions } from "../internal/core-stream.js";
import { stalledError } from "../internal/http.js";
import { BatchingCore } from "../internal/batching-core.js";
import { ReaderStream } from "../internal/reader-stream.js";
import { refusedEvents, streamedEvents } from "../internal/answer-events.js";
import type { UniEvent, UsageMetadata } from "../schema.js";
import { ProviderCore, type ProviderCoreOptions } from "./core.js";
import { providerRefusal } from "./refusal.js";
import type { ProviderSpec } from "./spec.js";

/** Options of `ProviderEventStream`, `fromProviderResponse` and a provider's `stream()`: who is blamed, limits, warnings, signal, idle time-out, stall watchdog. */
export interface ProviderStreamOptions extends ProviderCoreOptions, CoreStreamOptions {
  /**
   * The stall watchdog (SPEC §10 "Stalls"): no byte from the provider for this many milliseconds
   * while the stream is open (its request and headers included; a wait for a slow reader does not
   * count) aborts the request and fails the stream with an `UpstreamError` of type `StreamStalled`.
   */
  stallMs?: number;
}

/** @internal The watchdog of `options.stallMs`, blaming the provider (its `StreamStalled`), or none. */
export function stallOf(spec: ProviderSpec, options: ProviderStreamOptions): CoreStreamHooks["stall"] {
  const client = options.client ?? spec.name;
  return options.stallMs === undefined ? undefined : { ms: options.stallMs, error: (ms) => stalledError(client, ms) };
}

/**
 * @internal The reading stage of `spec`'s stream (options already checked); `context`: what the
 * response said of the body, read at the end (a body that is no stream), so it may be filled in later.
 */
export function providerStream(
  spec: ProviderSpec,
  options: ProviderStreamOptions,
  context?: BodyContext,
): ProviderReaderStream {
  return new ProviderReaderStream(spec, options, context);
}

/** @internal A provider's reader as a stream (options already checked), with what the provider reported of its usage. */
export class ProviderReaderStream extends ReaderStream<Uint8Array, UniEvent> {
  readonly #core: ProviderCore;
  constructor(spec: ProviderSpec, options: ProviderStreamOptions, context?: BodyContext) {
    const core = new ProviderCore(spec, options, context);
    super(core, core, options, stallOf(spec, options));
    this.#core = core;
  }

  /**
   * The counts the provider reported so far, merged (null before any): Anthropic's input at
   * `message_start`, Gemini's on each chunk, every provider's whole usage once its stop came. What an
   * answer stopped or cut before its end cost, as far as the provider said (a copy).
   */
  get reportedUsage(): UsageMetadata | null {
    return this.#core.reportedUsage;
  }
}

/**
 * @internal The same reader as ProviderReaderStream (the same core: checks, order, errors, `message`,
 * `reportedUsage`), its readable giving one array of events per input chunk (BatchingCore): what a
 * relay's stateless path reads, one `read()` per provider chunk instead of one per event (issue #49).
 */
export class ProviderBatchStream extends ReaderStream<Uint8Array, UniEvent[]> {
  readonly #core: ProviderCore;
  readonly #batches: BatchingCore<Uint8Array, UniEvent>;
  constructor(spec: ProviderSpec, options: ProviderStreamOptions, context?: BodyContext) {
    const core = new ProviderCore(spec, options, context);
    const batches = new BatchingCore(core);
    super(batches, core, options, stallOf(spec, options));
    this.#core = core;
    this.#batches = batches;
  }

  /** @internal The events made so far (not the arrays: a cut body's ConnectionError counts events). */
  override get outputs(): number {
    return this.#batches.count;
  }

  /** See ProviderReaderStream's. */
  get reportedUsage(): UsageMetadata | null {
    return this.#core.reportedUsage;
  }
}

/** @internal What a provider's response said of its body: its status and the headers the diagnosis names. */
export function bodyContext(response: Response, context: BodyContext = {}): BodyContext {
  context.status = response.status;
  context.contentType = response.headers.get("content-type");
  context.contentEncoding = response.headers.get("content-encoding");
  return context;
}

/** @internal A provider's `Response` → its events (options already checked). */
export function readProviderResponse(spec: ProviderSpec, response: Response, options: ProviderStreamOptions): ResponseEvents {
  if (!response.ok) return refusedEvents(providerRefusal(response, spec, options.client ?? spec.name));
  const stream = providerStream(spec, options, bodyContext(response));
  return streamedEvents(response.body, response.url, stream);
}
