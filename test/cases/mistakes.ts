// Issue #12: the mistakes people make end in a sentence that names the problem (never the misleading
// "ended without a stop event … <empty input>"), blame the producer, and every option of every export is
// checked at the boundary.
import {
  fromResponse, MessageAssemblerStream, MmspNdjsonDecoderStream, MmspSseDecoderStream, NdjsonDecoderStream, NdjsonEncoderStream, SseDecoderStream, SseEncoderStream,
  StreamProtocolError, UniEventDecoderStream, UniEventStream,
} from "../../dist/index.js";
import { assert, assertEqual, assertError, byteStream, collectSettled, settle, type Case } from "../harness.ts";
import { delta, ndjson, sse, stop, text, textDone } from "../fixtures.ts";

const VALID = [delta(text("Hi")), delta(textDone("Hi")), stop()];
const MISLEADING = /ended without a stop event|<empty input>/;

/** Reads `body` as a Response with `contentType` through fromResponse; returns the error. */
async function viaResponse(body: BodyInit | null, contentType: string | null, extra: Record<string, string> = {}, options = {}): Promise<any> {
  const headers: Record<string, string> = { ...extra };
  if (contentType) headers["content-type"] = contentType;
  const { readable, message } = fromResponse(new Response(body, { status: 200, headers }), options);
  const r = await settle(readable, message);
  assert(r.error !== undefined, "the stream failed");
  assert(r.messageError === r.error, "message rejects with the readable's error");
  return r.error;
}

/** A body that is no stream at all: rule NOT-A-STREAM (SPEC §6), not the truncation STOP-LAST. */
function names(e: any, pattern: RegExp): void {
  assertError(e, StreamProtocolError, { rule: "NOT-A-STREAM", eventIndex: 0 });
  assert(pattern.test(e.message), `the message names the problem (${pattern}): ${e.message}`);
  assert(!MISLEADING.test(e.message), `not the misleading sentence: ${e.message}`);
  assert(e.message.startsWith("upstream broke the streaming protocol: "), `blames the producer: ${e.message}`);
}

const OPENAI_CHUNK = { id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] };

export const cases: Case[] = [
  ["an empty body says it is empty", async () => {
    names(await viaResponse("", "text/event-stream"), /empty body/);
    const s = new UniEventStream();
    const r = await settle(byteStream([]).pipeThrough(s), s.message);
    names(r.error, /empty body/);
    assertEqual(r.error.preview.includes("<empty input>"), false);
  }],
  ["an HTML page from a proxy says so and names its title; the preview shows the bytes received", async () => {
    const html = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>\n";
    const e = await viaResponse(html, "text/html");
    names(e, /HTML page titled "502 Bad Gateway"/);
    assert(e.preview.includes("<!DOCTYPE html>"), e.preview);
    names(await viaResponse("<html><body>oops</body></html>", "text/event-stream"), /HTML page/);
  }],
  ["a JSON document rather than a stream names it and its Content-Type", async () => {
    names(await viaResponse(JSON.stringify({ status: "ok", items: [] }), "application/json"), /JSON document[\s\S]*application\/json/);
  }],
  ["NDJSON read as SSE names the format option and \"auto\"", async () => {
    names(await viaResponse(ndjson(VALID), "text/event-stream"), /NDJSON[\s\S]*format/);
    const s = new UniEventStream();
    const r = await settle(byteStream([ndjson(VALID)]).pipeThrough(s), s.message);
    names(r.error, /NDJSON[\s\S]*"auto"/);
  }],
  ["SSE read as NDJSON names the format option", async () => {
    const s = new UniEventStream({ format: "ndjson" });
    const r = await settle(byteStream([sse(VALID)]).pipeThrough(s), s.message);
    assertError(r.error, StreamProtocolError, { rule: "NOT-A-STREAM", eventIndex: 0 });
    assert(/Server-Sent Events[\s\S]*format/.test(r.error.message), r.error.message);
  }],
  ["gzip bytes without Content-Encoding say the body looks compressed", async () => {
    const gz = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);
    const e = await viaResponse(gz, "text/event-stream");
    names(e, /gzip[\s\S]*Content-Encoding/);
    assert(e.preview.startsWith("1f 8b") || e.preview.includes("\\u001f"), `the preview shows the first bytes: ${e.preview}`);
  }],
  ["an OpenAI chat.completion.chunk stream (the wrong endpoint) is named, as SSE and event by event", async () => {
    const body = `data: ${JSON.stringify(OPENAI_CHUNK)}\n\ndata: [DONE]\n\n`;
    const e = await viaResponse(body, "text/event-stream");
    assertError(e, StreamProtocolError, { rule: "NOT-A-STREAM", eventIndex: 0 });
    assert(/chat\.completion\.chunk/.test(e.message) && /MMSP UniEvent/.test(e.message), e.message);
  }],
  ["an Anthropic Messages stream and an AI SDK UI message stream are named", async () => {
    const anthropic = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[]}}\n\n';
    const e1 = await viaResponse(anthropic, "text/event-stream");
    assertError(e1, StreamProtocolError, { rule: "NOT-A-STREAM", eventIndex: 0 });
    assert(/Anthropic/.test(e1.message), e1.message);
    const ui = 'data: {"type":"start","messageId":"m"}\n\ndata: {"type":"text-start","id":"t"}\n\n';
    const e2 = await viaResponse(ui, "text/event-stream");
    assert(/AI SDK/.test(e2.message), e2.message);
  }],
  ["another protocol's event after MMSP events were read keeps its own rule (the body was a stream)", async () => {
    const body = sse(VALID.slice(0, 1), false) + `data: ${JSON.stringify(OPENAI_CHUNK)}\n\n`;
    const e = await viaResponse(body, "text/event-stream");
    assertError(e, StreamProtocolError, { eventIndex: 1 });
    assert(e.rule !== "NOT-A-STREAM" && /chat\.completion\.chunk/.test(e.message), `${e.rule}: ${e.message}`);
  }],
  ["a stream that produced events and then stopped is still the precise truncation error", async () => {
    const s = new UniEventStream();
    const r = await settle(byteStream([sse(VALID.slice(0, 2), false)]).pipeThrough(s), s.message);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", eventIndex: 2 });
    assert(/ended without a stop event/.test(r.error.message), r.error.message);
  }],
  ["fromResponse blames the host that answered", async () => {
    const response = new Response("data: {oops}\n\n", { headers: { "content-type": "text/event-stream" } });
    Object.defineProperty(response, "url", { value: "http://127.0.0.1:25752/v1/stream" });
    const { readable, message } = fromResponse(response);
    const r = await settle(readable, message);
    assert(r.error.message.startsWith("127.0.0.1:25752 broke the streaming protocol: "), r.error.message);
  }],
  ["strings piped in (a TextDecoderStream before the reader) say the reader wants bytes and how to fix the pipe", async () => {
    const strings = new ReadableStream<any>({ start: (c) => (c.enqueue("data: x\n\n"), c.close()) });
    const r = await collectSettled(strings.pipeThrough(new UniEventStream()));
    assertError(r.error, TypeError);
    const message = (r.error as Error).message;
    assert(/bytes/.test(message) && /TextDecoderStream/.test(message), message);
    const numbers = new ReadableStream<any>({ start: (c) => (c.enqueue(42), c.close()) });
    const r2 = await collectSettled(numbers.pipeThrough(new SseDecoderStream()));
    assertError(r2.error, TypeError);
  }],
  ["bytes or text piped into the stages that take objects say which stage is missing before them", async () => {
    const of = (chunk: unknown) => new ReadableStream<any>({ start: (c) => (c.enqueue(chunk), c.close()) });
    const bytes = new TextEncoder().encode("data: x\n\n");
    for (const [name, make] of [["UniEventDecoderStream", () => new UniEventDecoderStream()], ["MessageAssemblerStream", () => new MessageAssemblerStream()]] as const) {
      for (const chunk of [bytes, "data: x"]) {
        const r = await collectSettled(of(chunk).pipeThrough(make() as any));
        assertError(r.error, TypeError);
        const message = (r.error as Error).message;
        assert(message.startsWith(`${name} takes `) && /UniEventStream/.test(message) && /(bytes|text)/.test(message), message);
      }
    }
  }],
  ["an encoder given something that is no event ends its output with an error saying so (not a garbage record)", async () => {
    for (const [Encoder, parse] of [
      [SseEncoderStream, (t: string) => JSON.parse(t.split("\n\n")[0]!.slice(6))],
      [NdjsonEncoderStream, (t: string) => JSON.parse(t.split("\n")[0]!)],
    ] as const) {
      for (const chunk of ["hello", new Uint8Array([1, 2]), { data: "x" }, { a: 1 }]) {
        const out = await collectSettled(new ReadableStream<any>({ start: (c) => (c.enqueue(chunk), c.close()) }).pipeThrough(new Encoder()));
        const first = parse(new TextDecoder().decode(out.values[0]));
        assertEqual(first.error?.type, "TypeError");
        assert(/^an encoder writes UniEvents/.test(first.error.message), first.error.message);
      }
    }
  }],
  ["fromResponse given anything but a Response says so", async () => {
    for (const bad of [new ReadableStream(), Promise.resolve(new Response("")), "http://x", undefined]) {
      let error: any;
      try {
        fromResponse(bad as any);
      } catch (e) {
        error = e;
      }
      assertError(error, TypeError);
      assert(/Response/.test(error.message), error.message);
    }
  }],
  ["fromResponse given a response whose body was already read says so, and to clone", async () => {
    const used = new Response("data: x\n\n");
    await used.text();
    const locked = new Response("data: x\n\n");
    locked.body!.getReader();
    for (const response of [used, locked]) {
      let error: any;
      try {
        fromResponse(response);
      } catch (e) {
        error = e;
      }
      assertError(error, TypeError);
      assert(/body was already read/.test(error.message) && /response\.clone\(\)/.test(error.message), error.message);
    }
  }],
  ["every option of every export: a wrong type is a TypeError, a wrong value a RangeError, naming the option", async () => {
    const exports: [string, (o: any) => unknown, Record<string, [unknown, unknown]>][] = [
      ["UniEventStream", (o) => new UniEventStream(o), {
        format: [1, "NDJSON"], mode: [true, "assembly"], unknownItems: [0, "ignore"], client: [5, ""], onWarning: ["log", undefined],
        maxEventBytes: ["1", -1], maxDepth: [null, 0], maxItems: [{}, -3], idleTimeoutMs: ["5", -5], signal: [{}, undefined],
      }],
      ["fromResponse", (o) => fromResponse(new Response(""), o), { format: [1, "jsonl"], mode: [1, "x"], idleTimeoutMs: [true, -5] }],
      ["SseDecoderStream", (o) => new SseDecoderStream(o), { maxEventBytes: ["x", 0], mmsp: ["yes", true], client: [1, ""] }],
      ["NdjsonDecoderStream", (o) => new NdjsonDecoderStream(o), { maxDepth: ["x", -1], client: [1, ""], mmsp: [1, true] }],
      ["MmspSseDecoderStream", (o) => new MmspSseDecoderStream(o), { maxEventBytes: ["x", 0], client: [1, ""], idleTimeoutMs: ["5", -5] }],
      ["MmspNdjsonDecoderStream", (o) => new MmspNdjsonDecoderStream(o), { maxDepth: ["x", -1], client: [1, ""], maxEventBytes: [null, 1.5] }],
      ["UniEventDecoderStream", (o) => new UniEventDecoderStream(o), { format: [1, "auto"], mode: [1, "assembly"], unknownItems: [1, "drop"] }],
      ["MessageAssemblerStream", (o) => new MessageAssemblerStream(o), { mode: [1, "assembly"], maxItems: ["x", 0], client: [1, ""] }],
      ["SseEncoderStream", (o) => new SseEncoderStream(o), { keepAliveMs: ["x", -1] }],
    ];
    for (const [name, make, options] of exports) {
      for (const [key, [wrongType, wrongValue]] of Object.entries(options)) {
        const expect = async (value: unknown, cls: typeof TypeError | typeof RangeError) => {
          let error: any;
          try {
            make({ [key]: value });
          } catch (e) {
            error = e;
          }
          assertError(error, cls);
          assert(error.message.includes(key), `${name}: the message names ${key}: ${error.message}`);
        };
        await expect(wrongType, TypeError);
        if (wrongValue !== undefined) await expect(wrongValue, RangeError);
      }
      let typo: any;
      try {
        make({ formatt: "sse" });
      } catch (e) {
        typo = e;
      }
      assert(typo instanceof TypeError, `${name}: an unknown option is refused`);
    }
    let e: any;
    try {
      new NdjsonEncoderStream({ keepAliveMs: 5 } as any);
    } catch (x) {
      e = x;
    }
    assertError(e, TypeError);
  }],
];
