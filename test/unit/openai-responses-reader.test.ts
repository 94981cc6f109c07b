// The OpenAI Responses event reader (src/providers/openai-responses/reader.ts) on captures of the API's
// stream: what it writes, the public stream the assembler makes of it (re-read by the validator).
import { describe, expect, test } from "vitest";
import { UpstreamError } from "../../src/errors.ts";
import { ResponsesReader } from "../../src/providers/openai-responses/reader.ts";
import * as C from "../cases/providers/captures-openai-responses.ts";
import { itemsOf, runReader, validated } from "./provider-reader-harness.ts";

const read = (body: string) => runReader(new ResponsesReader("openai-responses"), body);
const png = () => Uint8Array.from(atob(C.PNG_BASE64), (c) => c.charCodeAt(0));

describe("ResponsesReader", () => {
  test("text, with usage from response.completed: cached apart from the prompt (SPEC §9)", () => {
    const r = read(C.TEXT);
    expect(r.error).toBeUndefined();
    expect(r.message!.content_items).toEqual([{ type: "text.done", text: "Hi there!" }]);
    expect(r.message!.usage_metadata).toEqual({ cached_tokens: 4, prompt_tokens: 32, thoughts_tokens: 0, response_tokens: 87 });
    expect(r.message!.finish_reason).toBe("stop");
    expect(validated(r.events)).toEqual(r.message);
  });

  test("vercel/ai #14843: several summaries keep the encrypted_content, one thinking item with each summary's length", () => {
    const r = read(C.REASONING_SUMMARIES);
    expect(r.error).toBeUndefined();
    const first = "**Reading the question**\n\nThe user asks for a sum.";
    const second = "**Adding**\n\n2 + 2 is 4.";
    expect(r.message!.content_items).toEqual([
      {
        type: "thinking.done",
        thinking: `${first}\n\n${second}`,
        fidelity: { channel: "summary", summary: true, encrypted_content: C.ENCRYPTED, part_lengths: [first.length, second.length] },
      },
      { type: "text.done", text: "4" },
    ]);
    expect(r.message!.usage_metadata).toEqual({ cached_tokens: 0, prompt_tokens: 20, thoughts_tokens: 128, response_tokens: 12 });
    // the encrypted content goes on an empty thinking.delta read at output_item.done
    expect(r.fragments.find((f) => "fidelity" in f.item)).toEqual({
      item: { type: "thinking.delta", thinking: "", fidelity: expect.objectContaining({ encrypted_content: C.ENCRYPTED }) },
      key: "rs_1",
    });
    expect(validated(r.events)).toEqual(r.message);
  });

  test("encrypted reasoning with no summary (thinking_summary off) is an empty thinking item carrying it, sent back as it came", () => {
    const body = C.REASONING_SUMMARIES.split("\n\n").filter((m) => !/reasoning_summary/.test(m)).join("\n\n")
      .replace(/"summary":\[\{"type":"summary_text"[^\]]*\]/, '"summary":[]');
    const r = read(body);
    expect(r.error).toBeUndefined();
    expect(r.message!.content_items[0]).toEqual({ type: "thinking.done", thinking: "", fidelity: { encrypted_content: C.ENCRYPTED } });
  });

  test("reasoning_text (open-weight models' raw reasoning) → thinking with no summary channel", () => {
    const body = C.REASONING_SUMMARIES.replaceAll("response.reasoning_summary_text.delta", "response.reasoning_text.delta")
      .replaceAll('"summary_index"', '"content_index"').replace(/"summary":\[\{"type":"summary_text"[^\]]*\]/, '"summary":[]');
    const r = read(body);
    expect(r.message!.content_items[0]).toMatchObject({ type: "thinking.done", fidelity: { encrypted_content: C.ENCRYPTED, part_lengths: [50, 23] } });
    expect((r.message!.content_items[0] as { fidelity: object }).fidelity).not.toHaveProperty("channel");
  });

  test("function calls: one group each, arguments by item; a turn that called functions finishes tool_call", () => {
    const r = read(C.FUNCTION_CALLS);
    expect(r.message!.content_items).toEqual([
      { type: "tool_call.done", name: "get_weather", tool_call_id: "call_a", arguments: { location: "Paris" } },
      { type: "tool_call.done", name: "get_time", tool_call_id: "call_b", arguments: { tz: "CET" } },
    ]);
    expect(r.message!.finish_reason).toBe("tool_call");
    expect(validated(r.events)).toEqual(r.message);
  });

  test("a call with no arguments is {}", () => {
    expect(read(C.CALL_NO_ARGUMENTS).message!.content_items).toEqual([{ type: "tool_call.done", name: "now", tool_call_id: "call_a", arguments: {} }]);
  });

  test("argument deltas of a call that is not the one streaming: an error, never appended to the wrong call", () => {
    const body = C.FUNCTION_CALLS.replace('"item_id":"fc_2","output_index":1,"delta"', '"item_id":"fc_1","output_index":1,"delta"');
    const r = read(body);
    expect(r.error).toMatchObject({ rule: "NO-INTERLEAVE" });
    expect(itemsOf(r.events)).toContainEqual({ type: "tool_call.done", name: "get_weather", tool_call_id: "call_a", arguments: { location: "Paris" } });
  });

  test("a refusal part is the answer's text", () => {
    expect(read(C.REFUSAL).message!.content_items).toEqual([{ type: "text.done", text: "I can't help with that." }]);
  });

  test("error then response.failed: UpstreamError with the failure's code as the type and its message, after the text", () => {
    const r = read(C.ERROR_THEN_FAILED);
    expect(r.error).toBeInstanceOf(UpstreamError);
    expect(r.error).toMatchObject({ errorType: "server_error", message: "The server had an error while processing your request.", status: null });
    expect(itemsOf(r.events)).toEqual([{ type: "text.delta", text: "Partial" }]);
  });

  test("response.failed alone: the same", () => {
    const r = read(C.FAILED_ALONE);
    expect(r.error).toBeInstanceOf(UpstreamError);
    expect(r.error).toMatchObject({ errorType: "rate_limit_exceeded", message: "Rate limit reached for gpt-5.1." });
  });

  test("an error event and the body's end: that error", () => {
    const body = C.ERROR_THEN_FAILED.slice(0, C.ERROR_THEN_FAILED.indexOf("event: response.failed"));
    expect(read(body).error).toMatchObject({ errorType: "server_error" });
  });

  test("response.incomplete (max_output_tokens) → length", () => {
    const r = read(C.INCOMPLETE);
    expect(r.message!.finish_reason).toBe("length");
    expect(r.message!.content_items).toEqual([{ type: "text.done", text: "The first ten words" }]);
  });

  test("image generation results → inline_data, each its own item, in the call's or the tool's output_format", () => {
    const r = read(C.IMAGE_GENERATION);
    expect(r.error).toBeUndefined();
    expect(r.message!.content_items).toEqual([
      { type: "inline_data.done", data: png(), mime_type: "image/webp" },
      { type: "inline_data.done", data: png(), mime_type: "image/png" },
      { type: "text.done", text: "Here they are." },
    ]);
    expect(validated(r.events)).toEqual(r.message);
  });

  test("built-in and custom tool calls are skipped and said; the answer is kept", () => {
    const r = read(C.BUILTIN_AND_CUSTOM);
    expect(r.message!.content_items).toEqual([{ type: "text.done", text: "Sunny." }]);
    expect(r.warnings).toEqual([
      'skipped an output item of type "web_search_call" (a built-in tool\'s call has no UniEvent kind)',
      'skipped a custom (free-form) tool call to "code_exec": it has no UniEvent kind',
    ]);
    expect(r.message!.usage_metadata).toEqual({ cached_tokens: 256, prompt_tokens: 44, thoughts_tokens: 0, response_tokens: 20 });
  });

  test("gpt-5's phase is the message's fidelity; keep-alives and unknown events are skipped", () => {
    const r = read(C.PHASE_KEEPALIVE);
    expect(r.message!.content_items).toEqual([{ type: "text.done", text: "Let me check.", fidelity: { phase: "commentary" } }]);
    expect(r.warnings).toEqual([]);
  });

  test("a stream that ends before response.completed: STOP-LAST, and no .done for the open item", () => {
    const r = read(C.TRUNCATED);
    expect(r.error).toMatchObject({ rule: "STOP-LAST" });
    expect(r.events.map((e) => e.content_items[0]?.type)).toEqual(["text.delta"]);
  });
});
