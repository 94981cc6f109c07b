// Accounting: SPEC §10 "Principals and quotas" (tokens reserved, estimated, and counts trusted within bounds).
//
// SPEC §10, "Principals and quotas": the estimates. Tokens are reserved before the provider is asked
// (the request's input, estimated from its text, plus its `max_tokens`) and settled at the end with
// the provider's usage (input = cached + prompt, output = thoughts + response); a stream that ends
// otherwise is settled with what the provider reported so far (Anthropic's input at `message_start`,
// Gemini's counts on each chunk: the provider's events' `reportedUsage`) and, for what it did not
// report, the estimate (the output from the fragments stored), marked estimated.
//
// The estimate, the same everywhere: the UTF-8 bytes of the text / 4, rounded up (a token is about
// four bytes of English; more bytes per token in other scripts, so it errs on the high side there).
//   input   every string of the messages, of `config.system_prompt` and of `config.tools` (names,
//           descriptions, schemas); an inline data item (an image, audio) counts INLINE_DATA_TOKENS
//           whatever its size (its base64 says nothing of what the provider charges for it)
//   output  the fragments streamed: text, thinking, a tool call's name and arguments; an inline data
//           fragment INLINE_DATA_TOKENS
// `max_tokens`: the client's, else the row's ceiling (ceilings.ts), else the relay's default
// (DEFAULT_MAX_TOKENS, or the operator's: limits.ts). That number is reserved AND asked of the provider
// (models.ts `startTarget`): what a provider may spend is what was reserved for it.
//
// A count is trusted only as a whole number in [0, MAX_TRUSTED_TOKENS] (`trustedCount`): any other
// (negative, fractional, huge, not a number) is as if the provider had not given it, and its estimate
// stands in, marked estimated. That holds for a provider of the table and an MMSP upstream alike: the
// quota never takes tokens back, nor locks a principal out, on a stream's word.
import type { UniEvent, UsageMetadata } from "../../schema.js";
import { isRecord } from "../../internal/values.js";
import { isTokenCount, MAX_TOKEN_COUNT } from "../../internal/usage.js";
import { utf8Length } from "../../framing/utf8.js";

/**
 * What the provider(s) serving a stream reported so far (the settlement's `reported`): the four counts,
 * and, for an answer continued past a failure (routing/continuation.ts), `estimated_input`: how much
 * of its input is the relay's estimate (a request whose target counted none yet: each provider
 * request counts its own input, the prefix it carried included; SPEC §10 "Principals and quotas").
 */
export type Reported = UsageMetadata & { estimated_input?: number };

/** UTF-8 bytes the estimate counts as one token. */
export const BYTES_PER_TOKEN = 4;
/** What an inline data item (an image, audio) counts, in or out. */
export const INLINE_DATA_TOKENS = 1000;
/**
 * The output reserved, and asked of the provider, when neither the client nor the row sets
 * `max_tokens` (the operator's DEFAULT_MAX_TOKENS replaces it): room for a reasoning model's thinking
 * and a long answer, a bound on what one request may spend.
 */
export const DEFAULT_MAX_TOKENS = 16_384;
/** The largest count the settlement takes from a stream: the readers' own bound (internal/usage.ts), one rule for both. */
export const MAX_TRUSTED_TOKENS = MAX_TOKEN_COUNT;

/** `n` when it is a count the settlement may trust (a whole number in [0, MAX_TRUSTED_TOKENS]), else null: estimated instead. */
export const trustedCount = (n: unknown): number | null => (isTokenCount(n) ? n : null);

/** The input tokens of `usage` as the settlement trusts them (cached + prompt; null: neither count trusted). */
export function trustedInput(usage: UsageMetadata | null | undefined): number | null {
  const cached = trustedCount(usage?.cached_tokens);
  const prompt = trustedCount(usage?.prompt_tokens);
  return cached === null && prompt === null ? null : (cached ?? 0) + (prompt ?? 0);
}

/** Texts this long are counted by encoding them into a buffer kept for it (native: several times faster than the loop; issue #49). */
const ENCODED_FROM = 512;
const utf8 = new TextEncoder();
let counting = new Uint8Array(0);

/** The UTF-8 length of `text` (a lone surrogate as U+FFFD's three bytes, as it is sent), without keeping its bytes. */
function utf8Bytes(text: string): number {
  if (text.length >= ENCODED_FROM) {
    if (counting.length < text.length * 3) counting = new Uint8Array(text.length * 3);
    return utf8.encodeInto(text, counting).written;
  }
  return utf8Length(text);
}

/** Tokens of `bytes` UTF-8 bytes (rounded up). */
export const tokensOf = (bytes: number): number => Math.ceil(bytes / BYTES_PER_TOKEN);

/** The output estimate of a text (its UTF-8 bytes, BYTES_PER_TOKEN a token). */
export const textTokens = (text: string): number => tokensOf(utf8Bytes(text));

const isInline = (v: Record<string, unknown>): boolean => typeof v.type === "string" && v.type.startsWith("inline_");

/** The input estimate of a request's `messages` and `config` (see the top). The walk is iterative: no depth limit to trust. */
export function inputEstimate(messages: unknown, config: unknown): number {
  let bytes = 0;
  let inline = 0;
  const c = isRecord(config) ? config : {};
  const stack: unknown[] = [messages, c.system_prompt, c.tools];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") bytes += utf8Bytes(v);
    else if (Array.isArray(v)) { for (const x of v) stack.push(x); }
    else if (isRecord(v)) {
      if (isInline(v)) inline++;
      else for (const key of Object.keys(v)) stack.push(v[key]);
    }
  }
  return tokensOf(bytes) + inline * INLINE_DATA_TOKENS;
}

/**
 * The output a request may spend, reserved on its claim and asked of every provider that serves it:
 * its `max_tokens` (within the row's ceiling), else the row's ceiling, else `byDefault` (the relay's
 * DEFAULT_MAX_TOKENS). The one place this number is made (create-relay.ts calls it for the claim and
 * for the provider's request alike).
 */
export function outputReserve(asked: unknown, ceiling: unknown, byDefault: number = DEFAULT_MAX_TOKENS): number {
  const n = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.ceil(v) : undefined);
  const own = n(asked);
  const row = n(ceiling);
  return own !== undefined && row !== undefined ? Math.min(own, row) : own ?? row ?? byDefault;
}

/** What a stream cost, as the ledger and the ending error event say it. */
export interface Spent {
  /** The four counts: the provider's own, or (estimated) the input estimate as `prompt_tokens` and the output as `response_tokens`. */
  usage_metadata: UsageMetadata;
  /** Whether any count is the relay's estimate. */
  usage_estimated: boolean;
  /** Of `input` + `output`, the tokens the relay's estimate counted (the rest the provider reported). */
  estimated: number;
  /** Input tokens (cached + prompt). */
  input: number;
  /** Output tokens (thoughts + response). */
  output: number;
  /** Whether the stream ended otherwise than with its stop event. */
  stopped: boolean;
}

/**
 * Follows one stream's public events (every one, once): the stop event's usage when it comes, the
 * output estimate of the fragments meanwhile. O(1) memory: counts, not text.
 */
export class UsageMeter {
  #outBytes = 0;
  #inlineOut = 0;
  #reported: UsageMetadata | null = null;
  /** Whether the open group's fragments were counted (its `.done` repeats them). */
  #counted = false;

  /** @param input the request's input estimate (what was reserved for it) */
  constructor(readonly input: number) {}

  /** One event of the stream. */
  see(event: UniEvent): void {
    if (event.event_type === "stop") {
      this.#reported = event.usage_metadata;
      return;
    }
    for (const item of event.content_items) {
      const t = item.type;
      if (t.endsWith(".done")) {
        if (!this.#counted) this.#count(item as unknown as Record<string, unknown>, true);
        this.#counted = false;
      } else {
        this.#count(item as unknown as Record<string, unknown>, false);
        this.#counted = true;
      }
    }
  }

  #count(item: Record<string, unknown>, done: boolean): void {
    if (isInline(item)) {
      if (!(done === false && this.#counted)) this.#inlineOut++; // (one item, however many chunks)
      return;
    }
    for (const key of ["text", "thinking", "name"]) {
      const v = item[key];
      if (typeof v === "string") this.#outBytes += utf8Bytes(v);
    }
    const args = item.arguments;
    if (typeof args === "string") this.#outBytes += utf8Bytes(args);
    else if (args !== undefined) this.#outBytes += utf8Bytes(JSON.stringify(args) ?? "");
  }

  /**
   * What the stream cost so far: the provider's usage when its stop event came; else what the provider
   * reported before it ended (`reported`: its events' `reportedUsage`). Each count is taken only when
   * trusted (`trustedCount`); an input not given is the request's estimate, an output not given the
   * fragments' estimate, marked estimated. Before the stop, the output is the larger of the provider's
   * count so far and the fragments' estimate (a count given early, like Anthropic's first output
   * token, is no measure of what followed).
   */
  spent(reported: Reported | null = null): Spent {
    const stop = this.#reported;
    const u = stop ?? reported;
    const cached = trustedCount(u?.cached_tokens);
    const prompt = trustedCount(u?.prompt_tokens);
    const thoughts = trustedCount(u?.thoughts_tokens);
    const response = trustedCount(u?.response_tokens);
    const inputGiven = cached !== null || prompt !== null;
    const input = inputGiven ? (cached ?? 0) + (prompt ?? 0) : this.input;
    const counted = (thoughts ?? 0) + (response ?? 0);
    const fragments = tokensOf(this.#outBytes) + this.#inlineOut * INLINE_DATA_TOKENS;
    // (after the stop its counts stand when given; before it, or none given, the fragments' estimate)
    const outputGiven = stop !== null && (thoughts !== null || response !== null);
    const output = outputGiven ? counted : Math.max(counted, fragments);
    const outputEstimated = !outputGiven && fragments > counted;
    // (of an input given, the part a continued answer's targets did not count: `Reported`)
    const estimatedInput = inputGiven ? Math.min(input, trustedCount(reported?.estimated_input) ?? 0) : input;
    const estimated = estimatedInput + (outputEstimated ? output : 0);
    // (a count given but not trusted counts as estimated too: the settlement did not take it)
    const untrusted = u !== null && [u.cached_tokens, u.prompt_tokens, u.thoughts_tokens, u.response_tokens]
      .some((n) => n !== null && trustedCount(n) === null);
    return {
      usage_metadata: {
        cached_tokens: cached,
        prompt_tokens: inputGiven ? prompt : this.input,
        thoughts_tokens: thoughts,
        response_tokens: outputGiven ? response : output - (thoughts ?? 0),
      },
      usage_estimated: stop === null || untrusted || !inputGiven || estimatedInput > 0 || !outputGiven,
      estimated,
      input,
      output,
      stopped: stop === null,
    };
  }
}
