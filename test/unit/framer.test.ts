// The framers (src/framing/framer.ts): bytes → records, with each record's place in the input.
import { describe, expect, test } from "vitest";
import { createFramer, NdjsonFramer, SseFramer, type FramerOptions } from "../../src/framing/framer.ts";
import { UniEventStream } from "../../src/uni-event-stream.ts";
import { delta, ndjson, sse, stop } from "../fixtures.ts";
import { StreamLimitError, StreamProtocolError } from "../../src/errors.ts";
import { bodyExplainer } from "../../src/diagnose.ts";

const enc = new TextEncoder();
/** The MMSP reader's framing (strict, unterminated last message kept, explained) unless `over` says otherwise. */
const options = (over: Partial<FramerOptions> = {}): FramerOptions => ({
  stage: "test", client: "upstream", maxEventBytes: 1 << 20, strictUtf8: true, keepUnterminated: true, capture: null, explain: bodyExplainer({}, "sse"), ...over,
});
/** The SSE standard's framing: lenient UTF-8, an unterminated last message dropped, nothing explained. */
const standard = { strictUtf8: false, keepUnterminated: false, explain: null };

interface Rec { text: string; index: number; start: number; end: number; line: number | undefined; unterminated: boolean }

/** Runs `chunks` through a framer; the records with their positions, and the error if any. */
function frame(framer: ReturnType<typeof createFramer>, chunks: string[] | Uint8Array[]): { records: Rec[]; error?: unknown } {
  const records: Rec[] = [];
  const sink = (text: string): void => {
    records.push({ text, index: framer.index, start: framer.recordStart(), end: framer.recordEnd(), line: framer.line, unterminated: framer.unterminated });
  };
  try {
    for (const c of chunks) framer.push(typeof c === "string" ? enc.encode(c) : c, sink);
    framer.end(sink);
  } catch (error) {
    return { records, error };
  }
  return { records };
}

describe("SseFramer", () => {
  test("a record per message, with byte offsets of its start and end (UTF-8 counted)", () => {
    const { records } = frame(new SseFramer(options()), ["data: é\n\n: c\n\ndata: b\r\n\r\n"]);
    expect(records.map((r) => [r.text, r.index, r.start, r.end])).toEqual([["é", 0, 0, 10], ["b", 1, 15, 25]]);
  });
  test("offsets do not depend on chunking (a record ends just past the CR or LF of its blank line)", () => {
    const body = "data: 😀\r\n\r\nid: 3\ndata: x\rdata: y\r\n\r\ndata: z\n\n";
    const whole = frame(new SseFramer(options()), [body]).records;
    const bytes = enc.encode(body);
    const one = frame(new SseFramer(options()), Array.from(bytes, (b) => new Uint8Array([b]))).records;
    expect(one).toEqual(whole);
  });
  test("keepUnterminated: an unterminated last message is handed out, flagged; without it, discarded (the standard)", () => {
    const a = frame(new SseFramer(options()), ["data: a\n\ndata: b"]).records;
    expect(a.map((r) => [r.text, r.unterminated])).toEqual([["a", false], ["b", true]]);
    const b = frame(new SseFramer(options(standard)), ["data: a\n\ndata: b"]).records;
    expect(b.map((r) => r.text)).toEqual(["a"]);
  });
  test("the lastEventId and event type of the record being handed out", () => {
    const f = new SseFramer(options());
    const seen: [string, string | undefined, string | undefined][] = [];
    f.push(enc.encode("id: 1\nevent: e\ndata: a\n\ndata: b\n\n"), (t) => seen.push([t, f.eventType, f.lastEventId]));
    expect(seen).toEqual([["a", "e", "1"], ["b", undefined, "1"]]);
  });
  test("strict UTF-8: a bad byte is a located UTF8 error, after the records before it", () => {
    const { records, error } = frame(new SseFramer(options()), [new Uint8Array([...enc.encode("data: a\n\ndata: "), 0xff, 0x0a, 0x0a])]);
    expect(records.map((r) => r.text)).toEqual(["a"]);
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(error).toMatchObject({ rule: "UTF8", eventIndex: 1, byteOffset: 15 });
  });
  test("lenient UTF-8 (the SSE standard): U+FFFD", () => {
    const { records } = frame(new SseFramer(options(standard)), [new Uint8Array([...enc.encode("data: "), 0xff, 0x0a, 0x0a])]);
    expect(records.map((r) => r.text)).toEqual(["\ufffd"]);
  });
  test("maxEventBytes: a StreamLimitError at the record being read", () => {
    const { error } = frame(new SseFramer(options({ maxEventBytes: 16 })), ["data: ok\n\ndata: " + "x".repeat(40)]);
    expect(error).toBeInstanceOf(StreamLimitError);
    expect(error).toMatchObject({ limit: "maxEventBytes", eventIndex: 1, byteOffset: 10 });
  });
  test("a body with no record is explained when the framer has an explainer, and is no error without one", () => {
    expect(frame(new SseFramer(options(standard)), ["<html><title>Oops</title></html>"])).toEqual({ records: [] });
    const { error } = frame(new SseFramer(options()), ["<html><title>Oops</title></html>"]);
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as Error).message).toMatch(/HTML page titled "Oops"/);
  });
});

describe("NdjsonFramer", () => {
  test("LF and CRLF end lines, a lone CR is text, blank lines are skipped; line numbers count every line", () => {
    const { records } = frame(new NdjsonFramer(options({ explain: bodyExplainer({}, "ndjson") })), ['{"a":1}\r\n\n  \n{"b":\r2}\n{"c":3}']);
    expect(records.map((r) => [r.text, r.index, r.line, r.start, r.end, r.unterminated])).toEqual([
      ['{"a":1}', 0, 1, 0, 9],
      ['{"b":\r2}', 1, 4, 13, 22],
      ['{"c":3}', 2, 5, 22, 29],
    ].map((r, i) => [...r, i === 2]));
  });
});

describe('format: "auto" (the fused reader tells the format before it makes a framer)', () => {
  /** Reads `chunks` (strings as UTF-8) with format "auto"; the events' first item types and the error, if any. */
  async function readAuto(chunks: unknown[]): Promise<{ types: string[]; error?: StreamProtocolError }> {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const x of chunks) c.enqueue((typeof x === "string" ? enc.encode(x) : x) as Uint8Array);
        c.close();
      },
    });
    const reader = body.pipeThrough(new UniEventStream({ format: "auto" })).getReader();
    const types: string[] = [];
    try {
      for (let r = await reader.read(); !r.done; r = await reader.read()) types.push(r.value.content_items[0]?.type ?? "stop");
    } catch (error) {
      return { types, error: error as StreamProtocolError };
    }
    return { types };
  }
  const events = [delta({ type: "text.delta", text: "a" }), delta({ type: "text.done", text: "a" }), stop()];

  test("decides once from the first byte that is not whitespace (after a BOM), whatever the chunks", async () => {
    const asNdjson = "\ufeff\n" + ndjson(events);
    const asSse = "\r\n" + sse(events);
    for (const body of [asNdjson, asSse]) {
      const bytes = enc.encode(body);
      for (const cut of [1, 2, 3, 5]) {
        const { types, error } = await readAuto([bytes.subarray(0, 1), bytes.subarray(1, cut), bytes.subarray(cut)]);
        expect([cut, error]).toEqual([cut, undefined]);
        expect(types).toEqual(["text.delta", "text.done", "stop"]);
      }
    }
  });
  test("the whitespace held before deciding keeps its byte offsets and line numbers", async () => {
    const { error } = await readAuto(["\n\n", "  ", '{"a":1}\n']);
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect([error!.byteOffset, error!.eventIndex, error!.message.includes("line 3")]).toEqual([2, 0, true]);
  });
  test("a body of whitespace only is read as SSE, and explained as what the reader was told", async () => {
    const { error } = await readAuto(["\n", " \n"]);
    expect(error?.rule).toBe("NOT-A-STREAM");
    expect(error?.message).toContain("whitespace");
  });
  test("a chunk that is not bytes is refused before the format is told", async () => {
    const { error } = await readAuto(["\n", [1, 2, 3]]);
    expect(error).toBeInstanceOf(TypeError);
    expect(String(error)).toContain("UniEventStream");
  });
});
