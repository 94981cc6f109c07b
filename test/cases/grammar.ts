// SPEC §3 (the grammar) and §4 (building each .done): every rule has a case that breaks it.
import { EmptyResponseError, StreamProtocolError, ToolCallArgumentParseError } from "../../dist/index.js";
import { assert, assertEqual, assertError, type Case } from "../harness.ts";
import {
  delta, embedding, embeddingDone, inline, inlineDone, sse, stop, text, textDone, thinking, thinkingDone, tool, toolDone, USAGE,
  type Json,
} from "../fixtures.ts";
import { read, readError } from "./read-helpers.ts";

const T = [delta(text("Hi")), delta(textDone("Hi"))];

/** Reads `events` as SSE and expects a StreamProtocolError with `rule` at event `index`. */
async function violates(events: Json[], rule: string, index: number, done = true): Promise<StreamProtocolError> {
  const { error, events: got } = await readError(sse(events, done));
  assertError(error, StreamProtocolError, { rule, eventIndex: index });
  assertEqual(got.length, index, `events delivered before the violation (${rule})`);
  assert(typeof error.preview === "string" && error.preview.length > 0, "a preview of the bad input");
  assert(error.message.startsWith("upstream broke the streaming protocol: "), error.message);
  assert(error.message.includes(rule), "the message names the rule");
  return error;
}

/** Something after a valid stop event: one outcome (SPEC §7): the readable errors, message rejects with that error. */
async function afterStop(extra: Json): Promise<void> {
  const { error, events } = await readError(sse([...T, stop(), extra]));
  assertError(error, StreamProtocolError, { rule: "STOP-LAST", eventIndex: 3 });
  assertEqual(events.length, 3, "every valid event, the stop event included, was delivered");
}

async function legal(events: Json[]): Promise<any> {
  const r = await read(sse(events));
  if (r.error) throw r.error;
  assertEqual(r.events.length, events.length, "every event delivered");
  return r.message;
}

export const cases: Case[] = [
  // STOP-LAST
  ["STOP-LAST: a body that ends without the stop event is truncated", async () => {
    const e = await violates([...T], "STOP-LAST", 2, false);
    assertEqual(e.byteOffset, sse(T, false).length);
  }],
  ["STOP-LAST: [DONE] before the stop event is truncated", () => violates([...T], "STOP-LAST", 2, true).then(() => {})],
  ["STOP-LAST: an open group at the end of the body is still STOP-LAST", async () => {
    const e = await violates([delta(text("Hi"))], "STOP-LAST", 1, false);
    assert(e.message.includes("text group"), e.message);
  }],
  ["STOP-LAST: an event after the stop event (message rejects with the readable's error)", () => afterStop(delta(text("x")))],
  ["STOP-LAST: a second stop event", () => afterStop(stop())],
  ["NOT-A-STREAM, not STOP-LAST: an empty body is no stream at all (SPEC §6)", async () => {
    const { error } = await readError("");
    assertError(error, StreamProtocolError, { rule: "NOT-A-STREAM", eventIndex: 0 });
  }],
  // STOP-SHAPE
  ["STOP-SHAPE: the stop event carries an item", () =>
    violates([...T, { ...stop(), content_items: [textDone("x")] }], "STOP-SHAPE", 2).then(() => {})],
  ["STOP-SHAPE: the stop event without usage_metadata", () => violates([...T, { ...stop(), usage_metadata: null }], "STOP-SHAPE", 2).then(() => {})],
  ["STOP-SHAPE: the stop event without finish_reason", () => violates([...T, { ...stop(), finish_reason: null }], "STOP-SHAPE", 2).then(() => {})],
  // DELTA-SHAPE
  ["DELTA-SHAPE: a delta event with no item", () => violates([{ ...delta(text("a")), content_items: [] }, stop()], "DELTA-SHAPE", 0).then(() => {})],
  ["DELTA-SHAPE: a delta event with two items", () =>
    violates([delta(text("a")), { ...delta(text("b")), content_items: [text("b"), text("c")] }], "DELTA-SHAPE", 1).then(() => {})],
  ["DELTA-SHAPE: a delta event with usage_metadata", () => violates([{ ...delta(text("a")), usage_metadata: USAGE }], "DELTA-SHAPE", 0).then(() => {})],
  ["DELTA-SHAPE: a delta event with finish_reason", () => violates([{ ...delta(text("a")), finish_reason: "stop" }], "DELTA-SHAPE", 0).then(() => {})],
  // ROLE
  ["ROLE: a user role on a streamed event", () => violates([...T, { ...delta(text("x")), role: "user" }], "ROLE", 2).then(() => {})],
  ["ROLE: a stop event with another role", () => violates([...T, { ...stop(), role: "system" }], "ROLE", 2).then(() => {})],
  // KIND
  ["KIND: an unknown item kind", () => violates([...T, delta({ type: "audio.delta", data: "AA==" })], "KIND", 2).then(() => {})],
  ["KIND: a users-only done item (image_url.done) on the stream", () =>
    violates([...T, delta({ type: "image_url.done", image_url: "https://x/y.png" })], "KIND", 2).then(() => {})],
  ["KIND: tool_result.done on the stream", () =>
    violates([delta({ type: "tool_result.done", text: "r", tool_call_id: "t" })], "KIND", 0).then(() => {})],
  // NO-INTERLEAVE
  ["NO-INTERLEAVE: another kind's delta while a group is open", async () => {
    const events = [delta(thinking("a")), delta(text("b"))];
    const e = await violates(events, "NO-INTERLEAVE", 1);
    assertEqual(e.byteOffset, sse(events.slice(0, 1), false).length, "byte offset of the offending event");
  }],
  ["NO-INTERLEAVE: another kind's .done while a group is open", () =>
    violates([delta(thinking("a")), delta(textDone("a"))], "NO-INTERLEAVE", 1).then(() => {})],
  // DONE-AFTER-DELTA
  ["DONE-AFTER-DELTA: a .done with no delta before it", () => violates([delta(textDone("a")), stop()], "DONE-AFTER-DELTA", 0).then(() => {})],
  ["DONE-AFTER-DELTA: a second .done for a closed group", () => violates([...T, delta(textDone("Hi"))], "DONE-AFTER-DELTA", 2).then(() => {})],
  // CLOSED
  ["CLOSED: the stop event while a group is open", () => violates([delta(text("a")), stop()], "CLOSED", 1).then(() => {})],
  // TOOL-HEADER
  ["TOOL-HEADER: the first tool_call.delta without a name", () => violates([delta(tool("", "t1", "{}"))], "TOOL-HEADER", 0).then(() => {})],
  ["TOOL-HEADER: the first tool_call.delta without an id", () => violates([delta(tool("f", "", "{}"))], "TOOL-HEADER", 0).then(() => {})],
  ["TOOL-HEADER: a later fragment may repeat the first's name and id (MMSP's server forwards them)", async () => {
    const m = await legal([
      delta(tool("f", "t1", "{")), delta(tool("", "t1", '"a"')), delta(tool("f", "", ":1")), delta(tool("f", "t1", "}")),
      delta(toolDone("f", "t1", { a: 1 })), stop("tool_call"),
    ]);
    assertEqual(m.content_items, [{ type: "tool_call.done", name: "f", tool_call_id: "t1", arguments: { a: 1 } }]);
  }],
  ["TOOL-HEADER: a later fragment with another name", () =>
    violates([delta(tool("f", "t1", "{")), delta(tool("g", "", "}"))], "TOOL-HEADER", 1).then(() => {})],
  ["TOOL-HEADER: a later fragment with another tool_call_id", () =>
    violates([delta(tool("f", "t1", "{")), delta(tool("", "t2", "}"))], "TOOL-HEADER", 1).then(() => {})],
  ["TOOL-HEADER: a later fragment starts a second call inside the group", () =>
    violates([delta(tool("f", "t1", "{}")), delta(tool("g", "t2", "{}"))], "TOOL-HEADER", 1).then(() => {})],
  // FIDELITY-ONCE / FIDELITY-EQUAL
  ["FIDELITY-ONCE: two fragments carry fidelity", () =>
    violates([delta(thinking("a", { signature: "1" })), delta(thinking("", { signature: "2" }))], "FIDELITY-ONCE", 1).then(() => {})],
  ["FIDELITY-ONCE: a repeat of the same fidelity is still a second one", () =>
    violates([delta(thinking("a", { signature: "1" })), delta(thinking("", { signature: "1" }))], "FIDELITY-ONCE", 1).then(() => {})],
  ["FIDELITY-EQUAL: the .done carries another fidelity", () =>
    violates([delta(thinking("a", { signature: "1" })), delta(thinkingDone("a", { signature: "2" }))], "FIDELITY-EQUAL", 1).then(() => {})],
  ["FIDELITY-EQUAL: the .done drops the group's fidelity", () =>
    violates([delta(thinking("a", { signature: "1" })), delta(thinkingDone("a"))], "FIDELITY-EQUAL", 1).then(() => {})],
  ["FIDELITY-EQUAL: the .done invents a fidelity", () =>
    violates([delta(text("a")), delta(textDone("a", { phase: "final" }))], "FIDELITY-EQUAL", 1).then(() => {})],
  ["FIDELITY: absent, null and {} are the same", async () => {
    const m = await legal([
      delta({ ...text("a"), fidelity: null }), delta({ ...text("b"), fidelity: {} }), delta(textDone("ab")),
      delta(thinking("t", { s: "1" })), delta({ ...thinking(""), fidelity: {} }), delta(thinkingDone("t", { s: "1" })),
      delta(text("c")), delta({ ...textDone("c"), fidelity: null }),
      stop(),
    ]);
    assertEqual(m.content_items.length, 3);
  }],
  // NO-ITEM-ID
  ["NO-ITEM-ID: item_id in a fragment's fidelity", () => violates([delta(text("a", { item_id: "i1" }))], "NO-ITEM-ID", 0).then(() => {})],
  ["NO-ITEM-ID: item_id in a .done's fidelity", () =>
    violates([delta(text("a")), delta(textDone("a", { item_id: "i1" }))], "NO-ITEM-ID", 1).then(() => {})],
  // ONE-VECTOR
  ["ONE-VECTOR: an embedding group with two deltas", () =>
    violates([delta(embedding([1])), delta(embedding([2])), delta(embeddingDone([1, 2]))], "ONE-VECTOR", 1).then(() => {})],
  // DONE-CONTENT (SPEC §4)
  ["DONE-CONTENT: text differs from the joined fragments", () =>
    violates([delta(text("Hel")), delta(text("lo")), delta(textDone("Help"))], "DONE-CONTENT", 2).then(() => {})],
  ["DONE-CONTENT: thinking differs", () => violates([delta(thinking("ab")), delta(thinkingDone("a"))], "DONE-CONTENT", 1).then(() => {})],
  ["DONE-CONTENT: tool arguments differ from the parsed fragments", () =>
    violates([delta(tool("f", "t", '{"a":')), delta(tool("", "", "1}")), delta(toolDone("f", "t", { a: 2 }))], "DONE-CONTENT", 2).then(() => {})],
  ["DONE-CONTENT: tool name differs from the first fragment's", () =>
    violates([delta(tool("f", "t", "{}")), delta(toolDone("g", "t", {}))], "DONE-CONTENT", 1).then(() => {})],
  ["DONE-CONTENT: tool_call_id differs from the first fragment's", () =>
    violates([delta(tool("f", "t", "{}")), delta(toolDone("f", "u", {}))], "DONE-CONTENT", 1).then(() => {})],
  ["DONE-CONTENT: bytes differ from the joined fragments", () =>
    violates([delta(inline("AAE=", "audio/wav")), delta(inline("Ag==", "audio/wav")), delta(inlineDone("AAED", "audio/wav"))], "DONE-CONTENT", 2).then(() => {})],
  ["DONE-CONTENT: mime_type differs from the first fragment's", () =>
    violates([delta(inline("AAE=", "image/png")), delta(inlineDone("AAE=", "image/jpeg"))], "DONE-CONTENT", 1).then(() => {})],
  ["DONE-CONTENT: the embedding differs from its delta", () =>
    violates([delta(embedding([1, 2])), delta(embeddingDone([1, 3]))], "DONE-CONTENT", 1).then(() => {})],
  ["DONE-CONTENT: inline_thinking bytes are checked too", () =>
    violates([delta(inline("AAE=", "image/png", "inline_thinking")), delta(inlineDone("AAA=", "image/png", "inline_thinking"))], "DONE-CONTENT", 1).then(() => {})],
  ["§4: argument keys in another order and other spacing are the same object", async () => {
    const m = await legal([delta(tool("f", "t", '{ "b" : [1, {"c": null}],\n "a": "x" }')), delta(toolDone("f", "t", { a: "x", b: [1, { c: null }] })), stop("tool_call")]);
    assertEqual(m.content_items[0].arguments, { a: "x", b: [1, { c: null }] });
  }],
  ["§4: empty argument text counts as {}", async () => {
    const m = await legal([delta(tool("ping", "t", "")), delta(toolDone("ping", "t", {})), stop("tool_call")]);
    assertEqual(m.content_items[0].arguments, {});
  }],
  // ToolCallArgumentParseError in place of the tool_call.done
  ["ToolCallArgumentParseError: fragments that are not JSON, even though a .done follows", async () => {
    const events = [...T, delta(tool("get_weather", "toolu_1", '{"location": ')), delta(tool("", "", '"Par')), delta(toolDone("get_weather", "toolu_1", { location: "Par" }))];
    const { error, events: got } = await readError(sse(events));
    assertError(error, ToolCallArgumentParseError, {
      rule: "DONE-CONTENT", eventIndex: 4, client: "upstream", toolName: "get_weather", toolCallId: "toolu_1",
      rawArgumentsLength: 17, rawArgumentsPreview: '{"location": "Par',
    });
    assert(error.message.startsWith('Invalid streamed tool call arguments from upstream for tool "get_weather" (tool_call_id="toolu_1", length=17, preview="{\\"location\\": \\"Par"): '), error.message);
    assertEqual(got.length, 4, "the fragments before it were delivered");
  }],
  ["ToolCallArgumentParseError: arguments that parse to an array are not an object", async () => {
    const { error } = await readError(sse([delta(tool("f", "t", "[1,2]")), delta(toolDone("f", "t", {}))]));
    assertError(error, ToolCallArgumentParseError, { rawArgumentsPreview: "[1,2]" });
    assert(error.message.endsWith("): Expected a JSON object."), error.message);
  }],
  ["ToolCallArgumentParseError: null, a string, a number are not objects", async () => {
    for (const raw of ["null", '"x"', "42", "true"]) {
      const { error } = await readError(sse([delta(tool("f", "t", raw)), delta(toolDone("f", "t", {}))]));
      assertError(error, ToolCallArgumentParseError, { rawArgumentsLength: raw.length });
    }
  }],
  ["ToolCallArgumentParseError: a long raw text is previewed as 72 + ...[truncated]... + 72", async () => {
    const raw = "{" + '"k":"' + "x".repeat(300) + "z";
    const { error } = await readError(sse([delta(tool("f", "t", raw)), delta(toolDone("f", "t", {}))]));
    assertError(error, ToolCallArgumentParseError, { rawArgumentsLength: raw.length, rawArgumentsPreview: raw.slice(0, 72) + "...[truncated]..." + raw.slice(-72) });
  }],
  ["the MMSP error fields also read by MMSP's own (snake_case) names, the same values", async () => {
    const { error } = await readError(sse([delta(tool("f", "t1", "[1]")), delta(toolDone("f", "t1", {}))]));
    assertEqual(
      [error.tool_name, error.tool_call_id, error.raw_arguments_length, error.raw_arguments_preview],
      [error.toolName, error.toolCallId, error.rawArgumentsLength, error.rawArgumentsPreview],
    );
    assertEqual([error.tool_name, error.tool_call_id, error.raw_arguments_length, error.raw_arguments_preview], ["f", "t1", 3, "[1]"]);
    const empty = (await readError(sse([delta(thinking("hmm")), delta(thinkingDone("hmm")), stop("length")]))).error;
    assertEqual([empty.finish_reason, empty.usage_metadata], ["length", USAGE]);
    const upstream = (await readError('data: {"error": {"type": "RateLimitError", "message": "slow down"}}\n\n')).error;
    assertEqual([upstream.error_type, upstream.errorType], ["RateLimitError", "RateLimitError"]);
  }],
  // EmptyResponseError in place of the stop event
  ["EmptyResponseError: a thinking-only response", async () => {
    const { error, events } = await readError(sse([delta(thinking("hmm")), delta(thinkingDone("hmm")), stop("length")]));
    assertError(error, EmptyResponseError, { client: "upstream", finishReason: "length", usageMetadata: USAGE, eventIndex: 2 });
    assertEqual(error.message, 'upstream returned no content other than thinking (finish_reason="length").');
    assertEqual(events.length, 2);
  }],
  ["EmptyResponseError: a response with no items at all", async () => {
    const { error } = await readError(sse([stop()]));
    assertError(error, EmptyResponseError, { finishReason: "stop" });
  }],
  ["EmptyResponseError: inline_thinking only is still empty", async () => {
    const { error } = await readError(sse([delta(inline("AA==", "image/png", "inline_thinking")), delta(inlineDone("AA==", "image/png", "inline_thinking")), stop()]));
    assertError(error, EmptyResponseError, {});
  }],
  ["a response of only tool calls or only embeddings is fine", async () => {
    await legal([delta(tool("f", "t", "{}")), delta(toolDone("f", "t", {})), stop("tool_call")]);
    await legal([delta(embedding([0.5])), delta(embeddingDone([0.5])), stop()]);
  }],
  // legal special cases (SPEC §3)
  ["legal: a fidelity-only fragment after the text (thinking signature)", async () => {
    const m = await legal([delta(thinking("a")), delta(thinking("", { signature: "s" })), delta(thinkingDone("a", { signature: "s" })), ...T, stop()]);
    assertEqual(m.content_items[0], thinkingDone("a", { signature: "s" }));
  }],
  ["legal: an image item with an extra empty-data fragment that brings fidelity", async () => {
    const m = await legal([delta(inline("AAEC", "image/png")), delta(inline("", "image/png", "inline_data", { sig: "x" })), delta(inlineDone("AAEC", "image/png", "inline_data", { sig: "x" })), stop()]);
    assertEqual(m.content_items[0].data, new Uint8Array([0, 1, 2]));
  }],
  ["the message: .done items in order with the stop event's usage, finish reason and created_at", async () => {
    const usage = { cached_tokens: 3, prompt_tokens: 7, thoughts_tokens: 11, response_tokens: 13 };
    const m = await legal([delta(thinking("t")), delta(thinkingDone("t")), ...T, stop("length", usage, 42)]);
    assertEqual(m, { role: "assistant", content_items: [thinkingDone("t"), textDone("Hi")], usage_metadata: usage, finish_reason: "length", created_at: 42 });
  }],
];
