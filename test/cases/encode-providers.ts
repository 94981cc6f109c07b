// Issue #47's encoder stages, in every runtime: the package's own provider reader reading an encoder's
// output gives back what the events said (a round trip): random UniEvent streams through
// ChatCompletionsEncoderStream then the Chat reader, and through GeminiEncoderStream then the Gemini
// reader; each shared capture of that API read, encoded and read again. (The SDK checks are in Node:
// test/unit/chat-completions-encoder.test.ts, test/unit/gemini-encoder.test.ts.)
import fc from "fast-check";
import { ChatCompletionsEncoderStream, GeminiEncoderStream } from "../../dist/encode.js";
import { holds } from "../property.ts";
import { assertEqual, type Case, valuesStream } from "../harness.ts";
import { streamEvents } from "../arbitraries.ts";
import { convert } from "./providers.ts";
import * as chat from "./providers/captures-openai-chat.ts";
import * as gemini from "./providers/captures-gemini.ts";

type Json = Record<string, any>;

const n = (v: number | null | undefined): number => v ?? 0;
const bytesOf = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** The arbitraries' events as UniEvents (inline data as bytes). */
const uni = (events: Json[]): Json[] =>
  events.map((e) => ({ ...e, content_items: e.content_items.map((i: Json) => (typeof i.data === "string" ? { ...i, data: bytesOf(i.data) } : i)) }));

/** The message the events are: their `.done` items, the stop's usage and finish. */
function messageOf(events: Json[]): Json {
  const stop = events.at(-1)!;
  return { content_items: events.flatMap((e) => e.content_items.filter((i: Json) => i.type.endsWith(".done"))), usage_metadata: stop.usage_metadata, finish_reason: stop.finish_reason };
}

/** What both APIs carry: text, thinking text, calls, usage (input, cached, output, thinking), and the finish as `api` words it. */
function view(m: Json, finish: Record<string, string>): Json {
  const of = (type: string, f: (i: Json) => unknown) => m.content_items.filter((i: Json) => i.type === type).map(f);
  const u = m.usage_metadata ?? {};
  return {
    text: of("text.done", (i) => i.text).join(""),
    thinking: of("thinking.done", (i) => i.thinking).join(""),
    calls: of("tool_call.done", (i) => [i.tool_call_id, i.name, i.arguments]),
    usage: [n(u.cached_tokens) + n(u.prompt_tokens), n(u.cached_tokens), n(u.thoughts_tokens) + n(u.response_tokens), n(u.thoughts_tokens)],
    finish: finish[m.finish_reason ?? "unknown"],
  };
}

const CHAT_FINISH = { stop: "stop", length: "length", tool_call: "tool_calls", unknown: "stop" };
const GEMINI_FINISH = { stop: "STOP", length: "MAX_TOKENS", tool_call: "STOP", unknown: "OTHER" };

async function body(events: Json[], stage: TransformStream<any, Uint8Array> | { readable: ReadableStream<Uint8Array>; writable: WritableStream<any> }): Promise<string> {
  return await new Response(valuesStream(events).pipeThrough(stage)).text();
}

/** The round trip: the reader's message holds what the events' message holds (an empty answer is refused as such). */
async function roundTrip(provider: "openai-chat" | "gemini", events: Json[], text: string, what: string): Promise<void> {
  const finish = provider === "gemini" ? GEMINI_FINISH : CHAT_FINISH;
  const want = view(messageOf(events), finish);
  const r = await convert(provider, text);
  const hasContent = want.text !== "" || want.calls.length > 0 ||
    (provider === "gemini" && messageOf(events).content_items.some((i: Json) => (i.type === "inline_data.done" && i.data.length) || (i.type === "text.done" && i.fidelity?.signature)));
  if (!hasContent) return assertEqual(r.error?.name, "EmptyResponseError", `${what}: an answer with no content is refused as empty`);
  assertEqual(r.error, undefined, `${what}: the reader reads the encoded stream`);
  assertEqual(view(r.message, finish), want, `${what}: the reader gives back the message`);
}

const capturesOf = (module: Json): [string, string][] => Object.entries(module).filter(([, v]) => typeof v === "string" && v.startsWith("data:")) as [string, string][];

export const cases: Case[] = [
  ["ChatCompletionsEncoderStream → the Chat reader: random UniEvent streams give back their message (a property)", () =>
    holds(
      fc.asyncProperty(streamEvents, async (wire) => {
        const events = uni(wire);
        await roundTrip("openai-chat", events, await body(events, new ChatCompletionsEncoderStream({ includeUsage: true })), "chat");
      }),
      { numRuns: 40 },
    )],
  ["GeminiEncoderStream → the Gemini reader: random UniEvent streams give back their message (a property)", () =>
    holds(
      fc.asyncProperty(streamEvents, async (wire) => {
        const events = uni(wire);
        await roundTrip("gemini", events, await body(events, new GeminiEncoderStream({ modelVersion: "m" })), "gemini");
      }),
      { numRuns: 40 },
    )],
  ["each Chat and Gemini capture, read, encoded in its own API and read again, gives back its message", async () => {
    for (const [provider, module, make] of [
      ["openai-chat", chat, () => new ChatCompletionsEncoderStream({ includeUsage: true })],
      ["gemini", gemini, () => new GeminiEncoderStream()],
    ] as const) {
      for (const [name, capture] of capturesOf(module)) {
        const read = await convert(provider, capture);
        if (read.error !== undefined) continue; // (a failure: no message to give back)
        await roundTrip(provider, read.events, await body(read.events, make()), `${provider} ${name}`);
      }
    }
  }],
];
