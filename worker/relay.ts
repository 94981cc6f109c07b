// POST /v1/stream with MMSP_UPSTREAM set: the request goes to `${MMSP_UPSTREAM}/stream` (body as
// is, Content-Type and Authorization forwarded). openUpstream() makes that one request (the stream's
// Durable Object uses it, stream-object.ts); relay() is the stateless path (no STREAMS binding): the
// answer comes back through streamBack() and ends with the client.
import { refusal, streamBack } from "./stream.ts";

/** workerd's identity stream of a declared length (Workers runtime API). */
declare const FixedLengthStream: (new (length: number) => TransformStream<Uint8Array, Uint8Array>) | undefined;

/**
 * Makes the one upstream request. Resolves to the upstream's answer (2xx: the stream), its refusal
 * as it came (status, body, Content-Type), or a 502 refusal when the server cannot be reached.
 * `signal` aborts the request and its body.
 */
export async function openUpstream(request: Request, upstreamBase: string, signal?: AbortSignal): Promise<Response> {
  const url = `${upstreamBase.replace(/\/+$/, "")}/stream`;
  const headers = new Headers({ accept: "text/event-stream" });
  for (const name of ["content-type", "authorization"]) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  // The body goes on as it came, streamed; with its Content-Length when the client sent one (a
  // FixedLengthStream: workerd then sends the length instead of chunked encoding).
  let body: ReadableStream<Uint8Array> | null = request.body;
  const length = Number(request.headers.get("content-length") ?? NaN);
  if (body && Number.isSafeInteger(length) && length >= 0 && typeof FixedLengthStream === "function")
    body = body.pipeThrough(new FixedLengthStream(length));
  let upstream: Response;
  try {
    upstream = await fetch(url, { method: "POST", headers, body, signal });
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return refusal(502, "UpstreamUnavailable", `cannot reach the MMSP server at ${url}: ${reason}`);
  }
  if (upstream.ok) return upstream;
  // A refusal is passed on as it is: same status, same body, same Content-Type.
  const passOn = new Headers();
  const type = upstream.headers.get("content-type");
  if (type !== null) passOn.set("content-type", type);
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: passOn });
}

/** The stateless relay: the upstream's answer streamed back; the client going away cancels it. */
export async function relay(request: Request, upstreamBase: string): Promise<Response> {
  // Cancels the upstream request when the client goes away before the answer's headers (and,
  // with the enable_request_signal flag, at any time); after that, cancelling the answer's body
  // also cancels the upstream body through the pipes.
  const controller = new AbortController();
  const clientSignal = (request as { signal?: AbortSignal }).signal;
  if (clientSignal?.aborted) controller.abort(clientSignal.reason);
  else clientSignal?.addEventListener("abort", () => controller.abort(clientSignal.reason), { once: true });
  const upstream = await openUpstream(request, upstreamBase, controller.signal);
  if (!upstream.ok) return upstream;
  return streamBack(upstream, request.headers.get("accept"), { client: "upstream", signal: controller.signal });
}
