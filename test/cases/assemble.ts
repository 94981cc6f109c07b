// Assemble mode (SPEC §5): bare fragments in, the public stream out. Every rule of §5 with its exact
// wording, through MessageAssemblerStream (UniEvents in) and UniEventStream (bytes in).
import {
  EmptyResponseError, MessageAssemblerStream, MmspError, StreamLimitError, StreamProtocolError, ToolCallArgumentParseError,
  UniEventStream, UpstreamError,
} from "../../dist/index.js";
import { assert, assertEqual, assertError, byteStream, collectSettled, settle, utf8, valuesStream, type Case } from "../harness.ts";
import {
  deltaItem, deltaOf, embedding, inline, stopOf, text, textDone, thinking, thinkingDone, tool, toolDone, unstamp, USAGE, withId, type Json,
} from "../fixtures.ts";


const PREFIX = "upstream broke the streaming protocol: ";

// ---- builders: the shared ones (fixtures.ts), named for the input (bare fragments, item ids) and the output ----

const ev = deltaOf;
const stopPiece = stopOf;
const tx = (t: string, id?: string, f?: Json): Json => withId(text(t), id, f);
const th = (t: string, id?: string, f?: Json): Json => withId(thinking(t), id, f);
const tc = (name: string, callId: string, args: string, id?: string, f?: Json): Json => withId(tool(name, callId, args), id, f);
const bytes = (...b: number[]) => new Uint8Array(b);
const inl = (data: Uint8Array, mime: string, id?: string, f?: Json, kind = "inline_data"): Json => withId(inline(data, mime, kind), id, f);
const emb = (v: number[], id?: string): Json => withId(embedding(v), id);
const out = deltaItem;
const outStop = (usage: Json = USAGE, finish = "stop", createdAt?: number): Json => stopOf(usage, finish, createdAt);
const T = text;
const TD = textDone;
const H = thinking;
const HD = thinkingDone;
const C = tool;
const CD = toolDone;

const STOP = stopPiece(USAGE, "stop");

interface Assembled {
  events: any[];
  error: any;
  message: any;
  messageError: any;
}

/** `collectSettled` of an assembling stream, its stamped `created_at` checked and dropped (see `unstamp`). */
async function collectStamped(readable: ReadableStream<any>): Promise<{ values: any[]; error: any }> {
  const t0 = Date.now();
  const r = await collectSettled(readable);
  unstamp(r.values, undefined, t0);
  return r;
}

/** Runs input events through MessageAssemblerStream in assemble mode. */
async function assemble(input: Json[], client?: string): Promise<Assembled> {
  const t0 = Date.now();
  const stream = new MessageAssemblerStream({ mode: "assemble", ...(client ? { client } : {}) });
  const { events, error, message, messageError } = await settle(valuesStream(input as any[]).pipeThrough(stream), stream.message);
  if (error !== messageError) throw new Error(`message rejected with ${String(messageError)}, the readable with ${String(error)}`);
  unstamp(events, message, t0);
  return { events, error, message, messageError };
}

async function assembleOk(input: Json[]): Promise<Assembled> {
  const r = await assemble(input);
  if (r.error) throw r.error;
  return r;
}

/** Expects a StreamProtocolError with exactly `detail`, the rule, the index, and what came before. */
async function refused(input: Json[], detail: string, rule: string, eventIndex: number, before: Json[]): Promise<any> {
  const r = await assemble(input);
  assertError(r.error, StreamProtocolError, { message: PREFIX + detail, detail, client: "upstream", rule, eventIndex });
  assert(typeof r.error.preview === "string" && r.error.preview.length > 0, "a preview of the bad input");
  assertEqual(r.events, before, "what was emitted before the error");
  return r.error;
}

const doneItems = (events: any[]): Json[] =>
  events.filter((e) => e.event_type === "delta" && e.content_items[0].type.endsWith(".done")).map((e) => e.content_items[0]);

/** base64 of bytes, for wire input. */
const b64 = (b: Uint8Array): string => btoa(String.fromCharCode(...b));

export const cases: Case[] = [
  ["events from your own source: an end without a stop event is placed after the last event taken, which it previews (validate and assemble mode)", async () => {
    for (const mode of ["validate", "assemble"] as const) {
      const input = [ev([{ type: "text.delta", text: "first" }]), ev([{ type: "text.delta", text: "last one" }])];
      const { error } = await collectSettled(valuesStream(input as any[]).pipeThrough(new MessageAssemblerStream({ mode })));
      assertError(error, MmspError, { eventIndex: 2 }); // (validate: STOP-LAST; assemble: no usage came)
      const preview = (error as MmspError).preview!;
      assert(preview.startsWith("<end of input after> ") && preview.includes("last one") && !preview.includes("first"), `${mode}: ${preview}`);
    }
  }],
  ["several fragments per event become one event each; each item closes with its .done; one stop", async () => {
    const r = await assembleOk([
      ev([th("Let me", undefined), th(" check")], 100),
      ev([th("", undefined, { signature: "s1" }), tx("Hel"), tx("lo")], 200),
      ev([], 250),
      stopPiece(USAGE, "stop", 300),
    ]);
    assertEqual(r.events, [
      out(H("Let me"), 100),
      out(H(" check"), 100),
      out(H("", { signature: "s1" }), 200),
      out(HD("Let me check", { signature: "s1" }), 200),
      out(T("Hel"), 200),
      out(T("lo"), 200),
      out(TD("Hello"), 300),
      outStop(USAGE, "stop", 300),
    ]);
    assertEqual(r.message, {
      role: "assistant", content_items: [HD("Let me check", { signature: "s1" }), TD("Hello")],
      usage_metadata: USAGE, finish_reason: "stop", created_at: 300,
    });
  }],
  ["created_at: a delta keeps its input event's; a .done takes the closing event's, or at the end the last stop piece's", async () => {
    const r = await assembleOk([ev([tx("a")], 10), ev([th("b")], 20), ev([tx("c")]), stopPiece({ prompt_tokens: 1 }, null, 30), stopPiece(null, "stop", 40), ev([])]);
    assertEqual(r.events.map((e) => [e.content_items[0]?.type ?? "stop", e.created_at]), [
      ["text.delta", 10], ["text.done", 20], ["thinking.delta", 20], ["thinking.done", undefined], ["text.delta", undefined],
      ["text.done", 40], ["stop", 40],
    ]);
    // no created_at anywhere: none is made up
    const bare = await assembleOk([ev([tx("a")]), stopPiece(USAGE, "stop")]);
    assertEqual(bare.events, [out(T("a")), out(TD("a")), outStop()]);
    assertEqual("created_at" in bare.message, false);
  }],
  ["fidelity.item_id names items and is stripped on the way out (a fidelity of only an id goes away)", async () => {
    const r = await assembleOk([
      ev([tx("a", "m1"), tx("b", "m1", { phase: "final" }), tx("c")]),
      ev([tx("d", "m2"), tx("e", "m2")]),
      STOP,
    ]);
    assertEqual(r.events, [
      out(T("a")), out(T("b", { phase: "final" })), out(T("c")), out(TD("abc", { phase: "final" })),
      out(T("d")), out(T("e")), out(TD("de")), outStop(),
    ]);
    assert(!JSON.stringify(r.events).includes("item_id"), "no item_id on the output");
  }],
  ["a new item begins when the kind differs", async () => {
    const r = await assembleOk([ev([tx("a"), th("b"), tx("c")]), STOP]);
    assertEqual(doneItems(r.events), [TD("a"), HD("b"), TD("c")]);
  }],
  ["a new item begins when both fragments have an item_id and the ids differ (a fragment without one continues)", async () => {
    const r = await assembleOk([ev([tx("a", "x"), tx("b"), tx("c", "x"), tx("d", "y"), th("t"), th("u", "z"), th("v", "w")]), STOP]);
    assertEqual(doneItems(r.events), [TD("abc"), TD("d"), HD("tu"), HD("v")]);
  }],
  ["an item without an id adopts the first id one of its fragments carries", async () => {
    const r = await assembleOk([ev([tx("a"), tx("b", "k"), tx("c", "k"), tx("d", "other")]), STOP]);
    assertEqual(doneItems(r.events), [TD("abc"), TD("d")]);
  }],
  ["tool_call.delta with a non-empty name begins a call; arguments parsed; \"\" counts as {}", async () => {
    const r = await assembleOk([
      ev([tc("get_weather", "toolu_1", ""), tc("", "", '{"location": '), tc("", "", '"Paris"}')]),
      ev([tc("noop", "toolu_2", "")]),
      ev([tc("lookup", "call_9", '{"q": "naïve ☃", "n": [1, 2.5]}')]),
      stopPiece(USAGE, "tool_call"),
    ]);
    assertEqual(r.events, [
      out(C("get_weather", "toolu_1", "")), out(C("", "", '{"location": ')), out(C("", "", '"Paris"}')),
      out(CD("get_weather", "toolu_1", { location: "Paris" })),
      out(C("noop", "toolu_2", "")), out(CD("noop", "toolu_2", {})),
      out(C("lookup", "call_9", '{"q": "naïve ☃", "n": [1, 2.5]}')), out(CD("lookup", "call_9", { q: "naïve ☃", n: [1, 2.5] })),
      outStop(USAGE, "tool_call"),
    ]);
  }],
  ["a tool call's later fragments go out with name and tool_call_id blanked, whatever the input repeated", async () => {
    const r = await assembleOk([ev([tc("f", "c1", '{"a"'), tc("", "c1", ":1}")]), stopPiece(USAGE, "tool_call")]);
    assertEqual(r.events, [out(C("f", "c1", '{"a"')), out(C("", "", ":1}")), out(CD("f", "c1", { a: 1 })), outStop(USAGE, "tool_call")]);
  }],
  ["a malformed tool call fails only when its item closes: when the next item begins", async () => {
    const r = await assemble([
      ev([tx("Checking.")], 1),
      ev([tc("f", "t1", "{x:")], 2),
      ev([tc("", "", "1")], 3),
      ev([tx("after")], 4),
      STOP,
    ]);
    assertEqual(r.events, [out(T("Checking."), 1), out(TD("Checking."), 2), out(C("f", "t1", "{x:"), 2), out(C("", "", "1"), 3)]);
    assertError(r.error, ToolCallArgumentParseError, {
      client: "upstream", toolName: "f", toolCallId: "t1", rawArgumentsLength: 4, rawArgumentsPreview: "{x:1",
      rule: "DONE-CONTENT", eventIndex: 3,
    });
    assert(r.error.message.startsWith('Invalid streamed tool call arguments from upstream for tool "f" (tool_call_id="t1", length=4, preview="{x:1"): '), r.error.message);
  }],
  ["a tool call that parses to a non-object fails with \"Expected a JSON object.\" (at the end of the input too)", async () => {
    for (const args of ["[1]", '"s"', "3", "true", "null"]) {
      const r = await assemble([ev([tx("a"), tc("f", "t1", args)]), stopPiece(USAGE, "tool_call")]);
      assertEqual(r.events, [out(T("a")), out(TD("a")), out(C("f", "t1", args))]);
      assertError(r.error, ToolCallArgumentParseError, { toolName: "f", eventIndex: 2 });
      assertEqual(r.error.message, `Invalid streamed tool call arguments from upstream for tool "f" (tool_call_id="t1", length=${args.length}, preview=${JSON.stringify(args)}): Expected a JSON object.`);
    }
  }],
  ["a long malformed argument text is previewed as 72 + ...[truncated]... + 72", async () => {
    const raw = '{"k": "' + "é".repeat(200);
    const r = await assemble([ev([tc("f", "t1", raw.slice(0, 50)), tc("", "", raw.slice(50))]), STOP]);
    assertError(r.error, ToolCallArgumentParseError, {
      rawArgumentsLength: 207, rawArgumentsPreview: raw.slice(0, 72) + "...[truncated]..." + raw.slice(-72),
    });
  }],
  ["an error while handling a fragment discards what it would have emitted, even the .done it closed", async () => {
    // the tool fragment begins an item, which closes the text item, then fails: the text.done is lost
    await refused(
      [ev([tx("a", "m1", { s: 1 })], 1), ev([tx("b"), tc("", "", "{}")], 2), STOP],
      "the first tool_call.delta of an item must carry the name and the tool_call_id", "TOOL-HEADER", 1,
      [out(T("a", { s: 1 }), 1), out(T("b"), 2)],
    );
    await refused(
      [ev([th("x")]), ev([tc("", "call_7", "", "fc_7")]), STOP],
      "the first tool_call.delta of item fc_7 must carry the name and the tool_call_id", "TOOL-HEADER", 1,
      [out(H("x"))],
    );
    // a fidelity-only fragment attached under the item's id, carrying a different fidelity
    await refused(
      [ev([th("t", "r1", { sig: "A" }), tx("x", "r1", { sig: "A" })]), ev([tx("", "r1", { sig: "B" })]), STOP],
      "item r1 carried two different fidelity payloads", "FIDELITY-ONCE", 1,
      [out(H("t", { sig: "A" })), out(HD("t", { sig: "A" })), out(T("x", { sig: "A" }))],
    );
  }],
  ["the first emitted tool_call.delta of an item must carry name and id (with and without an item id)", async () => {
    await refused([ev([tc("f", "", "{}")]), STOP], "the first tool_call.delta of an item must carry the name and the tool_call_id", "TOOL-HEADER", 0, []);
    await refused([ev([tx("a"), tc("", "c1", "{}", "call_7")]), STOP],
      "the first tool_call.delta of item call_7 must carry the name and the tool_call_id", "TOOL-HEADER", 0, [out(T("a"))]);
    // a fidelity-only fragment that would be a call's first goes out, so it needs the header too
    await refused([ev([tc("", "", "", "c", { s: 1 })]), STOP],
      "the first tool_call.delta of item c must carry the name and the tool_call_id", "TOOL-HEADER", 0, []);
  }],
  ["an empty tool_call.delta before the header is dropped; the first fragment that goes out carries it", async () => {
    const r = await assembleOk([ev([tx("a"), tc("", "", ""), tc("f", "c", "{}")]), stopPiece(USAGE, "tool_call")]);
    assertEqual(r.events, [out(T("a")), out(TD("a")), out(C("f", "c", "{}")), out(CD("f", "c", {})), outStop(USAGE, "tool_call")]);
  }],
  ["a second, different fidelity in one item is refused (named by its id, or 'an item')", async () => {
    await refused([ev([tx("a", "m1", { s: 1 }), tx("b", "m1", { s: 2 })]), STOP], "item m1 carried two different fidelity payloads", "FIDELITY-ONCE", 0, [out(T("a", { s: 1 }))]);
    await refused([ev([tx("a", undefined, { s: 1 })]), ev([tx("b", undefined, { s: 1, t: 2 })]), STOP], "an item carried two different fidelity payloads", "FIDELITY-ONCE", 1, [out(T("a", { s: 1 }))]);
  }],
  ["an identical fidelity repeat is dropped: fidelity goes out once (an empty fragment that only repeats it goes away)", async () => {
    const r = await assembleOk([ev([th("a", "r", { sig: "x" }), th("b", "r", { sig: "x" }), th("", "r", { sig: "x" }), th("c", undefined, { sig: "x" })]), ev([tx("t")]), STOP]);
    assertEqual(r.events.slice(0, 4), [out(H("a", { sig: "x" })), out(H("b")), out(H("c")), out(HD("abc", { sig: "x" }))]);
    // key order does not make a different fidelity
    const r2 = await assembleOk([ev([tx("a", undefined, { p: 1, q: 2 }), tx("b", undefined, { q: 2, p: 1 })]), STOP]);
    assertEqual(r2.events.slice(0, 3), [out(T("a", { p: 1, q: 2 })), out(T("b")), out(TD("ab", { p: 1, q: 2 }))]);
  }],
  ["empty fragments (no content, no header, no fidelity) are dropped", async () => {
    const r = await assembleOk([
      ev([tx(""), tx("a"), tx(""), tx("", "m1")]),
      ev([tc("f", "c", ""), tc("", "", ""), tc("", "", "")]),
      ev([inl(bytes(1), "audio/wav"), inl(bytes(), "audio/wav"), inl(bytes(2), "audio/wav")]),
      stopPiece(USAGE, "stop"),
    ]);
    assertEqual(r.events, [
      out(T("a")), out(TD("a")),
      out(C("f", "c", "")), out(CD("f", "c", {})),
      out(inl(bytes(1), "audio/wav")), out(inl(bytes(2), "audio/wav")), out({ type: "inline_data.done", data: bytes(1, 2), mime_type: "audio/wav" }),
      outStop(),
    ]);
  }],
  ["an empty fragment still begins an item by the rules of §5 (it closes the item before it), then goes nowhere", async () => {
    const r = await assembleOk([ev([tx("a"), th(""), tx("b")]), STOP]);
    assertEqual(r.events, [out(T("a")), out(TD("a")), out(T("b")), out(TD("b")), outStop()]);
  }],
  ["an empty fragment carrying only fidelity under the current item's id attaches to that item, whatever its kind", async () => {
    // a thinking signature arriving as an empty text.delta under the thinking item's id
    const r = await assembleOk([ev([th("hmm", "r1"), tx("", "r1", { signature: "sig" }), tx("Hi", "m1")]), STOP]);
    assertEqual(r.events, [
      out(H("hmm")), out(H("", { signature: "sig" })), out(HD("hmm", { signature: "sig" })), out(T("Hi")), out(TD("Hi")), outStop(),
    ]);
    // an image item's fidelity in an extra empty-data fragment: attaches instead of beginning another image
    const img = bytes(0x89, 0x50);
    const r2 = await assembleOk([ev([inl(img, "image/png", "i1"), inl(bytes(), "image/png", "i1", { image_signature: "s" })]), STOP]);
    assertEqual(r2.events, [
      out(inl(img, "image/png")), out(inl(bytes(), "image/png", undefined, { image_signature: "s" })),
      out({ type: "inline_data.done", data: img, mime_type: "image/png", fidelity: { image_signature: "s" } }), outStop(),
    ]);
    // a call's fidelity: the attached fragment carries an empty header
    const r3 = await assembleOk([ev([tc("f", "c1", "{}", "fc1"), th("", "fc1", { sig: 1 })]), stopPiece(USAGE, "tool_call")]);
    assertEqual(r3.events.slice(0, 3), [out(C("f", "c1", "{}")), out(C("", "", "", { sig: 1 })), out(CD("f", "c1", {}, { sig: 1 }))]);
  }],
  ["after an embedding, a fidelity-only fragment under its id attaches to it: no second vector (an empty embedding fragment included)", async () => {
    const vec = (v: number[], id?: string, fidelity?: Json): Json => ({ ...emb(v), fidelity: { ...(id ? { item_id: id } : {}), ...fidelity } });
    for (const extra of [vec([], "e1", { sig: "x" }), tx("", "e1", { sig: "x" }), inl(bytes(), "image/png", "e1", { sig: "x" })]) {
      const r = await assembleOk([ev([emb([1, 2], "e1"), extra]), ev([emb([3], "e2")]), stopPiece(USAGE, "stop")]);
      assertEqual(doneItems(r.events), [{ type: "embedding.done", embedding: [1, 2] }, { type: "embedding.done", embedding: [3] }], JSON.stringify(extra));
      assertEqual(r.events.length, 5, JSON.stringify(extra));
    }
    // without the item's id it is no attachment: an embedding fragment, even an empty one, is a vector of its own
    const r = await assembleOk([ev([emb([1, 2], "e1"), vec([], undefined, { sig: "x" })]), stopPiece(USAGE, "stop")]);
    assertEqual(doneItems(r.events), [{ type: "embedding.done", embedding: [1, 2] }, { type: "embedding.done", embedding: [], fidelity: { sig: "x" } }]);
  }],
  ["a fidelity-only fragment under another id is not attached: it begins its own item (a repeat without id continues it)", async () => {
    const r = await assembleOk([ev([th("hmm", "r1"), tx("", "m9", { s: 1 }), tx("", undefined, { s: 1 })]), ev([tx("x")]), STOP]);
    assertEqual(r.events.slice(0, 5), [out(H("hmm")), out(HD("hmm")), out(T("", { s: 1 })), out(T("x")), out(TD("x", { s: 1 }))]);
  }],
  ["every image is an item of its own, even under one item_id; audio chunks merge into one item", async () => {
    const r = await assembleOk([
      ev([inl(bytes(1), "image/png", "same"), inl(bytes(2), "image/jpeg", "same"), inl(bytes(3), "IMAGE/PNG")]),
      ev([tx("and:"), inl(bytes(82, 73), "audio/wav"), inl(bytes(70), "audio/wav")]),
      ev([inl(bytes(70, 0), "audio/wav")]),
      STOP,
    ]);
    assertEqual(doneItems(r.events), [
      { type: "inline_data.done", data: bytes(1), mime_type: "image/png" },
      { type: "inline_data.done", data: bytes(2), mime_type: "image/jpeg" },
      { type: "inline_data.done", data: bytes(3), mime_type: "IMAGE/PNG" },
      TD("and:"),
      { type: "inline_data.done", data: bytes(82, 73, 70, 70, 0), mime_type: "audio/wav" },
    ]);
    assertEqual(r.events.length, 3 * 2 + 2 + 3 + 1 + 1);
  }],
  ["inline_thinking always begins an item", async () => {
    const r = await assembleOk([ev([inl(bytes(1), "image/png", undefined, undefined, "inline_thinking"), inl(bytes(2), "image/png", undefined, undefined, "inline_thinking"), tx("ok")]), STOP]);
    assertEqual(doneItems(r.events), [
      { type: "inline_thinking.done", data: bytes(1), mime_type: "image/png" },
      { type: "inline_thinking.done", data: bytes(2), mime_type: "image/png" },
      TD("ok"),
    ]);
  }],
  ["an embedding per fragment, an empty vector included (embedding fragments are never dropped)", async () => {
    const r = await assembleOk([ev([emb([0.1, -0.2]), emb([]), emb([1, 0, -1e-7], "e3")]), stopPiece({ prompt_tokens: 8 }, "stop")]);
    assertEqual(r.events, [
      out(emb([0.1, -0.2])), out({ type: "embedding.done", embedding: [0.1, -0.2] }),
      out(emb([])), out({ type: "embedding.done", embedding: [] }),
      out(emb([1, 0, -1e-7])), out({ type: "embedding.done", embedding: [1, 0, -1e-7] }),
      outStop({ cached_tokens: null, prompt_tokens: 8, thoughts_tokens: null, response_tokens: null }),
    ]);
  }],
  ["stop pieces: usage merged member by member (non-null overwrites), finish reason replaced by a non-null one", async () => {
    const r = await assembleOk([
      ev([tx("a")], 1),
      stopPiece({ cached_tokens: 3, prompt_tokens: 7, thoughts_tokens: null, response_tokens: null }, "length", 2),
      ev([tx("b")], 3),
      stopPiece({ prompt_tokens: 9, response_tokens: 4 }, null, 4),
      stopPiece({ cached_tokens: null, thoughts_tokens: 0 }, "stop", 5),
      stopPiece(null, null),
    ]);
    const usage = { cached_tokens: 3, prompt_tokens: 9, thoughts_tokens: 0, response_tokens: 4 };
    assertEqual(r.events, [out(T("a"), 1), out(T("b"), 3), out(TD("ab"), 5), outStop(usage, "stop", 5)]);
    assertEqual(r.message, { role: "assistant", content_items: [TD("ab")], usage_metadata: usage, finish_reason: "stop", created_at: 5 });
  }],
  ["fragments inside a stop piece are assembled like any others", async () => {
    const r = await assembleOk([ev([tx("a")]), stopPiece(USAGE, "stop", 9, [tx("b")])]);
    assertEqual(r.events, [out(T("a")), out(T("b"), 9), out(TD("ab"), 9), outStop(USAGE, "stop", 9)]);
  }],
  ["a delta event with usage or a finish reason is refused, before any of its fragments goes out", async () => {
    const detail = "a delta event carries usage_metadata or finish_reason";
    await refused([ev([tx("a")]), { ...ev([tx("b")]), usage_metadata: USAGE }, STOP], detail, "DELTA-SHAPE", 1, [out(T("a"))]);
    await refused([{ ...ev([tx("b")]), finish_reason: "stop" }], detail, "DELTA-SHAPE", 0, []);
  }],
  ["an input item that is not a .delta of the six kinds is refused, in its place", async () => {
    for (const type of ["text.done", "tool_call.done", "image_url.done", "tool_result.done", "foo.delta", "text"]) {
      await refused([ev([tx("a"), { type, text: "x" }, tx("b")]), STOP], `a client yields deltas, not ${type}`, "KIND", 0, [out(T("a"))]);
    }
  }],
  ["at the end the open item closes, then: no usage → MmspError; no finish reason → MmspError", async () => {
    let r = await assemble([ev([tx("a")]), stopPiece(null, "stop")]);
    assertEqual(r.events, [out(T("a")), out(TD("a"))], "the .done went out before the error");
    assertError(r.error, MmspError, { message: "Streaming response ended without usage_metadata", eventIndex: 2 });
    assertEqual(r.error.constructor, MmspError, "the base class itself");
    r = await assemble([ev([tx("a")]), stopPiece({ prompt_tokens: 1 }, null)]);
    assertError(r.error, MmspError, { message: "Streaming response ended without finish_reason" });
    assertEqual(r.error.constructor, MmspError);
    r = await assemble([]);
    assertError(r.error, MmspError, { message: "Streaming response ended without usage_metadata", eventIndex: 0 });
    // a malformed call closing at the end fails before the usage is even looked at
    r = await assemble([ev([tc("f", "c", "{")])]);
    assertError(r.error, ToolCallArgumentParseError, { toolName: "f", rawArgumentsPreview: "{" });
  }],
  ["thinking only (or nothing) → EmptyResponseError in place of the stop event; tool calls or embeddings alone are fine", async () => {
    let r = await assemble([ev([th("hm"), inl(bytes(1), "image/png", undefined, undefined, "inline_thinking")]), stopPiece(USAGE, "length")]);
    assertEqual(r.events.length, 4, "the thinking items went out");
    assertError(r.error, EmptyResponseError, { client: "upstream", finishReason: "length", usageMetadata: USAGE, message: 'upstream returned no content other than thinking (finish_reason="length").' });
    r = await assemble([ev([tx("")]), STOP], "my-producer");
    assertError(r.error, EmptyResponseError, { client: "my-producer", finishReason: "stop" });
    await assembleOk([ev([tc("f", "c", "{}")]), stopPiece(USAGE, "tool_call")]);
    await assembleOk([ev([emb([1])]), STOP]);
  }],
  ["the client option names the producer in StreamProtocolError", async () => {
    const r = await assemble([ev([{ type: "text.done", text: "x" }])], "openai-adapter");
    assertError(r.error, StreamProtocolError, { client: "openai-adapter", message: "openai-adapter broke the streaming protocol: a client yields deltas, not text.done" });
  }],
  ["assemble-mode input is still checked against the schema", async () => {
    let r = await assemble([ev([{ type: "text.delta", text: 5 }])]);
    assertError(r.error, StreamProtocolError, { rule: "SCHEMA", eventIndex: 0 });
    r = await assemble([{ ...ev([tx("a")]), role: "user" }]);
    assertError(r.error, StreamProtocolError, { rule: "ROLE" });
    r = await assemble([stopPiece({ prompt_tokens: -1 }, "stop")]);
    assertError(r.error, StreamProtocolError, { rule: "SCHEMA" });
    r = await assemble([ev([tx("a", undefined, { item_id: 7 })])]);
    assertError(r.error, StreamProtocolError, { rule: "SCHEMA" });
  }],
  ["the reader's limits hold in assemble mode too: maxItems, maxDepth (fidelity, parsed arguments)", async () => {
    let r = await collectStamped(valuesStream([ev([tx("a"), th("b")]), ev([tx("c")]), STOP] as any[]).pipeThrough(new MessageAssemblerStream({ mode: "assemble", maxItems: 2 })));
    assertEqual(r.values, [out(T("a")), out(TD("a")), out(H("b"))]);
    assertError(r.error, StreamLimitError, { limit: "maxItems", value: 2, eventIndex: 1 });
    let deep: Json = { x: 1 };
    for (let i = 0; i < 10; i++) deep = { d: deep };
    r = await collectStamped(valuesStream([ev([tx("a", "m", deep)])] as any[]).pipeThrough(new MessageAssemblerStream({ mode: "assemble", maxDepth: 8 })));
    assertError(r.error, StreamLimitError, { limit: "maxDepth", value: 8 });
    const body = `data: ${JSON.stringify(ev([tc("f", "c", JSON.stringify(deep))]))}\n\ndata: ${JSON.stringify(STOP)}\n\n`;
    r = await collectStamped(byteStream([body]).pipeThrough(new UniEventStream({ mode: "assemble", maxDepth: 8 })));
    assertError(r.error, StreamLimitError, { limit: "maxDepth", value: 8 });
  }],
  ["validate mode is unchanged: several items per event and item_id are still refused there", async () => {
    const r1 = await collectStamped(valuesStream([ev([tx("a"), tx("b")])] as any[]).pipeThrough(new MessageAssemblerStream()));
    assertError(r1.error, StreamProtocolError, { rule: "DELTA-SHAPE" });
    const r2 = await collectStamped(valuesStream([ev([tx("a", "m1")])] as any[]).pipeThrough(new MessageAssemblerStream({ mode: "validate" })));
    assertError(r2.error, StreamProtocolError, { rule: "NO-ITEM-ID" });
  }],
  ["UniEventStream in assemble mode: SSE bytes (base64 data, item ids, several items, stop pieces, [DONE])", async () => {
    const wire = (e: Json) => `data: ${JSON.stringify(e)}\n\n`;
    const audio = { type: "inline_data.delta", mime_type: "audio/wav" };
    const body =
      wire(ev([tx("Here:", "m1"), { ...audio, data: b64(bytes(1, 2, 3)), fidelity: { item_id: "a1" } }], 5)) +
      ": keep-alive\n\n" +
      wire(ev([{ ...audio, data: b64(bytes(255)), fidelity: { item_id: "a1" } }], 6)) +
      wire(stopPiece({ prompt_tokens: 3 }, null, 7)) +
      wire(stopPiece({ response_tokens: 2 }, "stop", 8)) +
      "data: [DONE]\n\n";
    const stream = new UniEventStream({ mode: "assemble" });
    const chunks = Array.from(utf8(body), (b) => new Uint8Array([b])); // one byte at a time
    const { values, error } = await collectStamped(byteStream(chunks).pipeThrough(stream));
    if (error) throw error;
    const usage = { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 2 };
    assertEqual(values, [
      out(T("Here:"), 5), out(TD("Here:"), 5), out({ ...audio, data: bytes(1, 2, 3) }, 5), out({ ...audio, data: bytes(255) }, 6),
      out({ type: "inline_data.done", data: bytes(1, 2, 3, 255), mime_type: "audio/wav" }, 8), outStop(usage, "stop", 8),
    ]);
    assertEqual(await stream.message, {
      role: "assistant", content_items: [TD("Here:"), { type: "inline_data.done", data: bytes(1, 2, 3, 255), mime_type: "audio/wav" }],
      usage_metadata: usage, finish_reason: "stop", created_at: 8,
    });
  }],
  ["UniEventStream in assemble mode: NDJSON, and the body's end (no [DONE]) ends the input", async () => {
    const body = [ev([tx("a"), tx("b")]), ev([tc("f", "c", '{"x":1}')]), stopPiece(USAGE, "tool_call")].map((e) => JSON.stringify(e) + "\n").join("");
    const stream = new UniEventStream({ mode: "assemble", format: "ndjson" });
    const { values, error } = await collectStamped(byteStream([body]).pipeThrough(stream));
    if (error) throw error;
    assertEqual(values, [out(T("a")), out(T("b")), out(TD("ab")), out(C("f", "c", '{"x":1}')), out(CD("f", "c", { x: 1 })), outStop(USAGE, "tool_call")]);
    assertEqual((await stream.message).content_items, [TD("ab"), CD("f", "c", { x: 1 })]);
  }],
  ["UniEventStream in assemble mode: exact errors with the record's place; an error event is an UpstreamError", async () => {
    const wire = (e: Json) => `data: ${JSON.stringify(e)}\n\n`;
    const first = wire(ev([tx("a")]));
    let r = await collectStamped(byteStream([first + wire(ev([{ type: "text.done", text: "a" }])) + "data: [DONE]\n\n"]).pipeThrough(new UniEventStream({ mode: "assemble" })));
    assertEqual(r.values, [out(T("a"))]);
    assertError(r.error, StreamProtocolError, { message: PREFIX + "a client yields deltas, not text.done", rule: "KIND", eventIndex: 1, byteOffset: utf8(first).length });
    // the end of the input at [DONE]: the open item closes, the missing finish reason is an error
    r = await collectStamped(byteStream([first + wire(stopPiece(USAGE, null)) + "data: [DONE]\n\n"]).pipeThrough(new UniEventStream({ mode: "assemble" })));
    assertEqual(r.values, [out(T("a")), out(TD("a"))]);
    assertError(r.error, MmspError, { message: "Streaming response ended without finish_reason" });
    r = await collectStamped(byteStream([first + 'data: {"error": {"type": "RateLimitError", "message": "slow down", "status": 429}}\n\n']).pipeThrough(new UniEventStream({ mode: "assemble" })));
    assertEqual(r.values, [out(T("a"))]);
    assertError(r.error, UpstreamError, { status: 429, errorType: "RateLimitError", message: "slow down" });
  }],
];
