/** `openaiChat()`: the OpenAI Chat Completions provider (and any server that speaks its API). */
import { BOOLEAN } from "../../internal/options.js";
import { makeProvider, type Provider, type ProviderOptions } from "../provider.js";
import { chatBody } from "./request.js";
import { OPENAI_CHAT } from "./spec.js";

/**
 * The OpenAI Chat Completions provider: `request()` builds `POST {baseURL}/chat/completions` with
 * `stream: true` and `stream_options.include_usage`, `Authorization: Bearer <apiKey>`; `stream()`
 * fetches it and reads the answer.
 *
 * @example
 * ```ts
 * import { openaiChat } from "mmsp-streams/providers";
 *
 * const openai = openaiChat({ apiKey: "sk-your-key" });
 * const request = openai.request({ model: "gpt-4o-mini", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] });
 * console.log(request.url); // https://api.openai.com/v1/chat/completions
 * // const { readable, message, stop } = openai.stream(request);
 * ```
 */
export function openaiChat(options: OpenAIChatOptions): Provider {
  const continues = options?.continueFinalMessage === true;
  return makeProvider(
    "openaiChat",
    {
      spec: OPENAI_CHAT,
      baseURL: "https://api.openai.com/v1",
      path: "/chat/completions",
      continuesPrefix: continues,
      auth: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
      body: (model, request, config, history) => {
        const body = chatBody(OPENAI_CHAT.name, model, request.messages, config, history);
        // vLLM's parameters: the final assistant message left open, no new turn begun after it
        if (continues && request.messages.at(-1)?.role === "assistant") Object.assign(body, CONTINUE_FINAL_MESSAGE);
        return { body };
      },
    },
    options,
    { continueFinalMessage: BOOLEAN },
  );
}

const CONTINUE_FINAL_MESSAGE = { continue_final_message: true, add_generation_prompt: false };

/** `openaiChat()`'s options: the factories' own, and whether the server continues a final assistant message. */
export interface OpenAIChatOptions extends ProviderOptions {
  /**
   * The server continues a request's final assistant message when asked with
   * `continue_final_message: true` and `add_generation_prompt: false` (vLLM's parameters; OpenAI's
   * own API has none): such a request carries them, and a relay may continue a cut answer with this
   * provider (SPEC §10). Default false.
   */
  continueFinalMessage?: boolean;
}
