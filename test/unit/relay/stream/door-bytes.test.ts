// Issue #47 "Speed": a door's answer writes its hot records straight as bytes
// (stream/utf8-out.ts: an encoder core's `pushInto`), the rest as text made UTF-8 there. The bytes
// are the text path's: on random checked streams (ending at their stop or cut by an error) and streams
// of hot fragments, with and without event ids, from the start and after a Last-Event-ID, the stream
// object's answer (storedDoorAnswer) and the stateless path's (encodedBody), both through `Utf8Out`,
// are byte for byte the text the writer gives event by event (`write`, never `into`), for every door encoding.
import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import { fromWireError } from "../../../../src/errors.ts";
import type { UniEvent } from "../../../../src/index.ts";
import { messagesEncoding } from "../../../../src/relay/doors/anthropic-messages/encoding.ts";
import { chatCompletionsEncoding, chatMetaText } from "../../../../src/relay/doors/chat-completions/encoding.ts";
import { geminiEncoding } from "../../../../src/relay/doors/gemini/encoding.ts";
import { ResponsesBytesCore } from "../../../../src/relay/doors/open-responses/bytes.ts";
import { metaText, openResponsesEncoding } from "../../../../src/relay/doors/open-responses/encoding.ts";
import { uiChatEncoding } from "../../../../src/relay/doors/ui-chat/encoding.ts";
import { storedDoorAnswer } from "../../../../src/relay/stream/door-answer.ts";
import { encodedBody } from "../../../../src/relay/stream/encoded-body.ts";
import { type DoorEncoding, EncodedWriter, type EncodingContext } from "../../../../src/relay/stream/encoding.ts";
import { Viewers } from "../../../../src/relay/stream/viewers.ts";
import { decoded, streamEvents } from "../../../arbitraries.ts";
import { holds } from "../../../property.ts";
import { storedLog, takenEvents } from "./stored-log.ts";

type Json = Record<string, any>;
const ID = "0123456789abcdef0123456789abcdef";
const ENCODINGS: [string, DoorEncoding, string | null][] = [
  [
    "Chat Completions",
    chatCompletionsEncoding as DoorEncoding,
    chatMetaText({ model: "gpt-ø \u{1F600}", created: 1_800_000_000, includeUsage: true }),
  ],
  ["Anthropic Messages", messagesEncoding as DoorEncoding, null],
  ["Gemini", geminiEncoding as DoorEncoding, encodeURIComponent("gemini-ø \u{1F600}")],
  ["useChat", uiChatEncoding as DoorEncoding, null],
  [
    "Open Responses",
    openResponsesEncoding as DoorEncoding,
    // (a custom tool: its calls' input written whole at their end, none of their fragments as it comes)
    metaText({ model: "m-1", createdAt: 1_800_000_000, echo: { tools: [{ type: "custom", name: "fn_custom" }] } }),
  ],
];

/** A stream: its events, and the error that cut it (after `cut` events), if any; a resume point; ids or not. */
const cases = fc.tuple(
  streamEvents,
  fc.option(fc.tuple(fc.nat(), fc.constantFrom("ProviderError", "StreamLimitExceeded", "RateLimitError"), fc.string({ maxLength: 20 })), {
    nil: undefined,
  }),
  fc.nat(),
  fc.boolean(),
).map(([wire, cut, resume, ids]) => {
  const all = wire.map(decoded) as UniEvent[];
  const events = cut ? all.slice(0, cut[0] % all.length) : all;
  const error = cut ? { type: cut[1], message: cut[2] || cut[1] } : null;
  const count = events.length + (error ? 1 : 0);
  return { events, error, ids, from: resume % (count + 1) };
});

/** A fragment: every kind of character a JSON string escapes or writes in 1–4 bytes, lone surrogates too. */
const fragment = fc.array(
  fc.constantFrom("a", " ", '"', "\\", "\n", "\u0001", "\u001f", "\u007f", "é", "€", "\u2028", "\u{1F600}", "\ud800", "\udc00"),
  { minLength: 0, maxLength: 6 },
).map((units) => units.join(""));
const delta = (item: Json): Json => ({
  role: "assistant",
  event_type: "delta",
  content_items: [item],
  usage_metadata: null,
  finish_reason: null,
});
/**
 * A group of hot fragments: a text, a thinking (its first fragment maybe carrying its field or a
 * signature, any one maybe marking it a summary), a call's arguments (its first fragment maybe empty,
 * or all of them in one).
 */
const group = fc.oneof(
  fc.array(fragment, { minLength: 1, maxLength: 5 }).map((texts) => [
    ...texts.map((text) => delta({ type: "text.delta", text })),
    delta({ type: "text.done", text: texts.join("") }),
  ]),
  fc.tuple(
    fc.array(fragment, { minLength: 1, maxLength: 5 }),
    fc.constantFrom(undefined, { reasoning_field: "reasoning" }, { reasoning_field: "reasoning_content" }, { signature: "sig" }),
    // (Open Responses: a summary from the fragment so marked, its fragments held before it and written as they come after)
    fc.option(fc.nat(), { nil: undefined }),
  ).map(([texts, fidelity, summaryAt]) => [
    ...texts.map((thinking, i) =>
      delta({
        type: "thinking.delta",
        thinking,
        ...(i === 0 && fidelity
          ? { fidelity }
          : summaryAt !== undefined && i === summaryAt % texts.length
          ? { fidelity: { summary: true } }
          : {}),
      })
    ),
    delta({ type: "thinking.done", thinking: texts.join("") }),
  ]),
  // (a group whose fragments change kind: no checked stream has one, but both paths must still agree)
  fc.array(fragment, { minLength: 1, maxLength: 3 }).map((texts) => [
    delta({ type: "thinking.delta", thinking: "t" }),
    delta({ type: "thinking.delta", thinking: "u" }),
    ...texts.map((text) => delta({ type: "text.delta", text })),
    delta({ type: "thinking.done", thinking: `tu${texts.join("")}` }),
  ]),
  fc.tuple(fc.array(fragment, { maxLength: 4 }), fc.nat(3), fc.constantFrom("fn", "fn_custom"), fc.constantFrom("{", "", "whole")).map((
    [args, k, name, opening],
  ) => {
    const call = (n: string, a: string): Json => delta({ type: "tool_call.delta", name: n, tool_call_id: `call_${k}`, arguments: a });
    // (Open Responses: "fn_custom" is a custom tool's — the meta says so —, its input written whole at its end)
    const fragments = opening === "whole" ? [`{${args.join("")}}`] : ["{", ...args, "}"];
    return [
      ...(opening === "{" ? [] : [call(name, "")]),
      ...fragments.map((a, i) => call(i === 0 && opening === "{" ? name : "", a)),
      delta({ type: "tool_call.done", name, tool_call_id: `call_${k}`, arguments: {} }),
    ];
  }),
);
const STOP = {
  role: "assistant",
  event_type: "stop",
  content_items: [],
  usage_metadata: { prompt_tokens: 10, response_tokens: 5, cached_tokens: 0, thoughts_tokens: null },
  finish_reason: "stop",
};
/** Streams of hot fragments (what an encoder's bytes path writes), each group's fragments after its first. */
const hot = fc.tuple(fc.array(group, { minLength: 1, maxLength: 6 }), fc.nat(), fc.boolean()).map(([groups, resume, ids]) => {
  const events = [...groups.flat(), STOP].map(decoded) as UniEvent[];
  return { events, error: null, ids, from: resume % (events.length + 1) };
});

/** An answer with useChat's message id (a new one per answer) said once. */
const sameIds = (answer: string): string => answer.replace(/"messageId":"[^"]*"/g, '"messageId":"…"');

/**
 * The text path, the oracle: each event sealed and fed to the writer, its outputs' text (`write`, never
 * `into`), a failure's or the end's after; the whole answer's text joined.
 */
async function textPath(events: UniEvent[], error: Json | null, encoding: DoorEncoding, context: EncodingContext): Promise<string> {
  const writer = new EncodedWriter(encoding, context);
  const step = encoding.sealing?.(context);
  const ids = context.ids === true && encoding.sse;
  const after = context.resumeAfter ?? -1;
  let text = "";
  for (const [n, event] of events.entries()) text += await writer.write(step ? await step(event) : event, n <= after, ids ? n : null);
  if (error) {
    if (writer.failed(fromWireError({ error }, null, "anthropic"))) text += writer.take(ids ? events.length : null);
  } else if (writer.ended()) text += writer.take(null);
  writer.dispose();
  return text;
}

/** The stateless path's bytes: the events (then the error) into encodedBody. */
function stateless(events: UniEvent[], error: Json | null, encoding: DoorEncoding, context: EncodingContext): Promise<Uint8Array> {
  return new Response(encodedBody(takenEvents(events, error), encoding, context)).bytes();
}

/** The stream object's bytes: the stored events (the error stored last) through storedDoorAnswer, from stored event `from`. */
async function stored(events: UniEvent[], error: Json | null, encoding: DoorEncoding, meta: string | null, ids: boolean, from: number) {
  const log = storedLog(events, { error, perSlice: 7 });
  const ask = { name: "door", id: ID, after: null, whole: false, ids };
  const answer = await storedDoorAnswer(new Viewers(), { log, ended: true }, ask, { door: encoding }, meta, from);
  return answer.bytes();
}

describe("a door's answer written as bytes in the stream's object (issue #47)", () => {
  for (const [name, encoding, meta] of ENCODINGS) {
    test(`${name}: byte for byte the text path's, with and without ids, from any event`, async () => {
      await holds(
        fc.asyncProperty(fc.oneof(cases, hot), async ({ events, error, ids, from }) => {
          const context: EncodingContext = { id: ID, meta, after: null, ids, resumeAfter: from - 1 };
          const text = sameIds(await textPath(events, error, encoding, context));
          expect(sameIds(new TextDecoder().decode(await stateless(events, error, encoding, context)))).toBe(text);
          expect(sameIds(new TextDecoder().decode(await stored(events, error, encoding, meta, ids, from)))).toBe(text);
        }),
        { numRuns: 200 },
      );
    });
  }

  // (the bytes are the text path's either way, so the test above cannot tell a core that never takes
  // its hot path — an optimisation lost — from one that does: this one counts what went as bytes)
  const HOT: Record<string, readonly string[]> = {
    "Chat Completions": ["text", "thinking", "tool_call"],
    "Anthropic Messages": ["text", "thinking", "tool_call"],
    Gemini: ["text", "thinking"], // (a function call is written whole at its end: no fragment goes as it comes)
    useChat: ["text", "thinking", "tool_call"],
    "Open Responses": ["text", "thinking", "tool_call"],
  };
  for (const [name, encoding, meta] of ENCODINGS) {
    test(`${name}: a group's fragments after its first two go as bytes (${HOT[name]!.join(", ")})`, async () => {
      const five = ["a", "b\n", "\u00e9", '"d"', "e"];
      const groups: Record<string, Json[]> = {
        text: [...five.map((text) => delta({ type: "text.delta", text })), delta({ type: "text.done", text: five.join("") })],
        thinking: [
          ...five.map((thinking) => delta({ type: "thinking.delta", thinking })),
          delta({ type: "thinking.done", thinking: five.join("") }),
        ],
        tool_call: [
          delta({ type: "tool_call.delta", name: "fn", tool_call_id: "call_1", arguments: "" }),
          ...["{", '"k"', ":", '"v"', "}"].map((a) => delta({ type: "tool_call.delta", name: "", tool_call_id: "call_1", arguments: a })),
          delta({ type: "tool_call.done", name: "fn", tool_call_id: "call_1", arguments: { k: "v" } }),
        ],
      };
      const events = [...groups.text!, ...groups.thinking!, ...groups.tool_call!, STOP].map(decoded) as UniEvent[];
      const into = vi.spyOn(EncodedWriter.prototype, "into");
      try {
        await stored(events, null, encoding, meta, true, 0);
        // (the object parses its stored events back: each known by its item, every one distinct here)
        const key = (event: UniEvent): string => JSON.stringify(event.content_items);
        const asBytes = new Set(into.mock.calls.flatMap((call, i) => (into.mock.results[i]!.value === true ? [key(call[0])] : [])));
        let at = 0;
        for (const [kind, group] of Object.entries(groups)) {
          const fragments = events.slice(at, at + group.length - 1);
          at += group.length;
          const expected = HOT[name]!.includes(kind);
          for (const event of fragments.slice(2)) expect(asBytes.has(key(event)), `${kind}: ${key(event)}`).toBe(expected);
        }
      } finally {
        into.mockRestore();
      }
    });
  }

  test("Open Responses: its deltas written as bytes though the encoding settles (a delta is never what `settle` waits for)", async () => {
    expect(openResponsesEncoding.settle).toBeTypeOf("function");
    const texts = ["a", "b", "c", "d"];
    const events = [...texts.map((text) => delta({ type: "text.delta", text })), delta({ type: "text.done", text: "abcd" }), STOP]
      .map(decoded) as UniEvent[];
    const pushInto = vi.spyOn(ResponsesBytesCore.prototype, "pushInto");
    try {
      const meta = metaText({ model: "m-1", createdAt: 1_800_000_000, echo: {} });
      const answer = new TextDecoder().decode(await stored(events, null, openResponsesEncoding as DoorEncoding, meta, true, 0));
      expect(answer.match(/event: response\.output_text\.delta\n/g)).toHaveLength(4);
      // (the first opens the item: through `push`; the other three as bytes)
      expect(pushInto.mock.results.filter((r) => r.value === true)).toHaveLength(3);
    } finally {
      pushInto.mockRestore();
    }
  });
});
