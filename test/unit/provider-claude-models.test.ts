// Anthropic's models by name (src/providers/anthropic/models.ts, issue #46): the version read from
// every spelling Anthropic, Bedrock and Vertex AI give, the thinking mode each takes, whether its
// thinking is a summary, and the budget within max_tokens.
import { expect, test } from "vitest";
import { budgetTokens, claudeVersion, refusesEnabled, summarizesThinking, thinkingModeOf } from "../../src/providers/anthropic/models.ts";

test("a Claude version from its name, a provider's prefix or suffix and a date aside", () => {
  const table: [string, [number, number] | null | undefined][] = [
    ["claude-3-7-sonnet-20250219", [3, 7]],
    ["claude-3-5-haiku-latest", [3, 5]],
    ["claude-opus-4-20250514", [4, 0]],
    ["claude-opus-4-1", [4, 1]],
    ["claude-sonnet-4-5", [4, 5]],
    ["claude-sonnet-4-5@20250929", [4, 5]],
    ["anthropic.claude-opus-4-6-v1", [4, 6]],
    ["us.anthropic.claude-haiku-4-5-20251001-v1:0", [4, 5]],
    ["claude-opus-4-8[1m]", [4, 8]],
    ["claude-sonnet-5", [5, 0]],
    ["Claude-Opus-4.6", [4, 6]],
    ["claude-2.1", [2, 1]],
    ["claude-mythos-preview", null],
    ["claude", null],
    ["deepseek-reasoner", undefined],
    ["glm-4.6", undefined],
  ];
  for (const [name, version] of table) expect(claudeVersion(name), name).toEqual(version);
});

test("the mode, the refusal of enabled and the summary, by model", () => {
  const rows: [string, "adaptive" | "enabled", boolean, boolean][] = [
    // name, mode sent, refuses enabled, summarized
    ["claude-3-7-sonnet-20250219", "enabled", false, false],
    ["claude-opus-4-20250514", "enabled", false, true],
    ["claude-sonnet-4-5", "enabled", false, true],
    ["claude-haiku-4-5", "enabled", false, true],
    ["claude-opus-4-6", "adaptive", false, true],
    ["claude-sonnet-4-6", "adaptive", false, true],
    ["claude-opus-4-7", "adaptive", true, true],
    ["claude-sonnet-5", "adaptive", true, true],
    ["claude-mythos-preview", "adaptive", true, true],
    ["deepseek-reasoner", "enabled", false, false],
  ];
  for (const [name, mode, refuses, summary] of rows) {
    expect([thinkingModeOf(name), refusesEnabled(name), summarizesThinking(name)], name).toEqual([mode, refuses, summary]);
  }
});

test("budget_tokens: the level's, at most half of max_tokens, never below 1,024, always below max_tokens (else none)", () => {
  expect(budgetTokens("max", 64000)).toBe(32000);
  expect(budgetTokens("high", 64000)).toBe(16384);
  expect(budgetTokens("low", 100000)).toBe(1024);
  expect(budgetTokens("high", 3000)).toBe(1500);
  expect(budgetTokens("high", 1025)).toBe(1024);
  expect(budgetTokens("low", 1024)).toBeUndefined();
  expect(budgetTokens("low", 1)).toBeUndefined();
  for (let max = 1; max <= 70000; max += 97) {
    const b = budgetTokens("xhigh", max);
    if (max <= 1024) expect(b).toBeUndefined();
    else expect(b! >= 1024 && b! < max, `${max}: ${b}`).toBe(true);
  }
});
