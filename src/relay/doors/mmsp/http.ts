// The MMSP door: SPEC §1 and §10 "Doors" (POST /v1/stream: the checked events written back as SSE or NDJSON).
//
// The path every answer of POST /v1/stream takes, relayed or replayed: an upstream Response is read
// by the package in validate mode (fromResponse: every event checked, the grammar enforced; an answer
// of the models table made in this isolate gives its events themselves, answer.ts) and the checked
// events are written back in the format the client asked for.
//
//   upstream body ─ UniEventStream (validate) ─ mmspEncoding (SSE / NDJSON, encoded-body.ts) ─▶ client
//
// MMSP is written by the one MMSP door encoding every path composes (stream/encoding.ts `mmspEncoding`,
// through stream/client-format.ts `mmspBack`). Both directions propagate:
// - an upstream that breaks the protocol, sends an error event or drops the connection errors the
//   reader; the encoding writes that error as one `{"error": …}` event (+ `data: [DONE]` in SSE) and
//   ends the body normally: the client never hangs and is never cut silently;
// - a client that goes away cancels the body; the cancel runs back to the upstream body (and the
//   fetch's AbortSignal, see relay()), so the upstream request is cancelled.
import type { UniEvent } from "../../../index.js";
import { checkedEvents } from "../../stream/answer.js";
import { clientFormat, mmspBack } from "../../stream/client-format.js";
import { follow } from "../../../internal/abort.js";
import { openUpstream } from "../../routing/upstream.js";

/** (the format a client asks for: the stream's own rule, stream/client-format.ts) */
export { clientFormat };

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
  return mmspBack(tap ? tap(checked) : checked, format, contentType);
}

/** The stateless relay: the upstream's answer streamed back; the client going away cancels it. */
export async function relay(request: Request, upstreamBase: string): Promise<Response> {
  // Cancels the upstream request when the client goes away before the answer's headers (and,
  // with the enable_request_signal flag, at any time); after that, cancelling the answer's body
  // also cancels the upstream body through the pipes.
  const controller = new AbortController();
  follow(controller, (request as { signal?: AbortSignal }).signal);
  const upstream = await openUpstream(request, upstreamBase, controller.signal);
  if (!upstream.ok) return upstream;
  return streamBack(upstream, request.headers.get("accept"), { client: "upstream", signal: controller.signal });
}
