// Large items: a long base64 string is decoded while its line arrives (never held as one string);
// whatever does not fit that path is read the ordinary way, with the same result.
import {
  encodeBase64, MessageAssemblerStream, MmspNdjsonDecoderStream, MmspSseDecoderStream, StreamProtocolError, UniEventDecoderStream, UniEventStream,
} from "../../dist/index.js";
import { assert, assertEqual, assertError, byteStream, collectSettled, pump, splitAt, utf8, type Case } from "../harness.ts";
import { delta, inline, inlineDone, ndjson, sse, stop, text, textDone, type Json } from "../fixtures.ts";

function bytesOf(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) out[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  return out;
}

/** An image in `parts` fragments plus its `.done`, as wire events. */
function image(bytes: Uint8Array, parts: number, fidelity?: Json): Json[] {
  const size = Math.ceil(bytes.length / parts / 3) * 3;
  const events: Json[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    const last = i + size >= bytes.length;
    events.push(delta(inline(encodeBase64(bytes.subarray(i, i + size)), "image/png", "inline_data", last ? fidelity : undefined)));
  }
  events.push(delta(inlineDone(encodeBase64(bytes), "image/png", "inline_data", fidelity)));
  return events;
}

async function readIn(body: string | Uint8Array, chunk: number, format: "sse" | "ndjson" = "sse") {
  const bytes = typeof body === "string" ? utf8(body) : body;
  const cuts: number[] = [];
  for (let i = chunk; i < bytes.length; i += chunk) cuts.push(i);
  const s = new UniEventStream({ format });
  const r = await collectSettled(byteStream(splitAt(bytes, cuts)).pipeThrough(s));
  const message = await s.message.then((m) => m, (e) => e);
  return { ...r, message };
}

const BIG = bytesOf(1_800_000, 7); // 2.4 MB of base64: past the capture threshold

export const cases: Case[] = [
  ["a 1.8 MB image in 64 KiB chunks: bytes exact, SSE and NDJSON", async () => {
    const events = [...image(BIG, 20), stop()];
    for (const format of ["sse", "ndjson"] as const) {
      const r = await readIn(format === "sse" ? sse(events) : ndjson(events), 65536, format);
      assertEqual(r.error, undefined, format);
      const item = r.message.content_items[0];
      assertEqual(item.type, "inline_data.done");
      assert(item.data instanceof Uint8Array && item.data.length === BIG.length, "length");
      assertEqual(item.data, BIG, format);
      assertEqual((r.values[r.values.length - 2]!.content_items[0] as any).data.length, BIG.length, "the .done event carries the bytes");
    }
  }],
  ["a large .done that differs from its fragments by one byte is still caught", async () => {
    const events = image(BIG, 10);
    const wrong = BIG.slice();
    wrong[1_234_567] ^= 1;
    events[events.length - 1] = delta(inlineDone(encodeBase64(wrong), "image/png"));
    const r = await readIn(sse(events), 16384);
    assertError(r.error, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: events.length - 1 });
    // the long string was decoded as it arrived (never held as text): the preview shows its size
    const preview = (r.error as { preview: string }).preview;
    assert(preview.includes(`"data":"<${BIG.length} bytes of base64>"`), preview);
  }],
  ["a large .done that differs: the fused reader and the chained stages word it alike, the base64 shown by its size (SSE, NDJSON, any chunking)", async () => {
    const events = image(BIG, 10);
    const wrong = BIG.slice();
    wrong[999] ^= 1;
    events[events.length - 1] = delta(inlineDone(encodeBase64(wrong), "image/png"));
    for (const format of ["sse", "ndjson"] as const) {
      const bytes = utf8(format === "sse" ? sse(events) : ndjson(events));
      for (const chunk of [16384, bytes.length]) {
        const cuts: number[] = [];
        for (let i = chunk; i < bytes.length; i += chunk) cuts.push(i);
        const fused = new UniEventStream({ format });
        const a = await collectSettled(byteStream(splitAt(bytes, cuts)).pipeThrough(fused));
        const framer = format === "sse" ? new MmspSseDecoderStream() : new MmspNdjsonDecoderStream();
        const decoder = new UniEventDecoderStream();
        const grammar = new MessageAssemblerStream();
        pump(byteStream(splitAt(bytes, cuts)), framer.writable);
        pump(framer.readable as ReadableStream<unknown>, decoder.writable);
        pump(decoder.readable, grammar.writable);
        const b = await collectSettled(grammar.readable);
        const what = `${format}, ${chunk}-byte chunks`;
        assertError(a.error, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: events.length - 1 });
        const [pa, pb] = [(a.error as { preview: string }).preview, (b.error as { preview: string }).preview];
        assert(pa.includes(`"data":"<${BIG.length} bytes of base64>"`), `fused, ${what}: ${pa}`);
        assertEqual(pb, pa, `the stages' preview, ${what}`);
        assertEqual((b.error as Error).message, (a.error as Error).message, `the stages' message, ${what}`);
      }
    }
  }],
  ["a large .done longer or shorter than its fragments is caught (DONE-CONTENT) with its own bytes", async () => {
    // the reader decodes a large inline .done into a buffer the size of its fragments: a .done of
    // another size must come out whole all the same, and be refused
    for (const [what, done] of [["longer", new Uint8Array([...BIG, 1, 2, 3, 4])], ["shorter", BIG.subarray(0, BIG.length - 7)]] as const) {
      const events = image(BIG, 10);
      events[events.length - 1] = delta(inlineDone(encodeBase64(done), "image/png"));
      for (const format of ["sse", "ndjson"] as const) {
        const r = await readIn(format === "sse" ? sse(events) : ndjson(events), 65536, format);
        assertError(r.error, StreamProtocolError, { rule: "DONE-CONTENT", eventIndex: events.length - 1 });
        const preview = (r.error as { preview: string }).preview;
        assert(preview.includes(`"data":"<${done.length} bytes of base64>"`), `${what} ${format}: ${preview}`);
      }
    }
  }],
  ["odd chunk sizes and one huge chunk give the same bytes", async () => {
    const events = [...image(BIG, 3, { sig: "s" }), delta(text("after")), delta(textDone("after")), stop()];
    for (const chunk of [7777, 1 << 22]) {
      const r = await readIn(sse(events), chunk);
      assertEqual(r.error, undefined, String(chunk));
      assertEqual(r.message.content_items[0].data, BIG);
      assertEqual(r.message.content_items[0].fidelity, { sig: "s" });
      assertEqual(r.message.content_items[1], textDone("after"));
    }
  }],
  ["a long string with an escape is read the ordinary way", async () => {
    const b64 = encodeBase64(BIG);
    const escaped = b64.replace("/", "\\/"); // legal JSON, same string
    const line = (e: Json) => `data: ${JSON.stringify(e)}\n\n`;
    const body = line(delta(inline(b64, "image/png"))) + line(delta(inlineDone("X", "image/png"))).replace('"X"', `"${escaped}"`) + sse([stop()]);
    const r = await readIn(body, 32768);
    assertEqual(r.error, undefined);
    assertEqual(r.message.content_items[0].data, BIG);
  }],
  ["a long base64 string outside an inline item stays text", async () => {
    const b64 = encodeBase64(BIG);
    const events = [delta(text("a", { data: b64 })), delta(textDone("a", { data: b64 })), stop()];
    const r = await readIn(sse(events), 65536);
    assertEqual(r.error, undefined);
    assertEqual(r.message.content_items[0].fidelity.data, b64);
  }],
  ["invalid base64 inside a long string is a SCHEMA error, as for a short one", async () => {
    const b64 = encodeBase64(BIG);
    const bad = b64.slice(0, 1_500_000) + "*" + b64.slice(1_500_001);
    const events = [delta(inline(b64, "image/png")), delta(inlineDone(bad, "image/png"))];
    const r = await readIn(sse(events), 65536);
    assertError(r.error, StreamProtocolError, { rule: "SCHEMA", eventIndex: 1 });
  }],
  ["a body cut inside a long string is a truncated stream (STOP-LAST), not bad JSON", async () => {
    const body = utf8(sse(image(BIG, 2)));
    const r = await readIn(body.subarray(0, body.length - 200_000), 65536);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST" });
    assert(/body ended inside event \d+/.test((r.error as Error).message), (r.error as Error).message);
  }],
];
