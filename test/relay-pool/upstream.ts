// The scripted MMSP upstream of the relay-pool project, in Node (vitest.config.ts hands it to
// Miniflare as the relay Worker's outboundService, so every fetch() the relay and its Durable
// Objects make lands here). MMSP_UPSTREAM is http://upstream.test/v1 in that project.
//
//   POST /v1/stream       the tool-call sample, one SSE block at a time, each block in two chunks
//                         (the second cut lands inside the event), 1 ms apart: clients can join and
//                         leave while the stream is live. The JSON body's `tag` names the request.
//   GET  /__requests?tag= {"count": n}: how many POST /v1/stream carried that tag (the tests ask,
//                         through the same outbound route, to check one upstream request per stream)
// Any other host or path is a 502/404: the tests have no other network.
import { readFileSync } from "node:fs";
import { Response, type Request } from "miniflare";

export const UPSTREAM_HOST = "upstream.test";

const sample = readFileSync(new URL("../../samples/tool-call.sse", import.meta.url), "utf8");
const blocks = sample.split(/(?<=\n\n)/); // each block keeps its "\n\n"
const requests = new Map<string, number>();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The sample as a paced byte stream; stops when the relay cancels it. */
function pacedSample(): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  const chunks = blocks.flatMap((b) => [b.slice(0, Math.ceil(b.length / 2)), b.slice(Math.ceil(b.length / 2))]);
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (next >= chunks.length) return controller.close();
        await sleep(1);
        controller.enqueue(utf8.encode(chunks[next++]!));
      },
    },
    { highWaterMark: 0 },
  );
}

export async function upstream(request: Request): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname !== UPSTREAM_HOST) return new Response(`no network in tests: ${url.href}`, { status: 502 });
  if (request.method === "GET" && url.pathname === "/__requests") {
    const count = requests.get(url.searchParams.get("tag") ?? "") ?? 0;
    return Response.json({ count });
  }
  if (request.method === "POST" && url.pathname === "/v1/stream") {
    let tag = "";
    try {
      tag = String((JSON.parse(await request.text()) as { tag?: unknown }).tag ?? "");
    } catch {
      // an untagged request still counts, under ""
    }
    requests.set(tag, (requests.get(tag) ?? 0) + 1);
    return new Response(pacedSample(), { headers: { "content-type": "text/event-stream; charset=utf-8" } });
  }
  return Response.json({ error: { type: "NotFoundError", message: `no route ${request.method} ${url.pathname}` } }, { status: 404 });
}
