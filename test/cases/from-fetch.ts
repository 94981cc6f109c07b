// fromFetch: the fetch, the reading, and the reconnect after a cut. A fake fetch plays the relay
// Worker: the first answer (POST) names `Content-Location`, a GET there with `Last-Event-ID: n`
// answers events n+1… (SSE with `id: <n>`, or NDJSON lines) and `[DONE]`; any answer can be cut at
// a byte offset, by a network error or by a clean end. Every cut must read back as the uninterrupted
// stream: the same events, once each, and the same message.
import { ConnectionError, fromFetch, fromResponse, MmspError, StreamLimitError, StreamProtocolError, UniEventStream, UpstreamError, type FromFetchOptions } from "../../dist/index.js";
import { assert, assertEqual, assertError, assertSame, rejects, settle, utf8, type Case } from "../harness.ts";
import { delta, MINIMAX_TOOL, SEED_EXAMPLE, text, textDone, type Json } from "../fixtures.ts";

type Format = "sse" | "ndjson";
/** How a connection is cut: a network error, or a body that just ends. */
type CutKind = "error" | "end";
interface Cut {
  at: number;
  kind: CutKind;
}

const LOCATION = "/v1/streams/0123456789abcdef0123456789abcdef";
const URL_BASE = "https://relay.test";

/** The body of the answer that starts after event `after` (-1: the whole stream). */
function wire(events: Json[], format: Format, after = -1, ids = true): string {
  let out = "";
  for (let i = after + 1; i < events.length; i++) {
    const json = JSON.stringify(events[i]);
    out += format === "sse" ? `${ids ? `id: ${i}\n` : ""}data: ${json}\n\n` : `${json}\n`;
  }
  return format === "sse" ? out + "data: [DONE]\n\n" : out;
}

/** A body of `bytes`, delivered in two chunks, cut at `cut.at` (error or end) when given. */
function body(bytes: Uint8Array, cut?: Cut): ReadableStream<Uint8Array> {
  const end = cut ? Math.min(cut.at, bytes.length) : bytes.length;
  const half = end >> 1;
  const chunks = [bytes.subarray(0, half), bytes.subarray(half, end)].filter((c) => c.length > 0);
  return new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks.shift();
      if (next) return c.enqueue(next.slice());
      if (cut?.kind === "error") c.error(new TypeError("network error"));
      else c.close();
    },
  }, { highWaterMark: 0 });
}

interface Seen {
  url: string;
  method: string;
  headers: Headers;
}

/**
 * A fake relay behind `fetch`: `cuts[k]` cuts the k-th answer (undefined: whole). `resend` makes
 * resumes start from event 0 again (a server that ignores Last-Event-ID). `refuse` answers a resume
 * with that status instead.
 */
function fakeRelay(events: Json[], format: Format, opts: { cuts?: (Cut | undefined)[]; resend?: boolean; refuse?: number[]; location?: string | null; contentType?: string | null } = {}) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = String(input instanceof Request ? input.url : input);
    const method = init?.method ?? "GET";
    const headers = new Headers(init?.headers);
    const k = seen.length;
    seen.push({ url, method, headers });
    if (init?.signal?.aborted) throw init.signal.reason;
    const status = k > 0 ? opts.refuse?.[k - 1] : undefined;
    if (status !== undefined)
      return new Response(JSON.stringify({ error: { type: status === 404 ? "NotFoundError" : "Overloaded", message: `status ${status}` } }), { status });
    const last = headers.get("last-event-id");
    const after = k === 0 || opts.resend || last === null ? -1 : Number(last);
    const type = opts.contentType !== undefined ? opts.contentType : format === "sse" ? "text/event-stream" : "application/x-ndjson";
    const h = new Headers();
    if (type !== null) h.set("content-type", type);
    const location = opts.location !== undefined ? opts.location : LOCATION;
    if (location !== null) h.set("content-location", location);
    return new Response(body(utf8(wire(events, format, after)), opts.cuts?.[k]), { headers: h });
  };
  return { fetch, seen };
}

/** What an uninterrupted read gives. */
async function uninterrupted(events: Json[], format: Format) {
  const type = format === "sse" ? "text/event-stream" : "application/x-ndjson";
  const { readable, message } = fromResponse(new Response(wire(events, format), { headers: { "content-type": type } }));
  const r = await settle(readable, message);
  if (r.error) throw r.error;
  return r;
}

/** Reads through fromFetch with the fake relay; the events, the message, how it ended, the requests. */
async function readThrough(events: Json[], format: Format, relay: ReturnType<typeof fakeRelay>, options: FromFetchOptions = {}) {
  const { readable, message } = fromFetch(`${URL_BASE}/v1/stream`, { method: "POST", body: "{}", headers: { "content-type": "application/json", authorization: "Bearer k" } }, {
    fetch: relay.fetch,
    reconnect: { delayMs: 0 },
    ...options,
  });
  return settle(readable, message);
}

/** Byte offsets worth cutting at: every event boundary, inside each event's first line, its middle and its end. */
function cutPoints(text: string, format: Format): number[] {
  const bytes = utf8(text);
  const sep = format === "sse" ? "\n\n" : "\n";
  const points = new Set<number>([1]);
  let at = 0;
  for (const record of text.split(sep).slice(0, -1)) {
    const start = utf8(text.slice(0, at)).length;
    const len = utf8(record + sep).length;
    for (const p of [start, start + 2, start + (len >> 1), start + len - 1]) if (p > 0 && p < bytes.length) points.add(p);
    at += record.length + sep.length;
  }
  return [...points].sort((a, b) => a - b);
}

async function everyCut(events: Json[], format: Format, kind: CutKind): Promise<void> {
  const want = await uninterrupted(events, format);
  const text = wire(events, format);
  const points = cutPoints(text, format);
  assert(points.length >= events.length * 3, `${points.length} cut points`);
  for (const at of points) {
    const relay = fakeRelay(events, format, { cuts: [{ at, kind }] });
    const got = await readThrough(events, format, relay);
    const where = `${format}, ${kind} at byte ${at}`;
    if (got.error) throw new Error(`${where}: ${String(got.error)}`);
    assertEqual(got.events, want.events, `${where}: events`);
    assertEqual(got.message, want.message, `${where}: message`);
    // a cut right before [DONE] (SSE) or at the very end (NDJSON, after the stop line) may need no resume
    assert(relay.seen.length <= 2, `${where}: ${relay.seen.length} requests`);
    if (relay.seen.length === 2) {
      const resume = relay.seen[1]!;
      const complete = utf8(text).subarray(0, at);
      const before = new TextDecoder().decode(complete).split(format === "sse" ? "\n\n" : "\n").length - 2;
      assertEqual(resume.method, "GET", `${where}: method`);
      assertEqual(resume.url, `${URL_BASE}${LOCATION}`, `${where}: url`);
      const last = resume.headers.get("last-event-id");
      assertEqual(last === null ? -1 : Number(last), Math.min(before, events.length - 1), `${where}: Last-Event-ID`);
    }
  }
}

/**
 * A kept stream that stays open (the relay while the model writes): `push` sends an event, `end` the
 * cancel error and [DONE]; a DELETE on its Content-Location answers `deleteStatus` and, when 204,
 * ends it with StreamCancelled, as the relay does for every viewer (SPEC §8).
 */
function liveRelay(opts: { location?: string | null; deleteStatus?: number; endOnDelete?: boolean } = {}) {
  const seen: Seen[] = [];
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let firstSignal: AbortSignal | undefined;
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const push = (event: Json, i: number) => controller.enqueue(utf8(`id: ${i}\ndata: ${JSON.stringify(event)}\n\n`));
  const end = () => {
    controller.enqueue(utf8(`data: {"error":{"type":"StreamCancelled","message":"stopped"}}\n\ndata: [DONE]\n\n`));
    controller.close();
  };
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = String(input instanceof Request ? input.url : input);
    seen.push({ url, method: init?.method ?? "GET", headers: new Headers(init?.headers) });
    if (seen.length === 1) {
      firstSignal = init?.signal ?? undefined;
      const h = new Headers({ "content-type": "text/event-stream" });
      const location = opts.location !== undefined ? opts.location : LOCATION;
      if (location !== null) h.set("content-location", location);
      return new Response(stream, { headers: h });
    }
    if (init?.method === "DELETE") {
      const status = opts.deleteStatus ?? 204;
      if (status === 204 && opts.endOnDelete !== false) setTimeout(end, 0);
      return status === 204 ? new Response(null, { status }) : new Response(JSON.stringify({ error: { type: "PermissionDenied", message: "not yours" } }), { status });
    }
    return new Response("no", { status: 500 });
  };
  return { fetch, seen, push, signal: () => firstSignal };
}

const POST = { method: "POST", body: "{}", headers: { "content-type": "application/json", authorization: "Bearer k" } };

export const cases: Case[] = [
  ["stop(): DELETE on the stream's Content-Location with the request's credentials; the read ends with the server's StreamCancelled; snapshot keeps what arrived", async () => {
    const relay = liveRelay();
    const r = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: relay.fetch });
    relay.push(delta(text("Hel")), 0);
    const reader = r.readable.getReader();
    assertEqual((await reader.read()).value?.content_items[0]?.type, "text.delta");
    await r.stop();
    const del = relay.seen.find((x) => x.method === "DELETE");
    assert(del !== undefined, "a DELETE was sent");
    assertEqual(del!.url, `${URL_BASE}${LOCATION}`);
    assertEqual(del!.headers.get("authorization"), "Bearer k");
    assertEqual(del!.headers.get("content-type"), null, "no body header on the DELETE");
    const e = await reader.read().then(() => undefined, (x) => x);
    assertError(e, UpstreamError, { errorType: "StreamCancelled" });
    assertSame(await r.message.then(() => undefined, (x) => x), e, "message rejects with the same error");
    assertEqual(r.snapshot().content_items.length, 1, "the fragment that arrived stays in the snapshot");
    assertEqual(e.message, "stopped", "the server's own end of the stream was read, as every viewer reads it");
  }],
  ["stop() ends the read here when the server does not end it in time, with a StreamCancelled error", async () => {
    const relay = liveRelay({ endOnDelete: false });
    const r = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: relay.fetch });
    relay.push(delta(text("Hel")), 0);
    await r.stop();
    const got = await settle(r.readable, r.message);
    assertError(got.error, UpstreamError, { errorType: "StreamCancelled" });
  }],
  ["stop() refused by the server (403): the read here ends, stop() rejects with the refusal", async () => {
    const relay = liveRelay({ deleteStatus: 403 });
    const r = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: relay.fetch });
    const e = await r.stop().then(() => undefined, (x) => x);
    assertError(e, UpstreamError, { status: 403, errorType: "PermissionDenied" });
    assertError(await r.message.then(() => undefined, (x) => x), UpstreamError, { errorType: "StreamCancelled" });
  }],
  ["stop() without a kept stream (no Content-Location) aborts the request: a server stops when its caller goes away", async () => {
    const relay = liveRelay({ location: null });
    const r = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: relay.fetch });
    await r.stop();
    assertEqual(relay.seen.length, 1, "no DELETE: there is nowhere to send it");
    assertEqual(relay.signal()?.aborted, true, "the request was aborted");
    assertError(await r.message.then(() => undefined, (x) => x), UpstreamError, { errorType: "StreamCancelled" });
  }],
  ["leaving (the signal) is not stopping: no DELETE is sent, the kept stream goes on", async () => {
    const relay = liveRelay();
    const abort = new AbortController();
    const r = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: relay.fetch, signal: abort.signal });
    relay.push(delta(text("Hel")), 0);
    abort.abort(new Error("page closed"));
    const got = await settle(r.readable, r.message);
    assertEqual(got.error?.message, "page closed");
    assertEqual(relay.seen.some((x) => x.method === "DELETE"), false);
  }],
  ["a Content-Location on another origin is never asked: the cut is a clear error, the credentials stay home", async () => {
    for (const location of ["https://evil.test/v1/streams/x", "//evil.test/steal"]) {
      const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }], location });
      const got = await readThrough(SEED_EXAMPLE, "sse", relay);
      assertEqual(relay.seen.length, 1, `${location}: nothing sent to the other origin`);
      assertError(got.error, MmspError);
      assert(/another origin[\s\S]*credentials never go elsewhere/.test(got.error.message), got.error.message);
      assert(got.error.message.includes("evil.test"), got.error.message);
      // stop() does not send the DELETE there either
    }
    const relay = liveRelay({ location: "https://evil.test/v1/streams/x" });
    const r = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: relay.fetch });
    await r.stop();
    assertEqual(relay.seen.length, 1, "stop(): no DELETE to another origin");
  }],
  ["after a cross-origin redirect the answer's relative Content-Location is that other origin: not resumed there", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }] });
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await relay.fetch(input, init);
      Object.defineProperty(res, "url", { value: "https://cdn.other.test/v1/stream" }); // fetch followed a redirect there
      return res;
    };
    const { readable, message } = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch, reconnect: { delayMs: 0 } });
    const got = await settle(readable, message);
    assertEqual(relay.seen.length, 1, "no request to the other origin");
    assert(/not trusted[\s\S]*another origin|not from the origin asked/.test(got.error?.message ?? ""), String(got.error));
  }],
  ["POST to A, redirected to E: E's Content-Location on A is not trusted (no GET with Authorization there, no DELETE), location is null", async () => {
    for (const named of [`${URL_BASE}/admin/users/1`, "/admin/users/1"]) {
      const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }], location: named });
      const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await relay.fetch(input, init);
        Object.defineProperty(res, "url", { value: "https://evil.test/v1/stream" }); // A → 307 → A → 307 → E
        return res;
      };
      const answer = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch, reconnect: { delayMs: 0 } });
      const got = await settle(answer.readable, answer.message);
      assertEqual(relay.seen.map((s) => `${s.method} ${s.url}`), [`POST ${URL_BASE}/v1/stream`], `${named}: no request after the answer`);
      assert(/not trusted[\s\S]*came from https:\/\/evil\.test/.test(got.error?.message ?? ""), String(got.error));
      assertEqual(await answer.location, null, "no location");
      await answer.stop();
      assertEqual(relay.seen.length, 1, `${named}: stop() sends no DELETE`);
    }
  }],
  ["location: where the stream is kept, absolute; a reload resumes with a GET there (the whole stream from its first event)", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse");
    const first = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: relay.fetch });
    const saved = await first.location;
    assertEqual(saved, `${URL_BASE}${LOCATION}`);
    await first.message;
    // after a reload: the saved location, the same credentials, no body
    const again = fromFetch(saved!, { headers: { authorization: "Bearer k" } }, { fetch: relay.fetch });
    const got = await settle(again.readable, again.message);
    assertEqual(got.error, undefined);
    assertEqual(got.events.length, SEED_EXAMPLE.length, "every event again");
    assertEqual(relay.seen[1]?.method, "GET");
    assertEqual(relay.seen[1]?.headers.get("authorization"), "Bearer k");
    assertEqual(await again.location, saved, "its own location is the same stream");
    const none = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch: fakeRelay(SEED_EXAMPLE, "sse", { location: null }).fetch });
    assertEqual(await none.location, null, "a stream kept nowhere");
  }],
  ["a resume is not redirected: it asks with redirect: manual, and a redirect answer is refused, not followed", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }] });
    const inits: (RequestInit | undefined)[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      inits.push(init);
      if (inits.length > 1) return new Response(null, { status: 302, headers: { location: "https://evil.test/" } });
      return relay.fetch(input, init);
    };
    const { readable, message } = fromFetch(`${URL_BASE}/v1/stream`, POST, { fetch, reconnect: { delayMs: 0 } });
    const got = await settle(readable, message);
    assertEqual(inits[1]?.redirect, "manual");
    assertError(got.error, UpstreamError, { status: 302 });
    assertEqual(inits.length, 2, "not retried");
  }],
  ["an HTML 502 from a proxy: an UpstreamError (status kept) that says what the body was, not its raw markup", async () => {
    const page = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>\n";
    const fetch = async () => new Response(page, { status: 502, headers: { "content-type": "text/html" } });
    const got = await settle(...(Object.values(fromFetch("https://relay.test/v1/stream", POST, { fetch })).slice(0, 2) as [ReadableStream, Promise<unknown>]));
    assertError(got.error, UpstreamError, { status: 502, errorType: "HTTPError" });
    assert(/^HTTP 502: an HTML page titled "502 Bad Gateway"[\s\S]*proxy/.test(got.error.message), got.error.message);
  }],
  ["a connection that fails before any answer is a ConnectionError naming the host and the likely cause", async () => {
    const refused = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    const fetch = async () => {
      throw refused;
    };
    const got = await settle(...(Object.values(fromFetch("http://user:pw@127.0.0.1:25752/v1/stream", POST, { fetch })).slice(0, 2) as [ReadableStream, Promise<unknown>]));
    assertError(got.error, ConnectionError, { host: "127.0.0.1:25752", code: "ECONNREFUSED" });
    assert(/nothing listens on 127\.0\.0\.1:25752/.test(got.error.message), got.error.message);
    assert(!got.error.message.includes("pw"), "no credentials in the message");
    assertEqual(got.error.cause, refused, "the platform's error is its cause");
    // no code (a browser's "Failed to fetch"): still named, with the likely causes
    const browser = async () => {
      throw new TypeError("Failed to fetch");
    };
    const r = fromFetch("https://api.test/v1/stream", POST, { fetch: browser });
    const e = await r.message.then(() => undefined, (x) => x);
    assertError(e, ConnectionError, { host: "api.test", code: null });
    assert(/CORS/.test(e.message), e.message);
    // an abort is not a connection failure
    const aborted = async () => {
      throw new DOMException("aborted", "AbortError");
    };
    const a = await fromFetch("https://api.test/", {}, { fetch: aborted }).message.then(() => undefined, (x) => x);
    assertEqual(a instanceof ConnectionError, false);
  }],
  ["SSE cut by a network error at every event boundary and inside events → reconnects; the same events and message", () => everyCut(SEED_EXAMPLE, "sse", "error")],
  ["SSE cut by a clean end at every event boundary and inside events → reconnects; the same events and message", () => everyCut(SEED_EXAMPLE, "sse", "end")],
  ["NDJSON cut by a network error at every line boundary and inside lines → resumed by line count", () => everyCut(SEED_EXAMPLE, "ndjson", "error")],
  ["NDJSON cut by a clean end everywhere → resumed by line count", () => everyCut(SEED_EXAMPLE, "ndjson", "end")],
  ["cuts inside multi-byte characters (SSE and NDJSON)", async () => {
    for (const format of ["sse", "ndjson"] as const) {
      const want = await uninterrupted(MINIMAX_TOOL, format);
      const text = wire(MINIMAX_TOOL, format);
      const bytes = utf8(text);
      const inside = [text.indexOf("ï"), text.indexOf("☃")].map((i) => utf8(text.slice(0, i)).length + 1);
      for (const at of inside) {
        assert(bytes[at]! >= 0x80, "the cut falls inside a character");
        const got = await readThrough(MINIMAX_TOOL, format, fakeRelay(MINIMAX_TOOL, format, { cuts: [{ at, kind: "error" }] }));
        assertEqual(got.events, want.events, `${format} at ${at}`);
        assertEqual(got.message, want.message, `${format} at ${at}`);
      }
    }
  }],
  ["invalid UTF-8 in an SSE answer is refused (StreamProtocolError, rule UTF8), as fromResponse does", async () => {
    const bytes = utf8(wire(SEED_EXAMPLE, "sse"));
    const bad = bytes.slice();
    bad[bytes.indexOf(0x4c /* L of "Let me" */)] = 0xff;
    const fetch = async () => new Response(bad, { headers: { "content-type": "text/event-stream" } });
    const got = await readThrough(SEED_EXAMPLE, "sse", { fetch, seen: [] });
    assertEqual(got.error?.rule, "UTF8");
    assertEqual(got.error?.name, "StreamProtocolError");
    const { readable, message } = fromResponse(new Response(bad, { headers: { "content-type": "text/event-stream" } }));
    assertEqual((await settle(readable, message)).error?.rule, "UTF8", "fromResponse");
  }],
  ["an answer without Content-Location reads exactly as fromResponse reads it: the same events, message and error", async () => {
    const sseText = wire(SEED_EXAMPLE, "sse", -1, false);
    const bodies: [string, string, string | Uint8Array][] = [
      ["an HTML page", "text/html", "<html><head><title>Oops</title></head></html>"],
      ["an empty body", "text/event-stream", ""],
      ["only keep-alives", "text/event-stream", ": keep-alive\n\n"],
      ["invalid UTF-8", "text/event-stream", new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0x0a, 0x0a])],
      ["no blank line after the stop event", "text/event-stream", sseText.slice(0, sseText.indexOf("data: [DONE]") - 2)],
      ["a body cut inside the final [DONE]", "text/event-stream", sseText.slice(0, -5)],
      ["an OpenAI chunk", "text/event-stream", 'data: {"object":"chat.completion.chunk","choices":[]}\n\n'],
      ["NDJSON without a Content-Type", "", wire(SEED_EXAMPLE, "ndjson")],
    ];
    const outcome = async ({ readable, message }: { readable: ReadableStream<unknown>; message: Promise<unknown> }) => {
      const r = await settle(readable, message);
      const e = r.error;
      return { events: r.events.length, message: r.message, error: e && { name: e.name, rule: e.rule, eventIndex: e.eventIndex, byteOffset: e.byteOffset, message: e.message } };
    };
    for (const [what, type, text] of bodies) {
      const answer = () => new Response((typeof text === "string" ? utf8(text) : text) as BodyInit, { headers: type ? { "content-type": type } : {} });
      const viaFetch = await outcome(fromFetch("https://mmsp.test/v1/stream", { method: "POST" }, { fetch: async () => answer(), client: "mmsp.test" }));
      const viaResponse = await outcome(fromResponse(answer(), { client: "mmsp.test" }));
      assertEqual(viaFetch, viaResponse, what);
    }
  }],
  ["fromFetch's own options put in fetch's init are refused, naming them and where they go", async () => {
    let error: any;
    try {
      fromFetch("https://x.test/", { method: "POST", reconnect: false, fetch: globalThis.fetch } as RequestInit);
    } catch (e) {
      error = e;
    }
    assertError(error, TypeError);
    assertEqual(error.message, "fromFetch: init.reconnect, init.fetch are options of fromFetch, not of fetch: pass them as the third argument, fromFetch(url, init, { reconnect, fetch })");
  }],
  ["a connection that stalls (no byte for idleTimeoutMs) is resumed like a cut; without Content-Location it is StreamLimitError", async () => {
    const want = await uninterrupted(SEED_EXAMPLE, "sse");
    const stalling = (location: string | null) => {
      const seen: Seen[] = [];
      const relay = fakeRelay(SEED_EXAMPLE, "sse", { location });
      const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await relay.fetch(input, init);
        seen.push(relay.seen.at(-1)!);
        if (seen.length > 1) return res;
        // the first answer: 300 bytes, then silence (a connection a proxy dropped without a word)
        const bytes = utf8(wire(SEED_EXAMPLE, "sse")).subarray(0, 300);
        let sent = false;
        const body = new ReadableStream<Uint8Array>({ pull: (c) => (sent ? new Promise<void>(() => {}) : ((sent = true), c.enqueue(bytes))) });
        return new Response(body, { headers: res.headers });
      };
      return { fetch, seen };
    };
    let relay = stalling(LOCATION);
    let got = await readThrough(SEED_EXAMPLE, "sse", relay, { idleTimeoutMs: 50 });
    assertEqual(got.error, undefined);
    assertEqual(got.message, want.message);
    assert(relay.seen.length >= 2, `${relay.seen.length} requests`);
    relay = stalling(null);
    got = await readThrough(SEED_EXAMPLE, "sse", relay, { idleTimeoutMs: 50 });
    assertError(got.error, StreamLimitError, { limit: "idleTimeoutMs" });
  }],
  ["every connection cut again: the stream still arrives whole (attempts counted again after progress)", async () => {
    const want = await uninterrupted(SEED_EXAMPLE, "sse");
    const cuts = Array.from({ length: 40 }, (_, k) => ({ at: 420 + (k % 3) * 60, kind: "error" as const })); // each connection brings at least one whole event
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts });
    const got = await readThrough(SEED_EXAMPLE, "sse", relay, { reconnect: { retries: 1, delayMs: 0 } });
    assertEqual(got.error, undefined);
    assertEqual(got.events, want.events);
    assertEqual(got.message, want.message);
    assert(relay.seen.length >= 4, `${relay.seen.length} requests`);
  }],
  ["a server that resends from the start: events it already gave (by SSE id) are skipped", async () => {
    const want = await uninterrupted(SEED_EXAMPLE, "sse");
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 400, kind: "error" }], resend: true });
    const got = await readThrough(SEED_EXAMPLE, "sse", relay);
    assertEqual(got.events, want.events);
    assertEqual(got.message, want.message);
    assertEqual(relay.seen.length, 2);
  }],
  ["an error after a reconnect: eventIndex is the stream's (the uninterrupted read's), byteOffset a position in the resumed body", async () => {
    const events = [delta(text("Hello ")), delta(text("wor")), delta(text("ld")), delta(textDone("nope"))];
    const type = { headers: { "content-type": "text/event-stream" } };
    const whole = await fromResponse(new Response(wire(events, "sse"), type)).message.then(() => undefined, (x) => x);
    const first = utf8(wire(events, "sse").split("\n\n")[0] + "\n\n").length; // event 0 arrives, then the cut
    const relay = fakeRelay(events, "sse", { cuts: [{ at: first + 5, kind: "error" }] });
    const got = await readThrough(events, "sse", relay);
    assertEqual(relay.seen[1]?.headers.get("last-event-id"), "0");
    assertError(whole, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: 3 });
    assertError(got.error, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: 3 });
    assertEqual(got.error.byteOffset, whole.byteOffset - first, "the offset in the body that brought the event");
  }],
  ["only awaiting message (no reading) works across a cut", async () => {
    const want = await uninterrupted(SEED_EXAMPLE, "sse");
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }] });
    const { message } = fromFetch(`${URL_BASE}/v1/stream`, { method: "POST" }, { fetch: relay.fetch, reconnect: { delayMs: 0 } });
    assertEqual(await message, want.message);
    assertEqual(relay.seen.length, 2);
  }],
  ["the resume request: GET Content-Location (resolved against the request URL) with the first request's headers, Last-Event-ID, no Content-Type", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }] });
    await readThrough(SEED_EXAMPLE, "sse", relay);
    const [first, resume] = relay.seen;
    assertEqual(first!.method, "POST");
    assertEqual(resume!.url, `${URL_BASE}${LOCATION}`);
    assertEqual(resume!.headers.get("authorization"), "Bearer k");
    assertEqual(resume!.headers.get("content-type"), null);
    assertEqual(resume!.headers.get("accept"), "text/event-stream");
    assert(/^[0-9]+$/.test(resume!.headers.get("last-event-id") ?? ""), "Last-Event-ID is an index");
  }],
  ["no Content-Location: a network error is the readable's error (no reconnect); a clean early end is STOP-LAST", async () => {
    const boundary = utf8(wire(SEED_EXAMPLE, "sse").split("\n\n").slice(0, 3).join("\n\n") + "\n\n").length;
    let relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }], location: null });
    let got = await readThrough(SEED_EXAMPLE, "sse", relay);
    assertError(got.error, ConnectionError, { host: "relay.test", bytesRead: 300 });
    assertError(got.error.cause, TypeError, { message: "network error" });
    assertSame(got.messageError, got.error, "message rejects with the readable's error");
    assertEqual(relay.seen.length, 1);
    relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: boundary, kind: "end" }], location: null });
    got = await readThrough(SEED_EXAMPLE, "sse", relay);
    assertEqual(got.error?.rule, "STOP-LAST");
    assertEqual(relay.seen.length, 1);
  }],
  ["a connection cut mid-body (the platform's TypeError) is a ConnectionError after every event before it — fromResponse, fromFetch; a caller's own pipeThrough keeps the body's error", async () => {
    const bytes = utf8(wire(SEED_EXAMPLE, "sse", -1, false));
    const at = bytes.indexOf(0x0a, 300) + 1; // after some events, inside the next
    const cut = () => body(bytes, { at, kind: "error" });
    const sse = { headers: { "content-type": "text/event-stream" } };
    const whole = await settle(...(Object.values(fromResponse(new Response(bytes as BodyInit, sse))).slice(0, 2) as [ReadableStream, Promise<unknown>]));
    const check = (got: Awaited<ReturnType<typeof settle>>, who: string) => {
      assertError(got.error, ConnectionError, { host: "relay.test", code: null, bytesRead: at, eventsRead: got.events.length });
      assert(got.events.length > 0 && got.events.length < whole.events.length, `${who}: ${got.events.length} events before the cut`);
      assertEqual(got.events, whole.events.slice(0, got.events.length), `${who}: every valid event before it`);
      assertError(got.error.cause, TypeError, { message: "network error" });
      assertSame(got.messageError, got.error, `${who}: message rejects with the same error`);
      assert(/relay\.test broke after \d+ bytes and \d+ events?/.test(got.error.message), got.error.message);
    };
    const response = new Response(cut(), sse);
    Object.defineProperty(response, "url", { value: "https://relay.test/v1/stream" });
    check(await settle(...(Object.values(fromResponse(response)).slice(0, 2) as [ReadableStream, Promise<unknown>])), "fromResponse");
    const fetch = async () => new Response(cut(), sse);
    check(await settle(...(Object.values(fromFetch("https://relay.test/v1/stream", POST, { fetch })).slice(0, 2) as [ReadableStream, Promise<unknown>])), "fromFetch");
    // the stages piped by a caller pass the source's own error (WHATWG), unchanged
    const stage = new UniEventStream();
    const piped = await settle(cut().pipeThrough(stage), stage.message);
    assertError(piped.error, TypeError, { message: "network error" });
  }],
  ["reconnect: false → the cut is the error, as with fromResponse", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }] });
    const got = await readThrough(SEED_EXAMPLE, "sse", relay, { reconnect: false });
    assertError(got.error, ConnectionError, { host: "relay.test" });
    assertError(got.error.cause, TypeError);
    assertEqual(relay.seen.length, 1);
    assert(got.events.length > 0 && got.events.length < SEED_EXAMPLE.length, `${got.events.length} events before the cut`);
  }],
  ["retries exhausted (the relay keeps failing) → the last error, after 1 + retries requests", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }], refuse: [503, 503, 503] });
    const got = await readThrough(SEED_EXAMPLE, "sse", relay, { reconnect: { retries: 2, delayMs: 0 } });
    assertError(got.error, UpstreamError, { status: 503 });
    assertEqual(relay.seen.length, 3);
  }],
  ["a 503 answer to a resume is retried; the next attempt succeeds", async () => {
    const want = await uninterrupted(SEED_EXAMPLE, "sse");
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }], refuse: [503] });
    const got = await readThrough(SEED_EXAMPLE, "sse", relay);
    assertEqual(got.message, want.message);
    assertEqual(relay.seen.length, 3);
  }],
  ["a resume answered 404 (expired) → UpstreamError NotFoundError, no further attempt", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }], refuse: [404] });
    const got = await readThrough(SEED_EXAMPLE, "sse", relay);
    assertError(got.error, UpstreamError, { status: 404, errorType: "NotFoundError" });
    assertEqual(relay.seen.length, 2);
  }],
  ["a refused first request → UpstreamError with its status and type, like fromResponse", async () => {
    const fetch = async () => new Response(JSON.stringify({ error: { type: "AuthenticationError", message: "bad key" } }), { status: 401 });
    const { readable, message } = fromFetch("https://x.test/", {}, { fetch });
    const got = await settle(readable, message);
    assertError(got.error, UpstreamError, { status: 401, errorType: "AuthenticationError" });
    assertSame(got.messageError, got.error, "message rejects with the readable's error");
  }],
  ["the signal stops a reconnect that is waiting: the readable errors with its reason, nothing more is fetched", async () => {
    const relay = fakeRelay(SEED_EXAMPLE, "sse", { cuts: [{ at: 300, kind: "error" }] });
    const abort = new AbortController();
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await relay.fetch(input, init);
      setTimeout(() => abort.abort(new Error("user left")), 0);
      return res;
    };
    const { readable, message } = fromFetch(`${URL_BASE}/v1/stream`, { method: "POST" }, { fetch, signal: abort.signal, reconnect: { delayMs: 30_000 } });
    const got = await settle(readable, message);
    assertEqual(got.error?.message, "user left");
    assertEqual(relay.seen.length, 1);
  }],
  ["no Content-Type: the first line tells the format (NDJSON); limits apply per event", async () => {
    const want = await uninterrupted(SEED_EXAMPLE, "ndjson");
    const relay = fakeRelay(SEED_EXAMPLE, "ndjson", { cuts: [{ at: 200, kind: "error" }], contentType: null });
    const got = await readThrough(SEED_EXAMPLE, "ndjson", relay);
    assertEqual(got.message, want.message);
    const small = await readThrough(SEED_EXAMPLE, "ndjson", fakeRelay(SEED_EXAMPLE, "ndjson"), { maxEventBytes: 50 });
    assertError(small.error, StreamLimitError, { limit: "maxEventBytes" });
  }],
  ["options are checked at the boundary: TypeError / RangeError naming the option and the value", async () => {
    const bad: [FromFetchOptions, typeof TypeError, RegExp][] = [
      [{ reconnect: { retries: -1 } }, RangeError, /options\.reconnect\.retries .*-1/],
      [{ reconnect: { retries: 1.5 } }, RangeError, /options\.reconnect\.retries .*1\.5/],
      [{ reconnect: { delayMs: Number.NaN } }, RangeError, /options\.reconnect\.delayMs/],
      [{ reconnect: true as never }, TypeError, /options\.reconnect must be false or/],
      [{ fetch: "no" as never }, TypeError, /options\.fetch must be a function.*"no"/],
      [{ format: "xml" as never }, RangeError, /options\.format must be one of "sse", "ndjson", "auto"; received "xml"/],
      [{ format: 3 as never }, TypeError, /options\.format must be one of/],
      [{ signal: {} as never }, TypeError, /options\.signal must be an AbortSignal/],
      [{ maxEventBytes: 0 }, RangeError, /options\.maxEventBytes must be a positive integer.*0/],
      [{ idleTimeoutMs: -5 }, RangeError, /options\.idleTimeoutMs .*-5/],
    ];
    for (const [options, cls, message] of bad) {
      const e = await rejects(() => fromFetch("https://x.test/", {}, options));
      assertError(e, cls, { message });
    }
    assertError(await rejects(() => fromFetch("https://x.test/", null as never)), TypeError, { message: /init must be an object/ });
  }],
];
