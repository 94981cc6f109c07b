/** OpenAI Chat Completions' reading spec: its name and its stream's reader. */
import type { ProviderSpec } from "../spec.js";
import { OpenaiChatReader } from "./reader.js";

/** How the package reads an OpenAI Chat Completions stream (`"openai-chat"`). */
export const OPENAI_CHAT: ProviderSpec = {
  name: "openai-chat",
  reader: (client) => new OpenaiChatReader(client),
  modelOf: (chunk) => chunk.model,
  sample: [
    { model: "m", choices: [{ index: 0, delta: { content: "a" }, finish_reason: null }] },
    { model: "m", choices: [{ index: 0, delta: { content: "b" }, finish_reason: "stop" }] },
    { choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } },
    "[DONE]",
  ],
};
