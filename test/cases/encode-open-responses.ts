// The Open Responses encoder's two paths (issue #47, speed): `OpenResponsesSseEncoderStream` writes in
// one stage the bytes `OpenResponsesEncoderStream` → `openResponsesSse()` writes in two, on any stream
// (whole, cut short, or aborted midway) — the one stage writing its delta events' text directly, by
// concatenation, the other framing event objects —; and the event objects stay the reader's own to change.
import fc from "fast-check";
import { OpenResponsesEncoderStream, openResponsesSse, OpenResponsesSseEncoderStream } from "../../dist/encode.js";
import { holds } from "../property.ts";
import { assertEqual, type Case, valuesStream } from "../harness.ts";
import { streamEvents } from "../arbitraries.ts";
import { delta, stop, text, textDone, thinking, thinkingDone } from "../fixtures.ts";

type Json = Record<string, any>;

const bytesOf = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

type Pair = { readable: ReadableStream<Uint8Array>; writable: WritableStream<any> };

/** The events written to `stage` (the writable aborted after `abortAt` of them, if given), its bytes as text. */
async function written(stage: Pair, events: Json[], abortAt: number | null): Promise<string> {
  const out = new Response(stage.readable).text();
  const writer = stage.writable.getWriter();
  const upTo = abortAt ?? events.length;
  for (const e of events.slice(0, upTo)) await writer.write(e);
  if (abortAt === null) await writer.close();
  else await writer.abort(Object.assign(new Error("upstream failed"), { name: "StreamError" }));
  return await out;
}

const twoStages = (options: Json): Pair => {
  const events = new OpenResponsesEncoderStream(options);
  return { writable: events.writable, readable: events.readable.pipeThrough(openResponsesSse()) };
};

/** A random stream: its thinking a summary or not, its calls of a custom tool or a function, cut short or aborted. */
const scenario = fc.record({
  wire: streamEvents,
  summary: fc.boolean(),
  // (a thinking's `encrypted_content` for a Responses client: its reasoning item carries it)
  encrypted: fc.option(fc.constantFrom("enc", 'e"\\\u2028😀'), { nil: undefined }),
  custom: fc.boolean(),
  end: fc.oneof(fc.constant({ kind: "whole" as const }), fc.record({ kind: fc.constantFrom("cut" as const, "abort" as const), at: fc.nat() })),
  // (an id of the caller's: the item ids made from it go into the delta events' text, which is written directly)
  id: fc.constantFrom("resp_p", 'resp_"q\\\u2028é😀'),
  request: fc.record({ instructions: fc.option(fc.string(), { nil: undefined }), temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }), { nil: undefined }) }),
});

export const cases: Case[] = [
  ["OpenResponsesSseEncoderStream writes the bytes of OpenResponsesEncoderStream → openResponsesSse on random streams, whole, cut short or aborted (a property)", () =>
    holds(
      fc.asyncProperty(scenario, async ({ wire, summary, encrypted, custom, end, id, request }) => {
        const thought = (i: Json): Json => {
          const fidelity = { ...i.fidelity, ...(summary ? { summary: true } : {}), ...(encrypted && i.type === "thinking.done" ? { encrypted_content: encrypted } : {}) };
          return { ...i, fidelity };
        };
        let events = (wire as Json[]).map((e) => ({
          ...e,
          content_items: e.content_items.map((i: Json) =>
            typeof i.data === "string" ? { ...i, data: bytesOf(i.data) } : (summary || encrypted) && i.type.startsWith("thinking") ? thought(i) : i
          ),
        }));
        const options = {
          id,
          model: "m",
          createdAt: 1,
          request: { ...request, tools: custom ? [{ type: "custom", name: "fn" }] : [{ type: "function", name: "fn", parameters: {} }] },
        };
        let abortAt: number | null = null;
        if (end.kind === "cut") events = events.slice(0, end.at % events.length);
        if (end.kind === "abort") abortAt = end.at % events.length;
        const want = await written(twoStages(options), events, abortAt);
        assertEqual(await written(new OpenResponsesSseEncoderStream(options), events, abortAt), want, "the same bytes");
      }),
      { numRuns: 60 },
    )],
  ["OpenResponsesEncoderStream: a reader changing the events it was given changes none it is given later", async () => {
    const events = [
      delta(thinking("plan")),
      delta(thinkingDone("plan", { summary: true })),
      delta(text("Hi")),
      delta(textDone("Hi")),
      stop(),
    ];
    const types: string[] = [];
    let completed: Json | undefined;
    const reader = valuesStream(events).pipeThrough(new OpenResponsesEncoderStream({ id: "resp_c", model: "m", createdAt: 1 })).getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const e = r.value;
      types.push(e.type);
      if (e.type === "response.completed") completed = structuredClone(e.response as Json);
      // (a reader's changes: to an item done, to a response's output)
      if (e.type === "response.output_item.done") Object.assign(e.item as Json, { id: "changed", summary: [], content: [] });
      if (isResponse(e.response)) e.response.output.push({ type: "changed" });
    }
    assertEqual(completed?.output, [
      { type: "reasoning", id: "rs_c_0", summary: [{ type: "summary_text", text: "plan" }] },
      { type: "message", id: "msg_c_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hi", annotations: [] }] },
    ], "the completed response's output as the encoder made it");
    assertEqual(types.at(-1), "response.completed");
  }],
];

const isResponse = (v: unknown): v is { output: Json[] } => typeof v === "object" && v !== null && Array.isArray((v as Json).output);
