// Issue #47 (a kept door stream, SPEC §8 resume): a kept answer in a door's SSE encoding carries
// `id: n` on the LAST record stored event n wrote (a client cut between two records of one event
// resumes from that event, so none of its records is lost) — Gemini's as an event of its own just after
// that record, every other event beginning with `data:` as @google/genai reads only those —, and the
// ids are all it adds: the same answer without them is byte for byte the answer a stream that is not
// kept gets. On random checked
// streams, for every SSE door encoding (Messages writes several records for one event: a block's stop
// and the next one's start, message_delta and message_stop). (useChat's answer is not SSE with ids:
// the AI SDK resumes a chat from its start.)
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import type { UniEvent } from "../../../../src/index.ts";
import { messagesEncoding } from "../../../../src/relay/doors/anthropic-messages/encoding.ts";
import { chatCompletionsEncoding } from "../../../../src/relay/doors/chat-completions/encoding.ts";
import { geminiEncoding } from "../../../../src/relay/doors/gemini/encoding.ts";
import { metaText, openResponsesEncoding } from "../../../../src/relay/doors/open-responses/encoding.ts";
import { type DoorEncoding, EncodedWriter, type EncodingContext } from "../../../../src/relay/stream/encoding.ts";
import { decoded, streamEvents } from "../../../arbitraries.ts";
import { holds } from "../../../property.ts";

const ID = "0123456789abcdef0123456789abcdef";
const ENCODINGS: [string, DoorEncoding, string | null][] = [
  ["Anthropic Messages", messagesEncoding as DoorEncoding, null],
  ["Chat Completions", chatCompletionsEncoding as DoorEncoding, null],
  ["Gemini", geminiEncoding as DoorEncoding, null],
  ["Open Responses", openResponsesEncoding as DoorEncoding, metaText({ model: "m-1", createdAt: 1_800_000_000, echo: {} })],
];

/** Each event's text as the stream's object writes it (its sealing step, then the writer), and the end's. */
async function texts(events: UniEvent[], encoding: DoorEncoding, context: EncodingContext): Promise<string[]> {
  const writer = new EncodedWriter(encoding, context);
  const step = encoding.sealing?.(context);
  const out: string[] = [];
  for (const [n, event] of events.entries()) out.push(await writer.write(step ? await step(event) : event, false, context.ids ? n : null));
  out.push(writer.ended() ? await writer.take(null) : "");
  writer.dispose();
  return out;
}

/** An SSE record's end: a blank line (Gemini writes CRLF lines). */
const RECORD_END = /(\r?\n){2}/g;

describe("a kept door answer's event ids (issue #47, SPEC §8)", () => {
  for (const [name, encoding, meta] of ENCODINGS) {
    test(`${name}: \`id: n\` is on the last record event n wrote, and the ids are all a kept answer adds`, async () => {
      await holds(
        fc.asyncProperty(streamEvents, async (wire) => {
          const events = wire.map(decoded) as UniEvent[];
          const context = { id: ID, meta, after: null };
          const plain = await texts(events, encoding, context);
          const kept = await texts(events, encoding, { ...context, ids: true });
          for (const [n, text] of kept.entries()) {
            if (n === events.length) break; // (the end's text: no id)
            if (text === "") continue; // (an event that wrote nothing: no id either)
            if (encoding.idEvent !== undefined) {
              // (Gemini: the id an event of its own after the last record; every other event begins with `data:`)
              const id = `id: ${n}${encoding.idEvent}${encoding.idEvent}`;
              expect(text.endsWith(id), `event ${n}: ${JSON.stringify(text)}`).toBe(true);
              expect(text.slice(0, -id.length)).toBe(plain[n]);
              for (const block of text.slice(0, -id.length).split(RECORD_END).filter((b) => b.trim())) expect(block).toMatch(/^data: /);
              continue;
            }
            const at = text.indexOf(`id: ${n}\n`);
            expect(at, `event ${n}: ${JSON.stringify(text)}`).toBeGreaterThanOrEqual(0);
            expect(text.slice(0, at) + text.slice(at + `id: ${n}\n`.length)).toBe(plain[n]);
            const last = text.slice(at);
            expect(last.match(RECORD_END), `event ${n}: one record after its id`).toHaveLength(1);
            expect(last).toMatch(/(\r?\n){2}$/);
          }
          expect(kept.at(-1)).toBe(plain.at(-1));
        }),
        { numRuns: 80 },
      );
    });
  }
});
