// The workerd harness the relay benches share (bench/relay-providers.mjs, bench/relay-doors.mjs): the
// relay provider Worker (bench/runtimes/relay-provider-worker.mjs), each provider's corpus of one kind
// written out as the Worker's data blobs, one Miniflare with the stream's Durable Object, workerd's own
// CPU around a call, and the ProviderEventStream-alone cell. One copy, so the figures of both benches
// measure the same thing.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { PROVIDER_NAMES, providerCorpus } from "./providers/corpora.mjs";
import { compatibilityDate, workerdCpuMs } from "./runtimes/workerd-kit.mjs";

/** The Worker's entry point, for `bundleForWorkerd({ entryPoints: [RELAY_WORKER] })`. */
export const RELAY_WORKER = fileURLToPath(new URL("./runtimes/relay-provider-worker.mjs", import.meta.url));

const BINDING = { "openai-chat": "OPENAI_CHAT", "openai-responses": "OPENAI_RESPONSES", anthropic: "ANTHROPIC", gemini: "GEMINI" };

/** A new temporary directory for the corpora (remove it with `removeCorpusDir`). */
export const corpusDir = (prefix) => mkdtempSync(join(tmpdir(), prefix));
export const removeCorpusDir = (dir) => rmSync(dir, { recursive: true, force: true });

/** Every provider's corpus of `kind`, written into `dir`: { blobs (Miniflare's dataBlobBindings), corpora }. */
export function corpusBlobs(dir, kind) {
  const blobs = {};
  const corpora = {};
  for (const provider of PROVIDER_NAMES) {
    const c = (corpora[provider] = providerCorpus(provider, kind));
    const path = join(dir, `${provider}-${kind}.sse`);
    writeFileSync(path, c.bytes);
    blobs[`CORPUS_${BINDING[provider]}`] = path;
  }
  return { blobs, corpora };
}

/**
 * One Miniflare running the bundled Worker `script` with the corpora `blobs` and the stream's Durable
 * Object; `more` adds Miniflare options (bench/profile-relay.mjs: its `inspectorPort`).
 */
export const relayMiniflare = (script, blobs, more = {}) =>
  new Miniflare({
    modules: true,
    script,
    compatibilityDate,
    dataBlobBindings: blobs,
    durableObjects: { STREAMS: { className: "StreamObject", useSQLite: true } },
    ...more,
  });

/** workerd's CPU milliseconds spent while `f()` runs. */
export async function timed(f) {
  const c0 = workerdCpuMs();
  await f();
  return workerdCpuMs() - c0;
}

/** The ProviderEventStream-alone cell: workerd's CPU ms to read every event of `provider`'s corpus. */
export const convertCpu = (mf, url, provider, kind) =>
  timed(async () => {
    const res = await mf.dispatchFetch(new URL(`/convert?provider=${provider}`, url));
    const { events } = await res.json();
    if (!res.ok || !(events > 0)) throw new Error(`convert ${provider}/${kind}: ${res.status}`);
  });

const hi = [{
  role: "user",
  content_items: [{ type: "text.done", text: "Hi" }],
}];

/** Each door: its request (path, body) for a bench model, and a text its answer's end holds. */
export const DOORS = {
  stream: {
    label: "MMSP `/v1/stream`",
    path: () => "/v1/stream",
    body: (m) => ({ model: m, messages: hi }),
    end: '"event_type":"stop"',
  },
  responses: {
    label: "Open Responses",
    path: () => "/v1/responses",
    body: (m) => ({ model: m, input: "Hi", stream: true }),
    end: "event: response.completed",
  },
  chat: {
    label: "Chat Completions",
    path: () => "/v1/chat/completions",
    body: (m) => ({
      model: m,
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    }),
    end: "data: [DONE]",
  },
  messages: {
    label: "Messages",
    path: () => "/v1/messages",
    body: (m) => ({
      model: m,
      max_tokens: 2048,
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
    }),
    end: "event: message_stop",
  },
  gemini: {
    label: "Gemini",
    path: (m) => `/v1beta/models/${m}:streamGenerateContent?alt=sse`,
    body: () => ({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
    end: '"finishReason"',
  },
  "ui-chat": {
    label: "useChat `/api/chat`",
    path: () => "/api/chat",
    body: (m) => ({
      id: crypto.randomUUID(),
      model: m,
      messages: [{
        id: "u1",
        role: "user",
        parts: [{ type: "text", text: "Hi" }],
      }],
      trigger: "submit-message",
    }),
    end: '"type":"finish"',
  },
};
