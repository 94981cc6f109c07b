// Helpers of the relay-pool tests: requests to the relay Worker through SELF, a client that drops
// after k bytes, SSE records by id, and reading a body back through the package.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { fromResponse, toWireEvent, type UniEvent, type UniMessage } from "../../src/index.ts";

export const ORIGIN = "https://relay.test";
/**
 * What a request from Cloudflare's edge carries and a Request a test makes does not: `request.cf`
 * (the relay then reads CF-Connecting-IP, which the edge sets; without it the relay is in library
 * mode, where an anonymous client's address must be given: src/relay/admission/address.ts).
 */
export const EDGE = { cf: { colo: "TST" } } as RequestInit;

/** A fresh tag: the scripted upstream counts the requests that carry it (test/relay-pool/upstream.ts). */
export const newTag = (): string => crypto.randomUUID();

/** POST /v1/stream for the scripted upstream's tool-call stream (or `model`'s script), tagged; `extra` joins the body. */
export function createStream(tag: string, headers: Record<string, string> = {}, model = "tools", extra: object = {}): Promise<Response> {
  return SELF.fetch(`${ORIGIN}/v1/stream`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model, messages: [], tag, ...extra }),
  });
}

/** DELETE /v1/streams/<id>: cancels the stream. */
export function cancelStream(id: string, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`${ORIGIN}/v1/streams/${id}`, { method: "DELETE", headers });
}

/** The stream's id from an answer's Content-Location (failing the test when it is missing). */
export function streamIdOf(response: Response): string {
  const location = response.headers.get("content-location") ?? "";
  const m = /^\/v1\/streams\/([0-9a-f]{32})$/.exec(location);
  expect(m, `Content-Location ${JSON.stringify(location)}`).not.toBeNull();
  return m![1]!;
}

/** GET /v1/streams/<id>, after event `after` (none: from the start), by header or by query. */
export function resumeStream(
  id: string,
  after: number | null,
  { by = "header", headers = {} }: { by?: "header" | "query"; headers?: Record<string, string> } = {},
): Promise<Response> {
  const query = after !== null && by === "query" ? `?last_event_id=${after}` : "";
  const h: Record<string, string> = { ...headers };
  if (after !== null && by === "header") h["last-event-id"] = String(after);
  return SELF.fetch(`${ORIGIN}/v1/streams/${id}${query}`, { headers: h });
}

/** A body as UTF-8 text (Response.text() warns about NDJSON's Content-Type in workerd). */
export async function textOf(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer());
}

/** What the scripted upstream saw of this tag: its requests, and when the relay cancelled the last answer (ms, or null). */
export async function upstreamState(tag: string): Promise<{ count: number; cancelledAt: number | null }> {
  const res = await fetch(`http://upstream.test/__requests?tag=${encodeURIComponent(tag)}`);
  return (await res.json()) as { count: number; cancelledAt: number | null };
}

/** How many requests with this tag the scripted upstream got. */
export async function upstreamRequests(tag: string): Promise<number> {
  return (await upstreamState(tag)).count;
}

/** Waits up to `ms` for the upstream to see this tag's answer cancelled; resolves when it did (ms since the epoch), or null. */
export async function upstreamCancelled(tag: string, ms: number): Promise<number | null> {
  const until = Date.now() + ms;
  for (;;) {
    const { cancelledAt } = await upstreamState(tag);
    if (cancelledAt !== null || Date.now() > until) return cancelledAt;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Reads `body` until it holds `n` complete SSE records; returns them and the reader (still open). */
export async function readRecords(body: ReadableStream<Uint8Array>, n: number): Promise<{ text: string; reader: ReadableStreamDefaultReader<Uint8Array> }> {
  const reader = body.getReader();
  const utf8 = new TextDecoder();
  let text = "";
  while (records(completeRecords(new TextEncoder().encode(text))).length < n) {
    const { done, value } = await reader.read();
    if (done) break;
    text += utf8.decode(value, { stream: true });
  }
  return { text, reader };
}

/** The rest of a reader's body as text. */
export async function rest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const utf8 = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + utf8.decode();
    text += utf8.decode(value, { stream: true });
  }
}

/**
 * A client whose connection drops after `k` bytes: reads the body until it has k bytes (or the
 * end), cancels it, and keeps the first k bytes only (what arrived after them is lost).
 */
export async function readThenDrop(body: ReadableStream<Uint8Array>, k: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const got = new Uint8Array(k);
  let have = 0;
  while (have < k) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = value.subarray(0, k - have);
    got.set(take, have);
    have += take.length;
  }
  await reader.cancel("the client's connection dropped");
  return got.subarray(0, have);
}

/** The complete SSE records in `bytes` (up to the last blank line; the rest, a cut record, is dropped). */
export function completeRecords(bytes: Uint8Array): string {
  let end = -1;
  for (let i = bytes.length - 1; i > 0; i--)
    if (bytes[i] === 0x0a && bytes[i - 1] === 0x0a) {
      end = i + 1;
      break;
    }
  return end < 0 ? "" : new TextDecoder().decode(bytes.subarray(0, end));
}

export interface SseRecord {
  id: number | null;
  data: string;
}

/** A relay answer's SSE records (`id: <n>` then one `data:` line; comments skipped). */
export function records(text: string): SseRecord[] {
  const out: SseRecord[] = [];
  for (const block of text.split("\n\n")) {
    if (block === "" || block.startsWith(":")) continue;
    let id: number | null = null;
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = Number(line.slice(4));
      else if (line.startsWith("data: ")) data = line.slice(6);
      else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
    }
    out.push({ id, data });
  }
  return out;
}

/** The last event id in records (what a client sends as Last-Event-ID), or null when there is none. */
export function lastId(recs: SseRecord[]): number | null {
  const ids = recs.map((r) => r.id).filter((id): id is number => id !== null);
  return ids.length === 0 ? null : ids[ids.length - 1]!;
}

/** SSE text read back through the package: the events (as wire JSON) and the message. */
export async function readBack(text: string): Promise<{ events: unknown[]; message: UniMessage }> {
  const { readable, message } = fromResponse(new Response(text, { headers: { "content-type": "text/event-stream" } }));
  const events: UniEvent[] = [];
  for await (const event of readable) events.push(event);
  return { events: events.map((e) => toWireEvent(e)), message: await message };
}

/** The last request with this tag as the scripted upstream received it (its body and Authorization), or null. */
export async function upstreamLast(tag: string): Promise<{ body: string; authorization: string | null } | null> {
  const res = await fetch(`http://upstream.test/__last?tag=${encodeURIComponent(tag)}`);
  return (await res.json()) as { body: string; authorization: string | null } | null;
}
