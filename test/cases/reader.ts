// The reader end to end: UniEventStream, the chained stages, fromResponse, and stream behaviour.
import {
  EmptyResponseError, MessageAssemblerStream, NdjsonDecoderStream, SseDecoderStream, StreamProtocolError,
  ToolCallArgumentParseError, UniEventDecoderStream, UniEventStream, UpstreamError, fromResponse, MmspError,
} from "../../dist/index.js";
import { assert, assertEqual, assertError, assertSame, byteStream, collect, collectSettled, trackedSource, utf8, type Case } from "../harness.ts";
import {
  AUDIO, AUDIO_BYTES, EMBEDDINGS, ERROR_EVENT, MINIMAX_TOOL, SEED_EXAMPLE, TWO_IMAGES, delta, ndjson, sse, stop, text, textDone,
  withError, type Json,
} from "../fixtures.ts";
import { read, readError } from "./read-helpers.ts";

const B64: Record<string, Uint8Array> = {};
/** The expected public form of a wire event: inline `data` as bytes. */
function decoded(e: Json): Json {
  const items = (e.content_items as Json[]).map((i) =>
    typeof i.type === "string" && i.type.startsWith("inline_") ? { ...i, data: b64(i.data as string) } : i,
  );
  return { ...e, content_items: items };
}
function b64(s: string): Uint8Array {
  if (B64[s]) return B64[s]!;
  const bin = atob(s);
  return (B64[s] = Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function expectedMessage(events: Json[]): Json {
  const last = events[events.length - 1]!;
  const items = events.slice(0, -1).map((e) => decoded(e).content_items as Json[]).flat().filter((i) => (i.type as string).endsWith(".done"));
  return { role: "assistant", content_items: items, usage_metadata: last.usage_metadata, finish_reason: last.finish_reason, created_at: last.created_at };
}

async function roundTrip(events: Json[]): Promise<void> {
  for (const [format, body] of [["sse", sse(events)], ["ndjson", ndjson(events)]] as const) {
    const r = await read(body, { format });
    if (r.error) throw r.error;
    assertEqual(r.events, events.map(decoded), `${format} events`);
    assertEqual(r.message, expectedMessage(events), `${format} message`);
  }
}

const tick = () => new Promise((r) => setTimeout(r, 5));

export const cases: Case[] = [
  ["the seeds' example: thinking with a signature-only fragment, then a tool call", () => roundTrip(SEED_EXAMPLE)],
  ["a MiniMax single-fragment tool call", () => roundTrip(MINIMAX_TOOL)],
  ["an embedding response", () => roundTrip(EMBEDDINGS)],
  ["chunked audio: many fragments of one item, bytes joined", async () => {
    await roundTrip(AUDIO);
    const r = await read(sse(AUDIO));
    assertEqual(r.message.content_items[1].data, AUDIO_BYTES);
    assert(r.message.content_items[1].data instanceof Uint8Array, "bytes are a Uint8Array");
  }],
  ["two images in a row, the first with a fidelity-only fragment", () => roundTrip(TWO_IMAGES)],
  ["a stream ending with an error event raises UpstreamError with the typed cause", async () => {
    const { error, events } = await readError(withError());
    assertEqual(events.length, 2, "the deltas before the error were delivered");
    assertError(error, UpstreamError, { client: "upstream", status: null, errorType: "ToolCallArgumentParseError", error: ERROR_EVENT.error, eventIndex: 2 });
    assertEqual(error.message, ERROR_EVENT.error.message);
    assertError(error.cause, ToolCallArgumentParseError, { client: "anthropic", toolName: "f", toolCallId: "t1", rawArgumentsLength: 3, rawArgumentsPreview: "{x:" });
    assertEqual(error.cause.message, ERROR_EVENT.error.message);
  }],
  ["an error event's status, message fallbacks and an unknown type without cause", async () => {
    let { error } = await readError(sse([{ error: { type: "RateLimitError", message: "slow down", status: 429 } }]));
    assertError(error, UpstreamError, { status: 429, errorType: "RateLimitError", message: "slow down" });
    assertEqual(error.cause, undefined);
    ({ error } = await readError(sse([{ error: { type: "OverloadedError" } }])));
    assertError(error, UpstreamError, { message: "OverloadedError", status: null });
    ({ error } = await readError(sse([{ error: {} }])));
    assertError(error, UpstreamError, { message: "unknown error", errorType: null });
  }],
  ["an error event rebuilds every MMSP error type as the cause", async () => {
    const E: [Json, new (...a: any[]) => Error, Json][] = [
      [{ type: "StreamProtocolError", message: "openai broke the streaming protocol: x", client: "openai" }, StreamProtocolError, { client: "openai", detail: "x" }],
      [{ type: "EmptyResponseError", message: "m", client: "c", finish_reason: "stop", usage_metadata: null }, EmptyResponseError, { client: "c", finishReason: "stop", usageMetadata: null }],
    ];
    for (const [e, cls, fields] of E) {
      const { error } = await readError(ndjson([{ error: e }]), { format: "ndjson", client: "my-app" });
      assertError(error, UpstreamError, { client: "my-app", errorType: e.type });
      assertError(error.cause, cls, { ...fields, message: e.message });
    }
  }],
  ["an error event's StreamProtocolError may carry the detail alone; the cause's message is whole", async () => {
    const { error } = await readError(sse([{ error: { type: "StreamProtocolError", message: "a client yields deltas, not x", client: "openai" } }]));
    assertError(error.cause, StreamProtocolError, { client: "openai", detail: "a client yields deltas, not x", message: "openai broke the streaming protocol: a client yields deltas, not x" });
  }],
  ["every error class carries its own name (also in minified bundles)", () => {
    const errors = [
      new MmspError("m"), new StreamProtocolError({ client: "c", detail: "d" }), new EmptyResponseError({ client: "c", finishReason: "stop", usageMetadata: null }),
      new ToolCallArgumentParseError({ client: "c", toolName: "t", toolCallId: "i", rawArgumentsLength: 0, rawArgumentsPreview: "" }),
      new UpstreamError({ client: "c", status: null, errorType: null, error: {}, message: "m" }),
    ];
    assertEqual(errors.map((e) => e.name), ["MmspError", "StreamProtocolError", "EmptyResponseError", "ToolCallArgumentParseError", "UpstreamError"]);
    for (const e of errors) assert(e instanceof MmspError && e instanceof Error, e.name);
  }],
  ["the client option names the reader in messages and errors", async () => {
    const { error } = await readError(sse([delta(text("a")), stop()]), { client: "my-app" });
    assertError(error, StreamProtocolError, { client: "my-app", rule: "CLOSED" });
    assert(error.message.startsWith("my-app broke the streaming protocol: "), error.message);
  }],
  ["UTF8: invalid bytes are refused by the reader, with the byte offset", async () => {
    const head = sse([delta(text("a"))], false);
    const bad = new Uint8Array([...utf8('data: {"x":"'), 0xed, 0xa0, 0x80, ...utf8('"}\n\n')]);
    const { error, events } = await readError([head, bad]);
    assertEqual(events.length, 1, "the event before the bad bytes was delivered");
    assertError(error, StreamProtocolError, { rule: "UTF8", eventIndex: 1, byteOffset: utf8(head).length + 12 });
  }],
  ["UTF8: a body that ends inside a character", async () => {
    const body = new Uint8Array([...utf8(sse([delta(text("a"))], false) + 'data: "'), 0xe2, 0x82]);
    const { error } = await readError(body);
    assertError(error, StreamProtocolError, { rule: "UTF8", byteOffset: body.length - 2 });
  }],
  ["JSON: a record that is not JSON", async () => {
    const { error } = await readError(["data: {oops}\n\n"]);
    assertError(error, StreamProtocolError, { rule: "JSON", eventIndex: 0, byteOffset: 0, preview: "{oops}" });
  }],
  ["JSON: a raw NUL or control character inside a string", async () => {
    const { error } = await readError(['data: {"role":"assistant\u0000"}\n\n']);
    assertError(error, StreamProtocolError, { rule: "JSON" });
    const r2 = await readError([`{"role":"assist\tant"}\n`], { format: "ndjson" });
    assertError(r2.error, StreamProtocolError, { rule: "JSON" });
  }],
  ["JSON: JSON that is not an object", async () => {
    for (const v of ["[1]", "42", '"s"', "null"]) {
      const { error } = await readError([`data: ${v}\n\n`]);
      assertError(error, StreamProtocolError, { rule: "JSON" });
    }
  }],
  ["SCHEMA: wrong types, negative or fractional usage, unknown finish reason, bad base64", async () => {
    const bad: Json[] = [
      delta({ type: "text.delta", text: 5 }),
      { ...stop(), usage_metadata: { cached_tokens: -1, prompt_tokens: 1, thoughts_tokens: null, response_tokens: 1 } },
      { ...stop(), usage_metadata: { cached_tokens: 1.5, prompt_tokens: 1, thoughts_tokens: null, response_tokens: 1 } },
      { ...stop(), usage_metadata: { cached_tokens: 1, prompt_tokens: 1, thoughts_tokens: null } },
      { ...stop(), finish_reason: "done" },
      delta({ type: "inline_data.delta", data: "not base64!", mime_type: "image/png" }),
      delta({ type: "inline_data.delta", data: "AAA", mime_type: "image/png" }),
      delta({ type: "tool_call.delta", name: "f", arguments: "{}" }),
      { ...delta(text("a")), created_at: 1.5 },
      { ...delta(text("a")), event_type: "start" },
      delta({ type: "embedding.delta", embedding: ["x"] }),
    ];
    for (const e of bad) {
      const events = (e.event_type === "stop" ? [delta(text("a")), delta(textDone("a"))] : []).concat([e]);
      const { error } = await readError(sse(events));
      assertError(error, StreamProtocolError, { rule: "SCHEMA", eventIndex: events.length - 1 });
    }
  }],
  ["unknown members of events and items pass through", async () => {
    const events = [{ ...delta({ ...text("a"), extra: 1 }), trace: "x" }, delta(textDone("a")), stop()];
    const r = await read(sse(events));
    assertEqual(r.error, undefined);
    assertEqual(r.events[0], events[0]);
  }],
  ["the chained stages behave like UniEventStream (SSE)", async () => {
    const body = sse(SEED_EXAMPLE);
    const assembler = new MessageAssemblerStream();
    const events = await collect(byteStream([body]).pipeThrough(new SseDecoderStream()).pipeThrough(new UniEventDecoderStream()).pipeThrough(assembler));
    const fused = await read(body);
    assertEqual(events, fused.events);
    assertEqual(await assembler.message, fused.message);
  }],
  ["the chained stages behave like UniEventStream (NDJSON, with an error)", async () => {
    const body = ndjson([delta(text("a")), delta(textDone("b")), stop()]);
    const assembler = new MessageAssemblerStream();
    const chained = await collectSettled(byteStream([body]).pipeThrough(new NdjsonDecoderStream()).pipeThrough(new UniEventDecoderStream()).pipeThrough(assembler));
    const fused = await read(body, { format: "ndjson" });
    assertEqual(chained.values, fused.events);
    assertError(chained.error, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: 1 });
    assertError(fused.error, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: 1 });
  }],
  ["UniEventDecoderStream: [DONE] ends the stream, {error} raises, base64 becomes bytes", async () => {
    const records = [{ data: JSON.stringify(AUDIO[2]) }, { data: "[DONE]" }, { data: "not read" }];
    const out = await collect(new ReadableStream({ start(c) { for (const r of records) c.enqueue(r); c.close(); } }).pipeThrough(new UniEventDecoderStream()));
    assertEqual(out, [decoded(AUDIO[2]!)]);
    const err = await collectSettled(new ReadableStream({ start(c) { c.enqueue(ERROR_EVENT); c.close(); } }).pipeThrough(new UniEventDecoderStream({ format: "ndjson" })));
    assertError(err.error, UpstreamError, { errorType: "ToolCallArgumentParseError", eventIndex: 0 });
  }],
  ["MessageAssemblerStream checks events from any source and exposes the message", async () => {
    const events = SEED_EXAMPLE.map(decoded);
    const assembler = new MessageAssemblerStream();
    const out = await collect(new ReadableStream({ start(c) { for (const e of events) c.enqueue(e); c.close(); } }).pipeThrough(assembler));
    assertEqual(out, events);
    assertEqual(await assembler.message, expectedMessage(SEED_EXAMPLE));
    const bad = new MessageAssemblerStream();
    const r = await collectSettled(new ReadableStream({ start(c) { c.enqueue(events[0]); c.enqueue({ ...events[1], role: "user" }); c.close(); } }).pipeThrough(bad));
    assertEqual(r.values.length, 1);
    assertError(r.error, StreamProtocolError, { rule: "ROLE", eventIndex: 1 });
  }],
  ["fromResponse: the format comes from Content-Type, parameters ignored", async () => {
    for (const [ct, body] of [
      ["text/event-stream; charset=utf-8", sse(SEED_EXAMPLE)],
      ["application/x-ndjson", ndjson(SEED_EXAMPLE)],
      ["application/jsonl", ndjson(SEED_EXAMPLE)],
      ["Application/JSONLines; charset=UTF-8", ndjson(SEED_EXAMPLE)],
    ] as const) {
      const { readable, message } = fromResponse(new Response(body, { headers: { "content-type": ct } }));
      const events = await collect(readable);
      assertEqual(events.length, SEED_EXAMPLE.length, ct);
      assertEqual(await message, expectedMessage(SEED_EXAMPLE), ct);
    }
  }],
  ["fromResponse: a Content-Type that names neither format: the first line tells", async () => {
    for (const [ct, body] of [[null, ndjson(SEED_EXAMPLE)], ["application/octet-stream", "\n\n" + ndjson(SEED_EXAMPLE)], [null, sse(SEED_EXAMPLE)], ["text/plain", ": hello\n\n" + sse(SEED_EXAMPLE)]] as const) {
      const headers = ct ? { "content-type": ct } : undefined;
      const response = new Response(body, headers ? { headers } : {});
      if (!ct) response.headers.delete("content-type"); // a string body gets text/plain by default
      const { readable, message } = fromResponse(response);
      assertEqual((await collect(readable)).length, SEED_EXAMPLE.length, String(ct));
      assertEqual(await message, expectedMessage(SEED_EXAMPLE), String(ct));
    }
    const r = await read(["\n", "{", ndjson(SEED_EXAMPLE).slice(1)], { format: "auto" });
    assertEqual(r.message, expectedMessage(SEED_EXAMPLE), "auto, decided across chunks");
  }],
  ["fromResponse: a refused request (401) becomes UpstreamError with its status", async () => {
    const body = JSON.stringify({ error: { type: "AuthenticationError", message: "Invalid API key" } });
    const { readable, message } = fromResponse(new Response(body, { status: 401, headers: { "content-type": "application/json" } }));
    const r = await collectSettled(readable);
    assertError(r.error, UpstreamError, { status: 401, errorType: "AuthenticationError", message: "Invalid API key", error: { type: "AuthenticationError", message: "Invalid API key" } });
    let rejected: unknown;
    await message.catch((e) => (rejected = e));
    assertSame(rejected, r.error, "message rejects with the same error");
  }],
  ["fromResponse: a refusal whose body is not the error shape is an HTTPError that says what the body was (SPEC §6)", async () => {
    const { message } = fromResponse(new Response("<html>bad gateway</html>" + "x".repeat(300), { status: 502 }));
    const e = await message.then(() => undefined, (x) => x);
    assertError(e, UpstreamError, { status: 502, errorType: "HTTPError" });
    assert(e.message.startsWith("HTTP 502: an HTML page"), e.message);
    assertEqual(e.error, { type: "HTTPError", message: e.message }, "the error object says the same");
  }],
  ["fromResponse: an HTML 404 page is described by its title inside its UpstreamError, status kept, no markup", async () => {
    const page = `<!DOCTYPE html>\n<html><head><title>404 Not Found</title><script>${"x".repeat(2000)}</script></head><body>nginx</body></html>`;
    const { message } = fromResponse(new Response(page, { status: 404, headers: { "content-type": "text/html" } }));
    const e = await message.then(() => undefined, (x) => x);
    assertError(e, UpstreamError, { status: 404, errorType: "HTTPError" });
    assert(/^HTTP 404: an HTML page titled "404 Not Found"[\s\S]*wrong URL/.test(e.message), e.message);
    assert(!e.message.includes("<"), `no markup: ${e.message}`);
    // a plain-text refusal the diagnosis cannot name keeps its text (SPEC §1)
    const plain = await fromResponse(new Response("", { status: 503 })).message.then(() => undefined, (x) => x);
    assertEqual(plain.message, "HTTP 503: an empty body");
  }],
  ["fromResponse: refusals said plainly (SPEC §1, §6): text and JSON quoted as they are, a page by its title, advice by the status", async () => {
    const refused = async (body: string, status: number, type: string) =>
      fromResponse(new Response(body, { status, headers: { "content-type": type } })).message.then(() => undefined, (x) => x);
    const gateway = await refused("Bad Gateway", 502, "text/plain");
    assertError(gateway, UpstreamError, { status: 502, errorType: "HTTPError", message: "HTTP 502: Bad Gateway" });
    assertEqual(gateway.error, { type: "HTTPError", message: "HTTP 502: Bad Gateway" });
    assertError(await refused('{"error":"boom"}', 500, "application/json"), UpstreamError, { status: 500, errorType: "HTTPError", message: 'HTTP 500: {"error":"boom"}' });
    assertError(await refused("x".repeat(300), 500, "text/plain"), UpstreamError, { message: `HTTP 500: ${"x".repeat(200)}` });
    const page = "<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>";
    const html502 = await refused(page, 502, "text/html");
    assert(/^HTTP 502: an HTML page titled "502 Bad Gateway"/.test(html502.message), html502.message);
    assert(/the server behind it[\s\S]*retry later/.test(html502.message) && !/check the URL/.test(html502.message), `a gateway's advice: ${html502.message}`);
    assert(!html502.message.includes("<"), `no markup: ${html502.message}`);
  }],
  ["fromResponse: a 200 whose body is one JSON error document is that error, status 200 (not null: no mid-stream failure)", async () => {
    const body = JSON.stringify({ error: { type: "invalid_request_error", message: 'model "gpt-5" not found' } });
    for (const type of ["application/json", "application/json; charset=utf-8", null]) {
      const response = new Response(body, type ? { headers: { "content-type": type } } : {});
      if (!type) response.headers.delete("content-type");
      const e = await fromResponse(response).message.then(() => undefined, (x) => x);
      assertError(e, UpstreamError, { status: 200, errorType: "invalid_request_error", message: 'model "gpt-5" not found' });
    }
    // an error event in the middle of a stream has no status of its own
    const later = await fromResponse(new Response(ndjson([SEED_EXAMPLE[0]!]) + body + "\n")).message.then(() => undefined, (x) => x);
    assertError(later, UpstreamError, { status: null, errorType: "invalid_request_error" });
  }],
  ["fromResponse: a 200 with no body is no stream (NOT-A-STREAM, not the truncation STOP-LAST)", async () => {
    const { message } = fromResponse(new Response(null, { status: 200, headers: { "content-type": "text/event-stream" } }));
    const e = await message.then(() => undefined, (x) => x);
    assertError(e, StreamProtocolError, { rule: "NOT-A-STREAM" });
  }],
  ["awaiting only the message drains the stream without touching readable", async () => {
    const stream = new UniEventStream();
    byteStream(SEED_EXAMPLE.map((e) => sse([e], false))).pipeThrough(stream);
    assertEqual(await stream.message, expectedMessage(SEED_EXAMPLE));
    assertEqual(stream.readable.locked, true, "the package holds the readable");
  }],
  ["message is a real Promise; an unawaited failure is not an unhandled rejection", async () => {
    const stream = new UniEventStream();
    assert(stream.message instanceof Promise, "instanceof Promise");
    assertEqual(Object.prototype.toString.call(stream.message), "[object Promise]");
    byteStream([sse([delta(text("a"))], false)]).pipeThrough(stream); // truncated: message rejects
    const all = await Promise.allSettled([stream.message]);
    assertEqual(all[0]!.status, "rejected");
    const other = new UniEventStream();
    byteStream(["data: {oops}\n\n"]).pipeThrough(other); // fails with nobody awaiting message
    await collectSettled(other.readable);
  }],
  ["message.then() before reading the readable in the same task does not drain it", async () => {
    const stream = new UniEventStream();
    const events = byteStream([sse(SEED_EXAMPLE)]).pipeThrough(stream);
    const m = stream.message.then((x) => x);
    const got = await collect(events);
    assertEqual(got.length, SEED_EXAMPLE.length);
    assertEqual((await m).content_items.length, 2);
  }],
  ["backpressure: a reader that does not read holds the source", async () => {
    const chunks = SEED_EXAMPLE.map((e) => utf8(sse([e], false)));
    const { stream, state } = trackedSource([...chunks, utf8("data: [DONE]\n\n")]);
    const reader = stream.pipeThrough(new UniEventStream()).getReader();
    await reader.read();
    for (let i = 0; i < 5; i++) await tick();
    assert(state.pulls <= 3, `the source was read ahead ${state.pulls} times for one event`);
    let n = 1;
    while (!(await reader.read()).done) n++;
    assertEqual(n, SEED_EXAMPLE.length);
  }],
  ["a body in one large chunk is read in slices, as the reader takes them: backpressure within the chunk, cancel, every event", async () => {
    // 20k chat events in one 3 MB chunk: the reader must not hand the readable's queue all of them in
    // one turn (Node's queue grows slow with thousands), so it parses only what the reader takes
    const parts = Array.from({ length: 20_000 }, (_, i) => String(i % 10));
    const events = [...parts.map((p) => delta(text(p))), delta(textDone(parts.join(""))), stop()];
    const bytes = utf8(sse(events));
    for (const format of ["sse", "ndjson"] as const) {
      const body = format === "sse" ? bytes : utf8(ndjson(events));
      const stream = new UniEventStream({ format });
      let parsed = 0;
      stream.subscribe(() => parsed++);
      const reader = byteStream([body]).pipeThrough(stream).getReader();
      await reader.read();
      for (let i = 0; i < 5; i++) await tick();
      assert(parsed > 0 && parsed < events.length / 4, `${format}: ${parsed} of ${events.length} events parsed ahead of a reader that took one`);
      let n = 1;
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        n++;
        if (n === 5000 && format === "ndjson") {
          await reader.cancel(new Error("enough"));
          const e = await stream.message.then(() => undefined, (x) => x);
          assertEqual((e as Error).message, "enough", "a cancel in the middle of the chunk ends it");
          break;
        }
      }
      if (format === "sse") {
        assertEqual(n, events.length, "every event");
        assertEqual((await stream.message).content_items, [textDone(parts.join(""))]);
      }
    }
  }],
  ["cancelling the readable cancels the source and rejects the message", async () => {
    const chunks = SEED_EXAMPLE.map((e) => utf8(sse([e], false)));
    const { stream, state } = trackedSource(chunks);
    const ues = new UniEventStream();
    const reader = stream.pipeThrough(ues).getReader();
    await reader.read();
    await reader.cancel(new Error("user left"));
    for (let i = 0; i < 3 && !state.cancelled; i++) await tick();
    assert(state.cancelled, "the source was cancelled");
    const e = await ues.message.then(() => undefined, (x) => x);
    assertEqual((e as Error).message, "user left");
  }],
  ["after [DONE] the source is cancelled, freeing the connection", async () => {
    const { stream, state } = trackedSource([utf8(sse(SEED_EXAMPLE)), utf8("data: more\n\n")]);
    const ues = new UniEventStream();
    const events = await collect(stream.pipeThrough(ues));
    assertEqual(events.length, SEED_EXAMPLE.length);
    for (let i = 0; i < 3 && !state.cancelled; i++) await tick();
    assert(state.cancelled, "the source was cancelled after [DONE]");
  }],
  ["a body cut inside the final data: [DONE] line still yields the full message", async () => {
    const full = sse(SEED_EXAMPLE);
    for (const cut of ["data: [DONE]\n\n".length - 1, 3, 5, 9, 12, 14]) {
      const r = await read(full.slice(0, full.length - cut));
      assertEqual(r.error, undefined, `cut ${cut}`);
      assertEqual(r.message, expectedMessage(SEED_EXAMPLE), `cut ${cut}`);
    }
  }],
  ["a stream that fails rejects the message with the readable's error", async () => {
    const { error } = await readError(sse([delta(text("a")), delta(textDone("b"))]));
    assertError(error, MmspError, { rule: "DONE-CONTENT" });
  }],
  ["a source that errors mid-event surfaces that error unchanged", async () => {
    const boom = new Error("connection reset");
    let sent = false;
    const source = new ReadableStream<Uint8Array>({
      pull(c) {
        if (!sent) {
          sent = true;
          c.enqueue(utf8(sse([delta(text("a"))], false) + 'data: {"role":'));
        } else c.error(boom);
      },
    });
    const ues = new UniEventStream();
    const r = await collectSettled(source.pipeThrough(ues));
    assertEqual(r.values.length, 1);
    assertEqual(r.error, boom);
    assertEqual(await ues.message.then(() => undefined, (x) => x), boom);
  }],
  ["keep-alive comments between events are not counted as events", async () => {
    const body = ": keep-alive\n\n" + sse([delta(text("a"))], false) + ": keep-alive\n\n" + sse([delta(textDone("b"))]);
    const { error } = await readError(body);
    assertError(error, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: 1 });
  }],
  ["created_at is optional", async () => {
    const events = [delta(text("a")), delta(textDone("a")), stop()].map((e) => { const { created_at, ...rest } = e; return rest; });
    const r = await read(sse(events));
    assertEqual(r.error, undefined);
    assertEqual("created_at" in r.message, false);
  }],
  ["spaced JSON and keys in any order", async () => {
    const body = 'data: {"content_items": [ {"text": "a", "type": "text.delta"} ], "finish_reason": null, "usage_metadata": null, "event_type": "delta", "role": "assistant"}\n\n' +
      sse([delta(textDone("a")), stop()]);
    const r = await read(body);
    assertEqual(r.error, undefined);
    assertEqual(r.message.content_items, [textDone("a")]);
  }],
];
