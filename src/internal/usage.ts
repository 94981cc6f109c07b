/**
 * SPEC's four usage counts as the package adds them up: merged piece by piece (a stop event's usage
 * may come in pieces, SPEC §5), and read as input (cached + prompt) and output (thoughts + response)
 * tokens — for the relay's quotas, the spans' GenAI attributes and a continuation's carried input.
 */
import type { UsageMetadata } from "../schema.js";

const USAGE_MEMBERS = ["cached_tokens", "prompt_tokens", "thoughts_tokens", "response_tokens"] as const;

/** Four `null` counts: usage with nothing known yet. */
export const noUsage = (): UsageMetadata => ({ cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: null });

/** Writes each count `piece` gives (a number, not null) over `into`'s. */
export function mergeUsage(into: UsageMetadata, piece: Partial<UsageMetadata>): void {
  for (const m of USAGE_MEMBERS) {
    const v = piece[m];
    if (v !== undefined && v !== null) into[m] = v;
  }
}

/** Input tokens: cached + prompt (a count not given is 0). */
export const inputTokens = (u: UsageMetadata): number => (u.cached_tokens ?? 0) + (u.prompt_tokens ?? 0);

/** Output tokens: thoughts + response (a count not given is 0). */
export const outputTokens = (u: UsageMetadata): number => (u.thoughts_tokens ?? 0) + (u.response_tokens ?? 0);
