// Issue #47 "Speed", in Node: the encoders' hand-written hot chunks (a text, a thinking, an argument
// fragment written from a template made once per answer, only the fragment JSON-escaped) write exactly
// the bytes the plain writers wrote (each chunk an object given to JSON.stringify): for random checked
// UniEvent streams with random fidelities, ids and model names, the Chat Completions core, the Gemini
// core and the useChat door's chunks against the plain writers kept below (the encoders as they were).
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  CHAT_FINISH,
  ChatCompletionsEncoderCore,
  type ChatCompletionsEncoderOptions,
  chatCompletionsUsage,
  reasoningDetails,
} from "../../src/encode/chat-completions.ts";
import { encodeBase64 } from "../../src/decode/base64.ts";
import { GEMINI_FINISH, GeminiEncoderCore, geminiUsage } from "../../src/encode/gemini.ts";
import type { UniEvent } from "../../src/index.ts";
import { isRecord } from "../../src/internal/values.ts";
import { CHUNK_OBJECTS, CHUNK_SSE, ChunkMapper } from "../../src/ai-sdk/chunk-mapper.ts";
import { streamEvents, unit } from "../arbitraries.ts";

type Rec = Record<string, unknown>;

/** Fidelities a fragment may carry: none, a signature, a reasoning field, a maker's values, a Chat dialect's entries. */
const fidelity = fc.constantFrom<Rec | undefined>(
  undefined,
  {},
  { signature: "s€" },
  { reasoning_field: "reasoning" },
  { reasoning_field: "reasoning_content", signature: 'x"y' },
  { provider: "gemini", signature: "g\u2028" },
  { provider: "anthropic", signature: "a", encrypted_content: "b" },
  { encrypted_content: "e😀" },
  { reasoning_details: [{ type: "reasoning.text", text: "t\n", format: "unknown" }] },
);

const names = fc.string({ unit, maxLength: 8 });

/**
 * Random streams (the arbitraries' groups, each fragment given a random fidelity, each call a random
 * id and name), inline data as bytes.
 */
const streams = fc.tuple(streamEvents, fc.array(fidelity, { minLength: 1, maxLength: 8 }), names, names).map(([events, fids, call, fn]) =>
  events.map((e, n) => ({
    ...e,
    content_items: (e.content_items as Rec[]).map((i) => {
      const item: Rec = "data" in i ? { ...i, data: new Uint8Array([n, 255]) } : { ...i };
      const f = fids[n % fids.length];
      if (typeof item.type === "string" && item.type.endsWith(".delta") && f !== undefined) item.fidelity = f;
      if (item.tool_call_id === "call_1") item.tool_call_id = `call_${call}`;
      if (item.name === "fn") item.name = `fn${fn}`;
      return item;
    }),
  })) as unknown as UniEvent[]
);

/** A core's outputs over `events` (its start, each event, its end), each output in order. */
function outputs<T>(
  core: { start?(e: (o: T) => void): void; push(ev: UniEvent, e: (o: T) => void): void; end?(e: (o: T) => void): unknown },
  events: UniEvent[],
): T[] {
  const out: T[] = [];
  const emit = (o: T) => void out.push(o);
  core.start?.(emit);
  for (const event of events) core.push(event, emit);
  core.end?.(emit);
  return out;
}

// ---- the plain writers: the encoders as they were, every chunk an object given to JSON.stringify ----

const fieldOf = (fidelity: unknown): string | undefined => {
  const f = isRecord(fidelity) ? fidelity.reasoning_field : undefined;
  return f === "reasoning_content" || f === "reasoning" ? f : undefined;
};

/** The Chat Completions core as it was (objects stringified), for the events of a stream that ends at its stop. */
function plainChat(
  events: UniEvent[],
  options: Required<Pick<ChatCompletionsEncoderOptions, "id" | "model" | "created" | "includeUsage">>,
): string[] {
  const top = `{"id":${JSON.stringify(options.id)},"object":"chat.completion.chunk","created":${options.created},"model":${
    JSON.stringify(options.model)
  }`;
  const head = `data: ${top},"choices":[{"index":0,"delta":`;
  const tail = `,"logprobs":null,"finish_reason":null}]}\n\n`;
  const chunk = (delta: Rec) => head + JSON.stringify(delta) + tail;
  const out = [`${head}{"role":"assistant","content":""}${tail}`];
  const bound = (fidelity: unknown, toolCallId?: string) => {
    if (!isRecord(fidelity)) return;
    const entries = reasoningDetails(fidelity, toolCallId);
    if (entries.length) out.push(chunk({ reasoning_details: entries }));
  };
  let groupField: string | undefined;
  let calls = 0;
  let callId = "";
  for (const event of events) {
    if (event.event_type === "stop") {
      const finish = CHAT_FINISH[event.finish_reason ?? "unknown"] ?? "stop";
      out.push(`${head}{}${tail.replace('"finish_reason":null', `"finish_reason":"${finish}"`)}`);
      if (options.includeUsage) {
        out.push(`data: ${top},"choices":[],"usage":${JSON.stringify(chatCompletionsUsage(event.usage_metadata))}}\n\n`);
      }
      out.push("data: [DONE]\n\n");
      break;
    }
    for (const item of event.content_items) {
      if (item.type === "text.delta") {
        if (item.text) out.push(chunk({ content: item.text }));
        bound(item.fidelity);
      } else if (item.type === "thinking.delta") {
        groupField ??= fieldOf(item.fidelity);
        if (item.thinking) out.push(chunk({ [fieldOf(item.fidelity) ?? groupField ?? "reasoning_content"]: item.thinking }));
        bound(item.fidelity);
      } else if (item.type === "tool_call.delta") {
        if (item.name && item.tool_call_id !== callId) {
          callId = item.tool_call_id;
          out.push(
            chunk({
              tool_calls: [{
                index: calls++,
                id: item.tool_call_id,
                type: "function",
                function: { name: item.name, arguments: item.arguments },
              }],
            }),
          );
        } else if (item.arguments) {
          out.push(chunk({ tool_calls: [{ index: calls - 1, function: { arguments: item.arguments } }] }));
        }
        bound(item.fidelity, callId);
      } else if (item.type === "thinking.done") groupField = undefined;
      else if (item.type === "tool_call.done") callId = "";
    }
  }
  return out;
}

/** The Gemini core as it was (each part an object stringified), for the events of a stream that ends at its stop. */
function plainGemini(events: UniEvent[], modelVersion: string | undefined): string[] {
  const meta = modelVersion === undefined ? "" : `,"modelVersion":${JSON.stringify(modelVersion)}`;
  const chunk = (part: Rec) =>
    `data: {"candidates":[{"content":{"role":"model","parts":[${JSON.stringify(part)}]},"index":0}]${meta}}\r\n\r\n`;
  const signatureOf = (fidelity: unknown): string | undefined => {
    if (!isRecord(fidelity)) return undefined;
    for (const key of ["signature", "encrypted_content"]) {
      const v = fidelity[key];
      if (typeof v === "string" && v) return v;
    }
    return undefined;
  };
  const signed = (part: Rec, fidelity: unknown): Rec => {
    const signature = signatureOf(fidelity);
    if (signature !== undefined) part.thoughtSignature = signature;
    return part;
  };
  const out: string[] = [];
  for (const event of events) {
    if (event.event_type === "stop") {
      const finish = GEMINI_FINISH[event.finish_reason ?? "unknown"] ?? "OTHER";
      out.push(
        `data: {"candidates":[{"finishReason":"${finish}","index":0}],"usageMetadata":${
          JSON.stringify(geminiUsage(event.usage_metadata))
        }${meta}}\r\n\r\n`,
      );
      break;
    }
    for (const item of event.content_items) {
      if (item.type === "text.delta") {
        if (item.text || signatureOf(item.fidelity)) out.push(chunk(signed({ text: item.text }, item.fidelity)));
      } else if (item.type === "thinking.delta") {
        if (item.thinking || signatureOf(item.fidelity)) out.push(chunk(signed({ text: item.thinking, thought: true }, item.fidelity)));
      } else if (item.type === "tool_call.done") {
        out.push(chunk(signed({ functionCall: { id: item.tool_call_id, name: item.name, args: item.arguments } }, item.fidelity)));
      } else if (item.type === "inline_data.done" || item.type === "inline_thinking.done") {
        const part: Rec = { inlineData: { mimeType: item.mime_type, data: encodeBase64(item.data) } };
        if (item.type === "inline_thinking.done") part.thought = true;
        out.push(chunk(signed(part, item.fidelity)));
      }
    }
  }
  return out;
}

describe("the hand-written hot chunks write the plain writers' bytes", () => {
  test("Chat Completions: every chunk of random streams, with random ids and model names", () => {
    fc.assert(
      fc.property(streams, names, names, fc.nat(2 ** 40), fc.boolean(), (events, id, model, created, includeUsage) => {
        const options = { id: `chatcmpl-${id}`, model, created, includeUsage };
        expect(outputs(new ChatCompletionsEncoderCore(options), events)).toEqual(plainChat(events, options));
      }),
      { numRuns: 300 },
    );
  });

  test("Gemini: every chunk of random streams, with and without a model version", () => {
    fc.assert(
      fc.property(streams, fc.option(names, { nil: undefined }), (events, modelVersion) => {
        const core = new GeminiEncoderCore(modelVersion === undefined ? {} : { modelVersion });
        expect(outputs(core, events)).toEqual(plainGemini(events, modelVersion));
      }),
      { numRuns: 300 },
    );
  });

  test("useChat: every record of random streams is `data: <the chunk object stringified>`", () => {
    fc.assert(
      fc.property(streams, names, (events, messageId) => {
        const records = outputs(new ChunkMapper(messageId, CHUNK_SSE), events);
        const chunks = outputs(new ChunkMapper(messageId, CHUNK_OBJECTS), events);
        expect(records).toEqual(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`));
      }),
      { numRuns: 300 },
    );
  });

  test("Chat Completions: an argument fragment before any call names index -1, as before", () => {
    const events = [{
      role: "assistant",
      event_type: "delta",
      content_items: [{ type: "tool_call.delta", name: "", tool_call_id: "", arguments: '{"a"' }],
      usage_metadata: null,
      finish_reason: null,
    }] as UniEvent[];
    const options = { id: "chatcmpl-1", model: "m", created: 1, includeUsage: false };
    expect(outputs(new ChatCompletionsEncoderCore(options), events).slice(0, 2)).toEqual(plainChat(events, options).slice(0, 2));
  });
});
