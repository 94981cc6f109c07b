// The README's test with the kit (docs/guide/testing.md) in Deno's test runner (npx deno test --allow-read examples/testing_test.ts):
// the same two checks as examples/testing.test.ts (vitest, bun test), with plain assertions.
import { fromFetch, UpstreamError } from "mmsp-streams";
import { fakeMmspServer, parseCapture } from "mmsp-streams/testing";

const chat = parseCapture(await Deno.readTextFile(new URL("../samples/chat.sse", import.meta.url)));
const ask = (server: ReturnType<typeof fakeMmspServer>) =>
  fromFetch("http://fake.test/v1/stream", { method: "POST", body: '{"model":"chat","messages":[]}' }, { fetch: server, reconnect: { delayMs: 0 } });
function assert(ok: unknown, what: string): asserts ok {
  if (!ok) throw new Error(what);
}

Deno.test("the answer view survives a cut connection", async () => {
  const server = fakeMmspServer({ streams: { chat: { capture: chat, cutAfterEvents: 8, chunking: "random", seed: 7 } } });
  const answer = ask(server);
  const shown: string[] = [];
  answer.subscribe(() => shown.push(answer.snapshot().content_items.map((item) => ("text" in item ? item.text : "")).join("")));
  const message = await answer.message;
  assert(server.requests.map((r) => r.method).join() === "POST,GET", "cut, then resumed");
  assert(shown.every((text, i) => i === 0 || text.startsWith(shown[i - 1]!)), "the text only grew");
  assert(shown.at(-1) === message.content_items.find((item) => item.type === "text.done")?.text, "the view ends on the message");
});

Deno.test("an error event reaches the view as a typed error", async () => {
  const answer = ask(fakeMmspServer({ streams: { chat: { capture: chat, errorAt: 8 } } }));
  const error = await answer.message.then(() => undefined, (e) => e);
  assert(error instanceof UpstreamError && error.errorType === "OverloadedError", `UpstreamError, not ${error}`);
  assert(answer.snapshot().content_items.length === 2, "what arrived stays");
});
