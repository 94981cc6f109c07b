// The consumer program of scripts/consumers.mjs: uses the installed package the ways an app does, in
// every runtime (Node, Deno, Bun, a browser bundle) and under tsc. Throws on the first wrong answer;
// prints one "consumer ok" line when every assertion held. Web APIs only.
import {
  MmspError,
  PartialJsonParser as MainPartialJsonParser,
  StreamLimitError,
  UniEventSchema,
  UniEventStream,
  fromResponse,
  type Role,
  type UniEvent,
  type UniMessage,
} from "mmsp-streams";
import { SseDecoderStream, StreamLimitError as SseStreamLimitError, type SseMessage } from "mmsp-streams/sse";
import { NdjsonDecoderStream } from "mmsp-streams/ndjson";
import { NdjsonEncoderStream, SseEncoderStream, decodeBase64, encodeBase64, toWireError } from "mmsp-streams/encode";
import { PartialJsonParser } from "mmsp-streams/partial-json";
import { createRelay, type RelayEnv } from "mmsp-streams/relay";
import { anthropic, ProviderEventStream, type Provider } from "mmsp-streams/providers";

function assert(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(`consumer: ${what}`);
}
function streamOf<T>(values: T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(c) {
      for (const v of values) c.enqueue(v);
      c.close();
    },
  });
}
async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
  return out;
}

const delta = (text: string): UniEvent => ({
  role: "assistant",
  event_type: "delta",
  content_items: [{ type: "text.delta", text }],
  usage_metadata: null,
  finish_reason: null,
});
const events: UniEvent[] = [
  delta("Hel"),
  delta("lo"),
  { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hello" }], usage_metadata: null, finish_reason: null },
  {
    role: "assistant",
    event_type: "stop",
    content_items: [],
    usage_metadata: { cached_tokens: 0, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 2 },
    finish_reason: "stop",
  },
];

// producer → bytes → reader, both formats, through the main entry and the subpaths
const sse = await new Response(streamOf(events).pipeThrough(new SseEncoderStream())).text();
assert(sse.startsWith("data: {") && sse.endsWith("data: [DONE]\n\n"), `SSE bytes: ${sse.slice(0, 60)}`);
const reader = new UniEventStream(); // format "sse" by default
const read = await collect(new Response(sse).body!.pipeThrough(reader));
const message: UniMessage = await reader.message;
assert(read.length === 4, `UniEventStream read ${read.length} events`);
const first = message.content_items[0];
assert(first?.type === "text.done" && first.text === "Hello", `message: ${JSON.stringify(message)}`);

const ndjson = new Response(streamOf(events).pipeThrough(new NdjsonEncoderStream()));
const fromNdjson = fromResponse(new Response(ndjson.body, { headers: { "content-type": "application/x-ndjson" } }));
assert((await fromNdjson.message).usage_metadata?.prompt_tokens === 3, "fromResponse over NDJSON");

const frames: SseMessage[] = await collect(new Response("data: a\n\n: keep-alive\n\ndata: b\n\n").body!.pipeThrough(new SseDecoderStream()));
assert(frames.map((f) => f.data).join() === "a,b", `SseDecoderStream: ${JSON.stringify(frames)}`);
const lines = await collect(new Response('{"a":1}\n\n{"a":2}\n').body!.pipeThrough(new NdjsonDecoderStream()));
assert(JSON.stringify(lines) === '[{"a":1},{"a":2}]', `NdjsonDecoderStream: ${JSON.stringify(lines)}`);

// one module instance behind every entry: instanceof works across them
assert(SseStreamLimitError === StreamLimitError && PartialJsonParser === MainPartialJsonParser, "subpaths share the main entry's classes");
const tooLong = await collect(new Response(`data: ${"x".repeat(64)}\n\n`).body!.pipeThrough(new SseDecoderStream({ maxEventBytes: 16 }))).catch((e: unknown) => e);
assert(tooLong instanceof StreamLimitError && tooLong instanceof MmspError && tooLong.limit === "maxEventBytes", `limit error: ${String(tooLong)}`);
assert(toWireError(tooLong).type === "StreamLimitError", "toWireError");

const bytes = decodeBase64(encodeBase64(new Uint8Array([0, 1, 254, 255])));
assert(bytes?.join() === "0,1,254,255", "base64 round trip");
const parser = new PartialJsonParser();
parser.push('{"city": "Par');
assert(JSON.stringify(parser.value) === '{"city":"Par"}', `PartialJsonParser: ${JSON.stringify(parser.value)}`);
assert(UniEventSchema.safeParse(events[0]).success && !UniEventSchema.safeParse({ role: "system" }).success, "UniEventSchema");

// mmsp-streams/providers: a provider's own stream read into UniEvents, and a factory's Request
const claudeBody = [
  { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hola" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
  { type: "message_stop" },
].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const fromClaude = new ProviderEventStream("anthropic");
void new Response(claudeBody).body!.pipeTo(fromClaude.writable);
const claudeMessage = await fromClaude.message;
assert(claudeMessage.content_items[0]?.type === "text.done" && claudeMessage.finish_reason === "stop", `ProviderEventStream: ${JSON.stringify(claudeMessage)}`);
const claude: Provider = anthropic({ apiKey: "sk-ant-consumer" });
assert(claude.request({ model: "m", messages: [] }).url === "https://api.anthropic.com/v1/messages", "anthropic().request: the Messages URL");

// mmsp-streams/relay loads outside workerd (no cloudflare:workers import): its handler refuses as the relay does
const relay = createRelay<RelayEnv & { MY_VAR?: string }>({ upstream: "https://mmsp.invalid/v1", limits: { maxBodyBytes: 8 } });
assert(typeof relay.StreamObject === "function" && typeof relay.fetch === "function", "createRelay: StreamObject and fetch");
const form = await relay.fetch(new Request("https://relay.test/v1/stream", { method: "POST", body: "a=1", headers: { "content-type": "text/plain" } }), {});
assert(form.status === 415 && form.headers.get("x-content-type-options") === "nosniff", `relay: text/plain is a 415 (${form.status})`);
const big = await relay.fetch(new Request("https://relay.test/v1/stream", { method: "POST", body: "[1,2,3,4,5]", headers: { "content-type": "application/json" } }), {});
assert(big.status === 413, `relay: a body past maxBodyBytes is a 413 (${big.status})`);
const badId = await relay.fetch(new Request("https://relay.test/v1/streams/%"), { STREAMS: { idFromName: () => ({}), get: () => ({ fetch: () => Promise.reject(new Error("not here")) }) } });
assert(badId.status === 404, `relay: a bad stream id is a 404 (${badId.status})`);

// the types are real (not `any`): tsc and deno check fail on an unused @ts-expect-error
// @ts-expect-error "system" is not a Role
const notARole: Role = "system";
void notARole;

console.log(`consumer ok: ${read.length} events, message "${first.text}", ${frames.length} SSE frames, ${lines.length} NDJSON lines`);
