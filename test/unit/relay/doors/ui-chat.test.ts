// The useChat door (issue #50), in Node: the stateless relay (createRelay without the namespace)
// read by the AI SDK's own DefaultChatTransport and readUIMessageStream (the relay's fetch as the
// transport's fetch), the request mapped onto MMSP's (the upstream sees it), `chatPath` checked at the
// boundary and moving the door, `false` closing it. (Kept chats, resume and Stop: test/relay/ui-chat.mjs
// and test/relay-pool/chat.test.ts, in workerd through the Durable Object.)
import { readFileSync } from "node:fs";
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { expect, test } from "vitest";
import { createRelay, type RelayOptions } from "../../../../src/relay/index.ts";

const ORIGIN = "https://relay.test";
const sample = readFileSync(new URL("../../../../samples/tool-call.sse", import.meta.url), "utf8");

function relayOf(options: RelayOptions = {}) {
  const asked: unknown[] = [];
  const relay = createRelay({
    upstream: async (request) => {
      asked.push(await request.json());
      return new Response(sample, { headers: { "content-type": "text/event-stream" } });
    },
    ...options,
  });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => relay.fetch(new Request(input, init), {}, { clientAddress: "192.0.2.1" });
  return { relay, asked, fetch: fetch as typeof globalThis.fetch };
}

const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Weather in Paris?" }] };

test("DefaultChatTransport against the stateless door: the sample's tool call as one assistant message; the upstream gets MMSP's request", async () => {
  const { asked, fetch } = relayOf();
  const transport = new DefaultChatTransport({
    api: `${ORIGIN}/api/chat`,
    fetch,
    body: { model: "sample-tools", config: { temperature: 0 } },
  });
  const stream = await transport.sendMessages({
    chatId: "c1",
    messages: [user],
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream })) message = m;
  expect(message?.role).toBe("assistant");
  expect(message?.parts.some((p) => "toolCallId" in p && p.state === "input-available")).toBe(true);
  expect(asked).toEqual([{
    model: "sample-tools",
    messages: [{ role: "user", content_items: [{ type: "text.done", text: "Weather in Paris?" }] }],
    config: { temperature: 0 },
  }]);
});

test("the answer's headers are the UI message stream's; a request that is not the AI SDK's is a 400 naming the member", async () => {
  const { fetch } = relayOf();
  const post = (body: unknown) =>
    fetch(`${ORIGIN}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const ok = await post({ messages: [user] });
  expect(ok.status).toBe(200);
  expect(ok.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
  expect(ok.headers.get("etag")).toBeNull(); // (not kept: no namespace)
  expect(await ok.text()).toMatch(/^data: \{"type":"start","messageId":"[^"]+"\}\n\n[\s\S]*data: \[DONE\]\n\n$/);
  const refused = await post({ messages: "hi" });
  expect(refused.status).toBe(400);
  expect((await refused.json()).error.message).toMatch(/`messages`/);
  expect((await fetch(`${ORIGIN}/api/chat`)).status).toBe(405);
  // without the namespace nothing is kept: a resume or a stop answers 204
  expect((await fetch(`${ORIGIN}/api/chat/c1/stream`)).status).toBe(204);
  expect((await fetch(`${ORIGIN}/api/chat/c1/stream`, { method: "DELETE" })).status).toBe(204);
});

test("chatPath: checked at the boundary; it moves the door; false closes it", async () => {
  for (const bad of ["api/chat", "/api/chat/", "/api chat", "/api/<x>", 42, true]) {
    expect(() => createRelay({ chatPath: bad as never })).toThrow(/`chatPath` must be a path/);
  }
  const moved = relayOf({ chatPath: "/v2/chat" });
  const post = (f: typeof fetch, path: string) =>
    f(`${ORIGIN}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [user] }) });
  expect((await post(moved.fetch, "/v2/chat")).status).toBe(200);
  expect((await post(moved.fetch, "/api/chat")).status).toBe(404);
  expect((await moved.fetch(`${ORIGIN}/v2/chat/c1/stream`)).status).toBe(204);
  const closed = relayOf({ chatPath: false });
  const none = await post(closed.fetch, "/api/chat");
  expect(none.status).toBe(404);
  expect((await none.json()).error.message).not.toMatch(/GET or DELETE \/api\/chat/); // (the 404 lists no such route)
});
