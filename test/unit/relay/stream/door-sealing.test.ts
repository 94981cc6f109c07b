// One sealing step (SPEC §9-§10, issue #47), in Node: a door's encoding seals another provider's bound
// value wherever its answer is written — the stateless path, the whole answer, and the stream object's
// answer to a kept stream's resume, as GET /v1/streams/<id> asks it (the door's ask read back from the
// stream's kept meta, from the start and after a Last-Event-ID) — for the Chat Completions, Messages
// and Gemini doors. (The stream object itself runs in workerd: test/relay-pool/chat-completions.test.ts.)
import { describe, expect, test } from "vitest";
import type { UniEvent } from "../../../../src/index.ts";
import { fromProviderResponse } from "../../../../src/providers/index.ts";
import { CHAT_COMPLETIONS_ENCODING, chatCompletionsEncoding, chatMetaText } from "../../../../src/relay/doors/chat-completions/encoding.ts";
import { geminiEncoding } from "../../../../src/relay/doors/gemini/encoding.ts";
import { messagesEncoding, messagesMetaText } from "../../../../src/relay/doors/anthropic-messages/encoding.ts";
import { unseal } from "../../../../src/relay/doors/seal.ts";
import { doorOf, encodedAnswer, keptMeta, storedDoorAnswer } from "../../../../src/relay/stream/door-answer.ts";
import type { DoorEncoding } from "../../../../src/relay/stream/encoding.ts";
import { Viewers } from "../../../../src/relay/stream/viewers.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as RESPONSES from "../../../cases/providers/captures-openai-responses.ts";
import { storedLog } from "./stored-log.ts";

const ENV = { RELAY_SEAL_KEY: "relay-seal-key-for-the-sealing-tests-012345" };
const ID = "0123456789abcdef0123456789abcdef";

/** A provider's capture read by the package's reader (Anthropic's thinking example: thinking with its signature, then text). */
async function eventsOf(provider: "anthropic" | "openai-responses" = "anthropic", capture = ANTHROPIC.THINKING): Promise<UniEvent[]> {
  const response = new Response(capture, { headers: { "content-type": "text/event-stream" } });
  const { readable, message } = fromProviderResponse(provider, response);
  message.catch(() => {});
  const out: UniEvent[] = [];
  for await (const e of readable as unknown as AsyncIterable<UniEvent>) out.push(e);
  return out;
}

/** The stream object's answer to a kept stream's resume (GET /v1/streams/<id>: the stored ask, from `from`). */
function resumed(events: UniEvent[], name: string, encoding: DoorEncoding, meta: string | null, from: number, env: object = ENV) {
  const log = storedLog(events, { perSlice: 3 });
  // (what the door's first answer kept with the stream, read back as the object reads it for a resume without the door's header)
  const kept = doorOf(null, keptMeta({ name, id: ID, after: null, whole: false, ids: true }, meta));
  expect(kept.ask?.name).toBe(name);
  const answer = storedDoorAnswer(new Viewers(), { log, ended: true }, kept.ask!, { [name]: encoding }, kept.meta, from, { env });
  return Promise.resolve(answer).then((r) => r.text());
}

/** The sealed values (`mmsp1.`…) in an answer's text, each opened under the relay's key. */
async function opened(text: string): Promise<unknown[]> {
  return Promise.all([...text.matchAll(/"(mmsp1\.[A-Za-z0-9_-]+)"/g)].map((m) => unseal(m[1]!, ENV)));
}

const DOORS: [string, DoorEncoding, string | null][] = [
  [
    CHAT_COMPLETIONS_ENCODING,
    chatCompletionsEncoding as DoorEncoding,
    chatMetaText({ model: "think", created: 1_800_000_000, includeUsage: true }),
  ],
  ["gemini", geminiEncoding as DoorEncoding, encodeURIComponent("think")],
];

describe("a door's sealing step runs wherever its answer is written (issue #47)", () => {
  for (const [name, encoding, meta] of DOORS) {
    test(`${name}: a kept stream resumed through GET /v1/streams/<id> (from the start, after an id) shows the Claude signature sealed`, async () => {
      const events = await eventsOf();
      const signed = events.findIndex((e) => JSON.stringify(e).includes(ANTHROPIC.SIGNATURE));
      expect(signed).toBeGreaterThan(0);
      for (const from of [0, signed]) {
        const text = await resumed(events, name, encoding, meta, from);
        expect(text).not.toContain(ANTHROPIC.SIGNATURE);
        expect(text).not.toContain("mmsp-pending.");
        expect(await opened(text)).toEqual([expect.objectContaining({ provider: "anthropic", signature: ANTHROPIC.SIGNATURE })]);
      }
    });

    test(`${name}: the stateless answer and the whole one show it sealed too; without a seal key it is left out`, async () => {
      const events = await eventsOf();
      for (const whole of [false, true]) {
        const context = { id: ID, meta, after: null, env: ENV };
        const text = await (await encodedAnswer(streamOf(events), encoding, context, whole)).text();
        expect(text).not.toContain(ANTHROPIC.SIGNATURE);
        expect(await opened(text)).toEqual([expect.objectContaining({ provider: "anthropic", signature: ANTHROPIC.SIGNATURE })]);
        const keyless = await (await encodedAnswer(streamOf(events), encoding, { ...context, env: {} }, whole)).text();
        expect(keyless).not.toContain(ANTHROPIC.SIGNATURE);
        expect(keyless).not.toContain("mmsp");
        expect(keyless).toContain("27 * 453"); // (the thinking itself still goes)
      }
    });
  }

  test("anthropic-messages: Claude's own signature goes as it is (the door's own API's provider's), in a resume too", async () => {
    const events = await eventsOf();
    const text = await resumed(
      events,
      "anthropic-messages",
      messagesEncoding as DoorEncoding,
      messagesMetaText({ model: "think", inputTokens: 1 }),
      0,
    );
    expect(text).toContain(ANTHROPIC.SIGNATURE);
    expect(text).not.toContain("mmsp1.");
  });

  test("anthropic-messages: the Responses API's encrypted reasoning goes sealed as the thinking's signature, in a resume too", async () => {
    const events = await eventsOf("openai-responses", RESPONSES.REASONING_SUMMARIES);
    const text = await resumed(
      events,
      "anthropic-messages",
      messagesEncoding as DoorEncoding,
      messagesMetaText({ model: "think", inputTokens: 1 }),
      0,
    );
    expect(text).not.toContain(RESPONSES.ENCRYPTED);
    expect(await opened(text)).toContainEqual(
      expect.objectContaining({ provider: "openai-responses", encrypted_content: RESPONSES.ENCRYPTED }),
    );
  });
});

function streamOf(events: UniEvent[]): ReadableStream<UniEvent> {
  let i = 0;
  return new ReadableStream({ pull: (c) => (i < events.length ? c.enqueue(events[i++]!) : c.close()) });
}
