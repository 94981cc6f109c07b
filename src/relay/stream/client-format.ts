// The stream: SPEC §1 (the format a client asks for: MMSP SSE, or NDJSON when its Accept prefers it).
// The stream's object answers each viewer in it (stream-object.ts), the stateless MMSP door its one client.
import { NDJSON_TYPES } from "../../internal/media-type.js";

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
