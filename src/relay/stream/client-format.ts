// The stream: SPEC §1 (the format a client asks for: MMSP SSE, or NDJSON when its Accept prefers it).
// The stream's object answers each viewer in it (stream-object.ts), the stateless MMSP door its one client.
import { NDJSON_TYPES } from "../../internal/media-type.js";
import { encodedBody } from "./encoded-body.js";
import { mmspEncoding } from "./encoding.js";
import { SSE_FRAMING } from "../../encode/wire-event.js";
import type { UniEvent } from "../../schema.js";
import { streamHeaders } from "./headers.js";

/** MMSP's keep-alive period: a silent model still sends bytes, so proxies do not time out. */
const KEEP_ALIVE_MS = 15_000;

/** MMSP SSE's keep-alive in a door encoding's body (encoded-body.ts `encodedBody`): the SSE encoder's comment, the same period. */
export const MMSP_KEEP_ALIVE = { ms: KEEP_ALIVE_MS, text: SSE_FRAMING.keepAlive! };

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

/**
 * Checked events (one by one, or one array per provider chunk) written back as MMSP SSE (with
 * keep-alives) or NDJSON: MMSP's wire as a door encoding (encoding.ts `mmspEncoding`, the one writer of
 * MMSP every path composes), each read's events written as one chunk.
 */
export function mmspBack(events: ReadableStream<UniEvent | UniEvent[]>, format: "sse" | "ndjson", contentType: string): Response {
  const context = { id: "", meta: null, after: null };
  const body = encodedBody(events, mmspEncoding(format, contentType), context, format === "sse" ? MMSP_KEEP_ALIVE : undefined);
  return new Response(body, { status: 200, headers: streamHeaders(contentType) });
}
