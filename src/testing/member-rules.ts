/**
 * What each real API refuses in a request's tool and cache settings (issue #46: `parallel_tool_calls`
 * and `prompt_cache_key` → each provider's own), for the kit's fake providers: OpenAI Chat refuses
 * `parallel_tool_calls` without `tools`; Anthropic's Messages API and Gemini's refuse members they do
 * not have (OpenAI's `parallel_tool_calls` and `prompt_cache_key`), each in its own words, and Anthropic
 * a `disable_parallel_tool_use` on `tool_choice: {type: "none"}`, which has only its type.
 */
import { isRecord } from "../internal/values.js";
import type { ProviderName } from "./routes.js";

/** OpenAI's members that the Messages and Gemini APIs do not have. */
const OPENAI_ONLY = ["parallel_tool_calls", "prompt_cache_key"];

/** The refusal's message of `body`'s tool and cache settings for `provider`, or undefined when the API takes them. */
export function memberRules(provider: ProviderName, body: Record<string, unknown>): string | undefined {
  const foreign = OPENAI_ONLY.find((key) => body[key] !== undefined);
  switch (provider) {
    case "openai-chat":
      return body.parallel_tool_calls !== undefined && !(Array.isArray(body.tools) && body.tools.length > 0)
        ? "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified."
        : undefined;
    case "anthropic": {
      if (foreign) return `${foreign}: Extra inputs are not permitted`;
      const choice = body.tool_choice;
      return isRecord(choice) && choice.type === "none" && choice.disable_parallel_tool_use !== undefined
        ? "tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted"
        : undefined;
    }
    case "gemini":
      return foreign ? `Invalid JSON payload received. Unknown name "${foreign}": Cannot find field.` : undefined;
    default:
      return undefined;
  }
}
