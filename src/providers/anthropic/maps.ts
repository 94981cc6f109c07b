/**
 * Anthropic Messages → UniEvent: the finish reason and the usage (SPEC §9's tables, as MMSP's
 * `ant_messages` client computes them). Checked against the Messages API reference: usage arrives in
 * two pieces, `message_start.message.usage` (the input side) and `message_delta.usage` (the output
 * side, with the input side again on gateways that report it there).
 */
import type { FinishReason, UsageMetadata } from "../../schema.js";
import { ownValue } from "../../internal/values.js";
import { count, minus } from "../wire.js";

/** `stop_reason` → finish reason; anything else (`refusal`, `pause_turn`, new reasons) is `unknown`. */
export const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_call",
};

/** The finish reason of a `stop_reason`. */
export const finishOf = (reason: string): FinishReason => ownValue(FINISH, reason) ?? "unknown";

/**
 * One usage piece: `cached_tokens` = `cache_read_input_tokens`; `prompt_tokens` = `input_tokens` +
 * `cache_creation_input_tokens`; `thoughts_tokens` = `output_tokens_details.thinking_tokens` where
 * sent; `response_tokens` = `output_tokens` − thinking (never below 0: wire.ts `minus`). `message_start`'s output count (a placeholder,
 * usually 1) is not the answer's: `output` says whether this piece's output side counts.
 */
export function usageOf(usage: Record<string, unknown>, output: boolean): Partial<UsageMetadata> {
  const input = count(usage.input_tokens);
  const piece: Partial<UsageMetadata> = {
    cached_tokens: count(usage.cache_read_input_tokens),
    prompt_tokens: input === null ? null : input + (count(usage.cache_creation_input_tokens) ?? 0),
  };
  if (output) {
    const details = usage.output_tokens_details;
    const thinking = typeof details === "object" && details !== null ? count((details as Record<string, unknown>).thinking_tokens) : null;
    piece.thoughts_tokens = thinking;
    piece.response_tokens = minus(count(usage.output_tokens), thinking);
  }
  return piece;
}
