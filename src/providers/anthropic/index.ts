/** `anthropic()`: the Anthropic Messages provider (and any server that speaks its API). */
import { NON_EMPTY_STRING, oneOf } from "../../internal/options.js";
import { makeProvider, type Provider, type ProviderOptions } from "../provider.js";
import { ANTHROPIC_COUNTER } from "../count.js";
import type { ThinkingMode } from "./models.js";
import { FAST_MODE_BETA, messagesBody } from "./request.js";
import { ANTHROPIC } from "./spec.js";

/** `anthropic()`'s options: the factories' own, and the API version. */
export interface AnthropicOptions extends ProviderOptions {
  /** The `anthropic-version` header; default `"2023-06-01"`. */
  version?: string;
  /**
   * The thinking mode every request takes, whatever the model's name says (models.ts: `adaptive` from
   * Claude 4.6 on, `enabled` with `budget_tokens` before): for a gateway's own name of a model.
   */
  thinkingMode?: ThinkingMode;
}

/**
 * The Anthropic Messages provider: `request()` builds `POST {baseURL}/v1/messages` with `stream: true`,
 * `x-api-key`, `anthropic-version` and the header that lets a browser page call the API with a
 * user's own key (`anthropic-dangerous-direct-browser-access`); `stream()` fetches it and reads the answer.
 *
 * @example
 * ```ts
 * import { anthropic } from "mmsp-streams/providers";
 *
 * const claude = anthropic({ apiKey: "sk-ant-your-key" });
 * const request = claude.request({
 *   model: "claude-sonnet-4-5",
 *   messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }],
 *   config: { max_tokens: 1024, system_prompt: "Be brief." },
 * });
 * console.log(request.url); // https://api.anthropic.com/v1/messages
 * // const { readable, message, stop } = claude.stream(request);
 * ```
 */
export function anthropic(options: AnthropicOptions): Provider {
  const version = options?.version ?? "2023-06-01";
  const mode = options?.thinkingMode;
  return makeProvider(
    "anthropic",
    {
      spec: ANTHROPIC,
      baseURL: "https://api.anthropic.com",
      path: "/v1/messages",
      counter: ANTHROPIC_COUNTER,
      continuesPrefix: true, // (a final assistant message is a prefill: the answer goes on from it)
      auth: (apiKey) => ({ "x-api-key": apiKey, "anthropic-version": version, "anthropic-dangerous-direct-browser-access": "true" }),
      body: (model, request, config, history) => ({
        body: messagesBody(ANTHROPIC.name, model, request.messages, config, history, mode),
        headers: config.fast_mode ? { "anthropic-beta": FAST_MODE_BETA } : undefined,
      }),
    },
    options,
    { version: NON_EMPTY_STRING, thinkingMode: oneOf(["adaptive", "enabled"]) },
  );
}
