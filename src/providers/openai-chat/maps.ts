/**
 * OpenAI Chat Completions → UniEvent: the finish reason and the usage (SPEC §9's tables, as MMSP's
 * `openai_chat` client computes them). Usage comes only with `stream_options.include_usage`, in the
 * last chunk before `[DONE]` (its `choices` empty).
 */
import type { FinishReason, UsageMetadata } from "../../schema.js";
import { ownValue } from "../../internal/values.js";
import { count, minus, zeroNull } from "../wire.js";

/** `finish_reason` → finish reason (`content_filter` is a stop, as MMSP maps it); anything else is `unknown`. */
export const FINISH: Readonly<Record<string, FinishReason>> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_call",
  function_call: "tool_call",
  content_filter: "stop",
};

/** The finish reason of a `finish_reason`. */
export const finishOf = (reason: string): FinishReason => ownValue(FINISH, reason) ?? "unknown";

const member = (
  o: unknown,
  key: string,
): unknown => (typeof o === "object" && o !== null ? (o as Record<string, unknown>)[key] : undefined);

/**
 * `cached_tokens` = `prompt_tokens_details.cached_tokens` or null; `prompt_tokens` = `prompt_tokens`
 * − cached; `thoughts_tokens` = `completion_tokens_details.reasoning_tokens` or null;
 * `response_tokens` = `completion_tokens` − reasoning, never below 0 (wire.ts `minus`). (MMSP reads a
 * count of 0 as null.)
 */
export function usageOf(usage: Record<string, unknown>): UsageMetadata {
  const cached = zeroNull(count(member(usage.prompt_tokens_details, "cached_tokens")));
  const reasoning = zeroNull(count(member(usage.completion_tokens_details, "reasoning_tokens")));
  return {
    cached_tokens: cached,
    prompt_tokens: minus(count(usage.prompt_tokens), cached),
    thoughts_tokens: reasoning,
    response_tokens: minus(count(usage.completion_tokens), reasoning),
  };
}
