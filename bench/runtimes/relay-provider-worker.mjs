// The Worker of the workerd relay figure (bench/relay-providers.mjs, issue #39): the package's relay
// (createRelay, one Durable Object per stream, SQLite storage) with one provider-backed model per
// provider, each provider's `fetch` answering that provider's corpus (a data blob binding, cut into
// its seeded 1–16 KiB chunks) from memory, so a stream costs the isolate what a real one does past
// the network: convert, check, encode, store, serve the viewer. Beside it, in the same isolate,
// `ProviderEventStream` alone on the same chunks. Web APIs only.
//   POST /v1/stream {model: "bench-PROVIDER"}   the relay (its own routes)
//   GET  /convert?provider=P                    ProviderEventStream, every event read; answers { events }
import { createRelay } from "../../dist/relay/index.js";
import { anthropic, gemini, openaiChat, openaiResponses, ProviderEventStream } from "../../dist/providers/index.js";
import { chunkSeeded } from "../core/harness.mjs";
import { replay } from "../core/contenders.mjs";

const FACTORIES = { "openai-chat": openaiChat, "openai-responses": openaiResponses, anthropic, gemini };
const BINDING = { "openai-chat": "OPENAI_CHAT", "openai-responses": "OPENAI_RESPONSES", anthropic: "ANTHROPIC", gemini: "GEMINI" };

/** Each provider's chunks, cut once per isolate (the Durable Object and the Worker may be two). */
const cut = new Map();
const chunksOf = (env, provider) => {
  if (!cut.has(provider)) cut.set(provider, chunkSeeded(new Uint8Array(env[`CORPUS_${BINDING[provider]}`]), 1024, 16 * 1024, 7));
  return cut.get(provider);
};

const relay = createRelay({
  allowAnonymous: { perMinute: 1_000_000 }, // (the bench creates a stream per run)
  models: (env) =>
    Object.fromEntries(
      Object.entries(FACTORIES).map(([name, factory]) => [`bench-${name}`, {
        provider: factory({
          apiKey: "bench-key",
          fetch: async () => new Response(replay(chunksOf(env, name)), { status: 200, headers: { "content-type": "text/event-stream" } }),
        }),
        model: "bench-model",
        config: { max_tokens: 2048 },
      }]),
    ),
});

export const StreamObject = relay.StreamObject;
export const QuotaObject = relay.QuotaObject;

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/convert") {
      const provider = url.searchParams.get("provider");
      const stream = new ProviderEventStream(provider);
      const reader = replay(chunksOf(env, provider)).pipeThrough(stream).getReader();
      let events = 0;
      for (;;) {
        if ((await reader.read()).done) break;
        events++;
      }
      await stream.message;
      return Response.json({ events });
    }
    return relay.fetch(request, env, ctx);
  },
};
