// mmsp-streams/testing: captures (the file format round trips any body), replay with faults (every
// chunking delivers exactly the bytes; cuts, stalls, refusals and error events give the reader's
// errors), record, and the fake servers (resume by Last-Event-ID through fromFetch, refusals in each
// server's own shape, the request log, an abort seen).
import fc from "fast-check";
import { ConnectionError, fromFetch, fromResponse, StreamLimitError, UpstreamError } from "../../dist/index.js";
import { type Capture, fakeMmspServer, fakeProvider, formatCapture, parseCapture, record, replay } from "../../dist/testing/index.js";
import { assert, assertEqual, assertError, rejects, settle, utf8, type Case } from "../harness.ts";
import { delta, MINIMAX_TOOL, SEED_EXAMPLE, sse, text, type Json } from "../fixtures.ts";

const SSE = { "content-type": "text/event-stream" };
const capture = (events: Json[], extra = ": keep-alive\n\n"): Capture => ({
  status: 200,
  headers: [["content-type", "text/event-stream"]],
  body: utf8(extra + sse(events)),
});
const seedCapture = capture(SEED_EXAMPLE);

/** Every chunk of a body, in order. */
async function chunksOf(response: Response): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = response.body!.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
  return out;
}
const join = (chunks: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((at, c) => (out.set(c, at), at + c.length), 0);
  return out;
};
const read = (response: Response) => {
  const { readable, message } = fromResponse(response);
  return settle(readable, message);
};
const uninterrupted = () => read(new Response(seedCapture.body as Uint8Array<ArrayBuffer>, { headers: SSE }));
const post = (model: string, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify({ model, messages: [{ role: "user", content_items: [{ type: "text", text: "hi" }] }] }),
});

const header = fc.tuple(
  fc.stringMatching(/^[a-z0-9-]{1,12}$/),
  fc.string({ maxLength: 20 }).map((v) => v.replace(/[\r\n\0]/g, "").trim()),
);
const anyCapture: fc.Arbitrary<Capture> = fc.record({
  status: fc.integer({ min: 100, max: 599 }),
  headers: fc.array(header, { maxLength: 4 }),
  format: fc.constantFrom("sse", "ndjson", undefined),
  provider: fc.constantFrom("anthropic", "gemini", undefined),
  timing: fc.option(fc.array(fc.nat({ max: 100_000 }), { maxLength: 6 }), { nil: undefined }),
  body: fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.string({ unit: "binary", maxLength: 100 }).map(utf8),
    fc.constantFrom(utf8("\uFEFFdata: x\n\n"), utf8("data: a\r\n\r\n"), new Uint8Array([0xff, 0xfe, 0x0a]), new Uint8Array(0)),
  ),
}, { requiredKeys: ["status", "headers", "body"] }).map((c) => {
  // (an absent optional member is left out, as parseCapture leaves it out)
  for (const k of ["format", "provider", "timing"] as const) if (c[k] === undefined) delete c[k];
  return c as Capture;
});

export const cases: Case[] = [
  ["a capture file round-trips any capture: any bytes body (binary, invalid UTF-8, a BOM, CRLF), headers, timing", async () => {
    fc.assert(fc.property(anyCapture, (c) => assertEqual(parseCapture(formatCapture(c)), c)), { numRuns: 300 });
  }],
  ["a UTF-8 body stays text in the file (readable, diffable); another is base64", () => {
    const file = formatCapture(seedCapture);
    assert(file.startsWith("mmsp-capture 1\nstatus: 200\nheader: content-type: text/event-stream\nbody: text\n\n: keep-alive\n\ndata: {"), file.slice(0, 120));
    const binary = formatCapture({ status: 200, headers: [], body: new Uint8Array([0xc3, 0x28]) });
    assert(binary.endsWith("body: base64\n\nwyg=\n"), binary);
  }],
  ["parseCapture reads a bare .sse or .ndjson body as a 200 capture; a bad header line is a SyntaxError naming its line", async () => {
    const bare = parseCapture(sse(SEED_EXAMPLE));
    assertEqual([bare.status, bare.format, bare.headers], [200, "sse", [["content-type", "text/event-stream"]]]);
    assertEqual(parseCapture('{"a":1}\n').format, "ndjson");
    const e = await rejects(() => parseCapture("mmsp-capture 1\nstatus: 200\nbody: text\nstatsu: 1\n\n"));
    assertError(e, SyntaxError, { message: /line 4: unknown header line "statsu: 1"/ });
    assertError(await rejects(() => parseCapture("mmsp-capture 1\nstatus: 2000\nbody: text\n\n")), SyntaxError, { message: /line 2: status/ });
  }],
  ["replay: every chunking delivers exactly the bytes, in the chunks asked for; the same seed, the same chunks", async () => {
    const big = capture(Array.from({ length: 400 }, (_, i) => delta(text(`word ${i} ☃ `))));
    for (const chunking of ["events", "random", "bytes", 7, [1, 2, 50, 51]] as const) {
      const chunks = await chunksOf(replay(big, { chunking, seed: 9 }));
      assertEqual(join(chunks), big.body, `chunking ${JSON.stringify(chunking)}`);
      if (chunking === "bytes") assert(chunks.every((c) => c.length === 1), "one byte each");
      if (chunking === 7) assert(chunks.slice(0, -1).every((c) => c.length === 7), "7 bytes each");
      if (chunking === "random") assert(chunks.length > 1 && chunks.every((c) => c.length >= 1 && c.length <= 16384), `random sizes ${chunks.map((c) => c.length)}`);
      if (Array.isArray(chunking)) assertEqual(chunks.slice(0, 4).map((c) => c.length), [1, 1, 48, 1]);
      if (chunking === "events") assert(new TextDecoder().decode(chunks[1]).startsWith("data: "), "one record a chunk");
    }
    const sizes = async (seed: number) => (await chunksOf(replay(big, { chunking: "random", seed }))).map((c) => c.length);
    assertEqual(await sizes(3), await sizes(3), "the same seed");
    assert(JSON.stringify(await sizes(3)) !== JSON.stringify(await sizes(4)), "another seed, other chunks");
  }],
  ["replay: a cut after event N gives N events, then the connection's error; a cut after byte K inside an event keeps the events before it", async () => {
    for (const n of [0, 1, 3]) {
      const r = await read(replay(seedCapture, { cutAfterEvents: n, chunking: "random" }));
      assertEqual(r.events.length, n, `cut after ${n}`);
      // fromResponse owns the body: the platform's error of the cut is a ConnectionError's cause (issue #35)
      assertError(r.error, ConnectionError, { eventsRead: n });
      assertError(r.error.cause, TypeError, { message: /network error \(replay: the connection was cut/ });
      assert(r.messageError === r.error, "message rejects with the readable's error");
    }
    const firstTwo = utf8(": keep-alive\n\n" + sse(SEED_EXAMPLE.slice(0, 2), false)).length;
    const r = await read(replay(seedCapture, { cutAfterBytes: firstTwo + 10, chunking: "bytes" }));
    assertEqual(r.events.length, 2);
    assertError(r.error, ConnectionError, { bytesRead: firstTwo + 10, eventsRead: 2 });
  }],
  ["replay: errorAt N → N events, then MMSP's error event: an UpstreamError (OverloadedError, 529); in NDJSON a line", async () => {
    const r = await read(replay(seedCapture, { errorAt: 2 }));
    assertEqual(r.events.length, 2);
    assertError(r.error, UpstreamError, { errorType: "OverloadedError", status: 529, message: "replay: an error event at event 2" });
    const nd: Capture = { status: 200, headers: [["content-type", "application/x-ndjson"]], body: utf8(SEED_EXAMPLE.map((e) => JSON.stringify(e) + "\n").join("")) };
    const n = await read(replay(nd, { errorAt: 1 }));
    assertEqual(n.events.length, 1);
    assertError(n.error, UpstreamError, { errorType: "OverloadedError" });
  }],
  ["replay: refuse → a refusal in MMSP's shape (UpstreamError with the status), or in the capture's provider's", async () => {
    const r = await read(replay(seedCapture, { refuse: { status: 401, message: "no key" } }));
    assertEqual(r.events.length, 0);
    assertError(r.error, UpstreamError, { status: 401, errorType: "AuthenticationError", message: "no key" });
    const refused = replay({ ...seedCapture, provider: "anthropic" }, { refuse: 529 });
    assertEqual([refused.status, await refused.json()], [529, { type: "error", error: { type: "overloaded_error", message: "replay: refused with 529" } }]);
  }],
  ["replay: a stall at the cut trips the reader's idle timeout; cancelling a body stalled for ever ends it (the timers stop)", async () => {
    const { readable, message } = fromResponse(replay(seedCapture, { cutAfterEvents: 2, stallMs: 5000 }), { idleTimeoutMs: 50 });
    const r = await settle(readable, message);
    assertEqual(r.events.length, 2);
    assertError(r.error, StreamLimitError, { limit: "idleTimeoutMs" });
    const reader = replay(seedCapture, { stallMs: Infinity }).body!.getReader();
    let size = 0;
    while (size < seedCapture.body.length) size += (await reader.read()).value!.length; // every byte, then the stall
    const pending = reader.read();
    const late = await Promise.race([pending.then(() => "ended"), new Promise((r) => setTimeout(r, 30, "stalled"))]);
    assertEqual(late, "stalled", "the body stays silent");
    await reader.cancel("done");
    assertEqual(await pending, { done: true, value: undefined }, "the cancel ends the pending read");
  }],
  ["replay: a pace of N events a second spaces the events; \"capture\" needs a capture's timing", async () => {
    const t0 = Date.now();
    await chunksOf(replay(seedCapture, { pace: 200 })); // 9 events: 8 waits of 5 ms
    assert(Date.now() - t0 >= 30, `paced: ${Date.now() - t0} ms`);
    assertError(await rejects(() => replay(seedCapture, { pace: "capture" })), RangeError, { message: /pace "capture" needs the capture's timing/ });
    const timed = { ...seedCapture, timing: [0, 0, 40, 40, 40, 40, 40, 40, 40] };
    const t1 = Date.now();
    await chunksOf(replay(timed, { pace: "capture" }));
    assert(Date.now() - t1 >= 35, `the capture's own timing: ${Date.now() - t1} ms`);
  }],
  ["replay: every option is checked (TypeError for a type, RangeError for a value, naming it)", async () => {
    const bad: [Record<string, unknown>, typeof TypeError, RegExp][] = [
      [{ chunking: "lines" }, RangeError, /replay: options\.chunking must be "events", "random"/],
      [{ chunking: [5, 3] }, RangeError, /options\.chunking/],
      [{ chunking: {} }, TypeError, /options\.chunking/],
      [{ seed: 1.5 }, RangeError, /options\.seed must be an integer/],
      [{ pace: 0 }, RangeError, /options\.pace/],
      [{ pace: "fast" }, RangeError, /options\.pace/],
      [{ cutAfterEvents: -1 }, RangeError, /options\.cutAfterEvents/],
      [{ cutAfterEvents: 99 }, RangeError, /options\.cutAfterEvents must be at most the capture's 9 events/],
      [{ cutAfterBytes: "10" }, TypeError, /options\.cutAfterBytes/],
      [{ cutAfterBytes: 10, cutAfterEvents: 1 }, RangeError, /cutAfterEvents or cutAfterBytes, not both/],
      [{ stallMs: -5 }, RangeError, /options\.stallMs/],
      [{ refuse: 200 }, RangeError, /options\.refuse must be an HTTP status from 400 to 599/],
      [{ errorAt: 10 }, RangeError, /options\.errorAt must be an event index from 0 to 9 \(the capture has 9 events\)/],
      [{ cutAfter: 3 }, TypeError, /unknown option "cutAfter" \(did you mean "cutAfterBytes"\?\)|unknown option "cutAfter"/],
    ];
    for (const [options, Kind, message] of bad) assertError(await rejects(() => replay(seedCapture, options)), Kind, { message });
    assertError(await rejects(() => replay({ status: 200, headers: {}, body: "x" } as never)), TypeError, { message: /replay: the capture\.body must be a Uint8Array/ });
  }],
  ["record: a live answer → its capture (status, headers, body, a time per event); recording a clone leaves the reading to the app", async () => {
    const answer = replay({ ...seedCapture, headers: [...seedCapture.headers, ["x-request-id", "r1"]] }, { chunking: "bytes" });
    const recording = record(answer.clone());
    const r = await read(answer);
    const got = await recording;
    assertEqual(r.events.length, SEED_EXAMPLE.length);
    assertEqual([got.status, got.headers, got.body], [200, [["content-type", "text/event-stream"], ["x-request-id", "r1"]], seedCapture.body]);
    assertEqual(got.timing!.length, SEED_EXAMPLE.length);
    assertEqual(parseCapture(formatCapture(got)), got);
    assertError(await rejects(() => record(answer)), TypeError, { message: /already read; pass response\.clone\(\)/ });
  }],
  ["fakeMmspServer: a stream cut after event 3 is resumed by fromFetch (GET Content-Location, Last-Event-ID: 2): the same events and message, two requests", async () => {
    const want = await uninterrupted();
    const server = fakeMmspServer({ streams: { seed: { capture: seedCapture, cutAfterEvents: 3, chunking: "random" } }, key: "k" });
    const { readable, message } = fromFetch("https://fake.test/v1/stream", post("seed", { authorization: "Bearer k" }), { fetch: server, reconnect: { delayMs: 0 } });
    const r = await settle(readable, message);
    assertEqual([r.events, r.message], [want.events, want.message]);
    const [first, second] = server.requests;
    assertEqual(server.requests.length, 2);
    assertEqual([first!.method, first!.model, first!.headers.authorization, first!.finished, first!.status], ["POST", "seed", "[redacted]", false, 200]);
    assertEqual((first!.json as Json).messages, [{ role: "user", content_items: [{ type: "text", text: "hi" }] }]);
    assertEqual(await first!.ended, "cut");
    assertEqual([second!.method, second!.url, second!.headers["last-event-id"], await second!.ended], ["GET", "https://fake.test/v1/streams/00000000000000000000000000000001", "2", "finished"]);
  }],
  ["fakeMmspServer: refusals in MMSP's shape (a wrong key 401, an unknown model 404 naming the models, a bad body 400); GET /v1/models", async () => {
    const server = fakeMmspServer({ streams: { seed: seedCapture, tools: capture(MINIMAX_TOOL) }, key: "k" });
    const wrong = await read(await server("https://fake.test/v1/stream", post("seed", { authorization: "Bearer nope" })));
    assertError(wrong.error, UpstreamError, { status: 401, errorType: "AuthenticationError", message: "Invalid or missing API key." });
    const unknown = await server("https://fake.test/v1/stream", post("gpt-9", { authorization: "Bearer k" }));
    assertEqual(unknown.status, 404);
    assert(/The model 'gpt-9' does not exist; .*\(seed, tools\)/.test((await unknown.json()).error.message), "names the models");
    const noMessages = await server(new Request("https://fake.test/v1/stream", { method: "POST", headers: { authorization: "Bearer k" }, body: '{"model":"seed"}' }));
    assertEqual([noMessages.status, await noMessages.json()], [400, { error: { type: "InvalidRequestError", message: "messages must be a list of messages." } }]);
    const models = await (await server("https://fake.test/v1/models", { headers: { authorization: "Bearer k" } })).json();
    assertEqual(models.data.map((m: Json) => [m.id, m.owned_by]), [["seed", "mmsp"], ["tools", "mmsp"]]);
    assertEqual(server.requests.map((q) => [q.method, q.status, q.authorized]), [["POST", 401, false], ["POST", 404, true], ["POST", 400, true], ["GET", 200, true]]);
  }],
  ["fakeMmspServer: a caller that aborts shows in the log (aborted, ended \"aborted\"); stop() → DELETE → StreamCancelled", async () => {
    const server = fakeMmspServer({ streams: { seed: { capture: seedCapture, pace: 50 } } });
    const abort = new AbortController();
    const { readable, message } = fromFetch("https://fake.test/v1/stream", { ...post("seed"), signal: abort.signal }, { fetch: server });
    const reader = readable.getReader();
    await reader.read();
    abort.abort(new Error("gone"));
    await message.catch(() => {});
    assertEqual(await server.requests[0]!.ended, "aborted");
    assert(server.requests[0]!.aborted !== null && !server.requests[0]!.finished, "aborted, not finished");
    const stopped = fromFetch("https://fake.test/v1/stream", post("seed"), { fetch: server });
    const r2 = stopped.readable.getReader();
    await r2.read();
    await stopped.stop();
    assertError(await rejects(stopped.message), UpstreamError, { errorType: "StreamCancelled" });
    assertEqual(server.requests.slice(1).map((q) => q.method), ["POST", "DELETE"]);
    assertEqual(await server.requests[1]!.ended, "stopped");
  }],
  ["fakeProvider, fakeMmspServer: a page's CORS preflight is answered (as the real servers do: Anthropic with its browser opt-in header), and so are its requests", async () => {
    const body = { status: 200, headers: [["content-type", "text/event-stream"]] as [string, string][], body: utf8('data: {"x":1}\n\n') };
    const origin = { origin: "http://page.test" };
    // A page's script cannot set Origin or Access-Control-Request-* (forbidden request headers: a browser
    // drops them and sends its own), so in a browser this case cannot make a preflight; there the same
    // answers are checked over real HTTP from another origin (scripts/examples-run.mjs, browser-own-key).
    if (!new Request("https://api.test/", { headers: origin }).headers.has("origin")) return;
    const preflight = (url: string, headers: string) =>
      new Request(url, { method: "OPTIONS", headers: { ...origin, "access-control-request-method": "POST", "access-control-request-headers": headers } });
    const asks: [Parameters<typeof fakeProvider>[0], string, Record<string, string>][] = [
      ["openai-chat", "/v1/chat/completions", { authorization: "Bearer k" }],
      ["openai-responses", "/v1/responses", { authorization: "Bearer k" }],
      ["anthropic", "/v1/messages", { "x-api-key": "k", "anthropic-version": "2023-06-01", "anthropic-dangerous-direct-browser-access": "true" }],
      ["gemini", "/v1beta/models/m1:streamGenerateContent?alt=sse", { "x-goog-api-key": "k" }],
    ];
    for (const [provider, path, headers] of asks) {
      const server = fakeProvider(provider, { streams: { m1: body }, key: "k" });
      const url = `https://api.test${path}`;
      const asked = [...Object.keys(headers), "content-type"].join(",");
      const pre = await server(preflight(url, asked));
      assertEqual([pre.status, pre.headers.get("access-control-allow-origin")], [204, "*"], `${provider}: the preflight`);
      assertEqual(pre.headers.get("access-control-allow-headers"), asked, `${provider}: the headers its clients send`);
      assert(/POST/.test(pre.headers.get("access-control-allow-methods") ?? ""), provider);
      assertEqual(server.requests.length, 0, `${provider}: a preflight is answered, not logged`);
      const init = { method: "POST", headers: { ...origin, ...headers, "content-type": "application/json" }, body: JSON.stringify({ model: "m1", stream: true }) };
      const ok = await server(url, init);
      assertEqual([ok.status, ok.headers.get("access-control-allow-origin"), await ok.text()], [200, "*", 'data: {"x":1}\n\n'], `${provider}: the page reads the answer`);
      const optIn: Record<string, string> = provider === "anthropic" ? { "anthropic-dangerous-direct-browser-access": "true" } : {};
      const refused = await server(url, { ...init, headers: { ...origin, ...optIn, "content-type": "application/json" } }); // no key
      assertEqual([refused.status, refused.headers.get("access-control-allow-origin")], [401, "*"], `${provider}: a refusal the page can read`);
      const none = await server(url, { ...init, headers });
      assertEqual(none.headers.get("access-control-allow-origin"), null, `${provider}: no Origin, no CORS headers (a server's fetch)`);
    }
    // Anthropic answers a page only with its opt-in header, as the real API does (its absence: a 401 without CORS headers)
    const claude = fakeProvider("anthropic", { streams: { m1: body } });
    const noOptIn = await claude("https://api.test/v1/messages", { method: "POST", headers: { ...origin, "x-api-key": "k" }, body: '{"model":"m1"}' });
    assertEqual([noOptIn.status, noOptIn.headers.get("access-control-allow-origin")], [401, null]);
    assert(/CORS requests must set 'anthropic-dangerous-direct-browser-access' header/.test(await noOptIn.text()), "says which header");
    // the MMSP fake answers as the relay Worker does: a page may resume (Last-Event-ID) and read Content-Location
    const mmsp = fakeMmspServer({ streams: { seed: seedCapture } });
    const pre = await mmsp(preflight("https://fake.test/v1/stream", "authorization,content-type,last-event-id"));
    assertEqual([pre.status, pre.headers.get("access-control-allow-origin")], [204, "*"]);
    assert(/Last-Event-ID/i.test(pre.headers.get("access-control-allow-headers") ?? "") && /DELETE/.test(pre.headers.get("access-control-allow-methods") ?? ""), "resume and stop allowed");
    const answer = await mmsp("https://fake.test/v1/stream", { method: "POST", headers: origin, body: JSON.stringify({ model: "seed", messages: [] }) });
    assert(/Content-Location/i.test(answer.headers.get("access-control-expose-headers") ?? "") && answer.headers.get("access-control-allow-origin") === "*", "Content-Location readable");
    await answer.body?.cancel();
  }],
  ["fakeProvider: each provider's route, key header and error shape; the capture chosen by model", async () => {
    const body = { status: 200, headers: [["content-type", "text/event-stream"]] as [string, string][], body: utf8('data: {"x":1}\n\n') };
    const asks: [Parameters<typeof fakeProvider>[0], string, Record<string, string>, unknown][] = [
      ["openai-chat", "/v1/chat/completions", { authorization: "Bearer k" }, { error: { message: /Invalid API key/, type: "invalid_request_error", code: "invalid_api_key" } }],
      ["openai-responses", "/v1/responses", { authorization: "Bearer k" }, { error: { type: "invalid_request_error" } }],
      ["anthropic", "/v1/messages", { "x-api-key": "k" }, { type: "error", error: { type: "authentication_error" } }],
      ["gemini", "/v1beta/models/m1:streamGenerateContent?alt=sse", { "x-goog-api-key": "k" }, { error: { code: 401, status: "UNAUTHENTICATED" } }],
    ];
    for (const [provider, path, good, shape] of asks) {
      const server = fakeProvider(provider, { streams: { m1: body }, key: "k" });
      const init = (headers: Record<string, string>, model = "m1") => ({ method: "POST", headers, body: JSON.stringify({ model, stream: true }) });
      const ok = await server(`https://api.test${path}`, init(good));
      assertEqual([ok.status, await ok.text()], [200, 'data: {"x":1}\n\n'], provider);
      const no = await server(`https://api.test${path}`, init({}));
      assertEqual(no.status, 401, provider);
      const got = await no.json();
      for (const [k, v] of Object.entries(shape as Json)) {
        for (const [k2, v2] of Object.entries(v as Json)) {
          const actual = (got[k] as Json)?.[k2] ?? got[k];
          assert(v2 instanceof RegExp ? v2.test(String(actual)) : typeof v === "string" ? got[k] === v : actual === v2, `${provider}: ${k}.${k2} = ${JSON.stringify(got)}`);
        }
      }
      const other = await server(`https://api.test${provider === "gemini" ? "/v1beta/models/m2:streamGenerateContent?alt=sse" : path}`, init(good, "m2"));
      assertEqual(other.status, 404, `${provider}: an unknown model`);
      assertEqual(server.requests.map((q) => [q.model, q.headers[provider.startsWith("openai") ? "authorization" : provider === "anthropic" ? "x-api-key" : "x-goog-api-key"]]).slice(0, 1), [["m1", "[redacted]"]]);
    }
  }],
];
