// A chat whose model row changes provider between two turns (issue #36, SPEC §9 "Where each item
// came from"): the first answer (Anthropic: thinking with its signature, then text) comes back with
// the thinking's provenance; the second turn, on OpenAI Chat with that history, streams its answer
// and the provider is never sent Anthropic's signature (nor its thinking: `foreignThinking: "drop"`).
// The first answer's stored events keep the provenance: a resume through the Durable Object shows it.
import { env } from "cloudflare:test";
import { expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { newTag, ORIGIN, readBack, streamIdOf, textOf } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
/** providers.ts's THINKING_SIGNATURE (that module runs in Node, beside the pool: not importable here). */
const THINKING_SIGNATURE = "EqQBCgIYAhIMscripted+anthropic/signature==";
const keyed = { ...env, RELAY_KEY } as typeof env & { RELAY_KEY: string };

async function stream(model: string, messages: unknown[]): Promise<Response> {
  const headers = { "content-type": "application/json", "x-relay-key": RELAY_KEY };
  return await worker.fetch(new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers, body: JSON.stringify({ model, messages }) }), keyed);
}

test("a chat changes provider between two turns: both answers stream; the second provider gets no signature of the first", async () => {
  const tag = newTag();
  const question = { role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:thinking` }] };
  const first = await stream("claude-fast", [question]);
  expect(first.status).toBe(200);
  expect(first.headers.get("x-mmsp-provider")).toBe("anthropic");
  const { message: answer } = await readBack(await textOf(first));
  expect(answer.content_items[0]).toEqual({
    type: "thinking.done",
    thinking: "A greeting is due.",
    // (Claude 4 and later give a summary of their thinking: SPEC §9, issue #46)
    fidelity: { signature: THINKING_SIGNATURE, provider: "anthropic", model: "claude-haiku-4-5-20251001", summary: true },
  });
  expect(answer.content_items[1]).toEqual({ type: "text.done", text: "Hello, provider world!" });
  // the stream as the Durable Object stored it: replayed whole, the thinking keeps where it came from
  const stamped = { signature: THINKING_SIGNATURE, provider: "anthropic", model: "claude-haiku-4-5-20251001", summary: true };
  const headers = { "x-relay-key": RELAY_KEY };
  const resumed = await worker.fetch(new Request(`${ORIGIN}/v1/streams/${streamIdOf(first)}`, { headers }), keyed);
  expect(resumed.status).toBe(200);
  const replay = await readBack(await textOf(resumed));
  expect(replay.message.content_items).toEqual(answer.content_items);
  const items = (replay.events as { content_items: { type: string; fidelity?: unknown }[] }[]).flatMap((e) => e.content_items);
  expect(items.filter((i) => i.type === "thinking.delta").map((i) => i.fidelity)).toContainEqual(stamped);
  expect(items.find((i) => i.type === "thinking.done")?.fidelity).toEqual(stamped);

  const next = { role: "user", content_items: [{ type: "text.done", text: "And now?" }] };
  const second = await stream("gpt-fast", [question, { role: "assistant", content_items: answer.content_items }, next]);
  expect(second.status).toBe(200);
  expect(second.headers.get("x-mmsp-provider")).toBe("openai-chat");
  const { message: again } = await readBack(await textOf(second));
  expect(again.content_items).toEqual([{ type: "text.done", text: "Hello, provider world!" }]);
  const saw = (await (await fetch(`http://upstream.test/__provider?tag=${tag}`)).json()) as { count: number; body: string };
  expect(saw.count).toBe(2);
  expect(saw.body).not.toContain(THINKING_SIGNATURE);
  expect(saw.body).not.toContain("A greeting is due.");
  expect(JSON.parse(saw.body).messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "Hello, provider world!" }] });
});
