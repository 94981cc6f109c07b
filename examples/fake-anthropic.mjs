// A fake of Anthropic's Messages API on a port, for trying examples/browser-own-key.html without a
// real key: the kit's fakeProvider (mmsp-streams/testing) served by the kit's serve, which answers a
// browser's CORS preflight as the real API does (anthropic-dangerous-direct-browser-access).
//
//   node examples/fake-anthropic.mjs            prints the base URL to paste into the page
import http from "node:http";
import { fakeProvider, parseCapture, serve } from "mmsp-streams/testing";

const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const words = ["Hello", " from", " a", " fake", " Claude", " on", " your", " machine", "."];
const capture = parseCapture(
  event("message_start", { message: { id: "msg_fake", model: "claude-haiku-4-5", usage: { input_tokens: 12, output_tokens: 1 } } }) +
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
    words.map((text) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text } })).join("") +
    event("content_block_stop", { index: 0 }) +
    event("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: words.length } }) +
    event("message_stop", {}),
);

/** The fake on `port` (0: a free one), paced so that Stop has something to stop. */
export function startFakeAnthropic({ port = 8788, key = "sk-ant-fake" } = {}) {
  const api = fakeProvider("anthropic", { streams: { "claude-haiku-4-5": { capture, pace: 4 } }, key });
  return serve(api, { port, http });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const served = await startFakeAnthropic();
  console.log(`fake Anthropic API on ${served.url} (key: sk-ant-fake); open examples/browser-own-key.html?baseURL=${served.url}`);
}
