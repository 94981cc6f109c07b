/**
 * A `fetch` Response → checked UniEvents and the message: the format comes from `Content-Type`,
 * and a refused request (non-2xx) becomes the `UpstreamError` its body describes (SPEC §1, §6).
 */
import { checkOptions, checkResponse, READER_OPTIONS } from "./internal/options.js";
import { producerOf, refusalOf } from "./internal/http.js";
import { mediaType, NDJSON_TYPES } from "./internal/media-type.js";
import { refusedEvents, streamedEvents } from "./internal/answer-events.js";
import type { StreamedMessage, UniEvent } from "./schema.js";
import type { MessageSnapshot } from "./assemble/live-message.js";
import type { StreamTimings } from "./read/timings.js";
import { UniEventStream, type UniEventStreamOptions, type WireFormat } from "./uni-event-stream.js";

/** The wire format a Content-Type names, or undefined when it names neither. */
export function formatFromContentType(contentType: string | null): WireFormat | undefined {
  const type = mediaType(contentType);
  if (type === "text/event-stream") return "sse";
  return type !== undefined && NDJSON_TYPES.includes(type) ? "ndjson" : undefined;
}

/** What `fromResponse` (and `fromFetch`) return: the events, the message, and the message so far. */
export interface ResponseEvents {
  /** The checked events; it errors with the stream's error (after every valid event before it). */
  readable: ReadableStream<UniEvent>;
  /** The finished message; rejects with the readable's error (see `UniEventStream.message`). */
  message: Promise<StreamedMessage>;
  /** The message so far (immutable, bound); see `UniEventStream.snapshot`. */
  snapshot: () => MessageSnapshot;
  /** Calls `listener` after each change of the snapshot (bound); see `UniEventStream.subscribe`. */
  subscribe: (listener: () => void) => () => void;
  /** When the parts of the answer arrived on this client (a getter: the figures so far); see `UniEventStream.timings`. */
  readonly timings: StreamTimings;
}

/**
 * Reads a Response from an MMSP server (or any producer of SSE / NDJSON UniEvents).
 * `options.format` overrides the format `Content-Type` names; when it names neither, the first line
 * that is not blank tells (a JSON object: NDJSON; anything else: SSE).
 *
 * @example
 * ```ts
 * import { fromResponse } from "mmsp-streams";
 *
 * const events = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   {
 *     role: "assistant", event_type: "stop", content_items: [], finish_reason: "stop",
 *     usage_metadata: { cached_tokens: 0, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 },
 *   },
 * ];
 * const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
 * // in real use: fromResponse(await fetch(url, init))
 * const response = new Response(body, { headers: { "content-type": "text/event-stream" } });
 * const { readable, message } = fromResponse(response);
 * for await (const event of readable) console.log(event.event_type);
 * console.log((await message).usage_metadata);
 * ```
 */
export function fromResponse(response: Response, options: UniEventStreamOptions = {}): ResponseEvents {
  checkResponse(response);
  checkOptions("fromResponse", options, READER_OPTIONS);
  const client = options.client ?? producerOf(response.url);
  if (!response.ok) return refusedEvents(refusalOf(response, client));
  // A Content-Type that names neither format (or none at all): the first line tells.
  const contentType = response.headers.get("content-type");
  const format = options.format ?? formatFromContentType(contentType) ?? "auto";
  const stream = new UniEventStream({ ...options, format, client }, {
    contentType,
    contentEncoding: response.headers.get("content-encoding"),
    status: response.status,
  });
  return streamedEvents(response.body, response.url, stream);
}
