// The upstream of the relay-pool project: the kit's fake MMSP server (mmsp-streams/testing), in Node
// (vitest.config.ts hands `upstream` to Miniflare as the relay Worker's outboundService, so every
// fetch() the relay and its Durable Objects make lands here). MMSP_UPSTREAM is http://upstream.test/v1.
//
//   POST /v1/stream       model "tools" (and any other): the tool-call sample, each SSE block in two
//                         chunks (the second cut lands inside the event), 1 ms before each event:
//                         clients can join and leave while the stream is live. "break": the connection
//                         breaks inside the second event (the relay sees the body end there: Miniflare
//                         ends a Node body that errors). "endless": text deltas of 8 characters every
//                         5 ms for 8 s, never a stop (the relay stops it first; Miniflare reads a Node
//                         body to its end whatever workerd does, hence 8 s, not forever); "endless-16k"
//                         the same of 16 KiB each; "late": "endless", its headers 400 ms late.
//                         The JSON body's `tag` (or `config.tag`: /api/chat) names the request.
//   GET  /__requests?tag= {"count": n}: how many POST /v1/stream carried that tag, read from the fake's
//                         request log (observer.js, the Worker in front of this, adds when the relay
//                         cancelled it: only workerd sees that)
// Any other host is a 502: the tests have no other network.
import { readFileSync } from "node:fs";
import { Request as MiniflareRequest, Response } from "miniflare";
import { fakeMmspServer } from "../../dist/testing/index.js";

export const UPSTREAM_HOST = "upstream.test";

const utf8 = new TextEncoder();
const sample = readFileSync(new URL("../../samples/tool-call.sse", import.meta.url), "utf8");
const blocks = sample.split(/(?<=\n\n)/); // each block keeps its "\n\n"
/** Byte offsets of the chunks: each block in two halves. */
const halves: number[] = [];
for (let at = 0, i = 0; i < blocks.length; i++) {
  const b = blocks[i]!;
  const half = utf8.encode(b.slice(0, Math.ceil(b.length / 2))).length;
  halves.push(at + half, at + utf8.encode(b).length);
  at = halves.at(-1)!;
}
const sse = (text: string) => ({ status: 200, headers: [["content-type", "text/event-stream; charset=utf-8"]] as [string, string][], body: utf8.encode(text) });
const toolCall = sse(sample);
/** Text deltas of `size` characters for 8 s at 5 ms apart (1600), never a stop. */
const endless = (size: number) => {
  const events = Array.from({ length: 1600 }, (_, n) => {
    const event = { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: `${n} `.padEnd(size, ".") }], usage_metadata: null, finish_reason: null };
    return `data: ${JSON.stringify(event)}\n\n`;
  });
  return { capture: sse(events.join("")), pace: 200 };
};

const fake = fakeMmspServer({
  fallback: "tools",
  streams: {
    tools: { capture: toolCall, chunking: halves.slice(0, -1), pace: 1000 },
    // (chunks: the comment in two, event 0 in two, half of event 1)
    break: { capture: toolCall, chunking: halves.slice(0, -1), pace: 1000, cutAfterBytes: halves[4]! },
    endless: endless(8),
    "endless-16k": endless(16_384),
    late: endless(8),
  },
});
const tagOf = (json: unknown): string => {
  const body = json as { tag?: unknown; config?: { tag?: unknown } } | undefined;
  return String(body?.tag ?? body?.config?.tag ?? "");
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function upstream(request: MiniflareRequest): Promise<Response> {
  const url = new URL(request.url);
  if (url.hostname !== UPSTREAM_HOST) return new Response(`no network in tests: ${url.href}`, { status: 502 });
  if (request.method === "GET" && url.pathname === "/__requests") {
    const tag = url.searchParams.get("tag") ?? "";
    const count = fake.requests.filter((r) => r.method === "POST" && new URL(r.url).pathname === "/v1/stream" && tagOf(r.json) === tag).length;
    return Response.json({ count });
  }
  // Miniflare's Request and Response are its own undici's: a web Request in, its Response out
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  const asked = new Request(request.url, { method: request.method, headers: request.headers as unknown as HeadersInit, body });
  if (body && (JSON.parse(new TextDecoder().decode(body) || "{}") as { model?: unknown }).model === "late") await sleep(400);
  const answer = await fake(asked);
  return new Response(answer.body as never, { status: answer.status, headers: [...answer.headers] });
}
