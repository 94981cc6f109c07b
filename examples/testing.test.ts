// The README's test with the kit (and docs/guide/testing.md's), run by CI (npx vitest run --project examples; bun test runs
// it too): a UI's data — the snapshot over time — against a stream cut and resumed, and a typed error.
import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import { fromFetch, UpstreamError } from "mmsp-streams";
import { fakeMmspServer, parseCapture } from "mmsp-streams/testing";

const chat = parseCapture(readFileSync(new URL("../samples/chat.sse", import.meta.url), "utf8"));
const ask = (server: ReturnType<typeof fakeMmspServer>) =>
  fromFetch("http://fake.test/v1/stream", { method: "POST", body: '{"model":"chat","messages":[]}' }, { fetch: server, reconnect: { delayMs: 0 } });

test("the answer view survives a cut connection", async () => {
  const server = fakeMmspServer({ streams: { chat: { capture: chat, cutAfterEvents: 8, chunking: "random", seed: 7 } } });
  const answer = ask(server);
  const shown: string[] = []; // what the view showed, snapshot by snapshot
  answer.subscribe(() => shown.push(answer.snapshot().content_items.map((item) => ("text" in item ? item.text : "")).join("")));
  const message = await answer.message;
  expect(server.requests.map((r) => r.method)).toEqual(["POST", "GET"]); // cut, then resumed
  expect(shown.every((text, i) => i === 0 || text.startsWith(shown[i - 1]!))).toBe(true); // it only grew: nothing lost or repeated
  expect(shown.at(-1)).toBe(message.content_items.find((item) => item.type === "text.done")?.text);
});

test("an error event reaches the view as a typed error; what arrived stays", async () => {
  const answer = ask(fakeMmspServer({ streams: { chat: { capture: chat, errorAt: 8 } } }));
  await expect(answer.message).rejects.toBeInstanceOf(UpstreamError);
  await expect(answer.message).rejects.toMatchObject({ errorType: "OverloadedError", status: 529 });
  expect(answer.snapshot().content_items).toMatchObject([{ type: "thinking.done" }, { type: "text.done", partial: true }]);
});
