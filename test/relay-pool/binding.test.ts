// Chats and streams belong to their creator (src/relay/admission/bind.ts, src/relay/doors/ui-chat/kept.ts recordOf): a chat
// created without credentials cannot be cancelled or replaced by a POST with other credentials; a
// short anonymous chat id is not kept at all (answered stateless); with RELAY_KEY set the key guards
// resumes and cancels too, on /v1/streams/<id> and /api/chat/<id>/stream.
import { env, SELF } from "cloudflare:test";
import { expect, test } from "vitest";
import { createRelay } from "../../src/relay/index.ts";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN, readRecords, streamIdOf, upstreamCancelled, upstreamRequests } from "./relay.ts";

const user = { id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] };
const chatBody = (chatId: string, tag: string, model: string): string =>
  JSON.stringify({ id: chatId, trigger: "submit-message", messages: [user], model, config: { tag } });
const post = (chatId: string, tag: string, model = "tools", headers: Record<string, string> = {}): Promise<Response> =>
  SELF.fetch(`${ORIGIN}/api/chat`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: chatBody(chatId, tag, model) });
const streamUrl = (chatId: string): string => `${ORIGIN}/api/chat/${encodeURIComponent(chatId)}/stream`;

test("an anonymous chat: a POST on its id with someone else's Authorization neither cancels it nor takes it; the creator resumes it", async () => {
  const tag = newTag();
  const chatId = `victim-${tag}`;
  const victim = await post(chatId, tag, "endless");
  expect(victim.status).toBe(200);
  const etag = victim.headers.get("etag");
  await (await readRecords(victim.body!, 1)).reader.cancel();
  const attack = await post(chatId, newTag(), "tools", { authorization: "Bearer attacker" });
  expect(attack.status).toBe(200);
  expect(attack.headers.get("etag")).not.toBe(etag);
  await attack.arrayBuffer();
  expect(await upstreamCancelled(tag, 200)).toBeNull(); // the victim's answer runs on
  // the chat's record still names the victim's answer (If-Match: 412 once another replaced it)
  const resumed = await SELF.fetch(streamUrl(chatId), { headers: { "if-match": etag! } });
  expect(resumed.status).toBe(200);
  expect(resumed.headers.get("etag")).toBe(etag);
  await resumed.body!.cancel();
  expect((await SELF.fetch(streamUrl(chatId), { method: "DELETE", headers: { authorization: "Bearer attacker" } })).status).toBe(204);
  expect(await upstreamCancelled(tag, 200)).toBeNull();
  expect((await SELF.fetch(streamUrl(chatId), { method: "DELETE" })).status).toBe(204);
  expect(await upstreamCancelled(tag, 1000)).not.toBeNull();
});

test("an anonymous chat with a short id (\"42\") is answered but not kept: no ETag, nothing to resume", async () => {
  const tag = newTag();
  const res = await post("42", tag);
  expect(res.status).toBe(200);
  expect(res.headers.get("etag")).toBeNull();
  await res.arrayBuffer();
  expect(await upstreamRequests(tag)).toBe(1);
  expect((await SELF.fetch(streamUrl("42"))).status).toBe(204);
});

test("RELAY_KEY set: resuming and cancelling need the key too (401), /v1/streams/<id> and /api/chat/<id>/stream", async () => {
  const keyed = { ...env, RELAY_KEY: "K" };
  const key = { "x-relay-key": "K" };
  // /v1/streams/<id>, through the library's handler over the same Durable Objects
  const relay = createRelay();
  const tag = newTag();
  const created = await relay.fetch(
    new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers: { "content-type": "application/json", ...key }, body: JSON.stringify({ model: "endless", messages: [], tag }) }),
    keyed,
  );
  expect(created.status).toBe(200);
  const id = streamIdOf(created);
  await (await readRecords(created.body!, 1)).reader.cancel();
  const at = `${ORIGIN}/v1/streams/${id}`;
  expect((await relay.fetch(new Request(at), keyed)).status).toBe(401);
  expect((await relay.fetch(new Request(at, { method: "DELETE" }), keyed)).status).toBe(401);
  expect(await upstreamCancelled(tag, 200)).toBeNull();
  const read = await relay.fetch(new Request(at, { headers: key }), keyed);
  expect(read.status).toBe(200);
  await read.body!.cancel();
  expect((await relay.fetch(new Request(at, { method: "DELETE", headers: key }), keyed)).status).toBe(204);

  // /api/chat/<id>/stream, through the repository's Worker
  const tag2 = newTag();
  const chatId = `keyed-${tag2}`;
  const chat = await worker.fetch(
    new Request(`${ORIGIN}/api/chat`, { method: "POST", headers: { "content-type": "application/json", ...key }, body: chatBody(chatId, tag2, "endless") }),
    keyed,
  );
  expect(chat.status).toBe(200);
  await (await readRecords(chat.body!, 1)).reader.cancel();
  expect((await worker.fetch(new Request(streamUrl(chatId)), keyed)).status).toBe(401);
  expect((await worker.fetch(new Request(streamUrl(chatId), { method: "DELETE" }), keyed)).status).toBe(401);
  expect(await upstreamCancelled(tag2, 200)).toBeNull();
  expect((await worker.fetch(new Request(streamUrl(chatId), { method: "DELETE", headers: key }), keyed)).status).toBe(204);
  expect(await upstreamCancelled(tag2, 1000)).not.toBeNull();
});
