// The path every answer of POST /v1/stream takes, relayed or replayed: an upstream Response is read
// by the package in validate mode (fromResponse: every event checked, the grammar enforced; an answer
// of the models table made in this isolate gives its events themselves, answer.ts) and the checked
// events are written back in the format the client asked for.
//
//   upstream body ─ UniEventStream (validate) ─ SseEncoderStream / NdjsonEncoderStream ─▶ client
//
// Everything is pipes, so both directions propagate:
// - an upstream that breaks the protocol, sends an error event or drops the connection errors the
//   reader; the pipe aborts the encoder, which writes that error as one `{"error": …}` event (+ `data:
//   [DONE]` in SSE) and ends the body normally: the client never hangs and is never cut silently;
// - a client that goes away cancels the body; the cancel runs back through the pipes to the
//   upstream body (and the fetch's AbortSignal, see relay.ts), so the upstream request is cancelled.
import { NdjsonEncoderStream, SseEncoderStream, type UniEvent } from "../index.js";
import { checkedEvents, streamHeaders } from "./answer.js";
import { NDJSON_TYPES } from "../internal/media-type.js";

export type ClientFormat = { format: "sse"; contentType: string } | { format: "ndjson"; contentType: string };

/**
 * The format the request's `Accept` asks for: NDJSON when it names an NDJSON / JSON Lines type
 * (answered with that type) preferred over `text/event-stream`; SSE otherwise (the MMSP default).
 */
export function clientFormat(accept: string | null): ClientFormat {
  let best: { type: string; q: number } | null = null;
  let sseQ = 0;
  for (const part of (accept ?? "").split(",")) {
    const [rawType, ...params] = part.split(";");
    const type = rawType!.trim().toLowerCase();
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    if (type === "text/event-stream") sseQ = Math.max(sseQ, q);
    else if (NDJSON_TYPES.includes(type) && (best === null || q > best.q)) best = { type, q };
  }
  if (best !== null && best.q >= sseQ) return { format: "ndjson", contentType: best.type };
  return { format: "sse", contentType: "text/event-stream; charset=utf-8" };
}

/** MMSP's keep-alive period: a silent model still sends bytes, so proxies do not time out. */
const KEEP_ALIVE_MS = 15_000;

export interface StreamBackOptions {
  /** Names the upstream in protocol errors: `<client> broke the streaming protocol: …`. */
  client: string;
  /** Aborts the reading (used to stop with the client). */
  signal?: AbortSignal;
  /** The largest upstream event read (MAX_EVENT_BYTES; the reader's default when not given). */
  maxEventBytes?: number;
  /** Sees the checked events on their way (the stream's cost: stream-cost.ts `metered`). */
  tap?: (events: ReadableStream<UniEvent>) => ReadableStream<UniEvent>;
}

/** A 2xx upstream Response → the client's streamed Response (checked events, re-encoded). */
export function streamBack(upstream: Response, accept: string | null, options: StreamBackOptions): Response {
  const { format, contentType } = clientFormat(accept);
  const { client, signal, maxEventBytes, tap } = options;
  const checked = checkedEvents(upstream, { client, signal, ...(maxEventBytes === undefined ? {} : { maxEventBytes }) });
  const readable = tap ? tap(checked) : checked;
  const encoder: ReadableWritablePair<Uint8Array, UniEvent> = format === "sse"
    ? new SseEncoderStream({ keepAliveMs: KEEP_ALIVE_MS })
    : new NdjsonEncoderStream();
  return new Response(readable.pipeThrough(encoder), { status: 200, headers: streamHeaders(contentType) });
}

/** A refusal in MMSP's shape, `{"error": {"type", "message"}}` (SPEC §1). */
export function refusal(status: number, type: string, message: string, headers: HeadersInit = {}): Response {
  return Response.json({ error: { type, message } }, { status, headers });
}
