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
