// Issue #38 in workerd, through the real stream Durable Object: the repository Worker's row "fast"
// (worker/models.ts: Claude with continueOnFailure, then GPT, then another Claude model) against the
// scripted providers' failures (providers.ts; FIRST_EVENT_S 0.5 and STALL_S 1 in vitest.config.ts):
// a 429 then a success, an unreachable first target, a first target silent past FIRST_EVENT_S, a cut
// mid-text continued (one .done, the two parts one text, a resume sees the same stream), a cut
// mid-tool-call ended with the typed error and no second request, a stall, a DELETE while the
// continuing target is asked.
import { env } from "cloudflare:test";
import { expect, test, vi } from "vitest";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN, readBack, readRecords, records, rest, streamIdOf, textOf } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** The scripted providers' whole answer (providers.ts's five words). */
const WHOLE = "Hello, provider world!";
const [CLAUDE, GPT, CLAUDE_2] = ["claude-haiku-4-5", "gpt-4.1-mini", "claude-sonnet-4-5"]; // (the row's model ids, by default)

function keyedFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("x-relay-key", RELAY_KEY);
  return worker.fetch(new Request(`${ORIGIN}${path}`, { ...init, headers }), keyed);
}
/** POST /v1/stream of `model` with the scripted providers' tag and script in the user's text. */
const post = (tag: string, script: string, model = "fast"): Promise<Response> =>
  keyedFetch("/v1/stream", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:${script}` }] }] }),
  });
/** What the scripted providers saw of a tag: how many requests, the last one's body. */
async function providerSaw(tag: string): Promise<{ count: number; body: string }> {
  return (await (await fetch(`http://upstream.test/__provider?tag=${tag}`)).json()) as { count: number; body: string };
}
/** When the relay aborted each model's request of this tag (observer.js). */
async function cancelledModels(tag: string): Promise<Record<string, number>> {
  return ((await (await fetch(`http://upstream.test/__requests?tag=${tag}`)).json()) as { cancelledModels: Record<string, number> })
    .cancelledModels;
}
/** A stream's events (wire JSON) and message, read back through the package. */
const textOfMessage = (m: { content_items: unknown[] }): string => m.content_items.map((i) => (i as { text?: string }).text ?? "").join("");
const itemTypes = (events: unknown[]): string[] =>
  events.flatMap((e) => (e as { content_items: { type: string }[] }).content_items.map((i) => i.type));

test("a 429 then a success: the next target serves, x-mmsp-provider names it", async () => {
  const tag = newTag();
  const answer = await post(tag, "refuse-first");
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
  const { message } = await readBack(await textOf(answer));
  expect(textOfMessage(message)).toBe(WHOLE);
  const saw = await providerSaw(tag);
  expect(saw.count).toBe(2);
  expect(JSON.parse(saw.body).model).toBe(GPT);
});

test("an unreachable first target: the next one serves", async () => {
  const tag = newTag();
  const answer = await post(tag, "unreachable-first");
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
  expect(textOfMessage((await readBack(await textOf(answer))).message)).toBe(WHOLE);
  expect((await providerSaw(tag)).count).toBe(1); // (the first never reached a server)
});

test("a first target workerd cannot reach (a plain Error: Network connection lost): the next one serves, x-mmsp-target names it", async () => {
  const tag = newTag();
  const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    const answer = await post(tag, "lost-first");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
    expect(answer.headers.get("x-mmsp-target")).toBe("1");
    expect(textOfMessage((await readBack(await textOf(answer))).message)).toBe(WHOLE);
    expect((await providerSaw(tag)).count).toBe(1); // (the first never reached a server)
    expect(warned.mock.calls.map((c) => String(c[0]))).toContain(
      'relay: model "fast": target 0 failed before its first event (no connection); asking target 1',
    );
  } finally {
    warned.mockRestore();
  }
});

test("two Anthropic targets of a row: x-mmsp-target tells which served (the third, after Claude and GPT refused)", async () => {
  const tag = newTag();
  const answer = await post(tag, "refuse-two-first");
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("anthropic");
  expect(answer.headers.get("x-mmsp-target")).toBe("2");
  expect(textOfMessage((await readBack(await textOf(answer))).message)).toBe(WHOLE);
  expect(JSON.parse((await providerSaw(tag)).body).model).toBe(CLAUDE_2);
  // (no fallback: the row's first target)
  const plain = await post(newTag(), "text");
  expect(plain.headers.get("x-mmsp-target")).toBe("0");
  await plain.arrayBuffer();
});

test("a first target silent past FIRST_EVENT_S: its request aborted, the next one serves", async () => {
  const tag = newTag();
  const t = Date.now();
  const answer = await post(tag, "silent-first");
  expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
  expect(Date.now() - t).toBeLessThan(4000); // (FIRST_EVENT_S 0.5; the silent one waits 8 s)
  expect(textOfMessage((await readBack(await textOf(answer))).message)).toBe(WHOLE);
  expect((await cancelledModels(tag))[CLAUDE], "the silent target's request aborted").toBeTypeOf("number");
});

test("a cut mid-text continued through the stream object: one .done, the first part then the second, a resume sees the same stream", async () => {
  const tag = newTag();
  const answer = await post(tag, "cut-first");
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("anthropic");
  const id = streamIdOf(answer);
  const text = await textOf(answer);
  const { events, message } = await readBack(text);
  expect(textOfMessage(message)).toBe(WHOLE);
  expect(message.content_items).toHaveLength(1);
  expect(itemTypes(events).filter((t) => t === "text.done")).toHaveLength(1);
  expect(itemTypes(events).filter((t) => t === "text.delta").map((_, i) => i).length).toBeGreaterThanOrEqual(4);
  // the continuing target (another Claude model) was asked with the text so far as its prefill
  const saw = await providerSaw(tag);
  expect(saw.count).toBe(2);
  const asked = JSON.parse(saw.body) as { model: string; messages: { role: string; content: { text: string }[] }[] };
  expect(asked.model).toBe(CLAUDE_2);
  expect(asked.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ text: "Hello, provider" }] });
  // the stop event's usage: the first target's output before the cut counted too (stream-cost.ts)
  const stop = events.at(-1) as { event_type: string; usage_metadata: { response_tokens: number; prompt_tokens: number } };
  expect(stop.event_type).toBe("stop");
  // the input: both targets' (12 each, as each message_start reported it: each was asked the request)
  expect(stop.usage_metadata.prompt_tokens).toBe(12 + 12);
  // (the continuing Claude reports 6; "Hello, provider", 15 bytes before the cut, is 4 more at 4 bytes a token)
  expect(stop.usage_metadata.response_tokens).toBe(6 + 4);
  // a viewer who resumes from the start sees the one stream, byte for byte
  const again = await keyedFetch(`/v1/streams/${id}`);
  expect(await textOf(again)).toBe(text);
});

test("a cut mid-tool-call ends with the typed error event, no second request", async () => {
  const tag = newTag();
  const answer = await post(tag, "cut-tool-first");
  expect(answer.status).toBe(200);
  const text = await textOf(answer);
  const recs = records(text);
  expect(recs.at(-1)!.data).toBe("[DONE]");
  const error = JSON.parse(recs.at(-2)!.data) as { error: { type: string } };
  expect(error.error.type).toMatch(/^[A-Z]\w+$/);
  await expect(readBack(text)).rejects.toMatchObject({ name: "UpstreamError" });
  await sleep(200);
  expect((await providerSaw(tag)).count).toBe(1);
});

test("a stall mid-stream (STALL_S): the provider's request aborted, the stream ends with StreamStalled", async () => {
  const tag = newTag();
  const answer = await post(tag, "stall", "claude-fast");
  const text = await textOf(answer);
  await expect(readBack(text)).rejects.toMatchObject({ name: "UpstreamError", errorType: "StreamStalled" });
  expect((await cancelledModels(tag))[CLAUDE], "the stalled request aborted").toBeTypeOf("number");
});

test("a stall mid-text on a row that continues: the next Claude model goes on with the text", async () => {
  const tag = newTag();
  const text = await textOf(await post(tag, "stall-first"));
  const { events, message } = await readBack(text);
  expect(textOfMessage(message)).toBe(WHOLE);
  expect(itemTypes(events).filter((t) => t === "text.done")).toHaveLength(1);
  expect((await cancelledModels(tag))[CLAUDE]).toBeTypeOf("number");
});

test("a DELETE while the continuing target is asked stops it: its request aborted, no further target asked", async () => {
  const tag = newTag();
  const answer = await post(tag, "cut-then-silent");
  const id = streamIdOf(answer);
  const head = await readRecords(answer.body!, 3); // (the three text deltas before the cut)
  await sleep(100); // (the continuing target is being asked: it sends nothing for 8 s)
  const t = Date.now();
  expect((await keyedFetch(`/v1/streams/${id}`, { method: "DELETE" })).status).toBe(204);
  let at: number | undefined;
  for (let i = 0; i < 50 && at === undefined; i++) {
    at = (await cancelledModels(tag))[CLAUDE_2];
    if (at === undefined) await sleep(20);
  }
  expect(at, "the continuing target's request aborted").toBeTypeOf("number");
  expect(at! - t).toBeLessThan(1000);
  const all = head.text + (await rest(head.reader));
  await expect(readBack(all)).rejects.toMatchObject({ errorType: "StreamCancelled" });
  await sleep(300);
  expect((await providerSaw(tag)).count).toBe(2); // (GPT, which cannot continue, was never asked; nothing after)
});
