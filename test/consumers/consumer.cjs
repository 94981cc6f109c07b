// CommonJS consumer (scripts/consumers.mjs): `require` of an ES-module-only package, which Node loads
// with require(esm) from 20.19 on (and Bun always). Prints one "consumer ok" line.
const { UniEventStream, SseEncoderStream, UniEventSchema } = require("mmsp-streams");
const { PartialJsonParser } = require("mmsp-streams/partial-json");
const { version } = require("mmsp-streams/package.json");

async function main() {
  const delta = (item) => ({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null });
  const stop = {
    role: "assistant",
    event_type: "stop",
    content_items: [],
    usage_metadata: { cached_tokens: null, prompt_tokens: 1, thoughts_tokens: null, response_tokens: 0 },
    finish_reason: "stop",
  };
  const events = [delta({ type: "text.delta", text: "Hi" }), delta({ type: "text.done", text: "Hi" }), stop];
  const body = new ReadableStream({ start(c) { for (const e of events) c.enqueue(e); c.close(); } }).pipeThrough(new SseEncoderStream());
  const stream = new UniEventStream();
  body.pipeThrough(stream);
  const message = await stream.message;
  if (message.finish_reason !== "stop" || message.content_items[0]?.text !== "Hi") throw new Error(`message: ${JSON.stringify(message)}`);
  if (!UniEventSchema.safeParse(stop).success) throw new Error("UniEventSchema");
  if (typeof PartialJsonParser !== "function") throw new Error("PartialJsonParser");
  if (version !== "0.1.0") throw new Error(`version ${version}`);
  console.log(`consumer ok: require() of mmsp-streams ${version}, finish_reason ${message.finish_reason}`);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
