/**
 * What Anthropic's models do with thinking, by the model's name: the one table the request builder,
 * the reader and the kit's fake Anthropic consult (Anthropic's extended- and adaptive-thinking guides).
 *
 * | model (its name's version)                  | thinking it takes                                  | thinking it gives |
 * | ------------------------------------------- | -------------------------------------------------- | ----------------- |
 * | Claude 3.7 Sonnet and before (`claude-3-7-sonnet`) | `enabled` with `budget_tokens`              | full              |
 * | Claude 4 to 4.5 (`claude-sonnet-4-5`, `claude-opus-4-1`, `claude-haiku-4-5`) | `enabled` with `budget_tokens` | summarized |
 * | Claude 4.6 (`claude-opus-4-6`, `claude-sonnet-4-6`) | `adaptive` (`enabled` still taken)         | summarized        |
 * | Claude 4.7 and later (`claude-opus-4-7`, `claude-sonnet-5`) | `adaptive` only                    | summarized        |
 * | a Claude name without a version the table reads (`claude-mythos-preview`, names to come) | `adaptive` | summarized |
 * | any other name (a compatible server's own model) | `enabled` with `budget_tokens`                | full              |
 *
 * A version is read from `claude-<family>-<major>[-<minor>]` or `claude-<major>[-<minor>]-<family>`
 * (a provider's prefix or suffix aside: `anthropic.claude-opus-4-6-v1`, `claude-sonnet-4-5@20250929`);
 * a date (`claude-opus-4-20250514`) is no minor version.
 */
import type { ThinkingLevel } from "../request.js";

/** How a request turns thinking on: the model decides how much (`adaptive`), or within `budget_tokens` (`enabled`). */
export type ThinkingMode = "adaptive" | "enabled";

/** The least `budget_tokens` the Messages API takes. */
export const MIN_BUDGET_TOKENS = 1024;

/**
 * `budget_tokens` for each of MMSP's levels in `enabled` mode (`none`: thinking disabled), at most half
 * of the request's `max_tokens` (the answer keeps the rest) and never below 1,024.
 */
export const BUDGET_TOKENS: Readonly<Record<Exclude<ThinkingLevel, "none">, number>> = {
  low: 1024,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 32768,
};

/** A Claude model's version ([major, minor]); `null` for a Claude name without one the table reads; undefined for no Claude name. */
export function claudeVersion(model: string): [number, number] | null | undefined {
  const name = model.toLowerCase();
  if (!name.includes("claude")) return undefined;
  const m = /claude-(?:[a-z]+-)?(\d{1,2})(?:[-.](\d{1,2})(?!\d))?/.exec(name);
  return m ? [Number(m[1]), m[2] === undefined ? 0 : Number(m[2])] : null;
}

const atLeast = (v: [number, number], major: number, minor: number): boolean => v[0] > major || (v[0] === major && v[1] >= minor);

/** The mode a model takes (the table): `adaptive` from Claude 4.6 on and for Claude names it cannot read, `enabled` otherwise. */
export function thinkingModeOf(model: string): ThinkingMode {
  const v = claudeVersion(model);
  if (v === undefined) return "enabled";
  return v === null || atLeast(v, 4, 6) ? "adaptive" : "enabled";
}

/** Whether a model refuses `enabled` (Claude 4.7 and later): the fake Anthropic's rule. */
export function refusesEnabled(model: string): boolean {
  const v = claudeVersion(model);
  return v === null || (v !== undefined && atLeast(v, 4, 7));
}

/** Whether a model's thinking is a summary of its reasoning (Claude 4 and later), not the reasoning itself. */
export function summarizesThinking(model: string): boolean {
  const v = claudeVersion(model);
  return v === null || (v !== undefined && v[0] >= 4);
}

/** `enabled` mode's budget for `level` within `maxTokens`, or undefined when thinking cannot fit (`max_tokens` ≤ 1,024). */
export function budgetTokens(level: Exclude<ThinkingLevel, "none">, maxTokens: number): number | undefined {
  const budget = Math.max(MIN_BUDGET_TOKENS, Math.min(BUDGET_TOKENS[level], Math.floor(maxTokens / 2)));
  return budget < maxTokens ? budget : undefined;
}
