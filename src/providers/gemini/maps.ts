/**
 * Gemini's finish and usage, as SPEC §9's tables say (MMSP's `gemini_generate_content` client): one
 * table each, to check against the provider's reference.
 */
import { isRecord } from "../../internal/values.js";
import type { FinishReason, UsageMetadata } from "../../schema.js";
import { count, minus, zeroNull } from "../wire.js";

/**
 * A candidate's `finishReason` → the finish reason; any other (`SAFETY`, `RECITATION`,
 * `MALFORMED_FUNCTION_CALL`…) is `unknown`. Gemini says `STOP` for a turn that stopped to call
 * functions: with a function call it is `tool_call` (vercel/ai #5116).
 */
export const FINISH: Readonly<Record<string, { calls: FinishReason; text: FinishReason }>> = {
  STOP: { calls: "tool_call", text: "stop" },
  MAX_TOKENS: { calls: "length", text: "length" },
};

/** The finish reason of `finishReason`, given whether the turn called a function. */
export function finishOf(finishReason: string, called: boolean): FinishReason {
  const row = Object.prototype.hasOwnProperty.call(FINISH, finishReason) ? FINISH[finishReason] : undefined;
  return row === undefined ? "unknown" : called ? row.calls : row.text;
}

/**
 * SPEC §9, Gemini (`usageMetadata`): each member from the counts, a count Gemini leaves out (or 0)
 * null as MMSP writes it.
 */
const USAGE: { readonly [M in keyof UsageMetadata]: (u: Record<string, unknown>) => number | null } = {
  cached_tokens: (u) => zeroNull(count(u.cachedContentTokenCount)),
  prompt_tokens: (u) => minus(count(u.promptTokenCount), count(u.cachedContentTokenCount)),
  thoughts_tokens: (u) => zeroNull(count(u.thoughtsTokenCount)),
  response_tokens: (u) => zeroNull(count(u.candidatesTokenCount)),
};

/**
 * The usage of a chunk's `usageMetadata`, or null when it carries no counts (Vertex AI puts one with
 * only its traffic type on every chunk: the counts come with `promptTokenCount`).
 */
export function usageOf(usage: unknown): UsageMetadata | null {
  if (!isRecord(usage) || usage.promptTokenCount == null) return null;
  return {
    cached_tokens: USAGE.cached_tokens(usage),
    prompt_tokens: USAGE.prompt_tokens(usage),
    thoughts_tokens: USAGE.thoughts_tokens(usage),
    response_tokens: USAGE.response_tokens(usage),
  };
}
