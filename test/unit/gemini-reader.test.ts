// The Gemini event reader (src/providers/gemini/reader.ts) on captures of streamGenerateContent?alt=sse:
// what it writes, the public stream the assembler makes of it (re-read by the validator).
import { describe, expect, test } from "vitest";
import { EmptyResponseError, UpstreamError } from "../../src/errors.ts";
import { GeminiReader } from "../../src/providers/gemini/reader.ts";
import { pathOf } from "../../src/providers/gemini/partial-args.ts";
import * as C from "../cases/providers/captures-gemini.ts";
import { itemsOf, runReader, validated } from "./provider-reader-harness.ts";

const read = (body: string) => runReader(new GeminiReader("gemini"), body);
const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

describe("GeminiReader", () => {
  test("text parts join into one item; usage from the last usageMetadata (cached apart, SPEC §9)", () => {
    const r = read(C.TEXT);
    expect(r.error).toBeUndefined();
    expect(r.message!.content_items).toEqual([{ type: "text.done", text: "The sky is blue because of Rayleigh scattering." }]);
    expect(r.message!.usage_metadata).toEqual({ cached_tokens: 4, prompt_tokens: 8, thoughts_tokens: null, response_tokens: 11 });
    expect(r.message!.finish_reason).toBe("stop");
    expect(validated(r.events)).toEqual(r.message);
  });

  test("the last usageMetadata counts whole: a count an earlier chunk had and the last leaves out is not kept", () => {
    const body = [
      { candidates: [{ content: { parts: [{ text: "a" }] } }], usageMetadata: { promptTokenCount: 10, cachedContentTokenCount: 6, candidatesTokenCount: 1 } },
      { candidates: [{ content: { parts: [{ text: "b" }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2 } },
    ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");
    expect(read(body).message!.usage_metadata).toEqual({ cached_tokens: null, prompt_tokens: 10, thoughts_tokens: null, response_tokens: 2 });
  });

  test("thought parts → thinking; the signature on the last, empty text part is that text item's fidelity", () => {
    const r = read(C.THOUGHTS_SIGNED);
    expect(r.message!.content_items).toEqual([
      { type: "thinking.done", thinking: "**Considering the question**\n\nThe user wants a haiku.", fidelity: { summary: true } },
      { type: "text.done", text: "Autumn moonlight—\na worm digs silently", fidelity: { signature: C.SIGNATURE } },
    ]);
    expect(r.message!.usage_metadata).toEqual({ cached_tokens: null, prompt_tokens: 8, thoughts_tokens: 230, response_tokens: 17 });
    expect(validated(r.events)).toEqual(r.message);
  });

  test("a second signature within consecutive text parts begins an item of its own: each signature stays with its part", () => {
    const body = [
      { candidates: [{ content: { parts: [{ text: "a", thoughtSignature: C.SIGNATURE }] } }] },
      { candidates: [{ content: { parts: [{ text: "b", thoughtSignature: C.SIGNATURE_2 }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 1 } },
    ].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("");
    expect(read(body).message!.content_items).toEqual([
      { type: "text.done", text: "a", fidelity: { signature: C.SIGNATURE } },
      { type: "text.done", text: "b", fidelity: { signature: C.SIGNATURE_2 } },
    ]);
  });

  test("prism-php/prism #830 and vercel/ai #5116: parallel calls, each whole, the signature only on the first; STOP → tool_call", () => {
    const r = read(C.PARALLEL_CALLS);
    expect(r.error).toBeUndefined();
    expect(r.message!.content_items).toEqual([
      { type: "thinking.done", thinking: "I need both cities.", fidelity: { summary: true } },
      { type: "tool_call.done", name: "get_weather", tool_call_id: "get_weather", arguments: { city: "Paris" }, fidelity: { signature: C.SIGNATURE } },
      { type: "tool_call.done", name: "get_weather", tool_call_id: "call_2", arguments: { city: "Tokyo", units: ["c", "f"] } },
    ]);
    expect(r.message!.finish_reason).toBe("tool_call");
    // each call is one fragment
    expect(r.fragments.filter((f) => f.item.type === "tool_call.delta")).toHaveLength(2);
    expect(validated(r.events)).toEqual(r.message);
  });

  test("vercel/ai #14358: streamed partialArgs join into one call's arguments (strings appended, values set by path)", () => {
    const r = read(C.PARTIAL_ARGS);
    expect(r.error).toBeUndefined();
    expect(r.message!.content_items).toEqual([
      {
        type: "tool_call.done",
        name: "write_file",
        tool_call_id: "write_file",
        arguments: { path: "notes/todo.md", body: "- milk\n- eggs", options: { overwrite: true, mode: 420 }, tags: ["home"], owner: null },
        fidelity: { signature: C.SIGNATURE },
      },
    ]);
    expect(r.message!.finish_reason).toBe("tool_call");
    expect(validated(r.events)).toEqual(r.message);
  });

  test("a streamed call cut before its end: STOP-LAST, and the call is never written", () => {
    const r = read(C.TRUNCATED_CALL);
    expect(r.error).toMatchObject({ rule: "STOP-LAST" });
    expect(r.fragments).toEqual([]);
  });

  test("partialArgs paths: dotted, bracketed, indexed; an index past the end or a foreign path is refused", () => {
    expect(pathOf("$.a.b[0]['c d'][\"e\"]")).toEqual(["a", "b", 0, "c d", "e"]);
    expect(() => pathOf("a.b")).toThrow();
    expect(() => pathOf("$..a")).toThrow();
    const body = C.PARTIAL_ARGS.replace('"$.tags[0]"', '"$.tags[99999999]"');
    expect(read(body).error).toMatchObject({ rule: "SCHEMA" });
  });

  test("inlineData: each image its own item, a thought image → inline_thinking, the signature with its image", () => {
    const r = read(C.IMAGES);
    expect(r.error).toBeUndefined();
    const png = bytes(C.PNG_BASE64);
    expect(r.message!.content_items).toEqual([
      { type: "inline_thinking.done", data: png, mime_type: "image/png" },
      { type: "text.done", text: "Two versions:" },
      { type: "inline_data.done", data: png, mime_type: "image/png" },
      { type: "inline_data.done", data: png, mime_type: "image/png", fidelity: { signature: C.SIGNATURE } },
    ]);
    expect(validated(r.events)).toEqual(r.message);
  });

  test("the chunks of one audio stream are one item", () => {
    const r = read(C.AUDIO);
    expect(r.message!.content_items).toEqual([
      { type: "inline_data.done", data: new Uint8Array([...bytes(C.PCM_1), ...bytes(C.PCM_2)]), mime_type: "audio/L16;codec=pcm;rate=24000" },
    ]);
  });

  test("MAX_TOKENS → length", () => {
    const r = read(C.MAX_TOKENS);
    expect(r.message!.finish_reason).toBe("length");
    expect(r.message!.content_items).toEqual([{ type: "text.done", text: "One, two, three" }]);
  });

  test("SAFETY with no content: EmptyResponseError with finish unknown, and the reason said", () => {
    const r = read(C.SAFETY);
    expect(r.error).toBeInstanceOf(EmptyResponseError);
    expect(r.error).toMatchObject({ finishReason: "unknown", usageMetadata: { prompt_tokens: 14, response_tokens: null } });
    expect(r.reason).toBe("Gemini stopped the candidate with finishReason SAFETY");
  });

  test("promptFeedback.blockReason: the same, naming the block", () => {
    const r = read(C.BLOCKED);
    expect(r.error).toBeInstanceOf(EmptyResponseError);
    expect(r.error).toMatchObject({ finishReason: "unknown" });
    expect(r.reason).toBe("Gemini blocked the prompt with blockReason PROHIBITED_CONTENT: The prompt was blocked.");
  });

  test("code execution parts are skipped and said; a count-less usageMetadata (Vertex AI) is no usage", () => {
    const r = read(C.CODE_EXECUTION);
    expect(r.message!.content_items).toEqual([{ type: "text.done", text: "It is 4." }]);
    expect(r.warnings).toEqual([
      'skipped a Gemini part of kind "executableCode": it has no UniEvent kind',
      'skipped a Gemini part of kind "codeExecutionResult": it has no UniEvent kind',
    ]);
    expect(r.stops.filter((s) => s.usage !== null)).toHaveLength(1);
  });

  test("an error inside the 200 stream: UpstreamError with Google's status as the type, after the text", () => {
    const r = read(C.STREAM_ERROR);
    expect(r.error).toBeInstanceOf(UpstreamError);
    expect(r.error).toMatchObject({ errorType: "UNAVAILABLE", status: 503, message: "The model is overloaded. Please try again later." });
    expect(itemsOf(r.events)).toEqual([{ type: "text.delta", text: "Start" }]);
  });

  test("a stream that ends before a finishReason: STOP-LAST, and no .done for the open item", () => {
    const r = read(C.TRUNCATED);
    expect(r.error).toMatchObject({ rule: "STOP-LAST" });
    expect(r.events.map((e) => e.content_items[0]?.type)).toEqual(["text.delta", "text.delta"]);
  });
});
