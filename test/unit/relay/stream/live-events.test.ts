// Issue #47's "Speed" in the stream's object: a door's answer that follows the live edge is handed the
// checked events themselves (live-events.ts), not their stored JSON parsed back. For random streams,
// held from any event on, with any slice size, one or two door clients: every door's encoding writes
// the bytes the stored-text answer writes (the same bytes live and resumed); a caught-up answer reads
// no stored text for the events held; what is held is bounded and released once sent.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { encodeWireEvent } from "../../../../src/encode/wire-event.ts";
import type { UniEvent } from "../../../../src/index.ts";
import { metaText, openResponsesEncoding } from "../../../../src/relay/doors/open-responses/encoding.ts";
import { chatCompletionsEncoding, chatMetaText } from "../../../../src/relay/doors/chat-completions/encoding.ts";
import { messagesEncoding, messagesMetaText } from "../../../../src/relay/doors/anthropic-messages/encoding.ts";
import { geminiEncoding } from "../../../../src/relay/doors/gemini/encoding.ts";
import { messageIdMeta, uiChatEncoding } from "../../../../src/relay/doors/ui-chat/encoding.ts";
import { type DoorEncoding, mmspEncoding } from "../../../../src/relay/stream/encoding.ts";
import { Viewers } from "../../../../src/relay/stream/viewers.ts";
import { storedDoorAnswer } from "../../../../src/relay/stream/door-answer.ts";
import type { EventLog } from "../../../../src/relay/stream/event-log.ts";
import type { Framer } from "../../../../src/relay/stream/resume.ts";
import { LiveEvents } from "../../../../src/relay/stream/live-events.ts";
import { decoded, streamEvents } from "../../../arbitraries.ts";
import { holds } from "../../../property.ts";
import { storedLog } from "./stored-log.ts";

type Json = Record<string, any>;

/** The arbitraries' wire events as UniEvents (inline data as bytes). */
const uni = (events: Json[]): UniEvent[] => events.map(decoded) as UniEvent[];

const ID = "0123456789abcdef0123456789abcdef";
const ENCODINGS: [string, DoorEncoding, string | null][] = [
  [
    "open-responses",
    openResponsesEncoding as DoorEncoding,
    metaText({ model: "m-1", createdAt: 1_800_000_000, echo: { instructions: "be brief", tools: [] } }),
  ],
  ["chat-completions", chatCompletionsEncoding as DoorEncoding, chatMetaText({ model: "m-1", created: 1_800_000_000, includeUsage: true })],
  ["anthropic-messages", messagesEncoding as DoorEncoding, messagesMetaText({ model: "m-1", inputTokens: 12 })],
  ["gemini", geminiEncoding as DoorEncoding, encodeURIComponent("m-1")],
  ["ui-chat", uiChatEncoding as DoorEncoding, messageIdMeta("msg-1")],
  ["mmsp sse", mmspEncoding("sse", "text/event-stream; charset=utf-8") as DoorEncoding, null],
  ["mmsp ndjson", mmspEncoding("ndjson", "application/x-ndjson") as DoorEncoding, null],
];

/** A log of the stored events that says where each slice it was asked for starts. */
function watched(log: EventLog, asked: number[]): EventLog {
  return {
    get count() {
      return log.count;
    },
    slice(seq: number, part: number, framer: Framer) {
      asked.push(seq);
      return log.slice(seq, part, framer);
    },
  } as unknown as EventLog;
}

/** The answers of `clients` door clients of a stored stream, the events from `held` on held as objects once they are connected. */
async function answers(
  events: UniEvent[],
  error: Json | null,
  [, encoding, meta]: [string, DoorEncoding, string | null],
  { held, perSlice, clients, ids }: { held: number | null; perSlice: number; clients: number; ids: boolean },
): Promise<{ texts: string[]; asked: number[] }> {
  const asked: number[] = [];
  const log = watched(storedLog(events, { error, perSlice }), asked);
  const viewers = new Viewers();
  const ask = { name: "door", id: ID, after: null, whole: false, ids };
  const bodies = Array.from(
    { length: clients },
    () => storedDoorAnswer(viewers, { log, ended: true }, ask, { door: encoding }, meta, 0) as Response,
  );
  if (held !== null) { for (let n = held; n < events.length; n++) viewers.live.add(n, events[n]!, encodeWireEvent(events[n]!).length); }
  return { texts: await Promise.all(bodies.map((b) => b.text())), asked };
}

const cases = fc.record({
  events: streamEvents,
  error: fc.option(fc.constantFrom("StreamCancelled", "ProviderError"), { nil: null }),
  cut: fc.nat(),
  held: fc.nat(),
  perSlice: fc.integer({ min: 1, max: 8 }),
  clients: fc.integer({ min: 1, max: 2 }),
  ids: fc.boolean(),
});

describe("a live door answer in the stream's object takes the checked events themselves (issue #47)", () => {
  for (const door of ENCODINGS) {
    test(`${door[0]}: the same bytes as the stored text parsed back, held from any event, one or two clients`, async () => {
      await holds(
        fc.asyncProperty(cases, async ({ events: wire, error: type, cut, held, perSlice, clients, ids }) => {
          const events = uni(type === null ? wire : wire.slice(0, cut % wire.length));
          const error = type === null ? null : { type, message: type };
          const from = held % (events.length + 1);
          const stored = await answers(events, error, door, { held: null, perSlice, clients: 1, ids });
          const live = await answers(events, error, door, { held: from, perSlice, clients, ids });
          for (const text of live.texts) expect(text).toBe(stored.texts[0]);
          // (no slice of stored text asked for from a held event on: only before them, and the stored error)
          expect(live.asked.every((n) => n < from || n >= events.length)).toBe(true);
        }),
        { numRuns: 60 },
      );
    });
  }
});

describe("what the stream's object holds for its live door answers is bounded", () => {
  const event = { role: "assistant", event_type: "delta", content_items: [] } as unknown as UniEvent;

  test("nothing is held without a connected client that takes the events, and what was sent is released", () => {
    let lowest = Infinity;
    const live = new LiveEvents(() => lowest);
    live.add(0, event, 10);
    expect(live.take(0, 1)).toEqual([]);
    lowest = 1;
    live.add(1, event, 10);
    live.add(2, event, 10);
    expect(live.take(1, 3)).toHaveLength(2);
    expect(live.take(1, 2)).toHaveLength(1); // (only what is stored: before the log's count)
    lowest = 2;
    live.release();
    expect(live.take(1, 3)).toEqual([]);
    expect(live.take(2, 3)).toHaveLength(1);
    lowest = Infinity;
    live.release();
    expect(live.take(2, 3)).toEqual([]);
  });

  test("past the bound the oldest are dropped (their answer reads them from storage), and an event out of order starts anew", () => {
    const live = new LiveEvents(() => 0);
    for (let n = 0; n < 40; n++) live.add(n, event, 64 * 1024);
    expect(live.take(0, 40)).toEqual([]);
    expect(live.take(24, 40).length).toBeGreaterThan(0);
    live.add(50, event, 10);
    expect(live.take(39, 51)).toEqual([]);
    expect(live.take(50, 51)).toHaveLength(1);
  });

  test("a client that leaves releases what was held for it", async () => {
    const viewers = new Viewers();
    const events = uni([{ role: "assistant", event_type: "delta", content_items: [{ type: "text", text: "hi" }] }]);
    const log = storedLog(events, { perSlice: 1 });
    const ask = { name: "door", id: ID, after: null, whole: false, ids: false };
    const body = storedDoorAnswer(viewers, { log, ended: false }, ask, { door: ENCODINGS[5]![1] }, null, 0) as Response;
    viewers.live.add(0, events[0]!, 10);
    viewers.live.add(1, events[0]!, 10); // (held, not stored yet)
    await body.body!.cancel();
    expect(viewers.live.take(1, 2)).toEqual([]);
  });
});
