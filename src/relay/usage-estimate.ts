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
// `max_tokens`: the client's, else the row's ceiling (ceilings.ts), else DEFAULT_MAX_TOKENS.
import type { UniEvent, UsageMetadata } from "../schema.js";
import { isRecord } from "../internal/values.js";
import { inputTokens, outputTokens } from "../internal/usage.js";

/** UTF-8 bytes the estimate counts as one token. */
export const BYTES_PER_TOKEN = 4;
/** What an inline data item (an image, audio) counts, in or out. */
export const INLINE_DATA_TOKENS = 1000;
/** The output reserved when neither the client nor the row sets `max_tokens`. */
export const DEFAULT_MAX_TOKENS = 4096;

/** The UTF-8 length of `text`, counted without encoding it. */
function utf8Bytes(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x800 && (c < 0xd800 || c > 0xdfff)) n += 2;
    else if (c >= 0x80 && c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) n += 2, i++; // (a pair: 4 bytes for 2 units)
  }
  return n;
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

/** The output a request may spend: its `max_tokens`, else the row's ceiling, else DEFAULT_MAX_TOKENS. */
export function outputReserve(asked: unknown, ceiling: unknown): number {
  const n = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.ceil(v) : undefined);
  const own = n(asked);
  const row = n(ceiling);
  return own !== undefined && row !== undefined ? Math.min(own, row) : own ?? row ?? DEFAULT_MAX_TOKENS;
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
   * reported before it ended (`reported`: its events' `reportedUsage`), each count it did not report
   * estimated: the input as the request's estimate, the output as the larger of the provider's count
   * so far and the fragments' estimate (a count given early, like Anthropic's first output token, is
   * no measure of what followed).
   */
  spent(reported: UsageMetadata | null = null): Spent {
    const r = this.#reported;
    if (r !== null) {
      const input = inputTokens(r);
      const output = outputTokens(r);
      // (a provider that gave no input count at all: the estimate stands in for it, said so)
      if (r.cached_tokens === null && r.prompt_tokens === null) {
        return {
          usage_metadata: { ...r, prompt_tokens: this.input },
          usage_estimated: true,
          estimated: this.input,
          input: this.input,
          output,
          stopped: false,
        };
      }
      return { usage_metadata: { ...r }, usage_estimated: false, estimated: 0, input, output, stopped: false };
    }
    const cached = reported?.cached_tokens ?? null;
    const prompt = reported?.prompt_tokens ?? null;
    const inputReported = cached !== null || prompt !== null;
    const input = inputReported ? (cached ?? 0) + (prompt ?? 0) : this.input;
    const thoughts = reported?.thoughts_tokens ?? null;
    const countedOut = (thoughts ?? 0) + (reported?.response_tokens ?? 0);
    const estimatedOut = tokensOf(this.#outBytes) + this.#inlineOut * INLINE_DATA_TOKENS;
    const output = Math.max(countedOut, estimatedOut);
    return {
      usage_metadata: {
        cached_tokens: cached,
        prompt_tokens: inputReported ? prompt : this.input,
        thoughts_tokens: thoughts,
        response_tokens: output - (thoughts ?? 0),
      },
      usage_estimated: true,
      estimated: (inputReported ? 0 : input) + (estimatedOut > countedOut ? output : 0),
      input,
      output,
      stopped: true,
    };
  }
}
