// Issue #47 "Speed": the Open Responses door's encoder core writes its frames as text (delta events,
// done events, finished items written once and reused by every event that carries them, a reasoning
// item's shown copy without `encrypted_content`): for random streams, with the door's answer state
// applied (`include` asked or not, the response kept or not), the bytes are those of the event objects
// the same core makes unframed, each written by JSON.stringify.
import fc from "fast-check";
import { expect, test } from "vitest";
import {
  jsonString,
  OpenResponsesEncoderCore,
  type OpenResponsesEvent,
  openResponsesFrame,
} from "../../../../src/encode/open-responses.ts";
import type { UniEvent } from "../../../../src/index.ts";
import { finisher } from "../../../../src/relay/doors/open-responses/sealing.ts";
import { decoded, streamEvents } from "../../../arbitraries.ts";
import { holds } from "../../../property.ts";

type Json = Record<string, any>;

const scenario = fc.record({
  wire: streamEvents,
  summary: fc.boolean(),
  encrypted: fc.option(fc.constantFrom("enc", 'e"\\\u2028😀'), { nil: undefined }),
  include: fc.boolean(),
  keep: fc.option(fc.constant("p-1"), { nil: null }),
  cut: fc.option(fc.nat(), { nil: undefined }),
});

/** The answer's text: every event the core makes, framed (`framed`: the door's core, else event objects each written by JSON.stringify). */
function written(events: UniEvent[], framed: boolean, state: Parameters<typeof finisher>[0], failAt: number | undefined): string {
  const core = new OpenResponsesEncoderCore({ id: "resp_x", model: "m", createdAt: 1 }, !framed, framed, finisher(state));
  let text = "";
  const emit = (e: OpenResponsesEvent): void => {
    text += framed ? openResponsesFrame(e) : `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  };
  core.start(emit);
  for (const [i, e] of events.entries()) {
    if (i === failAt) {
      core.abort(Object.assign(new Error("upstream failed"), { name: "StreamError" }), emit);
      return text;
    }
    core.push(e, emit);
  }
  core.end(emit);
  return text;
}

test("the door's framed Open Responses core writes the bytes of its event objects, with the answer's state applied (a property)", async () => {
  await holds(
    fc.asyncProperty(scenario, async ({ wire, summary, encrypted, include, keep, cut }) => {
      const events = (wire as Json[]).map(decoded).map((e: Json) => ({
        ...e,
        content_items: e.content_items.map((i: Json) =>
          i.type.startsWith("thinking")
            ? {
              ...i,
              fidelity: {
                ...i.fidelity,
                ...(summary ? { summary: true } : {}),
                ...(encrypted && i.type === "thinking.done" ? { encrypted_content: encrypted } : {}),
              },
            }
            : i
        ),
      })) as UniEvent[];
      const state = { include, stored: keep !== null, previous: null, keep };
      const failAt = cut === undefined ? undefined : cut % events.length;
      const want = written(events, false, state, failAt);
      expect(written(events, true, state, failAt)).toBe(want);
      if (encrypted && failAt === undefined && events.some((e) => e.content_items.some((i) => i.type === "thinking.done"))) {
        // (the case this guards: a reasoning item with encrypted_content, shown or not)
        expect(want.includes("encrypted_content")).toBe(include);
      }
    }),
    { numRuns: 150 },
  );
});

// (the delta events' fast path: a fragment with nothing to escape written between quotes as it is, the
// others by JSON.stringify — any UTF-16 text: quotes, backslashes, control characters, lone surrogates,
// a pair split between two fragments)
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom("a", " ", "é", '"', "\\", "\n", "\u0000", "\u007f", "\u2028", "\ud83d", "\ude00"),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  ),
  maxLength: 12,
});

test("jsonString is JSON.stringify of any string, byte for byte (a property)", async () => {
  await holds(
    fc.property(fc.oneof(anyText, fc.string({ unit: "binary" }), fc.string()), (s) => {
      expect(jsonString(s)).toBe(JSON.stringify(s));
    }),
    { numRuns: 2000 },
  );
});

test("the framed core's delta events are the bytes of their objects for fragments of any UTF-16 text (a property)", async () => {
  const group = fc.record({
    kind: fc.constantFrom("text", "thinking", "summary", "tool_call"),
    fragments: fc.array(anyText.filter((t) => t !== ""), { minLength: 1, maxLength: 6 }),
  });
  await holds(
    fc.property(fc.array(group, { minLength: 1, maxLength: 4 }), fc.option(fc.nat(), { nil: undefined }), (groups, cut) => {
      const ev = (
        item: Json,
      ): UniEvent => ({
        role: "assistant",
        event_type: "delta",
        content_items: [item],
        usage_metadata: null,
        finish_reason: null,
      } as UniEvent);
      const events: UniEvent[] = [];
      for (const [n, g] of groups.entries()) {
        const whole = g.fragments.join("");
        const kind = g.kind === "summary" ? "thinking" : g.kind;
        const member = kind === "tool_call" ? "arguments" : kind;
        const head = kind === "tool_call" ? { name: "fn", tool_call_id: `call_${n}` } : {};
        const fidelity = g.kind === "summary" ? { fidelity: { summary: true } } : {};
        for (const f of g.fragments) events.push(ev({ type: `${kind}.delta`, ...head, [member]: f, ...fidelity }));
        // (the encoder writes a call's arguments as they streamed: its done's parsed value is not read)
        events.push(ev({ type: `${kind}.done`, ...head, [member]: kind === "tool_call" ? {} : whole, ...fidelity }));
      }
      events.push(
        {
          role: "assistant",
          event_type: "stop",
          content_items: [],
          usage_metadata: { cached_tokens: null, prompt_tokens: 1, thoughts_tokens: null, response_tokens: 1 },
          finish_reason: "stop",
        } as UniEvent,
      );
      const state = { include: false, stored: false, previous: null, keep: null };
      const failAt = cut === undefined ? undefined : cut % events.length;
      expect(written(events, true, state, failAt)).toBe(written(events, false, state, failAt));
    }),
    { numRuns: 300 },
  );
});
