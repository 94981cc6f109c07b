// Issue #49's fused door path, in Node: for random checked UniEvent streams (ending at their stop, or
// cut by an error), a door's encoding run where the events are writes exactly the bytes the staged
// path wrote (MMSP SSE read back through `fromResponse`, then the encoder stream): on the stateless
// path (the taken events straight into the encoder) and in the stream's object (the stored events
// parsed back by the viewer), for the Open Responses encoding and for MMSP SSE and NDJSON.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { NdjsonEncoderStream, OpenResponsesEncoderStream, openResponsesSse, SseEncoderStream } from "../../../../src/encode.ts";
import { encodeWireEvent } from "../../../../src/encode/wire-event.ts";
import { fromWireError } from "../../../../src/errors.ts";
import { fromResponse } from "../../../../src/from-response.ts";
import type { UniEvent } from "../../../../src/index.ts";
import { through } from "../../../../src/relay/through.ts";
import { metaText, openResponsesEncoding } from "../../../../src/relay/doors/open-responses/encoding.ts";
import { type DoorEncoding, type EncodingContext, mmspEncoding } from "../../../../src/relay/stream/encoding.ts";
import { encodedBody } from "../../../../src/relay/stream/encoded-body.ts";
import { Viewers } from "../../../../src/relay/stream/viewers.ts";
import { storedDoorAnswer } from "../../../../src/relay/stream/door-answer.ts";
import { checkedEvents } from "../../../../src/relay/stream/answer.ts";
import { streamBack } from "../../../../src/relay/doors/mmsp/http.ts";
import type { ResponseKeeper } from "../../../../src/relay/stream/responses.ts";
import { decoded, streamEvents } from "../../../arbitraries.ts";
import { holds } from "../../../property.ts";
import { storedLog, takenEvents } from "./stored-log.ts";

type Json = Record<string, any>;

/** The arbitraries' wire events as UniEvents (inline data as bytes). */
const uni = (events: Json[]): UniEvent[] => events.map(decoded) as UniEvent[];

/** A stream: its events, and the error that cut it (after `cut` events), if any. */
const cases = fc.tuple(
  streamEvents,
  fc.option(
    fc.tuple(
      fc.nat(),
      fc.constantFrom("StreamCancelled", "ProviderError", "StreamLimitExceeded", "RateLimitError"),
      fc.string({ maxLength: 20 }),
    ),
    { nil: undefined },
  ),
).map(([events, cut]) => {
  if (!cut) return { events, error: null };
  const [at, type, message] = cut;
  return { events: events.slice(0, at % events.length), error: { type, message: message || type } };
});

const ID = "0123456789abcdef0123456789abcdef";
const META = metaText({ model: "m-1", createdAt: 1_800_000_000, echo: { instructions: "be brief", tools: [] } });
const context: EncodingContext = { id: ID, meta: META, after: null };

/** The stream as the relay's object served it before: MMSP SSE (`id: <n>`), the error as its last event. */
function mmspSse(events: UniEvent[], error: Json | null): Response {
  const lines = events.map((e, n) => `id: ${n}\ndata: ${encodeWireEvent(e)}\n\n`);
  if (error) lines.push(`id: ${events.length}\ndata: ${JSON.stringify({ error })}\n\n`);
  lines.push("data: [DONE]\n\n");
  return new Response(lines.join(""), { headers: { "content-type": "text/event-stream; charset=utf-8" } });
}

/** The staged path: the SSE read back through fromResponse (framing, schema, grammar), then the encoder stream. */
function staged(events: UniEvent[], error: Json | null, encoder: "open-responses" | "sse" | "ndjson"): Promise<string> {
  const { readable, message } = fromResponse(mmspSse(events, error), { client: "relay" });
  message.catch(() => {});
  const bytes = encoder === "open-responses"
    ? through(
      through(
        readable,
        new OpenResponsesEncoderStream({
          id: `resp_${ID}`,
          model: "m-1",
          createdAt: 1_800_000_000,
          request: { instructions: "be brief", tools: [] },
        }),
      ),
      openResponsesSse(),
    )
    : through(readable, encoder === "sse" ? new SseEncoderStream() : new NdjsonEncoderStream());
  return new Response(bytes).text();
}

/** The stateless path: the taken events (a provider reader's, its error as it raised it) straight into the encoding. */
function stateless(events: UniEvent[], error: Json | null, encoding: DoorEncoding): Promise<string> {
  return new Response(encodedBody(takenEvents(events, error), encoding, context)).text();
}

/** The stream object's path: the stored events (their JSON, the error as its last) parsed back by the viewer into the encoding. */
function stored(events: UniEvent[], error: Json | null, encoding: DoorEncoding): Promise<string> {
  const log = storedLog(events, { error });
  const ask = { name: "door", id: ID, after: null, whole: false, ids: false };
  const answer = storedDoorAnswer(new Viewers(), { log, ended: true }, ask, { door: encoding }, META, 0) as Response;
  return answer.text();
}

/** The stream object's whole answer: the stored events read as events by the encoding's `whole`. */
async function storedWhole(events: UniEvent[], error: Json | null): Promise<unknown> {
  const log = storedLog(events, { error });
  const ask = { name: "door", id: ID, after: null, whole: true, ids: false };
  const answer = await storedDoorAnswer(new Viewers(), { log, ended: true }, ask, { door: openResponsesEncoding as DoorEncoding }, META, 0);
  return [answer.status, await answer.json()];
}

describe("a door's encoding run where the events are writes what the staged path wrote (issue #49)", () => {
  const encodings = [
    ["open-responses", openResponsesEncoding],
    ["sse", mmspEncoding("sse", "text/event-stream; charset=utf-8")],
    ["ndjson", mmspEncoding("ndjson", "application/x-ndjson")],
  ] as const;
  for (const [name, encoding] of encodings) {
    test(`${name}: the stateless path and the stream object's, byte for byte`, async () => {
      await holds(
        fc.asyncProperty(cases, async ({ events: wire, error }) => {
          const events = uni(wire);
          const before = await staged(events, error, name);
          expect(await stateless(events, error, encoding as DoorEncoding)).toBe(before);
          expect(await stored(events, error, encoding as DoorEncoding)).toBe(before);
        }),
        { numRuns: 150 },
      );
    });
  }

  test("Open Responses' whole answer (its resource) from the stored events is the staged path's last event's resource", async () => {
    await holds(
      fc.asyncProperty(cases, async ({ events: wire, error }) => {
        const events = uni(wire);
        const frames = (await staged(events, error, "open-responses")).split("\n\n").filter((f) => f.startsWith("event: "));
        const last = JSON.parse(frames.at(-1)!.split("\n")[1]!.slice(6));
        const [status, body] = (await storedWhole(events, error)) as [number, Json];
        if (last.response.status === "failed") {
          expect(status).toBe(502);
          expect(body.error).toEqual(JSON.parse(frames.at(-2)!.split("\n")[1]!.slice(6)).error);
        } else {
          expect(status).toBe(200);
          expect(body).toEqual(last.response);
        }
      }),
      { numRuns: 60 },
    );
  });

  test("Open Responses' starting_after keeps the events after that sequence number, as the staged path filtered them", async () => {
    await holds(
      fc.asyncProperty(streamEvents, fc.nat({ max: 40 }), async (wire, after) => {
        const before = await staged(uni(wire), null, "open-responses");
        const kept = before.split("\n\n").filter((frame) => {
          const m = /"sequence_number":(\d+)/.exec(frame);
          return frame !== "" && (m === null || Number(m[1]) > after);
        }).map((f) => `${f}\n\n`).join("");
        const resumed = new Response(encodedBody(streamOf(uni(wire)), openResponsesEncoding, { ...context, after: String(after) }));
        expect(await resumed.text()).toBe(kept);
      }),
      { numRuns: 60 },
    );
  });

  test("a kept SSE answer's ids: the last frame of stored event n says `id: n`; a Last-Event-ID resume writes what follows", async () => {
    const wire = fc.sample(streamEvents, { numRuns: 1, seed: 7 })[0]!;
    const events = uni(wire);
    const all = await new Response(encodedBody(streamOf(events), openResponsesEncoding, { ...context, ids: true })).text();
    const ids = [...all.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(events.map((_, n) => n).filter((n) => ids.includes(n)));
    expect(ids.at(-1)).toBe(events.length - 1);
    const cut = ids[Math.floor(ids.length / 2)]!;
    const resumed = await new Response(encodedBody(streamOf(events), openResponsesEncoding, { ...context, ids: true, resumeAfter: cut }))
      .text();
    expect(all.endsWith(resumed)).toBe(true);
    expect(all.slice(0, all.length - resumed.length)).toMatch(new RegExp(`id: ${cut}\\n[^\\n]*\\n[^\\n]*\\n\\n$`));
  });

  test("in the stream's object, Open Responses' terminal event is written only once its response is kept (after its stop, or at an end without one)", async () => {
    const wire = fc.sample(streamEvents, { numRuns: 1, seed: 11 })[0]!;
    const events = uni(wire);
    for (const ending of ["stop", "no stop"] as const) {
      const log = storedLog(ending === "stop" ? events : events.slice(0, -1));
      const order: string[] = [];
      const keeper = {
        finish: (_principal: string, _id: string, resource: Json | string) =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              order.push(`kept ${(typeof resource === "string" ? JSON.parse(resource) : resource).status}`);
              resolve();
            }, 0)
          ),
      } as unknown as ResponseKeeper;
      const meta = metaText({ model: "m-1", createdAt: 1_800_000_000, echo: {}, stored: true, keep: "p-1" });
      const ask = { name: "door", id: ID, after: null, whole: false, ids: false };
      const encodings = { door: openResponsesEncoding as DoorEncoding };
      const answer = storedDoorAnswer(new Viewers(), { log, ended: true }, ask, encodings, meta, 0, { keeper }) as Response;
      const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const terminal = /event: (response\.(?:completed|failed|incomplete))/.exec(r.value);
        order.push(terminal ? `wrote ${terminal[1]}` : "wrote");
      }
      const status = ending === "stop" ? "completed" : "failed";
      expect(order.filter((o) => o !== "wrote")).toEqual([`kept ${status}`, `wrote response.${status}`]);
    }
  });

  test("Open Responses' kept response is its terminal event's resource as written (its items' JSON made once by the encoder), on random streams, whole or cut", async () => {
    const env = { RELAY_SEAL_KEY: "relay-seal-key-for-the-kept-resource-test-0123" };
    await holds(
      fc.asyncProperty(cases, async ({ events: wire, error }) => {
        const events = uni(wire);
        const kept: (Json | string)[] = [];
        const keeper = {
          finish: (_p: string, _id: string, resource: Json | string) => Promise.resolve(void kept.push(resource)),
        } as unknown as ResponseKeeper;
        const meta = metaText({ model: "m-1", createdAt: 1_800_000_000, echo: {}, stored: true, keep: "p-1", include: true });
        const log = storedLog(events, { error });
        const ask = { name: "door", id: ID, after: null, whole: false, ids: false };
        const answer = storedDoorAnswer(
          new Viewers(),
          { log, ended: true },
          ask,
          { door: openResponsesEncoding as DoorEncoding },
          meta,
          0,
          {
            keeper,
            env,
          },
        ) as Response;
        const text = await answer.text();
        const terminal = /event: response\.(?:completed|failed|incomplete)\ndata: ([^\n]*)\n\n/.exec(text);
        expect(terminal, text.slice(-600)).not.toBeNull();
        expect(kept).toHaveLength(1);
        // (written by JSON.stringify: parsed and written again, the same text)
        expect(typeof kept[0] === "string" ? kept[0] : JSON.stringify(kept[0])).toBe(JSON.stringify(JSON.parse(terminal![1]!).response));
      }),
      { numRuns: 40 },
    );
  });

  test("the MMSP door's streamBack (mmspEncoding) writes the bytes its encoder streams wrote (SseEncoderStream, NdjsonEncoderStream), SSE and NDJSON", async () => {
    await holds(
      fc.asyncProperty(cases, fc.constantFrom("sse", "ndjson"), async ({ events: wire, error }, format) => {
        const events = uni(wire);
        const accept = format === "sse" ? "text/event-stream" : "application/x-ndjson";
        const answer = streamBack(mmspSse(events, error), accept, { client: "upstream" });
        const encoder = format === "sse" ? new SseEncoderStream({ keepAliveMs: 15_000 }) : new NdjsonEncoderStream();
        const before = await new Response(through(checkedEvents(mmspSse(events, error), { client: "upstream" }), encoder)).text();
        expect(answer.headers.get("content-type")).toBe(format === "sse" ? "text/event-stream; charset=utf-8" : "application/x-ndjson");
        expect(await answer.text()).toBe(before);
      }),
      { numRuns: 150 },
    );
  });

  test("Open Responses kept with ids, in the stream's object: the bytes the stateless path writes, from the start and after any Last-Event-ID", async () => {
    await holds(
      fc.asyncProperty(cases, fc.nat(), async ({ events: wire, error }, cut) => {
        const events = uni(wire);
        const log = storedLog(events, { error, perSlice: 5 });
        const ask = { name: "door", id: ID, after: null, whole: false, ids: true };
        for (const from of [0, cut % (log.count + 1)]) {
          const answer = storedDoorAnswer(
            new Viewers(),
            { log, ended: true },
            ask,
            { door: openResponsesEncoding as DoorEncoding },
            META,
            from,
          );
          let i = 0;
          const taken = new ReadableStream<UniEvent>({
            pull(c) {
              if (i < events.length) c.enqueue(events[i++]!);
              else if (error) c.error(fromWireError({ error }, null, "anthropic"));
              else c.close();
            },
          });
          const live = encodedBody(taken, openResponsesEncoding, { ...context, ids: true, resumeAfter: from - 1 });
          expect(await (answer as Response).text()).toBe(await new Response(live).text());
        }
      }),
      { numRuns: 100 },
    );
  });
});

function streamOf(events: UniEvent[]): ReadableStream<UniEvent> {
  let i = 0;
  return new ReadableStream({ pull: (c) => (i < events.length ? c.enqueue(events[i++]!) : c.close()) });
}
