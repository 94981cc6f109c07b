// SPEC §7, the reader's contract: one outcome per stream, nothing valid lost, the same drain/lock
// behaviour however the body was chunked, and a drained readable that says why it cannot be read.
import { MessageAssemblerStream, MmspSseDecoderStream, StreamProtocolError, UniEventDecoderStream, UniEventStream } from "../../dist/index.js";
import { assert, assertEqual, assertError, byteStream, collectSettled, settle, utf8, type Case } from "../harness.ts";
import { delta, sse, stop, text, textDone, type Json } from "../fixtures.ts";

const VALID: Json[] = [delta(text("Hi")), delta(textDone("Hi")), stop()];
const body = (tail: string): string => sse(VALID, false) + tail;

/** Bytes → chunks of `size` (0: one chunk). */
function chunked(s: string, size: number): Uint8Array[] {
  const b = utf8(s);
  if (size === 0) return [b];
  const out: Uint8Array[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
}

/** Something after a valid stop event makes the stream invalid: message rejects with the readable's very error. */
async function oneOutcome(tail: string, rule: string): Promise<void> {
  for (const size of [0, 1, 7, 64]) {
    const s = new UniEventStream();
    const r = await settle(byteStream(chunked(body(tail), size)).pipeThrough(s), s.message);
    assertError(r.error, StreamProtocolError, { rule });
    assert(r.messageError === r.error, `message rejects with the same error object (chunks of ${size})`);
    assertEqual(r.message, undefined, "message never resolved");
    assertEqual(r.events.length, VALID.length, "every valid event, the stop included, was delivered first");
  }
}

export const cases: Case[] = [
  ["one outcome: junk after a valid stop event rejects message with the readable's error", () =>
    oneOutcome("data: {junk\n\n", "JSON")],
  ["one outcome: a second stop event rejects message with the readable's error", () =>
    oneOutcome(`data: ${JSON.stringify(stop())}\n\n`, "STOP-LAST")],
  ["one outcome: an extra event after the stop rejects message with the readable's error", () =>
    oneOutcome(`data: ${JSON.stringify(delta(text("x")))}\n\n`, "STOP-LAST")],
  ["one outcome: the same in the stages chained", async () => {
    const grammar = new MessageAssemblerStream();
    const readable = byteStream([body(`data: ${JSON.stringify(stop())}\n\n`)])
      .pipeThrough(new MmspSseDecoderStream()).pipeThrough(new UniEventDecoderStream()).pipeThrough(grammar);
    const r = await settle(readable, grammar.message);
    assertError(r.error, StreamProtocolError, { rule: "STOP-LAST", eventIndex: 3 });
    assert(r.messageError === r.error, "same error object");
  }],
  ["message resolves only at a clean end: [DONE], or the end of the body right after the stop event", async () => {
    for (const tail of ["data: [DONE]\n\n", "", "data: [DO"]) {
      const s = new UniEventStream();
      const r = await settle(byteStream([body(tail)]).pipeThrough(s), s.message);
      assertEqual(r.error, undefined, JSON.stringify(tail));
      assertEqual(r.message.content_items, [textDone("Hi")], JSON.stringify(tail));
    }
  }],
  ["await message alone: one chunk and 1-byte chunks behave the same (drained, readable locked)", async () => {
    for (const size of [0, 1, 64]) {
      const s = new UniEventStream();
      byteStream(chunked(body("data: [DONE]\n\n"), size)).pipeThrough(s);
      const m = await s.message;
      assertEqual(m.content_items, [textDone("Hi")], `chunks of ${size}`);
      assertEqual(s.readable.locked, true, `the package drained the readable (chunks of ${size})`);
    }
  }],
  ["a drained readable says why it cannot be read, naming the rule", async () => {
    const s = new UniEventStream();
    byteStream([body("data: [DONE]\n\n")]).pipeThrough(s);
    await s.message;
    for (const read of [() => s.readable.getReader(), () => s.readable.pipeTo(new WritableStream()), () => (s.readable as any)[Symbol.asyncIterator]()]) {
      let error: unknown;
      try {
        await read();
      } catch (e) {
        error = e;
      }
      assert(error instanceof TypeError, "a TypeError");
      assert(/drained by the package/.test((error as Error).message) && /start reading `readable`/.test((error as Error).message), (error as Error).message);
    }
  }],
  ["reading first, then awaiting message: the events and the message, whatever the chunking", async () => {
    for (const size of [0, 1, 64]) {
      const s = new UniEventStream();
      const r = await collectSettled(byteStream(chunked(body("data: [DONE]\n\n"), size)).pipeThrough(s));
      assertEqual(r.values.length, VALID.length);
      assertEqual((await s.message).content_items, [textDone("Hi")]);
    }
  }],
];
