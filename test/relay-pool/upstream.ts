// The scripted MMSP upstream of the relay-pool project, in Node (vitest.config.ts hands it to
// Miniflare as the relay Worker's outboundService, so every fetch() the relay and its Durable
// Objects make lands here). MMSP_UPSTREAM is http://upstream.test/v1 in that project.
//
//   POST /v1/stream       the tool-call sample, one SSE block at a time, each block in two chunks
//                         (the second cut lands inside the event), 1 ms apart: clients can join and
//                         leave while the stream is live. The JSON body's `tag` names the request;
//                         `"model": "break"` breaks the connection inside the second event (the
//                         relay sees the body end there: Miniflare ends a Node body that errors).
//                         `"model": "endless"`: text deltas every 5 ms (of `"size"` characters, default
//                         8) for 8 s, never a stop: the relay stops it first (Miniflare reads a Node
//                         body to its end whatever workerd does, hence the 8 s, not forever);
//                         `"model": "endless-16k"`: the same, deltas of 16 KiB;
//                         `"model": "late"`: the same, its headers 400 ms late
//                         `"model": "large"`: one text item of `"size"` characters (one delta, its
//                         .done), then the stop, at once
//                         `"model": "silent"`: no headers for 8 s (a server that never answers; the
//                         relay must give up first)
//   POST at a provider's path whose text names a `script:m-…`: the kit's fake providers (fakes.ts);
//                         GET /__fake?tag= the bodies they got
//   GET  /__last?tag=     {"body", "authorization"}: the last POST /v1/stream that carried that tag, as
//                         it arrived (what the relay sent upstream)
//   GET  /__requests?tag= {"count": n}: how many POST /v1/stream carried that tag (the tests ask,
//                         through the same outbound route, to check one upstream request per stream;
//                         observer.js, the Worker in front of this, adds when the relay cancelled it)
// Any other host or path is a 502/404: the tests have no other network.
import { readFileSync } from "node:fs";
import { Response, type Request } from "miniflare";
import { fakeSeen, matrixApi } from "./fakes.ts";
import { providerApi, providerSeen } from "./providers.ts";

export const UPSTREAM_HOST = "upstream.test";

const sample = readFileSync(new URL("../../samples/tool-call.sse", import.meta.url), "utf8");
const blocks = sample.split(/(?<=\n\n)/); // each block keeps its "\n\n"
const requests = new Map<string, number>();
const last = new Map<string, { body: string; authorization: string | null }>();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The sample as a paced byte stream; stops when the relay cancels it. `breakAfter`: the connection
 * breaks (the body errors) after that many chunks.
 */
function pacedSample(breakAfter = Infinity): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  const chunks = blocks.flatMap((b) => [b.slice(0, Math.ceil(b.length / 2)), b.slice(Math.ceil(b.length / 2))]);
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (next >= breakAfter) return controller.error(new Error("the upstream connection broke"));
        if (next >= chunks.length) return controller.close();
        await sleep(1);
        controller.enqueue(utf8.encode(chunks[next++]!));
      },
    },
    { highWaterMark: 0 },
  );
}

/** Text deltas of `size` characters every 5 ms, for 8 s. */
function endless(size: number): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  const until = Date.now() + 8000;
  let n = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (Date.now() > until) return controller.close();
        await sleep(5);
        const item = { type: "text.delta", text: `${n++} `.padEnd(size, ".") };
        const event = { role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null };
        controller.enqueue(utf8.encode(`data: ${JSON.stringify(event)}\n\n`));
      },
    },
    { highWaterMark: 0 },
  );
}

/** One text item of `size` characters, in one delta, then its .done and the stop. */
function large(size: number): string {
  const text = "x".repeat(size);
  const event = (item: object) => ({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null });
  const stop = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: 0, response_tokens: 1 }, finish_reason: "stop" };
  return [event({ type: "text.delta", text }), event({ type: "text.done", text }), stop].map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
}

export async function upstream(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname !== UPSTREAM_HOST) return new Response(`no network in tests: ${url.href}`, { status: 502 });
  if (request.method === "GET" && url.pathname === "/__requests") {
    const count = requests.get(url.searchParams.get("tag") ?? "") ?? 0;
    return Response.json({ count });
  }
  if (request.method === "GET" && url.pathname === "/__fake") return fakeSeen(url.searchParams.get("tag") ?? "");
  if (request.method === "GET" && url.pathname === "/__provider") return providerSeen(url.searchParams.get("tag") ?? "");
  if (request.method === "POST") {
    const fake = await matrixApi(request, url.pathname); // the kit's fake providers for the client matrix (fakes.ts)
    if (fake) return fake;
    const provider = await providerApi(request, url.pathname); // the provider-backed models' APIs (providers.ts)
    if (provider) return provider;
  }
  if (request.method === "GET" && url.pathname === "/__last") {
    return Response.json(last.get(url.searchParams.get("tag") ?? "") ?? null);
  }
  if (request.method === "POST" && url.pathname === "/v1/stream") {
    let body: { tag?: unknown; model?: unknown; size?: unknown; config?: { tag?: unknown } } = {};
    const text = await request.text();
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // an untagged request still counts, under ""
    }
    const tag = String(body.tag ?? body.config?.tag ?? ""); // (an /api/chat request carries it in `config`)
    requests.set(tag, (requests.get(tag) ?? 0) + 1);
    last.set(tag, { body: text, authorization: request.headers.get("authorization") });
    const headers = { "content-type": "text/event-stream; charset=utf-8" };
    if (body.model === "endless") return new Response(endless(Number(body.size ?? 8)), { headers });
    if (body.model === "endless-16k") return new Response(endless(16 * 1024), { headers }); // (the same, 16 KiB deltas)
    // "late": the endless stream, its answer's headers 400 ms late (a model slow to start)
    if (body.model === "late") return sleep(400).then(() => new Response(endless(Number(body.size ?? 8)), { headers }));
    if (body.model === "large") return new Response(large(Number(body.size ?? 1024)), { headers });
    if (body.model === "silent") return sleep(8000).then(() => new Response(endless(8), { headers }));
    // model "break": the connection breaks inside the second event (chunks: the comment in two, event 0 in two, half of event 1)
    return new Response(pacedSample(body.model === "break" ? 5 : Infinity), { headers });
  }
  return Response.json({ error: { type: "NotFoundError", message: `no route ${request.method} ${url.pathname}` } }, { status: 404 });
}
