// Property tests: any split of the same bytes into chunks gives the same events and message,
// for SSE (LF, CRLF or CR line ends, keep-alive comments) and NDJSON (LF or CRLF).
import fc from "fast-check";
import { holds } from "../property.ts";
import { UniEventStream } from "../../dist/index.js";
import { assertEqual, byteStream, collectSettled, splitAt, utf8, type Case } from "../harness.ts";
import { lineEnd, ndjsonText, sseText, streamEvents } from "../arbitraries.ts";
import { delta, stop, text, textDone, thinking, thinkingDone } from "../fixtures.ts";

async function readChunks(chunks: Uint8Array[], format: "sse" | "ndjson" | "auto") {
  const s = new UniEventStream({ format });
  const r = await collectSettled(byteStream(chunks).pipeThrough(s));
  const message = await s.message.then((m) => m, (e) => ({ rejected: String(e) }));
  return { events: r.values, error: r.error === undefined ? undefined : String(r.error), message };
}

const cuts = (max: number) => fc.array(fc.integer({ min: 1, max: Math.max(1, max - 1) }), { maxLength: 12 });

/** The error's place, read through UniEventStream and the chained stages alike. */
async function errorPlace(chunks: Uint8Array[], format: "sse" | "ndjson" | "auto"): Promise<string> {
  const s = new UniEventStream({ format });
  const r = await collectSettled(byteStream(chunks).pipeThrough(s));
  const e = r.error as { rule?: string; eventIndex?: number; byteOffset?: number } | undefined;
  return `${e?.rule} ${e?.eventIndex} ${e?.byteOffset}`;
}

export const cases: Case[] = [
  ["a body that starts with a BOM: the error's byte offset is the true one under every chunking (SPEC §7)", async () => {
    const first = delta(text("héllo ☃"));
    const wrong = delta(thinking("x")); // NO-INTERLEAVE at event 1
    for (const [format, body] of [
      ["sse", `\uFEFFdata: ${JSON.stringify(first)}\n\ndata: ${JSON.stringify(wrong)}\n\n`],
      ["ndjson", `\uFEFF${JSON.stringify(first)}\n${JSON.stringify(wrong)}\n`],
    ] as const) {
      const bytes = utf8(body);
      const offset = utf8(body.slice(0, body.indexOf(format === "sse" ? "data: " + JSON.stringify(wrong) : JSON.stringify(wrong)))).length;
      const expected = `NO-INTERLEAVE 1 ${offset}`;
      assertEqual(await errorPlace([bytes], format), expected, `${format}, one chunk`);
      assertEqual(await errorPlace([bytes], "auto"), expected, `${format} as auto, one chunk`);
      for (let cut = 1; cut < 12; cut++) assertEqual(await errorPlace(splitAt(bytes, [cut]), format), expected, `${format}, cut at ${cut}`);
      assertEqual(await errorPlace(Array.from(bytes, (b) => new Uint8Array([b])), format), expected, `${format}, byte by byte`);
    }
  }],
  ["SSE: any split of the bytes gives the same events and message", async () => {
    await holds(
      fc.asyncProperty(streamEvents.chain((events) => fc.tuple(fc.constant(events), lineEnd, fc.boolean(), cuts(4000))), async ([events, eol, keepAlive, at]) => {
        const bytes = utf8(sseText(events, eol, keepAlive));
        const whole = await readChunks([bytes], "sse");
        assertEqual(whole.error, undefined, "the whole stream reads");
        assertEqual(whole.events.length, events.length);
        const split = await readChunks(splitAt(bytes, at.map((c) => c % bytes.length)), "sse");
        assertEqual(split, whole);
      }),
      { numRuns: 60 },
    );
  }],
  ["NDJSON: any split of the bytes gives the same events and message", async () => {
    await holds(
      fc.asyncProperty(streamEvents.chain((events) => fc.tuple(fc.constant(events), fc.constantFrom("\n", "\r\n"), cuts(4000))), async ([events, eol, at]) => {
        const bytes = utf8(ndjsonText(events, eol));
        const whole = await readChunks([bytes], "ndjson");
        assertEqual(whole.error, undefined, "the whole stream reads");
        const split = await readChunks(splitAt(bytes, at.map((c) => c % bytes.length)), "ndjson");
        assertEqual(split, whole);
      }),
      { numRuns: 60 },
    );
  }],
  ["the byte offset of a bad event is exact under any split, with multi-byte text before it", async () => {
    await holds(
      fc.asyncProperty(streamEvents, fc.nat(), fc.constantFrom("sse", "ndjson"), fc.constantFrom("\n", "\r\n"), cuts(4000), async (events, at, format, eol, cutAt) => {
        const k = at % events.length;
        const head = format === "sse" ? sseText(events.slice(0, k), eol, false).replace(/data: \[DONE\][\r\n]*$/, "") : ndjsonText(events.slice(0, k), eol);
        const bad = format === "sse" ? `data: {"oops": é}${eol}${eol}` : `{"oops": é}${eol}`;
        const bytes = utf8(head + bad + (format === "sse" ? sseText(events.slice(k), eol, false) : ndjsonText(events.slice(k), eol)));
        const s = new UniEventStream({ format });
        const r = await collectSettled(byteStream(splitAt(bytes, cutAt.map((c) => c % bytes.length))).pipeThrough(s));
        assertEqual(r.values.length, k);
        // (a first NDJSON line that is `{` and no JSON reads as a broken JSON document: NOT-A-STREAM)
        const rule = k === 0 && format === "ndjson" ? "NOT-A-STREAM" : "JSON";
        assertEqual([(r.error as any)?.rule, (r.error as any)?.eventIndex, (r.error as any)?.byteOffset], [rule, k, utf8(head).length]);
      }),
      { numRuns: 80 },
    );
  }],
  ["SSE and NDJSON, one byte at a time (splits inside every CRLF and every character)", async () => {
    const events = [delta(thinking("é€😀中")), delta(thinkingDone("é€😀中")), delta(text("a\r\nb")), delta(textDone("a\r\nb")), stop()];
    for (const [format, body] of [["sse", sseText(events, "\r\n", true)], ["ndjson", ndjsonText(events, "\r\n")]] as const) {
      const bytes = utf8(body);
      const whole = await readChunks([bytes], format);
      assertEqual(whole.error, undefined);
      const single = await readChunks(Array.from(bytes, (b) => new Uint8Array([b])), format);
      assertEqual(single, whole, format);
      const auto = await readChunks(Array.from(bytes, (b) => new Uint8Array([b])), "auto");
      assertEqual(auto, whole, `auto-detected ${format}`);
    }
  }],
];
