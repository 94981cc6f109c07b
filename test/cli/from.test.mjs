// `mmsp-streams inspect|convert --from PROVIDER`: a provider's own streaming body (a capture) read as
// mmsp-streams/providers reads it, shown as UniEvents or written as the MMSP stream it makes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { run, sseRecords } from "./helpers.mjs";

const sse = (events) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const ANTHROPIC = sse([
  { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello from Claude" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 4 } },
  { type: "message_stop" },
]);
const CHAT = [
  { choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } },
].map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";

test("inspect --from anthropic -: the UniEvents and the message of an Anthropic capture", async () => {
  const r = await run(["inspect", "--from", "anthropic", "-"], { input: ANTHROPIC });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /stdin: anthropic stream/);
  assert.match(r.stdout, /Hello from Claude/);
  assert.match(r.stdout, /finish:\s+stop/);
});

test("convert --to sse --from openai-chat -: the MMSP stream it makes, which inspect reads back", async () => {
  const r = await run(["convert", "--to", "sse", "--from", "openai-chat", "-"], { input: CHAT });
  assert.equal(r.code, 0, r.stderr);
  const records = sseRecords(r.stdout);
  assert.equal(records.at(-1), "[DONE]");
  assert.deepEqual(records.slice(0, -1).map((x) => JSON.parse(x).content_items[0]?.type ?? "stop"), ["text.delta", "text.done", "stop"]);
  const back = await run(["inspect", "-"], { input: r.stdout });
  assert.equal(back.code, 0, back.stderr);
});

test("--from: an unknown provider or a URL input is a usage error (exit 2)", async () => {
  const wrong = await run(["inspect", "--from", "antropic", "-"], { input: ANTHROPIC });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /did you mean "anthropic"/);
  const url = await run(["inspect", "--from", "anthropic", "http://127.0.0.1:1/v1"]);
  assert.equal(url.code, 2);
  assert.match(url.stderr, /--from reads a provider's capture/);
});

test("inspect --from: a provider error mid-stream fails with its UpstreamError (exit 1)", async () => {
  const body = ANTHROPIC.split("event: content_block_stop")[0] + sse([{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]);
  const r = await run(["inspect", "--from", "anthropic", "-"], { input: body });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /UpstreamError overloaded_error/);
});
