// snapshot(): the message as it streams, with tool arguments filling in through PartialJsonParser.
import { MessageAssemblerStream, UniEventBatchStream, UniEventStream, fromFetch, fromResponse, type MessageSnapshot } from "../../dist/index.js";
import { assert, assertEqual, byteStream, utf8, valuesStream, type Case } from "../harness.ts";
import { referenceParse } from "../json-reference.ts";
import { AUDIO, AUDIO_BYTES, SEED_EXAMPLE, delta, inline, inlineDone, sse, stop, text, textDone, thinking, thinkingDone, tool, toolDone, USAGE } from "../fixtures.ts";

const SSE_HEADERS = { headers: { "content-type": "text/event-stream" } };

/** Base64 of `bytes` (web standard: btoa over a binary string). */
const b64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));

/**
 * Every snapshot a subscriber sees (one per event, taken in the listener, kept as is: not copied),
 * reading `body` through `stream`; also checks each is frozen and that asking again gives the same.
 */
async function subscribed(
  reader: { subscribe: (l: () => void) => () => void; snapshot: () => MessageSnapshot },
  drain: () => Promise<unknown>,
): Promise<MessageSnapshot[]> {
  const { subscribe, snapshot } = reader; // detached: both are bound
  const shots: MessageSnapshot[] = [];
  const unsubscribe = subscribe(() => {
    const s = snapshot();
    assert(snapshot() === s, "asked twice with no event between: the same object");
    assert(Object.isFrozen(s) && Object.isFrozen(s.content_items), "frozen");
    shots.push(s);
  });
  await drain();
  unsubscribe();
  return shots;
}

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
    shots.push(referenceParse(JSON.stringify(s, (_k, v) => (v instanceof Uint8Array ? Array.from(v) : v))));
  }
  return { shots, stream, same };
}

export const cases: Case[] = [
  ["snapshot: thinking grows, tool arguments fill in, then the done items", async () => {
    const { shots, stream, same } = await snapshots(sse(SEED_EXAMPLE));
    assert(!same, "a new object when something changed");
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
      const shot = referenceParse(JSON.stringify(stream.snapshot())) as any;
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
    const { timings, ...rest } = s.snapshot();
    assertEqual(rest, { role: "assistant", content_items: [], usage_metadata: null, finish_reason: null });
    assertEqual(timings, { firstByteAt: null, firstEventAt: null, firstContentAt: null, stopAt: null, characters: 0, charactersPerSecond: null });
    assert(utf8("x").length === 1);
  }],
  ["snapshot identity: a new object exactly when something changed; done items and unchanged parts keep theirs", async () => {
    const events = [
      delta(thinking("Let me")), delta(thinking(" see")), delta(thinking("")), delta(thinkingDone("Let me see")),
      delta(text("Hi")), delta(text("")), delta(text(" there", { sig: "1" })), delta(textDone("Hi there", { sig: "1" })),
      delta(tool("f", "t", '{"a": {"b": 1}, "c": "x')), delta(tool("", "", "y")), delta(tool("", "", '"}')), delta(toolDone("f", "t", { a: { b: 1 }, c: "xy" })),
      stop("tool_call"),
    ];
    const stream = new UniEventStream();
    const shots = await subscribed(stream, () => byteStream(sse(events).split(/(?<=\n\n)/)).pipeThrough(stream).pipeTo(new WritableStream()));
    assertEqual(shots.length, events.length, "the listener is called once per event");
    const items = shots.map((s) => s.content_items);
    // an empty fragment without fidelity changes nothing: the same snapshot
    assert(shots[2] === shots[1] && shots[5] === shots[4], "nothing changed: the same snapshot");
    for (const i of [0, 1, 3, 4, 6, 7, 8, 9, 10, 11, 12]) assert(shots[i] !== shots[i - 1], `event ${i} changed the snapshot`);
    assert(items[1]![0] !== items[0]![0] && items[1] !== items[0], "the open item is a new object when it grows, in a new array");
    assertEqual(items[1]![0], { type: "thinking.done", partial: true, thinking: "Let me see" });
    assert(Object.isFrozen(items[1]![0]), "the open item is frozen");
    const thought = items[3]![0];
    for (const list of items.slice(3)) assert(list[0] === thought, "a done item keeps its identity ever after");
    assertEqual(items[6]![1], { type: "text.done", partial: true, text: "Hi there", fidelity: { sig: "1" } });
    assert(items[7]![1] !== items[6]![1] && items[7]![1]!.partial === undefined, "the done item replaces the open one");
    const args = items.slice(8, 11).map((l) => (l[2] as any).arguments);
    assertEqual(args, [{ a: { b: 1 }, c: "x" }, { a: { b: 1 }, c: "xy" }, { a: { b: 1 }, c: "xy" }]);
    assert(args[1] !== args[0] && args[1].a === args[0].a, "tool arguments: a new object as they grow, the closed parts shared");
    assert(shots[12]!.content_items === shots[11]!.content_items && shots[12]!.usage_metadata !== null, "the stop event: new usage, the same items");
    assertEqual(shots[0]!.usage_metadata, null);
    assert(stream.snapshot() === shots[12], "after the end: the last snapshot, unchanged");
    assertEqual(stream.snapshot().content_items, (await stream.message).content_items);
  }],
  ["snapshot bytes: views of one growing buffer, earlier snapshots' bytes unchanged", async () => {
    const chunks = Array.from({ length: 12 }, (_, i) => Uint8Array.from({ length: 300 }, (_, j) => (i * 31 + j) & 255));
    const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    chunks.reduce((o, c) => (all.set(c, o), o + c.length), 0);
    const events = [delta(text("see:")), delta(textDone("see:")), ...chunks.map((c) => delta(inline(b64(c), "audio/wav"))), delta(inlineDone(b64(all), "audio/wav")), stop()];
    const stream = new UniEventStream();
    const shots = await subscribed(stream, () => byteStream(sse(events).split(/(?<=\n\n)/)).pipeThrough(stream).pipeTo(new WritableStream()));
    const views = shots.slice(2, 2 + chunks.length).map((s) => (s.content_items[1] as { data: Uint8Array }).data);
    views.forEach((v, i) => assertEqual(Array.from(v), Array.from(all.subarray(0, 300 * (i + 1))), `view ${i} still holds the bytes so far`));
    assert(views[1]!.buffer === views[0]!.buffer, "a view of the same buffer while it has room (no copy per event)");
    assert(views.some((v, i) => i > 0 && v.buffer !== views[i - 1]!.buffer), "the buffer grows (doubling) as the item does");
  }],
  ["subscribe and snapshot on every reader: detached, per change, unsubscribed", async () => {
    const events = [delta(text("a")), delta(text("b")), delta(textDone("ab")), stop()];
    const body = sse(events);
    const expect = (shots: MessageSnapshot[], what: string): void => {
      assertEqual(shots.length, events.length, `${what}: one call per event`);
      assertEqual(shots.map((s) => (s.content_items[0] as any)?.text), ["a", "ab", "ab", "ab"], what);
      assertEqual(shots[3]!.finish_reason, "stop", what);
    };
    const batch = new UniEventBatchStream();
    expect(await subscribed(batch, () => byteStream(body.split(/(?<=\n\n)/)).pipeThrough(batch).pipeTo(new WritableStream())), "UniEventBatchStream");
    const assembler = new MessageAssemblerStream();
    expect(await subscribed(assembler, () => valuesStream(events as any[]).pipeThrough(assembler).pipeTo(new WritableStream())), "MessageAssemblerStream");
    const produced = new MessageAssemblerStream({ mode: "assemble" });
    const fragments = [delta(text("a")), delta(text("b")), stop()];
    const made = await subscribed(produced, () => valuesStream(fragments as any[]).pipeThrough(produced).pipeTo(new WritableStream()));
    assertEqual(made.map((s) => (s.content_items[0] as any)?.partial ?? false), [true, true, false, false], "assemble mode: the output's snapshots");
    const response = fromResponse(new Response(body, SSE_HEADERS));
    expect(await subscribed(response, () => response.message), "fromResponse");
    const fetched = fromFetch("https://example.test/v1", {}, { fetch: async () => new Response(body, SSE_HEADERS) });
    expect(await subscribed(fetched, () => fetched.message), "fromFetch");
    // after unsubscribing, the listener is not called again
    const s = new UniEventStream();
    let calls = 0;
    const off = s.subscribe(() => void calls++);
    const w = s.writable.getWriter();
    const r = s.readable.getReader();
    w.write(utf8(sse([events[0]!], false))).catch(() => {});
    await r.read();
    off();
    w.write(utf8(sse(events.slice(1)))).catch(() => {});
    w.close().catch(() => {}); // (the [DONE] completed the stream)
    while (!(await r.read()).done);
    assertEqual(calls, 1, "no call after unsubscribing");
    assertEqual((s.snapshot().content_items[0] as any).text, "ab");
  }],
  ["snapshot: a refused response has an empty, frozen snapshot and a subscribe that is never called", async () => {
    const r = fromResponse(new Response("{}", { status: 500 }));
    let calls = 0;
    r.subscribe(() => void calls++);
    await r.message.catch(() => {});
    assert(Object.isFrozen(r.snapshot()) && r.snapshot() === r.snapshot(), "frozen, the same object");
    assertEqual([r.snapshot().content_items.length, calls], [0, 0]);
  }],
  ["timings: first byte, first event, first content, stop, characters per second, on the client's clock", async () => {
    const chunks = [": hi\n\n", sse([delta(thinking("Hmm"))], false), sse([delta(thinkingDone("Hmm")), delta(text("Hel"))], false), sse([delta(text("lo")), delta(textDone("Hello")), delta(tool("f", "t", '{"a":1}')), delta(toolDone("f", "t", { a: 1 })), stop("tool_call")])];
    const body = (): ReadableStream<Uint8Array> => {
      let i = 0;
      return new ReadableStream({ pull: async (c) => {
        await new Promise((r) => setTimeout(r, 5));
        if (i < chunks.length) c.enqueue(utf8(chunks[i++]!));
        else c.close();
      } });
    };
    const stream = new UniEventStream();
    const seen: (number | null)[] = [];
    stream.subscribe(() => void seen.push(stream.snapshot().timings.firstEventAt));
    await body().pipeThrough(stream).pipeTo(new WritableStream());
    const t = stream.timings;
    assert(Object.isFrozen(t) && t === stream.timings && t === stream.snapshot().timings, "frozen, the same object while nothing changed, also on the snapshot");
    const { firstByteAt, firstEventAt, firstContentAt, stopAt } = t;
    assert(firstByteAt !== null && firstEventAt !== null && firstContentAt !== null && stopAt !== null, `all stamped: ${JSON.stringify(t)}`);
    assert(firstByteAt <= firstEventAt && firstEventAt <= firstContentAt && firstContentAt <= stopAt, `in order: ${JSON.stringify(t)}`);
    assertEqual(t.characters, "Hmm".length + "Hello".length + '{"a":1}'.length);
    assertEqual(t.charactersPerSecond, stopAt > firstEventAt ? (t.characters * 1000) / (stopAt - firstEventAt) : null);
    assert(seen.length > 0 && seen.every((x) => x === firstEventAt), "a listener called mid-chunk sees the first event stamped already");
    // the same figures from every reader (stamped by their own clocks)
    const response = fromResponse(new Response(body(), SSE_HEADERS));
    await response.message;
    assertEqual(response.timings.characters, t.characters, "fromResponse");
    const fetched = fromFetch("https://example.test/v1", {}, { fetch: async () => new Response(body(), SSE_HEADERS) });
    await fetched.message;
    assert(fetched.timings.stopAt !== null && fetched.timings.firstContentAt !== null, "fromFetch");
    assertEqual(fetched.timings.characters, t.characters, "fromFetch");
    const batch = new UniEventBatchStream();
    await body().pipeThrough(batch).pipeTo(new WritableStream());
    assertEqual([batch.timings.characters, batch.timings.stopAt !== null], [t.characters, true], "UniEventBatchStream");
    const produced = new MessageAssemblerStream({ mode: "assemble" });
    await valuesStream([delta(thinking("ab")), delta(text("cde")), stop()] as any[]).pipeThrough(produced).pipeTo(new WritableStream());
    assertEqual([produced.timings.characters, produced.timings.stopAt !== null, produced.timings.firstContentAt !== null], [5, true, true], "assemble mode");
    const refused = fromResponse(new Response("{}", { status: 500 }));
    await refused.message.catch(() => {});
    assertEqual(refused.timings.firstByteAt, null, "a refused response reads no stream");
  }],
  ["timings: a thinking-only start has no first content yet; the first byte is stamped before any event", async () => {
    const stream = new UniEventStream();
    const w = stream.writable.getWriter();
    const r = stream.readable.getReader();
    w.write(utf8(": keep-alive\n\n")).catch(() => {});
    w.write(utf8(sse([delta(thinking("x"))], false))).catch(() => {});
    await r.read();
    const t = stream.timings;
    assert(t.firstByteAt !== null && t.firstEventAt !== null && t.firstByteAt <= t.firstEventAt, JSON.stringify(t));
    assertEqual([t.firstContentAt, t.stopAt, t.characters], [null, null, 1]);
    w.abort().catch(() => {});
    r.cancel().catch(() => {});
  }],
];
