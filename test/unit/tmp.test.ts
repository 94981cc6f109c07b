import { test } from "vitest";
import { fused, staged } from "../cases/paths.ts";
import { splitAt, utf8 } from "../harness.ts";
import { delta, inline, inlineDone, stop, text, textDone } from "../fixtures.ts";
import { sseText, ndjsonText } from "../arbitraries.ts";
import { UniEventStream, MmspSseDecoderStream, UniEventDecoderStream, MessageAssemblerStream } from "../../dist/index.js";
test("x", async () => {
  const part = btoa(String.fromCharCode(...new Array(3 * 1024).fill(7)));
  const data = part.repeat(Math.ceil((2400000) / part.length));
  const done = data.slice(0, -4) + "AAAA";
  const ev = [delta(inline(data, "image/png")), delta(inlineDone(done, "image/png")), stop()];
  for (const f of ["sse", "ndjson"] as const) {
    const b = utf8(f === "sse" ? sseText(ev, "\n", false) : ndjsonText(ev, "\n"));
    const a = await fused(splitAt(b, Array.from({length: Math.floor(b.length/16384)}, (_, i) => (i+1)*16384)), f, "validate");
    const c = await staged(splitAt(b, Array.from({length: Math.floor(b.length/16384)}, (_, i) => (i+1)*16384)), f, "validate");
    console.log(f, "FUSED", String(a.error?.message).slice(0, 300), "\nSTAGED", String(c.error?.message).slice(0, 300));
  }
});
