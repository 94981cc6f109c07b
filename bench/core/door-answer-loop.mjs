// One kept door answer's loop as the stream's object runs it (src/relay/stream/door-answer.ts), for
// the answer-loop benches: bench/door-encodings.mjs runs it in Node, bench/door-encodings-workerd.mjs
// bundles it into its Worker. One copy of the loop for both. Web standards only (it runs in workerd).

/** About how many events a slice of the stream's object gives at once (live-events.ts: 64 Ki characters). */
export const SLICE = 300;
const utf8 = new TextEncoder();

/**
 * One kept answer of `events` through `encoding` (its sealing step, the build's EncodedWriter with event
 * ids), its bytes' length. A build with `Utf8Out` (stream/utf8-out.ts) writes each slice as door-answer.ts
 * does: a hot fragment as bytes, any other record's text into the same buffer, copied out once; a build
 * without it, each slice's text joined and made UTF-8. `mode` (that older way only): "full", "noutf8"
 * (joined, not made UTF-8) or "nojoin" (the encoder, writer and sealing step alone).
 */
export async function answerLoop({ EncodedWriter, Utf8Out }, encoding, events, mode = "full") {
  const context = { id: "0123456789abcdef0123456789abcdef", meta: null, after: null, ids: true, resumeAfter: -1 };
  const writer = new EncodedWriter(encoding, context);
  const step = encoding.sealing?.(context);
  const out = Utf8Out && mode === "full" ? new Utf8Out() : null;
  let bytes = 0;
  for (let s = 0; s < events.length; s += SLICE) {
    const texts = [];
    for (let n = s; n < Math.min(s + SLICE, events.length); n++) {
      let event = step ? step(events[n]) : events[n];
      if (event instanceof Promise) event = await event;
      if (out && writer.into(event, n, out)) continue;
      let text = writer.write(event, false, n);
      if (typeof text !== "string") text = await text;
      if (!text) continue;
      if (out) out.text(text);
      else texts.push(text);
    }
    if (out) bytes += out.take().length;
    else bytes += mode === "nojoin" ? texts.length : mode === "noutf8" ? texts.join("").length : utf8.encode(texts.join("")).length;
  }
  if (writer.ended()) bytes += utf8.encode(writer.take(null)).length;
  writer.dispose();
  return bytes;
}
