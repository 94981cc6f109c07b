// The shared provider captures, and a body read by the package's provider reader: for the encoder tests.
import type { UniEvent, UniMessage } from "../../src/index.ts";
import { ProviderEventStream } from "../../src/providers/index.ts";
import type { ProviderName } from "../../src/testing/index.ts";
import * as ANTHROPIC from "../cases/providers/captures-anthropic.ts";
import * as CHAT from "../cases/providers/captures-openai-chat.ts";
import * as DIALECTS from "../cases/providers/captures-openai-chat-dialects.ts";
import * as GEMINI from "../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../cases/providers/captures-openai-responses.ts";

/** Every shared capture: [name, provider, SSE body]. */
export const CAPTURES: [string, ProviderName, string][] = [];
for (const [provider, module] of [
  ["anthropic", ANTHROPIC],
  ["openai-chat", CHAT],
  ["openai-chat", DIALECTS],
  ["gemini", GEMINI],
  ["openai-responses", RESPONSES],
] as const) {
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "string" && /^(event|data):/m.test(value)) CAPTURES.push([`${provider} ${name}`, provider, value]);
  }
}

const utf8 = new TextEncoder();
const bodyOf = (text: string | Uint8Array): ReadableStream<Uint8Array> =>
  new ReadableStream({ start: (c) => (c.enqueue(typeof text === "string" ? utf8.encode(text) : text), c.close()) });

/** A provider's body read by the package: its events and its message (or the error). */
export async function readProvider(provider: ProviderName, body: string | Uint8Array): Promise<{ events: UniEvent[]; message?: UniMessage; error?: unknown }> {
  const reader = new ProviderEventStream(provider);
  const events: UniEvent[] = [];
  const r = bodyOf(body).pipeThrough(reader).getReader();
  try {
    for (let x = await r.read(); !x.done; x = await r.read()) events.push(x.value);
    return { events, message: await reader.message };
  } catch (error) {
    reader.message.catch(() => {});
    return { events, error };
  }
}

