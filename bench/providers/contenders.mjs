// The readers the providers' benchmark compares (issue #27), per provider. Web APIs only.
//
// Each contender's `run(chunks, full)` replays `chunks` (views of one corpus) and returns what it read:
// { text, thinking, calls, args } (characters of the answer, of the thinking, the number of tool
// calls and, when `full`, the characters of their JSON arguments, which costs a JSON.stringify of
// parsed arguments: done on the warm-up run only, so that no timed run pays for the check;
// `thinking: undefined` where the peer does not keep it). bench/providers.mjs checks every run
// against the corpus' `expect`.
//
// The SDKs are driven as their users drive them: a client whose `fetch` answers the corpus bytes as
// a streaming `Response`, and the SDK's own stream helper reading it (openai-node's
// `chat.completions.stream()` → ChatCompletionStream and `responses.stream()` → ResponseStream, the
// Anthropic SDK's `messages.stream()` → MessageStream, each awaited to its final message; the AI
// SDK providers' language model `doStream`, every part read). Each run so includes the SDK's request
// building, a constant of well under a millisecond against runs of tens of milliseconds.
import { replay } from "../core/contenders.mjs";
import { loadEach } from "../core/harness.mjs";

const PROMPT = [{ role: "user", content: "Hi" }];
const MODELS = {
  "openai-chat": "gpt-4o-mini",
  "openai-responses": "gpt-5.1",
  anthropic: "claude-sonnet-4-5",
  gemini: "gemini-3-pro-preview",
};

const len = (s) => (typeof s === "string" ? s.length : 0);
const argsLen = (a) => (typeof a === "string" ? a.length : JSON.stringify(a ?? {}).length);

/** A `fetch` answering `chunks()` as an SSE response (the corpus of the current run). */
const fetchOf = (chunks) => async () => new Response(replay(chunks()), { status: 200, headers: { "content-type": "text/event-stream" } });

/** What the package's finished message holds, in the shape the runs are checked by. */
function ofMessage(message, full) {
  const seen = { text: 0, thinking: 0, calls: 0, args: 0 };
  for (const item of message.content_items) {
    if (item.type === "text.done") seen.text += item.text.length;
    else if (item.type === "thinking.done") seen.thinking += item.thinking.length;
    else if (item.type === "tool_call.done") {
      seen.calls++;
      if (full) seen.args += JSON.stringify(item.arguments).length;
    }
  }
  return seen;
}

/**
 * The contenders of `provider`: the package (`ProviderEventStream` read / message) and the peers
 * that loaded (`peers`: { OpenAI, Anthropic, createOpenAI, createAnthropic, createGoogle }).
 */
export function makeProviderContenders(providersLib, peers, provider) {
  const { ProviderEventStream } = providersLib;
  const list = [
    {
      id: "pes-read",
      label: "ProviderEventStream read",
      library: true,
      what: "the provider's stream → checked UniEvents (grammar, schema, .done by construction), every event read with reader.read()",
      async run(chunks, full) {
        const stream = new ProviderEventStream(provider);
        const reader = replay(chunks).pipeThrough(stream).getReader();
        for (;;) if ((await reader.read()).done) break;
        return ofMessage(await stream.message, full);
      },
    },
    {
      id: "pes-drain",
      label: "ProviderEventStream message",
      library: true,
      what: "the same, only `await stream.message` (the package drains the readable)",
      async run(chunks, full) {
        const stream = new ProviderEventStream(provider);
        replay(chunks).pipeThrough(stream);
        return ofMessage(await stream.message, full);
      },
    },
  ];
  let current = null;
  const fetch = fetchOf(() => current);
  const sdk = (id, label, what, make, read) => {
    let client;
    try {
      client = make();
    } catch {
      return;
    }
    list.push({
      id,
      label,
      what,
      peer: true,
      async run(chunks, full) {
        current = chunks;
        return read(client, full);
      },
    });
  };
  const aiSdk = (model) => async (full) => {
    const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] });
    const seen = { text: 0, thinking: 0, calls: 0, args: 0 };
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === "text-delta") seen.text += len(value.delta ?? value.textDelta);
      else if (value.type === "reasoning-delta") seen.thinking += len(value.delta);
      else if (value.type === "tool-call") {
        seen.calls++;
        if (full) seen.args += argsLen(value.input ?? value.args);
      } else if (value.type === "error") throw new Error(`AI SDK stream error: ${String(value.error?.message ?? value.error)}`);
    }
    // a model that does not read this provider's reasoning field (@ai-sdk/openai's Chat and `reasoning_content`) is not checked on it
    return seen.thinking ? seen : { ...seen, thinking: undefined };
  };
  const model = MODELS[provider];
  const key = { apiKey: "sk-bench", fetch, maxRetries: 0 };

  if (provider === "openai-chat" && peers.OpenAI) {
    sdk(
      "openai-node",
      "openai-node ChatCompletionStream",
      "openai-node `chat.completions.stream()` (ChatCompletionStream: SSE decoding, chunk accumulation), `finalChatCompletion()`",
      () => new peers.OpenAI(key),
      async (client, full) => {
        const completion = await client.chat.completions.stream({ model, messages: PROMPT, stream_options: { include_usage: true } })
          .finalChatCompletion();
        const m = completion.choices[0].message;
        return {
          text: len(m.content),
          thinking: undefined,
          calls: m.tool_calls?.length ?? 0,
          args: full ? (m.tool_calls ?? []).reduce((n, c) => n + c.function.arguments.length, 0) : 0,
        };
      },
    );
  }
  if (provider === "openai-responses" && peers.OpenAI) {
    sdk(
      "openai-node",
      "openai-node ResponseStream",
      "openai-node `responses.stream()` (ResponseStream: SSE decoding, the response snapshot), `finalResponse()`",
      () => new peers.OpenAI(key),
      async (client, full) => {
        const r = await client.responses.stream({ model, input: "Hi" }).finalResponse();
        const seen = { text: 0, thinking: 0, calls: 0, args: 0 };
        for (const item of r.output) {
          if (item.type === "message") { for (const part of item.content) seen.text += len(part.text); }
          else if (item.type === "reasoning") { for (const s of item.summary) seen.thinking += len(s.text); }
          else if (item.type === "function_call") {
            seen.calls++;
            if (full) seen.args += item.arguments.length;
          }
        }
        return seen;
      },
    );
  }
  if (provider === "anthropic" && peers.Anthropic) {
    sdk(
      "anthropic-sdk",
      "Anthropic SDK MessageStream",
      "@anthropic-ai/sdk `messages.stream()` (MessageStream: SSE decoding, the message snapshot, tool input partial-JSON parsed per delta), `finalMessage()`",
      () => new peers.Anthropic(key),
      async (client, full) => {
        const m = await client.messages.stream({ model, max_tokens: 64000, messages: PROMPT }).finalMessage();
        const seen = { text: 0, thinking: 0, calls: 0, args: 0 };
        for (const b of m.content) {
          if (b.type === "text") seen.text += b.text.length;
          else if (b.type === "thinking") seen.thinking += b.thinking.length;
          else if (b.type === "tool_use") {
            seen.calls++;
            if (full) seen.args += argsLen(b.input);
          }
        }
        return seen;
      },
    );
  }
  const ai = {
    "openai-chat": peers.createOpenAI && (() => peers.createOpenAI(key).chat(model)),
    "openai-responses": peers.createOpenAI && (() => peers.createOpenAI(key).responses(model)),
    anthropic: peers.createAnthropic && (() => peers.createAnthropic(key)(model)),
    gemini: peers.createGoogle && (() => peers.createGoogle(key)(model)),
  }[provider];
  if (ai) {
    const pkg = provider === "gemini" ? "@ai-sdk/google" : provider === "anthropic" ? "@ai-sdk/anthropic" : "@ai-sdk/openai";
    sdk(
      "ai-sdk",
      `AI SDK ${pkg}`,
      `${pkg} language model \`doStream()\` (its SSE parse, zod schema of each chunk, stream parts), every part read`,
      ai,
      (m, full) => aiSdk(m)(full),
    );
  }
  return list;
}

/** The peers, each loaded on its own (one that does not load drops only its contenders). */
export function loadProviderPeers() {
  return loadEach({
    openai: async () => ({ OpenAI: (await import("openai")).default }),
    "@anthropic-ai/sdk": async () => ({ Anthropic: (await import("@anthropic-ai/sdk")).default }),
    "@ai-sdk/openai": async () => ({ createOpenAI: (await import("@ai-sdk/openai")).createOpenAI }),
    "@ai-sdk/anthropic": async () => ({ createAnthropic: (await import("@ai-sdk/anthropic")).createAnthropic }),
    "@ai-sdk/google": async () => ({ createGoogle: (await import("@ai-sdk/google")).createGoogle }),
  });
}
