/**
 * SPEC's four usage counts as the package adds them up: merged piece by piece (a stop event's usage
 * may come in pieces, SPEC §5), and read as input (cached + prompt) and output (thoughts + response)
 * tokens — for the relay's quotas, the spans' GenAI attributes and a continuation's carried input.
 */
import type { UsageMetadata } from "../schema.js";

const USAGE_MEMBERS = ["cached_tokens", "prompt_tokens", "thoughts_tokens", "response_tokens"] as const;

/**
 * The most tokens one count of one response may hold: a hundred million. The largest context windows hold
 * about ten million tokens (2026), so no single answer can count ten times that; a count past it is a
 * provider's (or a gateway's) lie or fault, and kept it would lock a principal's budget out for years.
 * One bound for the readers (SPEC §9) and the relay's settlement (SPEC §10, relay/usage-estimate.ts).
 * Four such counts add up far below `Number.MAX_SAFE_INTEGER`, so every sum the relay makes stays exact.
 */
export const MAX_TOKEN_COUNT = 100_000_000;

/** Whether `v` is a count to keep (SPEC §9, §10): a whole number ≥ 0 and at most {@link MAX_TOKEN_COUNT}. */
export const isTokenCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= MAX_TOKEN_COUNT;

/**
 * `piece` with each count that is no token count (`isTokenCount`: negative, fractional, past the bound,
 * not a number) made `null`; `invalid` gets the names of those members (none: `piece` itself, as it is).
 */
export function keptCounts<T extends Partial<UsageMetadata>>(piece: T, invalid?: (members: string[]) => void): T {
  let out: T | undefined;
  const names: string[] = [];
  for (const m of USAGE_MEMBERS) {
    const v = piece[m];
    if (v === undefined || v === null || isTokenCount(v)) continue;
    (out ??= { ...piece })[m] = null;
    names.push(m);
  }
  if (out === undefined) return piece;
  invalid?.(names);
  return out;
}

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
