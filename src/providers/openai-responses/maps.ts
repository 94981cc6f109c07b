/**
 * The Responses API's finish and usage, as SPEC §9's tables say (MMSP's `openai_responses` client):
 * one table each, to check against the provider's reference.
 */
import { isRecord } from "../../internal/values.js";
import type { FinishReason, UsageMetadata } from "../../schema.js";
import { count, minus } from "../wire.js";

/**
 * The finish reason of `response.completed` / `response.incomplete` (by `incomplete_details.reason`).
 * A completed turn that made function calls is `tool_call` (the package's decision: MMSP writes stop).
 */
export const FINISH = {
  completed: { calls: "tool_call", text: "stop" },
  incomplete: { max_output_tokens: "length", content_filter: "stop", other: "length" },
} as const satisfies Record<string, Record<string, FinishReason>>;

/** The finish reason of a `response.incomplete` whose `incomplete_details.reason` is `reason`. */
export function incompleteFinish(reason: unknown): FinishReason {
  return reason === "max_output_tokens" || reason === "content_filter" ? FINISH.incomplete[reason] : FINISH.incomplete.other;
}

/** The counts a Responses `usage` carries (a detail block some servers drop counts 0, as MMSP reads it). */
interface Counts {
  input: number | null;
  cached: number;
  output: number | null;
  reasoning: number;
}

/** SPEC §9, OpenAI Responses (`response.completed`): each member from the response's `usage`. */
const USAGE: { readonly [M in keyof UsageMetadata]: (c: Counts) => number | null } = {
  cached_tokens: (c) => c.cached,
  prompt_tokens: (c) => minus(c.input, c.cached),
  thoughts_tokens: (c) => c.reasoning,
  response_tokens: (c) => minus(c.output, c.reasoning),
};

/** The usage of a Responses `response.usage`, or null when it has none. */
export function usageOf(usage: unknown): UsageMetadata | null {
  if (!isRecord(usage)) return null;
  const inDetails = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outDetails = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  const c: Counts = {
    input: count(usage.input_tokens),
    cached: count(inDetails.cached_tokens) ?? 0,
    output: count(usage.output_tokens),
    reasoning: count(outDetails.reasoning_tokens) ?? 0,
  };
  return {
    cached_tokens: USAGE.cached_tokens(c),
    prompt_tokens: USAGE.prompt_tokens(c),
    thoughts_tokens: USAGE.thoughts_tokens(c),
    response_tokens: USAGE.response_tokens(c),
  };
}
