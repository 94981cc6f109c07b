// Issue #49: a door's answer body (stream/encoding.ts `encodedBody`) writes the text of the events
// that are there at once as one chunk, not a chunk per event — the same bytes (door-encoding.test.ts
// holds them against the staged path) — and holds no text for an event still to come.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { UniEvent } from "../../../../src/index.ts";
import { encodeWireEvent } from "../../../../src/encode/wire-event.ts";
import { type DoorEncoding, mmspEncoding } from "../../../../src/relay/stream/encoding.ts";
import { encodedBody } from "../../../../src/relay/stream/encoded-body.ts";
import { streamEvents } from "../../../arbitraries.ts";
import { holds } from "../../../property.ts";

const sse = mmspEncoding("sse", "text/event-stream; charset=utf-8") as DoorEncoding;
const context = { id: "0123456789abcdef0123456789abcdef", meta: null, after: null };
const text = (chunks: Uint8Array[]): string => new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));

/** The body's chunks, read to the end. */
async function chunksOf(body: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const reader = body.getReader();;) {
    const r = await reader.read();
    if (r.done) return out;
    out.push(r.value);
  }
}

/** An event's text as MMSP's SSE encoding writes it. */
const frame = (e: UniEvent): string => `data: ${encodeWireEvent(e)}\n\n`;
/** The events' text as the body wrote it one chunk per event, and its end. */
const oneByOne = (events: UniEvent[]): string => events.map(frame).join("") + sse.end;

describe("a door's answer body writes the events that are there at once as one chunk (issue #49)", () => {
  test("events all there: one chunk for the lot (and the end), the bytes of a chunk per event", async () => {
    await holds(
      fc.asyncProperty(streamEvents, async (wire) => {
        const events = wire as unknown as UniEvent[];
        const source = new ReadableStream<UniEvent>({
          start(c) {
            for (const e of events) c.enqueue(e);
            c.close();
          },
        });
        const chunks = await chunksOf(encodedBody(source, sse, context));
        expect(text(chunks)).toBe(oneByOne(events));
        expect(chunks.length).toBe(1); // (a chunk per event before: events.length + 1)
      }),
      { numRuns: 100 },
    );
  });

  test("an event still to come: what is written goes at once, the body does not wait for the next", async () => {
    const events = [
      { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "a" }] },
      { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "b" }] },
      { role: "assistant", event_type: "stop", content_items: [], finish_reason: "stop" },
    ] as unknown as UniEvent[];
    let give: (() => void) | null = null;
    let i = 0;
    // (each event only once the test asks for it: a body that held text for the next would never answer)
    const source = new ReadableStream<UniEvent>({
      pull: (c) =>
        new Promise<void>((resolve) => {
          give = () => {
            if (i < events.length) c.enqueue(events[i++]!);
            else c.close();
            resolve();
          };
        }),
    }, { highWaterMark: 0 });
    const reader = encodedBody(source, sse, context).getReader();
    const seen: string[] = [];
    for (let n = 0; n < events.length; n++) {
      const read = reader.read();
      await new Promise((r) => setTimeout(r, 0)); // (the pull waits on the source)
      give!();
      const r = await read;
      seen.push(new TextDecoder().decode(r.value));
    }
    expect(seen).toEqual(events.map(frame));
  });
});
