/**
 * Reading one provider's answer, given its spec (not its name, so that a bundle of one provider
 * carries no other): the stream over the provider core, and a `Response` read as `fromResponse`
 * reads one — a refusal becomes the provider's `UpstreamError`, a 2xx body goes through the stream.
 */
import type { BodyContext } from "../framing/framer.js";
import type { ResponseEvents } from "../from-response.js";
import type { CoreStreamOptions } from "../internal/core-stream.js";
import { ReaderStream } from "../internal/reader-stream.js";
import { refusedEvents, streamedEvents } from "../internal/answer-events.js";
import type { UniEvent } from "../schema.js";
import { ProviderCore, type ProviderCoreOptions } from "./core.js";
import { providerRefusal } from "./refusal.js";
import type { ProviderSpec } from "./spec.js";

/** Options of `ProviderEventStream`, `fromProviderResponse` and a provider's `stream()`: who is blamed, limits, warnings, signal, idle time-out. */
export interface ProviderStreamOptions extends ProviderCoreOptions, CoreStreamOptions {}

/**
 * @internal The reading stage of `spec`'s stream (options already checked); `context`: what the
 * response said of the body, read at the end (a body that is no stream), so it may be filled in later.
 */
export function providerStream(
  spec: ProviderSpec,
  options: ProviderStreamOptions,
  context?: BodyContext,
): ReaderStream<Uint8Array, UniEvent> {
  const core = new ProviderCore(spec, options, context);
  return new ReaderStream(core, core, options);
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
