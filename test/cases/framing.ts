// The framing stages on their own: SseDecoderStream and NdjsonDecoderStream, and the MMSP reader's
// framing as stages (MmspSseDecoderStream, MmspNdjsonDecoderStream).
import {
  MmspNdjsonDecoderStream, MmspSseDecoderStream, NdjsonDecoderStream, SseDecoderStream, StreamProtocolError, UniEventDecoderStream,
} from "../../dist/index.js";
import { assert, assertEqual, assertError, byteStream, collect, collectSettled, utf8, type Case } from "../harness.ts";

const sseOf = (chunks: (string | Uint8Array)[], mmsp = false) =>
  collect(byteStream(chunks).pipeThrough(mmsp ? new MmspSseDecoderStream() : new SseDecoderStream()));
const ndjsonOf = (chunks: (string | Uint8Array)[]) => collectSettled(byteStream(chunks).pipeThrough(new NdjsonDecoderStream()));

export const cases: Case[] = [
  ["SSE: one data line per event, blank line ends it", async () => {
    assertEqual(await sseOf(["data: a\n\ndata: b\n\n"]), [{ data: "a" }, { data: "b" }]);
  }],
  ["SSE: CR, LF and CRLF line ends", async () => {
    assertEqual(await sseOf(["data: a\r\rdata: b\n\ndata: c\r\n\r\n"]), [{ data: "a" }, { data: "b" }, { data: "c" }]);
  }],
  ["SSE: a CRLF split across chunks is one line end", async () => {
    assertEqual(await sseOf(["data: a\r", "\n\r", "\ndata: b\r\n\r\n"]), [{ data: "a" }, { data: "b" }]);
    assertEqual(await sseOf(["data: a\r", "\ndata: b\r", "\n\r\n"]), [{ data: "a\nb" }], "not a blank line between two data lines");
  }],
  ["SSE: a leading BOM is skipped", async () => {
    assertEqual(await sseOf([new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf]), "data: x\n\n"]), [{ data: "x" }]);
  }],
  ["SSE: a U+FEFF that begins a later chunk is text, not a BOM (workerd's streaming TextDecoder dropped it)", async () => {
    for (const mmsp of [false, true]) {
      assertEqual(await sseOf(["data: a", "\ufeffb\n\n"], mmsp), [{ data: "a\ufeffb" }], `mmsp: ${mmsp}`);
      assertEqual(await sseOf(["\ufeff", "\ufeffdata: x\n\n", "data: y\n\n"], mmsp), [{ data: "y" }], `mmsp: ${mmsp}, the second U+FEFF is a field name's`);
    }
    const nd = await ndjsonOf(['{"a":"x', '\ufeffy"}\n']);
    assertEqual(nd.values, [{ a: "x\ufeffy" }]);
  }],
  ["SSE: keep-alive comments are skipped", async () => {
    assertEqual(await sseOf([": keep-alive\n\n", "data: a\n", ": ping\n", "\n", ":\n\n"]), [{ data: "a" }]);
  }],
  ["SSE: multi-line data is joined with LF", async () => {
    assertEqual(await sseOf(["data: {\ndata:  \"a\": 1\ndata: }\n\n"]), [{ data: '{\n "a": 1\n}' }]);
  }],
  ["SSE: event and id fields are kept, retry is tolerated", async () => {
    assertEqual(await sseOf(["retry: 100\nevent: delta\nid: 7\ndata: x\n\n"]), [{ data: "x", event: "delta", id: "7" }]);
  }],
  ["SSE: no space after the colon, and only one space is removed", async () => {
    assertEqual(await sseOf(["data:a\n\ndata:  b\n\n"]), [{ data: "a" }, { data: " b" }]);
  }],
  ["SSE: an unterminated final event is discarded, as the standard says (MmspSseDecoderStream keeps it)", async () => {
    for (const tail of ["data: b", "data: b\n", "data: b\r"]) {
      assertEqual(await sseOf(["data: a\n\n" + tail]), [{ data: "a" }], JSON.stringify(tail));
      assertEqual(await sseOf(["data: a\n\n" + tail], true), [{ data: "a" }, { data: "b" }], JSON.stringify(tail));
    }
  }],
  ["the MMSP reader's framing moved to its own classes: mmsp: true says where (false, the default, passes)", async () => {
    for (const [make, moved] of [[(o: any) => new SseDecoderStream(o), "MmspSseDecoderStream"], [(o: any) => new NdjsonDecoderStream(o), "MmspNdjsonDecoderStream"]] as const) {
      make({ mmsp: false });
      let error: any;
      try {
        make({ mmsp: true });
      } catch (e) {
        error = e;
      }
      assertError(error, RangeError);
      assert(error.message.includes(`options.mmsp must be false (the MMSP reader's framing is ${moved} now); received true`), error.message);
    }
  }],
  ["SSE: a UTF-8 character split across chunks", async () => {
    const bytes = utf8("data: é€😀\n\n");
    const one = Array.from(bytes, (b) => new Uint8Array([b]));
    assertEqual(await sseOf(one), [{ data: "é€😀" }]);
  }],
  ["SSE: invalid UTF-8 becomes U+FFFD, as the SSE standard says", async () => {
    assertEqual(await sseOf([new Uint8Array([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xff, 0x41, 0x0a, 0x0a])]), [{ data: "\ufffdA" }]);
  }],
  ["SSE: an event with no data field is not dispatched; its event type does not carry over, its id does", async () => {
    assertEqual(await sseOf(["event: x\n\nid: 3\n\ndata: y\n\n"]), [{ data: "y", id: "3" }]);
  }],
  ["SSE: the last event id persists across events, as EventSource.lastEventId (an empty id: clears it)", async () => {
    assertEqual(await sseOf(["id: 1\ndata: a\n\ndata: b\n\nid:\ndata: c\n\nid: 7\0x\ndata: d\n\n"]), [
      { data: "a", id: "1" }, { data: "b", id: "1" }, { data: "c" }, { data: "d" },
    ]);
  }],
  ["SSE: the BOM counts only at the very start: the text \u00ef\u00bb\u00bf later is an unknown field", async () => {
    assertEqual(await sseOf(["\ufeffdata: a\n\n\u00ef\u00bb\u00bfdata: b\n\ndata: c\n\n"]), [{ data: "a" }, { data: "c" }]);
    assertEqual(await sseOf([": hi\n\u00ef\u00bb\u00bfdata: b\n\n"]), []);
  }],
  ["NDJSON: one object per line, LF or CRLF, last line without newline", async () => {
    const r = await ndjsonOf(['{"a":1}\n{"b":2}\r\n', '{"c":3}\r', '\n{"x":4}']);
    assertEqual(r.error, undefined);
    assertEqual(r.values, [{ a: 1 }, { b: 2 }, { c: 3 }, { x: 4 }]);
  }],
  ["NDJSON: a bare CR is not a line break (it is in SSE): the line is one bad record", async () => {
    const r = await ndjsonOf(['{"a":1}\r{"b":2}\n']);
    assertError(r.error, StreamProtocolError, { rule: "JSON", eventIndex: 0, byteOffset: 0 });
    assertEqual(r.values, []);
  }],
  ["NDJSON: a line may hold any JSON value (JSON Lines), passed on as parsed", async () => {
    const r = await ndjsonOf(['{"a":1}\n[3]\n1\nnull\n"🚀"\ntrue\n[1,2]\n']);
    assertEqual(r.error, undefined);
    assertEqual(r.values, [{ a: 1 }, [3], 1, null, "🚀", true, [1, 2]]);
  }],
  ["NDJSON: in the MMSP reader's mode a line that is JSON but not an object is refused (rule JSON), located", async () => {
    const r = await collectSettled(byteStream(['{"a":1}\n[3]\n']).pipeThrough(new MmspNdjsonDecoderStream()));
    assertError(r.error, StreamProtocolError, { rule: "JSON", eventIndex: 1, byteOffset: 8 });
    assertEqual(r.values, [{ a: 1 }]);
  }],
  ["NDJSON: a value that is no object is the UniEvent decoder's JSON error, at its event index", async () => {
    // (a JSON string is left out: a string record reads as text piped in by mistake, a TypeError naming the stage)
    for (const line of ["1", "null", "true", "[1,2]"]) {
      const r = await collectSettled(byteStream([`${line}\n`]).pipeThrough(new NdjsonDecoderStream()).pipeThrough(new UniEventDecoderStream()));
      assertError(r.error, StreamProtocolError, { rule: "JSON", eventIndex: 0 });
      assert(/must be a JSON object/.test((r.error as Error).message), (r.error as Error).message);
    }
  }],
  ["NDJSON: blank lines, including spaces and tabs only, are skipped", async () => {
    const r = await ndjsonOf(['\n{"a":1}\n \t \n\t\n\r\n{"b":2}\n\n']);
    assertEqual(r.values, [{ a: 1 }, { b: 2 }]);
  }],
  ["NDJSON: a CRLF split across chunks is one line end (line numbers stay right)", async () => {
    const r = await ndjsonOf(['{"a":1}\r', '\n{"b":\r', "\n"]);
    assertEqual(r.values, [{ a: 1 }]);
    assertEqual(/line 2\b/.test((r.error as Error).message), true, (r.error as Error).message);
  }],
  ["NDJSON: an invalid line is an error naming its line number", async () => {
    const r = await ndjsonOf(['{"a":1}\n\n{"b":\n{"c":3}\n']);
    assertEqual(r.values, [{ a: 1 }], "the valid line before it is delivered");
    assertError(r.error, StreamProtocolError, { rule: "JSON", eventIndex: 1, byteOffset: 9, preview: '{"b":' });
    assertEqual(/line 3\b/.test((r.error as Error).message), true, (r.error as Error).message);
  }],
  ["NDJSON: invalid UTF-8 is refused with its byte offset", async () => {
    const r = await ndjsonOf(['{"a":1}\n', new Uint8Array([0x22, 0xc3, 0x28, 0x22, 0x0a])]);
    assertEqual(r.values, [{ a: 1 }]);
    assertError(r.error, StreamProtocolError, { rule: "UTF8", byteOffset: 9 });
  }],
  ["NDJSON: a UTF-8 character split across chunks", async () => {
    const bytes = utf8('{"t":"é€😀"}\n');
    const r = await ndjsonOf(Array.from(bytes, (b) => new Uint8Array([b])));
    assertEqual(r.values, [{ t: "é€😀" }]);
  }],
];
