/** `gemini()`: the Gemini API provider (`streamGenerateContent?alt=sse`). */
import { makeProvider, type Provider, type ProviderOptions } from "../provider.js";
import { GEMINI_COUNTER } from "../count.js";
import { geminiBody, geminiPath } from "./request.js";
import { GEMINI } from "./spec.js";

/**
 * The Gemini provider: `request()` builds `POST {baseURL}/models/{model}:streamGenerateContent?alt=sse`
 * with the key in the `x-goog-api-key` header (never in the URL, where logs and `Referer`s keep it);
 * `stream()` fetches it and reads the answer.
 *
 * @example
 * ```ts
 * import { gemini } from "mmsp-streams/providers";
 *
 * const google = gemini({ apiKey: "AIza-your-key" });
 * const request = google.request({
 *   model: "gemini-3-flash",
 *   messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
 *   config: { thinking_level: "low", thinking_summary: true },
 * });
 * console.log(request.url); // https://generativelanguage.googleapis.com/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse
 * // const { readable, message, stop } = google.stream(request);
 * ```
 */
export function gemini(options: ProviderOptions): Provider {
  return makeProvider("gemini", {
    spec: GEMINI,
    baseURL: "https://generativelanguage.googleapis.com/v1beta",
    path: geminiPath,
    counter: GEMINI_COUNTER,
    auth: (apiKey) => ({ "x-goog-api-key": apiKey }),
    body: (model, request, config, history) => ({ body: geminiBody(GEMINI.name, model, request.messages, config, history) }),
  }, options);
}
