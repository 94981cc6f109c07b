// Resumable /api/chat (the useChat door, src/relay/doors/ui-chat/, and the chat record, src/relay/stream/chat-record.ts): a POST's answer is kept in a stream's object
// and remembered as the chat's active stream; GET /api/chat/<chatId>/stream replays its UI message
// stream from the start (the same bytes, the same message id), 204 once none is active; DELETE
// cancels it (the upstream aborted within a second, StreamCancelled for every viewer); the chat's
// credentials bind it, and its key's principal (RELAY_KEYS: another key reads and stops nothing);
// If-Match names one stream (412 when a newer answer replaced it).
import { env, SELF } from "cloudflare:test";
import { expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { newTag, readRecords, rest, upstreamCancelled, upstreamRequests, ORIGIN } from "./relay.ts";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const user = { id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] };

function post(chatId: string, tag: string, model = "tools", headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`${ORIGIN}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ id: chatId, trigger: "submit-message", messages: [user], model, config: { tag } }),
  });
}
const streamUrl = (chatId: string): string => `${ORIGIN}/api/chat/${encodeURIComponent(chatId)}/stream`;
const get = (chatId: string, headers: Record<string, string> = {}): Promise<Response> => SELF.fetch(streamUrl(chatId), { headers });
const del = (chatId: string, headers: Record<string, string> = {}): Promise<Response> => SELF.fetch(streamUrl(chatId), { method: "DELETE", headers });
const text = async (res: Response): Promise<string> => new TextDecoder().decode(await res.arrayBuffer());
/** The UI message chunks of a UI message stream's text. */
const chunks = (t: string): { type: string; [k: string]: unknown }[] =>
  t.split("\n\n").filter((b) => b.startsWith("data: ") && b !== "data: [DONE]").map((b) => JSON.parse(b.slice(6)) as { type: string });

test("a kept answer: ETag names its stream; once ended GET is a 204 (none active) but If-Match replays the same bytes; one upstream request", async () => {
  const tag = newTag();
  const chatId = `chat-${tag}`;
  const first = await post(chatId, tag);
  expect(first.status).toBe(200);
  expect(first.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
  const etag = first.headers.get("etag");
  expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
  const firstText = await text(first);
  const c = chunks(firstText);
  expect(c[0]).toMatchObject({ type: "start" });
  expect(c.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });
  expect(await upstreamRequests(tag)).toBe(1);
  // ended: nothing active (the AI SDK's reconnect then does nothing) — but If-Match still names it
  expect((await get(chatId)).status).toBe(204);
  const named = await get(chatId, { "if-match": etag! });
  expect(named.status).toBe(200);
  expect(named.headers.get("etag")).toBe(etag);
  expect(await text(named)).toBe(firstText); // deterministic: the same chunks, the same message id
  expect(await upstreamRequests(tag)).toBe(1);
  expect((await get("never-seen")).status).toBe(204);
  expect((await del(chatId)).status).toBe(204); // already ended: nothing to stop
});

test("while live, GET replays from the start: the same bytes as the creator's answer, then live", async () => {
  const tag = newTag();
  const chatId = `chat-${tag}`;
  const first = await post(chatId, tag, "endless");
  const head = await readRecords(first.body!, 4);
  const replay = await get(chatId);
  expect(replay.status).toBe(200);
  expect(replay.headers.get("etag")).toBe(first.headers.get("etag"));
  const more = await readRecords(replay.body!, 8);
  const firstMore = head.text + new TextDecoder().decode((await head.reader.read()).value);
  const n = Math.min(firstMore.length, more.text.length);
  expect(more.text.slice(0, n)).toBe(firstMore.slice(0, n));
  expect(n).toBeGreaterThan(head.text.length - 1);
  await more.reader.cancel();
  await head.reader.cancel();
  expect((await del(chatId)).status).toBe(204);
});

test("DELETE mid-answer: the upstream request aborted within a second; the creator and a second viewer end with a StreamCancelled error chunk; then 204", async () => {
  const tag = newTag();
  const chatId = `chat-${tag}`;
  const first = await post(chatId, tag, "endless");
  const head = await readRecords(first.body!, 3);
  const viewer = await get(chatId);
  expect(viewer.status).toBe(200);
  const viewerText = text(viewer);
  const t = Date.now();
  expect((await del(chatId)).status).toBe(204);
  const cancelledAt = await upstreamCancelled(tag, 1000);
  expect(cancelledAt, "the upstream saw its request aborted").not.toBeNull();
  expect(cancelledAt! - t).toBeLessThan(1000);
  for (const t of [head.text + (await rest(head.reader)), await viewerText]) {
    const last = chunks(t).at(-1)!;
    expect(last.type).toBe("error");
    expect(String(last.errorText)).toMatch(/cancelled/);
  }
  expect((await get(chatId)).status).toBe(204);
});

test("while the answer is being created (the upstream slow to answer): a GET waits for it, a DELETE cancels it once it exists", async () => {
  const tag = newTag();
  const chatId = `chat-${tag}`;
  const posting = post(chatId, tag, "late");
  await sleep(100);
  const viewing = get(chatId);
  await sleep(50);
  expect((await del(chatId)).status).toBe(204);
  const first = await posting;
  expect(first.status).toBe(200);
  const last = chunks(await text(first)).at(-1)!;
  expect(last.type).toBe("error");
  expect(String(last.errorText)).toMatch(/cancelled/);
  expect(await upstreamCancelled(tag, 1000)).not.toBeNull();
  const viewer = await viewing;
  expect([200, 204]).toContain(viewer.status); // it waited for the stream: its replay, or (ended already) none
  if (viewer.status === 200) expect(chunks(await text(viewer)).at(-1)!.type).toBe("error");
  expect(await upstreamRequests(tag)).toBe(1);
});

test("a client that goes away does not stop a kept answer: it runs on and resumes", async () => {
  const tag = newTag();
  const chatId = `chat-${tag}`;
  const first = await post(chatId, tag, "endless");
  const head = await readRecords(first.body!, 2);
  await head.reader.cancel();
  await sleep(300);
  expect(await upstreamCancelled(tag, 0)).toBeNull();
  const again = await get(chatId);
  expect(again.status).toBe(200);
  const more = await readRecords(again.body!, 6);
  expect(more.text.startsWith(head.text)).toBe(true);
  await more.reader.cancel();
  expect((await del(chatId)).status).toBe(204);
  expect(await upstreamCancelled(tag, 1000)).not.toBeNull();
});

test("credentials bind a chat: another Authorization (or none) posting, resuming or cancelling the same id reaches a chat of its own; the first is untouched", async () => {
  const tag = newTag();
  const chatId = `chat-${tag}`;
  const mine = { authorization: "Bearer mine" };
  const theirs = { authorization: "Bearer theirs" };
  const first = await post(chatId, tag, "endless", mine);
  expect(first.status).toBe(200);
  const myEtag = first.headers.get("etag");
  await (await readRecords(first.body!, 1)).reader.cancel();
  for (const other of [theirs, {}]) {
    const res = await get(chatId, other);
    expect(res.status).toBe(204); // none, as for a chat id never seen: no oracle, no ETag
    expect(res.headers.get("etag")).toBeNull();
    expect((await del(chatId, other)).status).toBe(204);
  }
  const their = await post(chatId, newTag(), "tools", theirs); // their own chat of that id
  expect(their.status).toBe(200);
  expect(their.headers.get("etag")).not.toBe(myEtag);
  await their.arrayBuffer();
  expect(await upstreamCancelled(tag, 0)).toBeNull();
  const ok = await get(chatId, { ...mine, "if-match": myEtag! }); // still my answer (412 had theirs replaced it)
  expect(ok.status).toBe(200);
  expect(ok.headers.get("etag")).toBe(myEtag);
  await ok.body!.cancel();
  expect((await del(chatId, mine)).status).toBe(204);
  expect(await upstreamCancelled(tag, 1000)).not.toBeNull();
});

test("one active answer per chat: a new POST cancels the previous live stream; If-Match of the old one is a 412", async () => {
  const tagA = newTag();
  const chatId = `chat-${tagA}`;
  const a = await post(chatId, tagA, "endless");
  const etagA = a.headers.get("etag")!;
  await (await readRecords(a.body!, 1)).reader.cancel();
  const tagB = newTag();
  const b = await post(chatId, tagB, "endless");
  expect(b.headers.get("etag")).not.toBe(etagA);
  expect(await upstreamCancelled(tagA, 1000)).not.toBeNull();
  await (await readRecords(b.body!, 1)).reader.cancel();
  expect((await get(chatId, { "if-match": etagA })).status).toBe(412);
  expect((await del(chatId, { "if-match": etagA })).status).toBe(412);
  expect(await upstreamCancelled(tagB, 0)).toBeNull();
  expect((await del(chatId, { "if-match": b.headers.get("etag")! })).status).toBe(204);
  expect(await upstreamCancelled(tagB, 1000)).not.toBeNull();
});

test("bad chat paths are 404s; other methods 405; a POST without an id stays stateless (no ETag)", async () => {
  expect((await SELF.fetch(`${ORIGIN}/api/chat/%/stream`)).status).toBe(404);
  expect((await SELF.fetch(`${ORIGIN}/api/chat/${"x".repeat(300)}/stream`)).status).toBe(404);
  expect((await SELF.fetch(streamUrl("c"), { method: "PUT" })).status).toBe(405);
  const res = await SELF.fetch(`${ORIGIN}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ messages: [user], model: "tools" }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("etag")).toBeNull();
  await res.arrayBuffer();
});

test("RELAY_KEYS with two keys: a chat is its key's principal's — the other key's GET is a 204 that reads nothing, its DELETE changes nothing", async () => {
  const keys = { alice: "alice-key-0000000001", bob: "bob-key-000000000002" };
  const keyed = { ...env, RELAY_KEYS: JSON.stringify(keys) } as typeof env & { RELAY_KEYS: string };
  const as = (name: keyof typeof keys) => ({ "x-relay-key": keys[name] });
  const call = (url: string, init: RequestInit = {}) => worker.fetch(new Request(url, init), keyed);
  const tag = newTag();
  const chatId = `shared-${tag}`; // (a chat id both know)
  const first = await call(`${ORIGIN}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...as("alice") },
    body: JSON.stringify({ id: chatId, trigger: "submit-message", messages: [user], model: "endless", config: { tag } }),
  });
  expect(first.status).toBe(200);
  const { reader } = await readRecords(first.body!, 2);
  // bob: none active for him, nothing read; his DELETE is a 204 that stops nothing
  const peek = await call(streamUrl(chatId), { headers: as("bob") });
  expect(peek.status).toBe(204);
  expect(await text(peek)).toBe("");
  expect((await call(streamUrl(chatId), { method: "DELETE", headers: as("bob") })).status).toBe(204);
  expect(await upstreamCancelled(tag, 300)).toBeNull();
  // alice's own GET reads it; her DELETE stops it
  const mine = await call(streamUrl(chatId), { headers: as("alice") });
  expect(mine.status).toBe(200);
  await mine.body!.cancel();
  expect((await call(streamUrl(chatId), { method: "DELETE", headers: as("alice") })).status).toBe(204);
  expect(await upstreamCancelled(tag, 1000)).not.toBeNull();
  await reader.cancel();
});
