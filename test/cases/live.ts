// snapshot(): the message as it streams, with tool arguments filling in through PartialJsonParser.
import { MessageAssemblerStream, UniEventStream, fromResponse } from "../../dist/index.js";
import { assert, assertEqual, byteStream, utf8, type Case } from "../harness.ts";
import { AUDIO, AUDIO_BYTES, SEED_EXAMPLE, delta, sse, stop, text, textDone, tool, toolDone, USAGE } from "../fixtures.ts";

/** Reads event by event, taking a (copied) snapshot after each. */
async function snapshots(body: string): Promise<{ shots: any[]; stream: UniEventStream; same: boolean }> {
  const stream = new UniEventStream();
  const reader = byteStream(body.split(/(?<=\n\n)/)).pipeThrough(stream).getReader();
  const shots: any[] = [];
  let same = true;
  let first: unknown;
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    const s = stream.snapshot();
    first ??= s;
    same &&= s === first;
    shots.push(JSON.parse(JSON.stringify(s, (_k, v) => (v instanceof Uint8Array ? Array.from(v) : v))));
  }
  return { shots, stream, same };
}

export const cases: Case[] = [
  ["snapshot: thinking grows, tool arguments fill in, then the done items", async () => {
    const { shots, stream, same } = await snapshots(sse(SEED_EXAMPLE));
    assert(same, "the same live object every time");
    assertEqual(shots[0].content_items, [{ type: "thinking.done", partial: true, thinking: "Let me" }]);
    assertEqual(shots[1].content_items[0].thinking, "Let me check");
    assertEqual(shots[2].content_items[0].fidelity, { signature: "sig-1" });
    assertEqual(shots[3].content_items, [{ type: "thinking.done", thinking: "Let me check", fidelity: { signature: "sig-1" } }]);
    assertEqual(shots[4].content_items[1], { type: "tool_call.done", partial: true, name: "get_weather", tool_call_id: "toolu_1", arguments: {} });
    assertEqual(shots[5].content_items[1].arguments, {}, "a key whose value has not started is left out");
    assertEqual(shots[6].content_items[1].arguments, { location: "Paris" });
    assertEqual(shots[7].content_items[1], { type: "tool_call.done", name: "get_weather", tool_call_id: "toolu_1", arguments: { location: "Paris" } });
    assertEqual(shots[7].usage_metadata, null);
    assertEqual(shots[8].usage_metadata, USAGE);
    assertEqual(shots[8].finish_reason, "tool_call");
    const message = await stream.message;
    assertEqual(stream.snapshot().content_items, message.content_items);
  }],
  ["snapshot: an open string argument shows its prefix", async () => {
    const events = [delta(tool("f", "t", '{"q": "Par')), delta(tool("", "", 'is", "n": 1')), delta(tool("", "", "2}")), delta(toolDone("f", "t", { q: "Paris", n: 12 })), stop("tool_call")];
    const { shots } = await snapshots(sse(events));
    assertEqual(shots[0].content_items[0].arguments, { q: "Par" });
    assertEqual(shots[1].content_items[0].arguments, { q: "Paris", n: 1 });
    assertEqual(shots[2].content_items[0].arguments, { q: "Paris", n: 12 });
  }],
  ["snapshot: media bytes grow without copying the message per chunk", async () => {
    const { shots } = await snapshots(sse(AUDIO));
    assertEqual(shots[2].content_items[1].data, Array.from(AUDIO_BYTES.subarray(0, 4)));
    assertEqual(shots[3].content_items[1].data, Array.from(AUDIO_BYTES.subarray(0, 7)));
    assertEqual(shots[4].content_items[1].data, Array.from(AUDIO_BYTES));
    assertEqual(shots[5].content_items[1].partial, undefined);
  }],
  ["snapshot: also on MessageAssemblerStream, and in drain mode", async () => {
    const assembler = new MessageAssemblerStream();
    const events = [delta(text("a")), delta(text("b"))];
    const w = assembler.writable.getWriter();
    const r = assembler.readable.getReader();
    w.write(events[0] as any);
    await r.read();
    assertEqual(assembler.snapshot().content_items, [{ type: "text.done", partial: true, text: "a" }]);
    w.write(events[1] as any);
    await r.read();
    assertEqual((assembler.snapshot().content_items[0] as any).text, "ab");
    const s = new UniEventStream();
    byteStream([sse([delta(text("x")), delta(textDone("x")), stop()])]).pipeThrough(s);
    await s.message;
    assertEqual(s.snapshot().content_items, [textDone("x")]);
  }],
  ["snapshot asked for the first time mid-item, or after the stop, starts from the state so far", async () => {
    const events = [delta(text("Hi", { s: "1" })), delta(textDone("Hi", { s: "1" })), delta(tool("f", "t", '{"a": [1, ')), delta(tool("", "", "2")), delta(tool("", "", "]}")), delta(toolDone("f", "t", { a: [1, 2] })), stop("tool_call")];
    for (const firstAt of [1, 4, events.length]) {
      const stream = new UniEventStream();
      const reader = byteStream(sse(events).split(/(?<=\n\n)/)).pipeThrough(stream).getReader();
      for (let i = 0; i < firstAt; i++) await reader.read();
      const shot = JSON.parse(JSON.stringify(stream.snapshot()));
      // (the reader may be an event ahead of what was read: compare what is settled either way)
      if (firstAt === 1) assertEqual([shot.content_items[0].text, shot.content_items[0].fidelity], ["Hi", { s: "1" }]);
      if (firstAt === 4) assertEqual([shot.content_items[1].name, shot.content_items[1].tool_call_id, shot.content_items[1].arguments.a.slice(0, 2)], ["f", "t", [1, 2]]);
      if (firstAt === events.length) assertEqual(shot.finish_reason, "tool_call");
      while (!(await reader.read()).done);
      assertEqual(stream.snapshot().content_items, (await stream.message).content_items);
    }
  }],
  ["fromResponse offers snapshot() too", async () => {
    const r = fromResponse(new Response(sse([delta(text("a")), delta(textDone("a")), stop()]), { headers: { "content-type": "text/event-stream" } }));
    await r.message;
    assertEqual(r.snapshot().content_items, [textDone("a")]);
  }],
  ["snapshot before any event is an empty message", () => {
    const s = new UniEventStream();
    assertEqual(s.snapshot(), { role: "assistant", content_items: [], usage_metadata: null, finish_reason: null });
    assert(utf8("x").length === 1);
  }],
];
