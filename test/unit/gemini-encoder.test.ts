// GeminiEncoderStream (issue #47's encoder stages), in Node: exact chunks; every shared provider
// capture read into UniEvents and written by the encoder is read by the official `@google/genai` SDK
// (`models.generateContentStream` against a local server on 127.0.0.1 answering the encoder's bytes)
// into the same final message as the package's reader gives, and by the package's own Gemini reader
// into the same message (a round trip); a property does both on random UniEvent streams; the error
// chunk and Google's error shape; the non-streamed GenerateContentResponse.
import * as http from "node:http";
import fc from "fast-check";
import { GoogleGenAI } from "@google/genai";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { geminiError, GeminiEncoderStream, type GeminiEncoderOptions, geminiResponse } from "../../src/encode.ts";
import { EmptyResponseError, UpstreamError } from "../../src/errors.ts";
import type { UniEvent, UniMessage } from "../../src/index.ts";
import { serve, type Served } from "../../src/testing/serve.ts";
import { streamEvents } from "../arbitraries.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import { CAPTURES, readProvider } from "./encoder-captures.ts";

type Rec = Record<string, unknown>;

/** The body the local server answers next (one request at a time: the tests run in order). */
let answer = "";
let server: Served;
let baseUrl = "";
beforeAll(async () => {
  // (the kit's serve(): a fetch-shaped handler on 127.0.0.1, a free port)
  server = await serve(() => new Response(answer, { headers: { "content-type": "text/event-stream" } }), { http });
  baseUrl = server.url;
});
afterAll(() => server.close());

/** The SDK's chunks of a body, read through `models.generateContentStream()`. */
async function sdkChunks(body: string) {
  answer = body;
  const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl } });
  const chunks = [];
  for await (const chunk of await ai.models.generateContentStream({ model: "gemini-test", contents: "hi" })) chunks.push(chunk);
  return chunks;
}

/** Events through the encoder: the body's text. */
async function encode(events: UniEvent[], options: GeminiEncoderOptions = {}, fail?: unknown): Promise<string> {
  const source = new ReadableStream<UniEvent>({
    start: (c) => {
      for (const e of events) c.enqueue(e);
      if (fail === undefined) c.close();
      else c.error(fail);
    },
  });
  return await new Response(source.pipeThrough(new GeminiEncoderStream({ modelVersion: "gemini-test", responseId: "r1", ...options }))).text();
}

const n = (v: number | null | undefined): number => v ?? 0;
const FINISH: Rec = { stop: "STOP", length: "MAX_TOKENS", tool_call: "STOP", unknown: "OTHER" };

/**
 * Inline data as a Gemini client tells it apart: each image its own, consecutive audio of one type
 * one stream (as the package's reader joins the chunks of one audio stream).
 */
function joined(items: { mime: string; size: number; thought: boolean }[]): [string, number][] {
  const out: [string, number][] = [];
  items.forEach((it, k) => {
    const audio = (x: typeof it | undefined) => !!x && !x.thought && !x.mime.toLowerCase().startsWith("image/");
    if (audio(it) && audio(items[k - 1]) && items[k - 1]!.mime === it.mime) out.at(-1)![1] += it.size;
    else out.push([it.mime, it.size]);
  });
  // (an audio stream of no bytes holds nothing: a reader may keep it or not)
  return out.filter(([, size]) => size > 0);
}

/** What a Gemini client holds of a message: text, thoughts, calls, signatures, usage, finish. */
function geminiView(m: UniMessage) {
  const u = m.content_items;
  // (encrypted reasoning goes as a thoughtSignature too: Gemini has no other place for it)
  const sig = (i: UniMessage["content_items"][number]): unknown =>
    "fidelity" in i && i.fidelity ? (i.fidelity.signature ?? i.fidelity.encrypted_content) : undefined;
  return {
    text: u.flatMap((i) => (i.type === "text.done" ? [i.text] : [])).join(""),
    thoughts: u.flatMap((i) => (i.type === "thinking.done" ? [i.thinking] : [])).join(""),
    calls: u.flatMap((i) => (i.type === "tool_call.done" ? [{ id: i.tool_call_id, name: i.name, args: i.arguments }] : [])),
    signatures: u.flatMap((i) => (sig(i) === undefined ? [] : [sig(i)])),
    images: joined(u.flatMap((i) => (i.type === "inline_data.done" || i.type === "inline_thinking.done" ? [{ mime: i.mime_type, size: i.data.length, thought: i.type === "inline_thinking.done" }] : []))),
    usage: {
      prompt: n(m.usage_metadata?.cached_tokens) + n(m.usage_metadata?.prompt_tokens),
      cached: n(m.usage_metadata?.cached_tokens),
      thoughts: n(m.usage_metadata?.thoughts_tokens),
      candidates: n(m.usage_metadata?.response_tokens),
    },
    finish: FINISH[m.finish_reason ?? "unknown"],
  };
}

/** The SDK's chunks, in the same view. */
function sdkView(chunks: Awaited<ReturnType<typeof sdkChunks>>) {
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  const last = chunks.at(-1);
  const u = last?.usageMetadata;
  const images = joined(parts.flatMap((p) => (p.inlineData ? [{ mime: p.inlineData.mimeType ?? "", size: atob(p.inlineData.data ?? "").length, thought: !!p.thought }] : [])));
  return {
    text: parts.filter((p) => typeof p.text === "string" && !p.thought).map((p) => p.text).join(""),
    thoughts: parts.filter((p) => typeof p.text === "string" && p.thought).map((p) => p.text).join(""),
    calls: parts.filter((p) => p.functionCall).map((p) => ({ id: p.functionCall!.id, name: p.functionCall!.name, args: p.functionCall!.args })),
    signatures: parts.flatMap((p) => (p.thoughtSignature ? [p.thoughtSignature] : [])),
    images,
    usage: {
      prompt: n(u?.promptTokenCount),
      cached: n(u?.cachedContentTokenCount),
      thoughts: n(u?.thoughtsTokenCount),
      candidates: n(u?.candidatesTokenCount),
    },
    finish: last?.candidates?.[0]?.finishReason,
  };
}

/** A message the Gemini reader refuses as empty: no text, call or bytes but thinking. */
const empty = (m: UniMessage): boolean =>
  !m.content_items.some((i) => (i.type === "text.done" && (i.text || i.fidelity?.signature)) || i.type === "tool_call.done" || (i.type === "inline_data.done" && i.data.length));

async function expectRoundTrip(body: string, message: UniMessage): Promise<void> {
  const back = await readProvider("gemini", body);
  if (empty(message)) return expect(back.error).toBeInstanceOf(EmptyResponseError);
  expect(back.error).toBeUndefined();
  expect(geminiView(back.message!)).toEqual(geminiView(message));
}

describe("GeminiEncoderStream", () => {
  test("writes the chunks: text, a thought with its signature, a function call whole, the finish with usageMetadata", async () => {
    const d = (item: Rec): UniEvent => ({ role: "assistant", event_type: "delta", content_items: [item as never], usage_metadata: null, finish_reason: null });
    const fidelity = { signature: "c2ln", provider: "gemini" };
    const body = await encode([
      d({ type: "thinking.delta", thinking: "Hm" }),
      d({ type: "thinking.delta", thinking: "", fidelity }),
      d({ type: "thinking.done", thinking: "Hm", fidelity }),
      d({ type: "text.delta", text: "Hi" }),
      d({ type: "text.done", text: "Hi" }),
      d({ type: "tool_call.delta", name: "f", tool_call_id: "f", arguments: '{"a":' }),
      d({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: "1}" }),
      d({ type: "tool_call.done", name: "f", tool_call_id: "f", arguments: { a: 1 } }),
      {
        role: "assistant",
        event_type: "stop",
        content_items: [],
        usage_metadata: { cached_tokens: 2, prompt_tokens: 3, thoughts_tokens: 4, response_tokens: 5 },
        finish_reason: "tool_call",
      },
    ]);
    const chunk = (part: Rec) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [part] }, index: 0 }], modelVersion: "gemini-test", responseId: "r1" })}\r\n\r\n`;
    expect(body).toBe(
      chunk({ text: "Hm", thought: true }) +
        chunk({ text: "", thought: true, thoughtSignature: "c2ln" }) +
        chunk({ text: "Hi" }) +
        chunk({ functionCall: { id: "f", name: "f", args: { a: 1 } } }) +
        `data: ${
          JSON.stringify({
            candidates: [{ finishReason: "STOP", index: 0 }],
            usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5, cachedContentTokenCount: 2, thoughtsTokenCount: 4, totalTokenCount: 14 },
            modelVersion: "gemini-test",
            responseId: "r1",
          })
        }\r\n\r\n`,
    );
    const length: UniEvent = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: null, finish_reason: "length" };
    expect(await encode([length], { modelVersion: undefined, responseId: undefined })).toBe(
      `data: {"candidates":[{"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":0,"totalTokenCount":0}}\r\n\r\n`,
    );
  });

  for (const [name, provider, capture] of CAPTURES) {
    test(`${name}: the SDK's chunks and the package's Gemini reader hold what the package read`, async () => {
      const read = await readProvider(provider, capture);
      if (!read.message) return; // (a capture of a failure: the error cases below)
      const body = await encode(read.events);
      expect(sdkView(await sdkChunks(body))).toEqual(geminiView(read.message));
      await expectRoundTrip(body, read.message);
    });
  }

  test("a property: random UniEvent streams read by the SDK and by the package's Gemini reader give back the message", async () => {
    await fc.assert(
      fc.asyncProperty(streamEvents, async (wire) => {
        // (the arbitraries' inline data is base64 text: bytes in a UniEvent)
        const bytes = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
        const events = wire.map((e) => ({
          ...e,
          content_items: (e.content_items as Rec[]).map((i) => ("data" in i ? { ...i, data: bytes(i.data as string) } : i)),
        })) as unknown as UniEvent[];
        const message: UniMessage = {
          role: "assistant",
          content_items: events.flatMap((e) => e.content_items.filter((i) => i.type.endsWith(".done") && i.type !== "embedding.done")) as UniMessage["content_items"],
          usage_metadata: events.at(-1)!.usage_metadata,
          finish_reason: events.at(-1)!.finish_reason,
        };
        // (Gemini's STOP is both stop and tool_call: the views compare the word Gemini writes)
        const body = await encode(events);
        const sdk = sdkView(await sdkChunks(body));
        // (consecutive items of one kind join on a Gemini client: compare the joined text)
        expect(sdk).toEqual(geminiView(message));
        await expectRoundTrip(body, { ...message, content_items: message.content_items });
      }),
      { numRuns: 40 },
    );
  });

  test("an error on the writable side is Gemini's {error} chunk: the package's reader raises it, the SDK throws it", async () => {
    const first: UniEvent = { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null };
    class RateLimitError extends Error {}
    const body = await encode([first], {}, new RateLimitError("slow down"));
    expect(body.endsWith(`data: {"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}\r\n\r\n`)).toBe(true);
    const back = await readProvider("gemini", body);
    expect(back.error).toBeInstanceOf(UpstreamError);
    expect((back.error as UpstreamError).errorType).toBe("RESOURCE_EXHAUSTED");
    await expect(sdkChunks(body)).rejects.toThrow(/slow down/);
    expect(await encode([first])).toMatch(/data: \{"error":\{"code":500,"message":"the stream ended before its stop event","status":"INTERNAL"\}\}/);
  });

  test("the options are checked at the boundary: an unknown one and a wrong value are named", () => {
    expect(() => new GeminiEncoderStream({ model: "m" } as never)).toThrow(/unknown option "model"/);
    expect(() => geminiResponse({ role: "assistant", content_items: [] }, { responseId: 1 as never })).toThrow(TypeError);
  });

  test("geminiError: the code and Google's status word; a Gemini error relayed as it was read", () => {
    expect(geminiError(new UpstreamError({ client: "x", status: 404, errorType: "NotFoundError", error: { type: "NotFoundError", message: "no" }, message: "no" })))
      .toEqual({ status: 404, body: { error: { code: 404, message: "no", status: "NOT_FOUND" } } });
    const google = { code: 400, message: "bad", status: "INVALID_ARGUMENT", details: [] };
    expect(geminiError(new UpstreamError({ client: "x", status: 400, errorType: "INVALID_ARGUMENT", error: google, message: "bad" })))
      .toEqual({ status: 400, body: { error: google } });
    expect(geminiError("boom")).toEqual({ status: 500, body: { error: { code: 500, message: "boom", status: "INTERNAL" } } });
  });

  test("geminiResponse: the non-streamed answer holds what the streamed chunks hold", async () => {
    for (const capture of [GEMINI.THOUGHTS_SIGNED, GEMINI.PARALLEL_CALLS, GEMINI.IMAGES]) {
      const read = await readProvider("gemini", capture);
      const whole = geminiResponse(read.message!, { modelVersion: "gemini-test", responseId: "r1" });
      const streamed = sdkView(await sdkChunks(await encode(read.events)));
      const asStream = sdkView([whole as never]);
      expect({ ...asStream, images: streamed.images }).toEqual(streamed);
      expect(whole.modelVersion).toBe("gemini-test");
    }
  });
});
