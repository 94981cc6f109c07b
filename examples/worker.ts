// A Cloudflare Worker that reads a streamed MMSP body and answers with the finished message.
//
//   POST /message   body: an MMSP stream, Content-Type text/event-stream (SSE) or application/x-ndjson
//   → 200 {role, content_items, usage_metadata, finish_reason, created_at}  (bytes as base64)
//   → 422 {error: {type, rule, eventIndex, message}}  when the stream breaks the protocol
//   → 502 the same shape, when the stream carried the producer's own error event
//
// The body is read as it arrives (`request.body.pipeThrough(...)`), never buffered whole; the events
// could be forwarded or stored on the way (here they are only checked).
// Try it: npx wrangler dev -c test/worker/wrangler.toml, then
//   curl --data-binary @examples/sample.sse -H 'content-type: text/event-stream' localhost:8787/message
import { encodeBase64, formatFromContentType, MmspError, UniEventStream, UpstreamError } from "mmsp-streams";

/** JSON with bytes (inline_data / inline_thinking `data`) as base64, as they travel on the wire. */
function json(value: unknown, status = 200): Response {
  const body = JSON.stringify(value, (_key, v) => (v instanceof Uint8Array ? encodeBase64(v) : v));
  return new Response(body, { status, headers: { "content-type": "application/json; charset=utf-8" } });
}

export async function handleMessage(request: Request): Promise<Response> {
  const contentType = request.headers.get("content-type");
  const format = formatFromContentType(contentType);
  if (!format) return json({ error: { type: "UnsupportedMediaType", message: `cannot read ${contentType ?? "a body without a Content-Type"}` } }, 415);
  if (!request.body) return json({ error: { type: "BadRequest", message: "no body" } }, 400);

  const stream = new UniEventStream({ format, client: "upstream" });
  try {
    // Read the body to its end (not just to the stop event): whatever follows the stop is checked
    // too, and the client has sent its last byte before the answer goes out.
    await request.body.pipeThrough(stream).pipeTo(new WritableStream());
    return json(await stream.message);
  } catch (e) {
    if (!(e instanceof MmspError)) throw e;
    const error = { type: e.name, rule: e.rule ?? null, eventIndex: e.eventIndex ?? null, message: e.message };
    return json({ error }, e instanceof UpstreamError ? 502 : 422);
  }
}

export default {
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === "/message" && request.method === "POST") return handleMessage(request);
    return new Response("POST an MMSP stream to /message\n", { status: 404 });
  },
};
