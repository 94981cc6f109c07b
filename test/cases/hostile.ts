// Hostile input and faults: limits, bad data, aborts, time-outs, cuts and mutations.
import fc from "fast-check";
import { holds } from "../property.ts";
import {
  MmspError, NdjsonDecoderStream, StreamLimitError, StreamProtocolError, UniEventStream, DEFAULT_LIMITS,
} from "../../dist/index.js";
import { assert, assertEqual, assertError, assertSame, byteStream, collectSettled, splitAt, trackedSource, utf8, type Case } from "../harness.ts";
import { SEED_EXAMPLE, delta, embedding, ndjson, sse, stop, text, textDone, thinking, tool, toolDone, type Json } from "../fixtures.ts";
import { read, readError } from "./read-helpers.ts";

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
}

export const cases: Case[] = [
  ["maxEventBytes: an endless line fails without reading the rest of the body", async () => {
    const head = utf8(sse([delta(text("a"))], false) + 'data: {"x":"');
    const filler = utf8("y".repeat(256));
    const { stream, state } = trackedSource([head, ...Array.from({ length: 1000 }, () => filler)]);
    const ues = new UniEventStream({ maxEventBytes: 1024 });
    const r = await collectSettled(stream.pipeThrough(ues));
    assertEqual(r.values.length, 1, "the event before it was delivered");
    assertError(r.error, StreamLimitError, { limit: "maxEventBytes", value: 1024, rule: "LIMIT", eventIndex: 1, byteOffset: sse([delta(text("a"))], false).length });
    assert(state.pulls < 12, `read ${state.pulls} chunks of 1000`);
    await wait(1);
    assert(state.cancelled, "the source was cancelled");
  }],
  ["maxEventBytes counts bytes, not characters", async () => {
    const line = `data: ${JSON.stringify(delta(text("€".repeat(400))))}\n\n`; // ~1.3 KB, ~530 chars
    const { error } = await readError([line], { maxEventBytes: 1000 });
    assertError(error, StreamLimitError, { limit: "maxEventBytes" });
    const ok = await read(sse([delta(text("€".repeat(400))), delta(textDone("€".repeat(400))), stop()]), { maxEventBytes: 2000 });
    assertEqual(ok.error, undefined);
  }],
  ["maxEventBytes: NDJSON lines and the NDJSON stage", async () => {
    const body = ndjson([delta(text("x".repeat(2000)))]);
    const { error } = await readError(body, { format: "ndjson", maxEventBytes: 1000 });
    assertError(error, StreamLimitError, { limit: "maxEventBytes", value: 1000 });
    const r = await collectSettled(byteStream([body]).pipeThrough(new NdjsonDecoderStream({ maxEventBytes: 1000 })));
    assertError(r.error, StreamLimitError, { limit: "maxEventBytes" });
  }],
  ["maxEventBytes: a multi-line SSE event counts as a whole", async () => {
    const body = "data: {\n" + Array.from({ length: 50 }, () => `data: "${"k".repeat(40)}": 1,\n`).join("") + "data: }\n\n";
    const { error } = await readError(body, { maxEventBytes: 1000 });
    assertError(error, StreamLimitError, { limit: "maxEventBytes" });
  }],
  ["the default limits are safe and large enough for a 40 MiB image", async () => {
    assertEqual(DEFAULT_LIMITS.maxEventBytes >= Math.ceil((40 * 1024 * 1024) / 3) * 4 + 200, true);
    assert(DEFAULT_LIMITS.maxDepth >= 16 && DEFAULT_LIMITS.maxDepth <= 1000, "maxDepth");
  }],
  ["maxDepth: deep fidelity is refused", async () => {
    const { error } = await readError(sse([delta(text("a", { deep: nested(200) } as Json))]));
    assertError(error, StreamLimitError, { limit: "maxDepth", value: DEFAULT_LIMITS.maxDepth, eventIndex: 0 });
    const r = await read(sse([delta(text("a", { ok: nested(20) } as Json)), delta(textDone("a", { ok: nested(20) } as Json)), stop()]));
    assertEqual(r.error, undefined, "moderate nesting passes");
  }],
  ["maxDepth: deep tool arguments are refused when the call closes", async () => {
    const args = JSON.stringify({ a: nested(30) });
    const { error } = await readError(sse([delta(tool("f", "t", args)), delta(toolDone("f", "t", JSON.parse(args)))]), { maxDepth: 16 });
    assertError(error, StreamLimitError, { limit: "maxDepth", value: 16 });
  }],
  ["maxDepth: an event the schema accepts is bounded exactly as a whole-value walk bounds it (fidelity, arguments, unknown members)", async () => {
    const events: Json[] = [
      delta(text("a", { k: nested(3) } as Json)),
      { ...(delta(text("a")) as object), extra: nested(3) } as Json,
      delta({ ...(text("a") as object), extra: nested(2) } as Json),
      // a member named like an embedding's vector, on an item of another kind, is walked like any other
      delta({ ...(text("a") as object), embedding: nested(3) } as Json),
      delta(toolDone("f", "t", { a: nested(3) })),
      delta(embedding([1, 2])),
      delta({ type: "inline_data.delta", data: "AAAA", mime_type: "image/png" }),
      stop(),
    ];
    for (const event of events) {
      for (let maxDepth = 1; maxDepth <= 9; maxDepth++) {
        const line = JSON.stringify(event) + "\n";
        const whole = await collectSettled(byteStream([line]).pipeThrough(new NdjsonDecoderStream({ maxDepth })));
        const { error } = await read(line, { format: "ndjson", maxDepth });
        const limited = error instanceof StreamLimitError;
        assertEqual(limited, whole.error instanceof StreamLimitError, `${line.slice(0, 80)} at maxDepth ${maxDepth}`);
        if (limited) assertError(error, StreamLimitError, { limit: "maxDepth", value: maxDepth, eventIndex: 0 });
      }
    }
  }],
  ["maxDepth: the NDJSON stage bounds any value", async () => {
    const r = await collectSettled(byteStream([JSON.stringify({ deep: nested(100) }) + "\n"]).pipeThrough(new NdjsonDecoderStream({ maxDepth: 50 })));
    assertError(r.error, StreamLimitError, { limit: "maxDepth", value: 50 });
  }],
  ["maxItems: a message with too many items", async () => {
    const events = [1, 2, 3].flatMap((i) => [delta(text(`t${i}`)), delta(textDone(`t${i}`))]).concat([stop()]);
    const { error, events: got } = await readError(sse(events), { maxItems: 2 });
    assertError(error, StreamLimitError, { limit: "maxItems", value: 2, eventIndex: 4 });
    assertEqual(got.length, 4);
    assertEqual((await read(sse(events), { maxItems: 3 })).error, undefined);
  }],
  ["a limit must be a positive number", async () => {
    const e = await (async () => { try { new UniEventStream({ maxDepth: -1 }); } catch (x) { return x; } })();
    assert(e instanceof RangeError, "RangeError");
  }],
  ["__proto__, constructor and prototype keys stay data: no prototype pollution", async () => {
    const raw = '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "prototype": 1}';
    const fid = JSON.parse('{"__proto__": {"polluted": true}, "sig": "x"}');
    const events = [delta(text("a", fid)), delta(textDone("a", fid)), delta(tool("f", "t", raw)), delta(toolDone("f", "t", JSON.parse(raw))), stop()];
    const r = await read(sse(events));
    assertEqual(r.error, undefined);
    const args = r.message.content_items[1].arguments;
    assertEqual(Object.keys(args), ["__proto__", "constructor", "prototype"]);
    assertEqual(Object.getPrototypeOf(args), Object.prototype);
    assertEqual(Object.prototype.hasOwnProperty.call(r.message.content_items[0].fidelity, "__proto__"), true);
    assertEqual(({} as any).polluted, undefined);
    assertEqual((Object.prototype as any).polluted, undefined);
    // a different __proto__ value in the .done is a mismatch, not silently equal
    const bad = [delta(tool("f", "t", raw)), delta(toolDone("f", "t", JSON.parse('{"__proto__": {"polluted": false}, "constructor": {"prototype": {"polluted": true}}, "prototype": 1}')))];
    assertError((await readError(sse(bad))).error, StreamProtocolError, { rule: "DONE-CONTENT" });
  }],
  ["usage counts: negative, fractional, huge or strings are SCHEMA errors", async () => {
    for (const bad of [-1, 0.5, 1e300, 2 ** 53, "5"]) {
      const usage = { cached_tokens: 0, prompt_tokens: bad, thoughts_tokens: null, response_tokens: 1 };
      const { error } = await readError(sse([delta(text("a")), delta(textDone("a")), stop("stop", usage)]));
      assertError(error, StreamProtocolError, { rule: "SCHEMA", eventIndex: 2 });
    }
  }],
  ["unknown item kinds: an error by default, skipped and reported with unknownItems: skip", async () => {
    const events = [delta(text("a")), delta(textDone("a")), delta({ type: "hologram.delta", voxels: "AA==" }), delta({ type: "hologram.done", voxels: "AA==" }), stop()];
    assertError((await readError(sse(events))).error, StreamProtocolError, { rule: "KIND", eventIndex: 2 });
    const warnings: any[] = [];
    const r = await read(sse(events), { unknownItems: "skip", onWarning: (w) => warnings.push(w) });
    assertEqual(r.error, undefined);
    assertEqual(r.events.length, 3);
    assertEqual(r.message.content_items, [textDone("a")]);
    assertEqual(warnings.map((w) => [w.type, w.itemType, w.eventIndex]), [["unknown-item", "hologram.delta", 2], ["unknown-item", "hologram.done", 3]]);
    // a users-only item is not a future kind: still an error
    assertError((await readError(sse([delta({ type: "image_url.done", image_url: "x" })]), { unknownItems: "skip" })).error, StreamProtocolError, { rule: "KIND" });
  }],
  ["signal: abort errors the readable with the reason and cancels the source", async () => {
    const chunks = SEED_EXAMPLE.map((e) => utf8(sse([e], false)));
    const { stream, state } = trackedSource(chunks, { stallAfter: 3 });
    const ac = new AbortController();
    const ues = new UniEventStream({ signal: ac.signal });
    const reader = stream.pipeThrough(ues).getReader();
    await reader.read();
    const reason = new Error("user pressed stop");
    ac.abort(reason);
    let err: unknown;
    try { for (;;) if ((await reader.read()).done) break; } catch (e) { err = e; }
    assertEqual(err, reason);
    assertEqual(await ues.message.then(() => undefined, (e) => e), reason);
    await wait(1);
    assert(state.cancelled, "the source was cancelled");
  }],
  ["signal: an already aborted signal fails at once", async () => {
    const ac = new AbortController();
    ac.abort(new Error("too late"));
    const r = await read(sse(SEED_EXAMPLE), { signal: ac.signal });
    assertEqual((r.error as Error).message, "too late");
  }],
  ["idleTimeoutMs: a silent source fails with StreamLimitError and is cancelled", async () => {
    const { stream, state } = trackedSource([utf8(sse([delta(text("a"))], false))], { stallAfter: 1 });
    const ues = new UniEventStream({ idleTimeoutMs: 30 });
    const r = await collectSettled(stream.pipeThrough(ues));
    assertEqual(r.values.length, 1);
    assertError(r.error, StreamLimitError, { limit: "idleTimeoutMs", value: 30, rule: "LIMIT" });
    await wait(1);
    assert(state.cancelled, "the source was cancelled");
  }],
  ["idleTimeoutMs: keep-alives count as input; a slow reader does not count", async () => {
    let n = 0;
    const source = new ReadableStream<Uint8Array>({
      async pull(c) {
        await wait(60); // four keep-alives: 300 ms in all before the data, more than the time-out
        n++;
        if (n <= 4) c.enqueue(utf8(": keep-alive\n\n"));
        else {
          c.enqueue(utf8(sse([delta(text("a")), delta(textDone("a")), stop()])));
          c.close();
        }
      },
    }, { highWaterMark: 0 });
    const ues = new UniEventStream({ idleTimeoutMs: 250 }); // wide margins: a busy CI machine delays timers
    const reader = source.pipeThrough(ues).getReader();
    const first = await reader.read();
    await wait(500); // the reader dawdles longer than the time-out
    let count = first.done ? 0 : 1;
    while (!(await reader.read()).done) count++;
    assertEqual(count, 3);
    assertEqual((await ues.message).content_items, [textDone("a")]);
  }],
  ["a cut at every byte offset: typed error before the stop event, the full message once it is reached", async () => {
    for (const format of ["sse", "ndjson"] as const) {
      const events = [delta(thinking("é")), delta({ type: "thinking.done", thinking: "é" }), delta(text("€😀")), delta(textDone("€😀")), stop()];
      const body = utf8(format === "sse" ? sse(events) : ndjson(events));
      const stopJson = utf8(JSON.stringify(events[events.length - 1]));
      const whole = new TextDecoder().decode(body);
      const stopEnd = utf8(whole.slice(0, whole.lastIndexOf(JSON.stringify(events[events.length - 1])))).length + stopJson.length;
      for (let cut = 0; cut <= body.length; cut++) {
        const r = await read([body.subarray(0, cut)], { format });
        if (cut >= stopEnd) {
          assertEqual(r.error, undefined, `${format} cut at ${cut}/${body.length}`);
          assertEqual(r.message?.content_items?.length, 2, `${format} cut at ${cut}`);
        } else {
          assert(r.error instanceof MmspError, `${format} cut at ${cut}: ${String(r.error)}`);
          assertSame(r.messageError, r.error, "message rejects with the readable's error");
        }
      }
    }
  }],
  ["fuzz: mutated streams always end with a typed error or a valid message", async () => {
    const base = [...SEED_EXAMPLE];
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
      fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("dup" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("swap" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("huge" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("byte" as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    );
    await holds(
      fc.asyncProperty(fc.constantFrom("sse", "ndjson"), fc.array(mutation, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 5 }), async (format, muts, cuts) => {
        let events: Json[] = [...base];
        let extra = "";
        for (const m of muts) {
          const i = m.at % events.length;
          if (m.kind === "dup") events.splice(i, 0, events[i]!);
          if (m.kind === "swap" && i + 1 < events.length) [events[i], events[i + 1]] = [events[i + 1]!, events[i]!];
          if (m.kind === "huge") extra = "x".repeat(5000);
        }
        let bytes = utf8((format === "sse" ? sse(events) : ndjson(events)).replace('"Let me"', extra ? `"${extra}"` : '"Let me"'));
        for (const m of muts) {
          if (m.kind === "flip") { bytes = bytes.slice(); const i = m.at % bytes.length; bytes[i] = bytes[i]! ^ (1 << m.bit); }
          if (m.kind === "byte") { bytes = bytes.slice(); bytes[m.at % bytes.length] = m.value; }
          if (m.kind === "cut") bytes = bytes.subarray(0, m.at % (bytes.length + 1));
        }
        const stream = new UniEventStream({ format, maxEventBytes: 4096 });
        const outcome = Promise.all([collectSettled(byteStream(splitAt(bytes, cuts.map((c) => c % Math.max(1, bytes.length)))).pipeThrough(stream)), stream.message.then((m) => m, (e) => e)]);
        const timeout = new Promise<"hang">((r) => setTimeout(() => r("hang"), 2000));
        const result = await Promise.race([outcome, timeout]);
        assert(result !== "hang", "the reader ended");
        const [{ error }, message] = result;
        if (error !== undefined) assert(error instanceof MmspError, `typed error, got ${String(error)}`);
        else assert(!(message instanceof Error) && Array.isArray(message.content_items), "a valid message");
      }),
      { numRuns: 150 },
    );
  }],
];
