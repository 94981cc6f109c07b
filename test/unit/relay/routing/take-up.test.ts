// Issue #48, SPEC §10 "A stream outlives its object": routing's side of a stream taken up again after
// its object restarted (src/relay/routing/take-up.ts), in Node against the kit's fakeProvider (which
// honours an Anthropic prefill: prefix.ts). Where §10's continuation allows it, the same target is
// asked once to continue the stored text (its final assistant message), and the events are the stored
// ones then the rest, one group, one `.done` holding the whole text; where it does not (no
// `continueOnFailure`, an answer that is not text only, one already stopped) nothing is asked: null.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { anthropic } from "../../../../src/providers/index.ts";
import type { RelayModel } from "../../../../src/relay/index.ts";
import type { MmspBody } from "../../../../src/relay/routing/models.ts";
import { takenUp } from "../../../../src/relay/routing/take-up.ts";
import { takenUpAnswer } from "../../../../src/relay/routing/fallback.ts";
import { reportedUsageOf } from "../../../../src/relay/stream/answer.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import { watchdogOf } from "../../../../src/relay/routing/watchdog.ts";
import { limits } from "../../../../src/relay/admission/limits.ts";
import type { UniEvent } from "../../../../src/index.ts";
import { textTokens } from "../../../../src/relay/accounting/usage-estimate.ts";

const KEY = "sk-ant-take-up-KEY-0000";
const capture = parseCapture(readFileSync(new URL("../../../../samples/providers/anthropic.sse", import.meta.url), "utf8"));

function setup(row: Partial<RelayModel> = {}) {
  const fake = fakeProvider("anthropic", { streams: { "claude-test": capture }, key: KEY });
  const provider = anthropic({ apiKey: KEY, baseURL: "https://api.anthropic.test", fetch: fake });
  const target = { provider, model: "claude-test", continueOnFailure: true, ...row } as RelayModel;
  const body = {
    model: "m",
    messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
    config: {},
  } as unknown as MmspBody;
  const options = { bounds: limits({}), watchdog: watchdogOf({}), maxTokens: 1024 };
  const up = (stored: UniEvent[]) => takenUp(target, [], stored, body, new AbortController().signal, options, null);
  return { fake, target, body, options, up };
}

const delta = (text: string): UniEvent =>
  ({ role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text }] }) as UniEvent;

async function all(events: ReadableStream<UniEvent>): Promise<UniEvent[]> {
  const out: UniEvent[] = [];
  for await (const e of events as unknown as AsyncIterable<UniEvent>) out.push(e);
  return out;
}

const textOf = (events: UniEvent[], type: string): string[] =>
  events.flatMap((e) => (e.content_items as { type: string; text?: string }[]).filter((i) => i.type === type).map((i) => i.text ?? ""));

test("a text-only answer of a continueOnFailure target: the same target asked once with the stored text as its prefill, the stored events then the rest in one group", async () => {
  // the capture's whole text first (a stored "x" is no prefix of it: the fake answers it whole after the "x")
  const whole = setup();
  const full = textOf(await all((await whole.up([delta("x")]))!.events), "text.done")[0]!.slice(1);
  const stored = [delta(full.slice(0, 7))];
  const { fake, up } = setup();
  const taken = await up(stored);
  expect(taken).not.toBeNull();
  const events = await all(taken!.events);
  expect(fake.requests).toHaveLength(1); // (one continuation request)
  const asked = fake.requests[0]!.json as { messages: { role: string; content: unknown }[] };
  expect(asked.messages.at(-1)!.role).toBe("assistant"); // (the stored text as its prefill)
  expect(JSON.stringify(asked.messages.at(-1)!.content)).toContain(full.slice(0, 7).trimEnd());
  expect(events[0]).toBe(stored[0]); // (the stored events first, as they were)
  expect(textOf(events, "text.delta").join("")).toBe(full);
  expect(textOf(events, "text.done")).toEqual([full]); // (one group: never spliced)
  expect(events.at(-1)!.event_type).toBe("stop");
});

test("where the continuation does not allow it, nothing is asked and the object ends the stream typed (null)", async () => {
  const tool = {
    role: "assistant",
    event_type: "delta",
    content_items: [{ type: "tool_call.delta", id: "c", name: "f", arguments: "{" }],
  } as unknown as UniEvent;
  const stop = { role: "assistant", event_type: "stop", content_items: [], usage_metadata: null } as unknown as UniEvent;
  for (
    const [row, stored] of [
      [{ continueOnFailure: false }, [delta("Hello")]],
      [{}, [delta("Hello"), tool]],
      [{}, [delta("Hello"), stop]],
      [{}, []],
    ] as [Partial<RelayModel>, UniEvent[]][]
  ) {
    const { fake, up } = setup(row);
    expect(await up(stored)).toBeNull();
    expect(fake.requests).toHaveLength(0);
  }
});

test("what a taken-up answer reports before its stop event holds the input reported before the restart: a second restart, or any early end, settles both requests' input", async () => {
  // (the fault-injection load run found it: a stream reset twice was charged one request's input less than the provider reported)
  const { target: row, body, options } = setup();
  const before = { cached_tokens: null, prompt_tokens: 12, thoughts_tokens: null, response_tokens: null };
  const answer = await takenUpAnswer(
    row,
    body,
    { target: "0", events: [delta("x")], reported: before },
    new AbortController().signal,
    options,
  );
  expect(answer).not.toBeNull();
  const reader = answer!.body!.getReader();
  // the stored event and the continuation's first delta (its message_start reported its input: 18)
  let text = "";
  while ((text.match(/"text\.delta"/g) ?? []).length < 2) text += new TextDecoder().decode((await reader.read()).value);
  expect(reportedUsageOf(answer!)!()?.prompt_tokens).toBe(12 + 18);
  await reader.cancel();
});

test("a stream's object is told before each continuation request leaves (`sending`: it stores the request as sent), and only when one is sent", async () => {
  const { fake, target, body, options } = setup();
  const seenAtSending: number[] = [];
  const sending = () => seenAtSending.push(fake.requests.length);
  const ask = (row: Partial<RelayModel>) =>
    takenUp(
      { ...target, ...row },
      [],
      [delta("x")],
      body,
      new AbortController().signal,
      { ...options, sending },
      null,
    );
  const taken = await ask({});
  expect(taken).not.toBeNull();
  await all(taken!.events);
  expect(fake.requests).toHaveLength(1);
  expect(seenAtSending).toEqual([0]); // (told once, before the provider had the request)
  expect(await ask({ continueOnFailure: false })).toBeNull();
  expect(seenAtSending).toEqual([0]); // (nothing sent: not told)
  expect(fake.requests).toHaveLength(1);
});

test("the object is told the request's own input when it leaves (one request's and the stored text's tokens), and the target once it serves", async () => {
  const { target, body, options } = setup();
  const news: unknown[] = [];
  const taken = await takenUp(
    target,
    [],
    [delta("Hello there")],
    body,
    new AbortController().signal,
    { ...options, nameOf: () => "claude-b", sending: (n) => news.push(n) },
    null,
    30,
  );
  expect(taken).not.toBeNull();
  await all(taken!.events);
  expect(news).toEqual([{ input: 30 + textTokens("Hello there") }, { serving: "claude-b" }]);
});
