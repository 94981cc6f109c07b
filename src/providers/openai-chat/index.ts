/** `openaiChat()`: the OpenAI Chat Completions provider (and any server that speaks its API). */
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
export function openaiChat(options: ProviderOptions): Provider {
  return makeProvider("openaiChat", {
    spec: OPENAI_CHAT,
    baseURL: "https://api.openai.com/v1",
    path: "/chat/completions",
    auth: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
    body: (model, request, config, history) => ({ body: chatBody(OPENAI_CHAT.name, model, request.messages, config, history) }),
  }, options);
}
