// The providers' maps (src/providers/<provider>/maps.ts) against SPEC §9's tables: each finish reason,
// each usage member, absent members null, MMSP's quirks kept (Chat reads a count of 0 as null;
// Anthropic's message_start output count is a placeholder).
import { expect, test } from "vitest";
import * as chat from "../../src/providers/openai-chat/maps.ts";
import * as ant from "../../src/providers/anthropic/maps.ts";
import { refusalType } from "../../src/providers/refusal.ts";

test("OpenAI Chat finish reasons (SPEC §9)", () => {
  const table = { stop: "stop", length: "length", tool_calls: "tool_call", function_call: "tool_call", content_filter: "stop" };
  for (const [reason, finish] of Object.entries(table)) expect(chat.finishOf(reason), reason).toBe(finish);
  for (const reason of ["", "insufficient_system_resource", "toString", "__proto__"]) expect(chat.finishOf(reason), reason).toBe("unknown");
});

test("Anthropic finish reasons (SPEC §9)", () => {
  const table = { end_turn: "stop", stop_sequence: "stop", max_tokens: "length", tool_use: "tool_call" };
  for (const [reason, finish] of Object.entries(table)) expect(ant.finishOf(reason), reason).toBe(finish);
  for (const reason of ["refusal", "pause_turn", "model_context_window_exceeded", "constructor"]) expect(ant.finishOf(reason), reason).toBe("unknown");
});

test("OpenAI Chat usage: cached and reasoning taken out, absent (or 0, as MMSP's `|| null`) → null", () => {
  expect(chat.usageOf({ prompt_tokens: 100, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 30 }, completion_tokens_details: { reasoning_tokens: 10 } }))
    .toEqual({ cached_tokens: 30, prompt_tokens: 70, thoughts_tokens: 10, response_tokens: 30 });
  expect(chat.usageOf({ prompt_tokens: 5, completion_tokens: 2 })).toEqual({ cached_tokens: null, prompt_tokens: 5, thoughts_tokens: null, response_tokens: 2 });
  expect(chat.usageOf({ prompt_tokens: 5, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } }))
    .toEqual({ cached_tokens: null, prompt_tokens: 5, thoughts_tokens: null, response_tokens: 2 });
  expect(chat.usageOf({})).toEqual({ cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: null });
});

test("Anthropic usage: prompt = input + cache creation, response = output − thinking; message_start gives the input side only", () => {
  expect(ant.usageOf({ input_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 }, false))
    .toEqual({ cached_tokens: 100, prompt_tokens: 15 });
  expect(ant.usageOf({ output_tokens: 50, output_tokens_details: { thinking_tokens: 20 } }, true))
    .toEqual({ cached_tokens: null, prompt_tokens: null, thoughts_tokens: 20, response_tokens: 30 });
  expect(ant.usageOf({ output_tokens: 50 }, true)).toEqual({ cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: 50 });
  expect(ant.usageOf({ input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 0 }, true))
    .toEqual({ cached_tokens: 0, prompt_tokens: 7, thoughts_tokens: null, response_tokens: 3 });
});

test("a refusal's type: MMSP's by status, else the provider's, else HTTPError", () => {
  expect([400, 401, 403, 404, 413].map((s) => refusalType(s, "x"))).toEqual(["InvalidRequestError", "AuthenticationError", "AuthenticationError", "NotFoundError", "InvalidRequestError"]);
  expect(refusalType(429, "rate_limit_error")).toBe("rate_limit_error");
  expect(refusalType(503, null)).toBe("HTTPError");
});

// Issue #44: a count is kept only when it is a whole number ≥ 0 within MAX_TOKEN_COUNT (SPEC §9, §10).
test("a token count: whole, ≥ 0, at most MAX_TOKEN_COUNT (a hundred million); the maps mark any other NaN and the core writes it null", async () => {
  const { count, minus, zeroNull } = await import("../../src/providers/wire.ts");
  const { isTokenCount, keptCounts, MAX_TOKEN_COUNT } = await import("../../src/internal/usage.ts");
  expect(MAX_TOKEN_COUNT).toBe(100_000_000);
  for (const v of [0, 1, 12, MAX_TOKEN_COUNT]) expect([v, isTokenCount(v), count(v)]).toEqual([v, true, v]);
  for (const v of [-1, -1_000_000, 1.5, MAX_TOKEN_COUNT + 1, 1e300, Infinity, NaN, "12", true, {}, [3]]) {
    expect([v, isTokenCount(v)]).toEqual([v, false]);
    expect(count(v), String(v)).toBeNaN();
  }
  expect([count(undefined), count(null)]).toEqual([null, null]);
  // a part above its total leaves 0, never a negative count; an invalid part or total stays invalid
  expect([minus(10, 3), minus(10, 50), minus(10, null), minus(null, 3)]).toEqual([7, 0, 10, null]);
  expect(minus(10, NaN)).toBeNaN();
  expect(minus(NaN, 3)).toBeNaN();
  expect([zeroNull(0), zeroNull(5), zeroNull(null)]).toEqual([null, 5, null]);
  expect(zeroNull(NaN)).toBeNaN();
  // the core's check: the counts that are none made null and named; a piece without any kept as it is
  const said: string[][] = [];
  const piece = { prompt_tokens: -5, response_tokens: 3, thoughts_tokens: 1.5 };
  expect(keptCounts(piece, (m) => said.push(m))).toEqual({ prompt_tokens: null, response_tokens: 3, thoughts_tokens: null });
  expect(said).toEqual([["prompt_tokens", "thoughts_tokens"]]);
  expect(piece.prompt_tokens, "the piece itself is not changed").toBe(-5);
  const fine = { prompt_tokens: 5, cached_tokens: null };
  expect(keptCounts(fine, () => said.push(["called"]))).toBe(fine);
  expect(said.length).toBe(1);
});

test("every map reads a hostile count as invalid, and the counts made from it too (never a negative prompt or a million handed back)", async () => {
  const resp = await import("../../src/providers/openai-responses/maps.ts");
  const gem = await import("../../src/providers/gemini/maps.ts");
  const invalid = (u: Record<string, unknown> | null): string[] => Object.entries(u ?? {}).filter(([, v]) => Number.isNaN(v)).map(([k]) => k);
  expect(invalid(chat.usageOf({ prompt_tokens: -1_000_000, completion_tokens: 2 }))).toEqual(["prompt_tokens"]);
  expect(invalid(chat.usageOf({ prompt_tokens: 10, completion_tokens: 2, prompt_tokens_details: { cached_tokens: -1_000_000 } }))).toEqual(["cached_tokens", "prompt_tokens"]);
  expect(invalid(resp.usageOf({ input_tokens: "12", output_tokens: 1e300 }))).toEqual(["prompt_tokens", "response_tokens"]);
  expect(invalid(ant.usageOf({ input_tokens: 1.5, output_tokens: 3 }, true))).toEqual(["prompt_tokens"]);
  expect(invalid(ant.usageOf({ input_tokens: 1, output_tokens: 3, output_tokens_details: { thinking_tokens: -1 } }, true))).toEqual(["thoughts_tokens", "response_tokens"]);
  expect(invalid(gem.usageOf({ promptTokenCount: 5, cachedContentTokenCount: -100, candidatesTokenCount: 1 }))).toEqual(["cached_tokens", "prompt_tokens"]);
  // a muddled report of valid counts: the part counts whole, the rest is 0
  expect(gem.usageOf({ promptTokenCount: 5, cachedContentTokenCount: 100, candidatesTokenCount: 1 }))
    .toEqual({ cached_tokens: 100, prompt_tokens: 0, thoughts_tokens: null, response_tokens: 1 });
});

test("an error event's usage_metadata keeps the same counts a provider's stream does (one bound)", async () => {
  const { fromWireError } = await import("../../src/errors.ts");
  const e = fromWireError({ error: { type: "x", message: "m", usage_metadata: { cached_tokens: 2, prompt_tokens: 2e9, thoughts_tokens: -1, response_tokens: 1e8 } } });
  expect(e.usageMetadata).toEqual({ cached_tokens: 2, prompt_tokens: null, thoughts_tokens: null, response_tokens: 1e8 });
});
