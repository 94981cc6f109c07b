/** `openaiResponses()`: the OpenAI Responses provider (and any server that speaks its API). */
import { makeProvider, type Provider, type ProviderOptions } from "../provider.js";
import { RESPONSES_COUNTER } from "../count.js";
import { responsesBody } from "./request.js";
import { OPENAI_RESPONSES } from "./spec.js";

/**
 * The OpenAI Responses provider: `request()` builds `POST {baseURL}/responses` with `stream: true` and
 * `store: false` (the history goes back whole; with a `thinking_level` the reasoning comes encrypted,
 * `include: ["reasoning.encrypted_content"]`), `Authorization: Bearer <apiKey>`; `stream()` fetches it
 * and reads the answer.
 *
 * @example
 * ```ts
 * import { openaiResponses } from "mmsp-streams/providers";
 *
 * const openai = openaiResponses({ apiKey: "sk-your-key" });
 * const request = openai.request({
 *   model: "gpt-5.1",
 *   messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
 *   config: { thinking_level: "low", thinking_summary: true },
 * });
 * console.log(request.url); // https://api.openai.com/v1/responses
 * // const { readable, message, stop } = openai.stream(request);
 * ```
 */
export function openaiResponses(options: ProviderOptions): Provider {
  return makeProvider("openaiResponses", {
    spec: OPENAI_RESPONSES,
    baseURL: "https://api.openai.com/v1",
    path: "/responses",
    counter: RESPONSES_COUNTER,
    auth: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
    body: (model, request, config, history) => ({ body: responsesBody(OPENAI_RESPONSES.name, model, request.messages, config, history) }),
  }, options);
}
