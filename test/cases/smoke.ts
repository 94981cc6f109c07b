// End-to-end smoke cases: a whole MMSP stream (thinking + text + a tool call) read through the
// built package, in SSE and NDJSON, split anywhere, and through `fromResponse`. Web APIs only.
// The fixtures are exported for the Worker integration tests (test/workers/).
import { fromResponse, UniEventStream, type UniEvent, type UniMessage } from "../../dist/index.js";
import { type Case, assertEqual, byteStream, collect, splitAt, utf8 } from "../harness.ts";

const USAGE = { cached_tokens: 0, prompt_tokens: 42, thoughts_tokens: 18, response_tokens: 27 };
const CREATED_AT = 1764412800000;
const SIGNATURE = { signature: "c2lnLTE=" }; // base64 inside fidelity stays a string

const delta = (item: Record<string, unknown>) => ({
  role: "assistant",
  event_type: "delta",
  content_items: [item],
  usage_metadata: null,
  finish_reason: null,
});

/** The events of the sample stream, as they travel (JSON values). */
export const SAMPLE_EVENTS: Record<string, unknown>[] = [
  delta({ type: "thinking.delta", thinking: "The user wants the weather in Zürich. " }),
  delta({ type: "thinking.delta", thinking: "I should call get_weather." }),
  delta({ type: "thinking.delta", thinking: "", fidelity: SIGNATURE }),
  delta({ type: "thinking.done", thinking: "The user wants the weather in Zürich. I should call get_weather.", fidelity: SIGNATURE }),
  delta({ type: "text.delta", text: "Let me check the weather " }),
  delta({ type: "text.delta", text: "in Zürich ☀️ for you — 😀" }),
  delta({ type: "text.done", text: "Let me check the weather in Zürich ☀️ for you — 😀" }),
  delta({ type: "tool_call.delta", name: "get_weather", tool_call_id: "call_1", arguments: '{"city": "Zü' }),
  delta({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: 'rich", "unit": "celsius"}' }),
  delta({ type: "tool_call.done", name: "get_weather", tool_call_id: "call_1", arguments: { city: "Zürich", unit: "celsius" } }),
  { role: "assistant", event_type: "stop", content_items: [], usage_metadata: USAGE, finish_reason: "tool_call", created_at: CREATED_AT },
];

/** The message the sample stream builds. */
export const SAMPLE_MESSAGE: UniMessage = {
  role: "assistant",
  content_items: [
    { type: "thinking.done", thinking: "The user wants the weather in Zürich. I should call get_weather.", fidelity: SIGNATURE },
    { type: "text.done", text: "Let me check the weather in Zürich ☀️ for you — 😀" },
    { type: "tool_call.done", name: "get_weather", tool_call_id: "call_1", arguments: { city: "Zürich", unit: "celsius" } },
  ],
  usage_metadata: USAGE,
  finish_reason: "tool_call",
  created_at: CREATED_AT,
};

/** SSE framing as an MMSP server writes it (with a keep-alive comment and the final [DONE]). */
export function toSse(events: unknown[]): string {
  const [first, ...rest] = events.map((e) => `data: ${JSON.stringify(e)}\n\n`);
  return [first, ": keep-alive\n\n", ...rest, "data: [DONE]\n\n"].join("");
}

/** NDJSON framing (CRLF line ends and a blank line, which readers skip). */
export function toNdjson(events: unknown[]): string {
  return events.map((e, i) => JSON.stringify(e) + (i === 1 ? "\r\n \t\r\n" : "\r\n")).join("");
}

/** Cut points that fall inside every multi-byte character of `bytes` (plus a few others). */
export function cutsInsideCharacters(bytes: Uint8Array): number[] {
  const cuts: number[] = [];
  for (let i = 0; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) cuts.push(i); // continuation byte
  return cuts.concat([7, 100, 333]);
}

const TYPES = SAMPLE_EVENTS.map((e) => (e.event_type === "stop" ? "stop" : (e.content_items as { type: string }[])[0]!.type));
const typesOf = (events: UniEvent[]) => events.map((e) => (e.event_type === "stop" ? "stop" : e.content_items[0]!.type));

async function readAll(chunks: Uint8Array[], format: "sse" | "ndjson"): Promise<{ events: UniEvent[]; message: UniMessage }> {
  const stream = new UniEventStream({ format });
  const events = await collect(byteStream(chunks).pipeThrough(stream));
  return { events, message: await stream.message };
}

export const cases: Case[] = [
  ["SSE stream of thinking + text + tool call, split inside multi-byte characters → events and message", async () => {
    const bytes = utf8(toSse(SAMPLE_EVENTS));
    const chunks = splitAt(bytes, cutsInsideCharacters(bytes));
    assertEqual(chunks.length > 15, true, "the stream is cut in many places");
    const { events, message } = await readAll(chunks, "sse");
    assertEqual(typesOf(events), TYPES, "event types");
    assertEqual(events[events.length - 1]!.usage_metadata, USAGE, "usage on the stop event");
    assertEqual(message, SAMPLE_MESSAGE, "message");
  }],
  ["the same SSE bytes, one byte at a time", async () => {
    const bytes = utf8(toSse(SAMPLE_EVENTS));
    const { events, message } = await readAll(Array.from(bytes, (b) => new Uint8Array([b])), "sse");
    assertEqual(events.length, SAMPLE_EVENTS.length, "event count");
    assertEqual(message, SAMPLE_MESSAGE, "message");
  }],
  ["NDJSON stream (CRLF, a blank line) → the same message", async () => {
    const bytes = utf8(toNdjson(SAMPLE_EVENTS));
    const { events, message } = await readAll(splitAt(bytes, cutsInsideCharacters(bytes)), "ndjson");
    assertEqual(typesOf(events), TYPES, "event types");
    assertEqual(message, SAMPLE_MESSAGE, "message");
  }],
  ["fromResponse on a real Response with content-type application/x-ndjson", async () => {
    const bytes = utf8(toNdjson(SAMPLE_EVENTS));
    const response = new Response(byteStream(splitAt(bytes, [1, 2, 3, 50, 51, 400])), {
      headers: { "content-type": "application/x-ndjson; charset=utf-8" },
    });
    const { readable, message } = fromResponse(response);
    const events = await collect(readable);
    assertEqual(typesOf(events), TYPES, "event types");
    assertEqual(await message, SAMPLE_MESSAGE, "message");
  }],
];
