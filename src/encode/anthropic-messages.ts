/**
 * Checked UniEvents → Anthropic Messages' own stream (the reverse of the `anthropic` reader, SPEC §9):
 *
 *   message_start        the message shell: `id`, `model`, `content: []`, `stop_reason: null` and a
 *                        `usage` that is always there (a client reads it: the SDK's MessageStream
 *                        writes `message_delta`'s counts into it), `{input_tokens, output_tokens: 0}`
 *                        with `input_tokens` the `inputTokens` option or 0: a UniEvent stream tells its
 *                        usage only in its stop event, so the whole usage is `message_delta`'s
 *   text group           content_block_start `text`, `text_delta`…, content_block_stop
 *   thinking group       content_block_start `thinking`, `thinking_delta`…, `signature_delta` (the
 *                        `.done`'s `fidelity.signature`, as it is), content_block_stop; a thinking item
 *                        `"_REDACTED_THINKING"` with a signature is the `redacted_thinking` block it was
 *                        read from, its signature the `data`
 *   tool_call group      content_block_start `tool_use` (`id`, `name`, `input: {}`), `input_json_delta`
 *                        (`partial_json`)…, content_block_stop
 *   stop event           message_delta (`stop_reason`, `stop_sequence: null`, the usage), message_stop
 *
 * The finish reason is SPEC §9's map reversed: stop → `end_turn`, length → `max_tokens`, tool_call →
 * `tool_use`, and unknown → `end_turn` (the turn is over and the client keeps what it got: `refusal`
 * would show a policy refusal, `pause_turn` would make an agent send the turn again). The usage is the
 * usage table reversed: `input_tokens` = `prompt_tokens` (the reader's prompt count already holds the
 * cache writes: they are not told apart again, so `cache_creation_input_tokens` is not written),
 * `cache_read_input_tokens` = `cached_tokens`, `output_tokens` = thoughts + response,
 * `output_tokens_details.thinking_tokens` = `thoughts_tokens`; a null count is left out (`output_tokens`,
 * which the API always sends, is 0 then). Items with no Anthropic block (images, audio, embeddings) are
 * left out with a warning, and an item that says nothing (empty text; empty thinking without a
 * signature) is no block: the API sends none such. A block starts at its group's first fragment that
 * says something (a thinking group waits while its text may still be the redacted mark). An error on the writable side is Anthropic's `event: error`
 * (`{type: "error", error: {type, message}}`, {@link anthropicMessagesError}) and nothing after it,
 * as the API does. No `ping`: keep-alives are the server's.
 *
 * Provider-bound values (signatures, redacted data) are written as they are: a door seals them. A tool
 * call's own signature (a Gemini 3 call's thought signature) has no place in a `tool_use` block and is
 * not written: the relay's Messages door carries it, sealed, in a `redacted_thinking` block of its own.
 */
import { toWireError, UpstreamError } from "../errors.js";
import { CoreStream } from "../internal/core-stream.js";
import type { StreamCore } from "../internal/core.js";
import { checkOptions, FUNCTION, integer, NON_EMPTY_STRING, type OptionSpec } from "../internal/options.js";
import { MAX_TOKEN_COUNT } from "../internal/usage.js";
import { ownValue } from "../internal/values.js";
import type { FinishReason, StreamedMessage, TextDone, ThinkingDone, ToolCallDone, UniEvent, UsageMetadata } from "../schema.js";

/** The thinking text the `anthropic` reader writes for a `redacted_thinking` block (its `data` is the signature). */
const REDACTED_THINKING = "_REDACTED_THINKING";

/** Options of {@link AnthropicMessagesEncoderStream} and {@link anthropicMessage}. */
export interface AnthropicMessagesEncoderOptions {
  /** The message's id (`msg_…`); default a random one. */
  id?: string;
  /** The model the message names (the name the client asked for); default `""`. */
  model?: string;
  /**
   * The input tokens `message_start` tells, when known before the answer (a count or an estimate);
   * default 0. The stop event's count, when it has one, replaces it in `message_delta`.
   */
  inputTokens?: number;
  /** Told about an item Messages has no content block for (images, audio, embeddings), which is left out. */
  onWarning?: (message: string) => void;
}

/** A Messages content block as the API writes it (`text`, `thinking`, `redacted_thinking`, `tool_use`). */
export type AnthropicContentBlock = Record<string, unknown> & { type: string };

/** A non-streamed Messages answer (the body of `POST /v1/messages` without `stream`). */
export interface AnthropicMessage {
  /** The message's id (`msg_…`). */
  id: string;
  /** Always `"message"`. */
  type: "message";
  /** Always `"assistant"`. */
  role: "assistant";
  /** The model named (the encoder's `model` option). */
  model: string;
  /** The answer's blocks, in order. */
  content: AnthropicContentBlock[];
  /** {@link anthropicStopReason} of the finish reason; null before the stop event. */
  stop_reason: string | null;
  /** Always null: a UniEvent stream does not say which stop sequence ended it. */
  stop_sequence: null;
  /** {@link anthropicUsage} of the stop event's usage, over `message_start`'s `input_tokens`. */
  usage: Record<string, unknown> & { input_tokens: number; output_tokens: number };
}

/** A finish reason as Messages' `stop_reason` (unknown: `end_turn`, see the module's note). */
export function anthropicStopReason(finish: FinishReason | null | undefined): string {
  return finish === "length" ? "max_tokens" : finish === "tool_call" ? "tool_use" : "end_turn";
}

/**
 * A UniEvent stop's usage as Messages' usage (the one `message_delta` carries and a non-streamed
 * message holds): `input_tokens` = prompt, `cache_read_input_tokens` = cached, `output_tokens` =
 * thoughts + response, `output_tokens_details.thinking_tokens` = thoughts; null counts left out but
 * `output_tokens`, 0 then.
 */
export function anthropicUsage(usage: UsageMetadata | null | undefined): Record<string, unknown> & { output_tokens: number } {
  const out: Record<string, unknown> & { output_tokens: number } = { output_tokens: 0 };
  if (!usage) return out;
  if (usage.prompt_tokens !== null) out.input_tokens = usage.prompt_tokens;
  if (usage.cached_tokens !== null) out.cache_read_input_tokens = usage.cached_tokens;
  out.output_tokens = (usage.thoughts_tokens ?? 0) + (usage.response_tokens ?? 0);
  if (usage.thoughts_tokens !== null) out.output_tokens_details = { thinking_tokens: usage.thoughts_tokens };
  return out;
}

/** Anthropic's error types and the HTTP status of each (the API's errors reference). */
const STATUS_OF: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** The package's error types (toWireError's `type`) that have an Anthropic type of their own. */
const TYPE_OF: Readonly<Record<string, string>> = {
  InvalidRequestError: "invalid_request_error",
  UnsupportedParameterError: "invalid_request_error",
  UnsupportedOperationError: "invalid_request_error",
  AuthenticationError: "authentication_error",
  NotFoundError: "not_found_error",
  RateLimitError: "rate_limit_error",
  BudgetExceeded: "rate_limit_error",
};

/** The Anthropic type of an HTTP error status: the reference's, other 4xx `invalid_request_error`, 503 `overloaded_error`, other 5xx `api_error`. */
function typeOfStatus(status: number): string {
  for (const type in STATUS_OF) if (STATUS_OF[type] === status) return type;
  return status === 503 ? "overloaded_error" : status < 500 ? "invalid_request_error" : "api_error";
}

/**
 * An error as Messages answers it: `{status, body: {type: "error", error: {type, message}}}` (the body
 * also the data of a stream's `event: error`). The type is the upstream's own when it is one of
 * Anthropic's (an Anthropic error relayed), else the package type's (`InvalidRequestError` →
 * `invalid_request_error`, `RateLimitError` and `BudgetExceeded` → `rate_limit_error`…), else the one of
 * the error's HTTP status, else `api_error`; the status is the error's own (4xx/5xx) or its type's.
 *
 * @example
 * ```ts
 * import { anthropicMessagesError } from "mmsp-streams/encode";
 *
 * const { status, body } = anthropicMessagesError(new Error("boom"));
 * console.log(status, JSON.stringify(body)); // 500 {"type":"error","error":{"type":"api_error","message":"boom"}}
 * ```
 */
export function anthropicMessagesError(
  error: unknown,
): { status: number; body: { type: "error"; error: { type: string; message: string } } } {
  const wire = toWireError(error) as Record<string, unknown>;
  const given = error instanceof UpstreamError ? error.status : wire.status;
  const status = typeof given === "number" && Number.isInteger(given) && given >= 400 && given <= 599 ? given : null;
  const named = typeof wire.type === "string" ? wire.type : "";
  const type = ownValue(STATUS_OF, named) !== undefined
    ? named
    : ownValue(TYPE_OF, named) ?? (status !== null ? typeOfStatus(status) : "api_error");
  const message = typeof wire.message === "string" && wire.message !== "" ? wire.message : type;
  return { status: status ?? STATUS_OF[type]!, body: { type: "error", error: { type, message } } };
}

/** The options' rules (checked where the encoder or the message is made). */
const OPTIONS: OptionSpec = {
  id: NON_EMPTY_STRING,
  model: { must: "a string", type: (v) => typeof v === "string" },
  inputTokens: /*#__PURE__*/ integer(MAX_TOKEN_COUNT),
  onWarning: FUNCTION,
};

/** The group being written: its block's index and kind; a thinking block waits while its text may be the redacted mark. */
export interface Open {
  index: number;
  kind: "text" | "thinking" | "tool_call" | "skipped";
  started: boolean;
  pending: string;
  id: string;
  name: string;
}

const sse = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A `content_block_delta` record of block `index` up to its value's JSON, and after it: the record is
 * `deltaHead + JSON.stringify(value) + DELTA_END` (the relay's door writes it as bytes from these:
 * relay/doors/anthropic-messages/bytes.ts).
 */
export const deltaHead = (index: number, type: string, member: string): string =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"${type}","${member}":`;
export const DELTA_END = "}}\n\n";
/** The delta a fragment item writes: its `delta.type` and the member that holds the fragment. */
export const DELTA_OF = {
  "text.delta": ["text_delta", "text"],
  "thinking.delta": ["thinking_delta", "thinking"],
  "tool_call.delta": ["input_json_delta", "partial_json"],
} as const;

const utf8 = new TextEncoder();
/** A write of records as one chunk of UTF-8 (the stream). */
const wholeBytes = (out: string, last: string, emit: (bytes: Uint8Array) => void): void => emit(utf8.encode(out + last));

/** The Messages state machine over one stream of UniEvents; `write` false: only the message is built. */
class Encoder<O = Uint8Array> implements StreamCore<UniEvent, O> {
  finished = false;
  ended = false;
  readonly message: AnthropicMessage;
  /** The records written since the last flush but the last one (`out`), and the last one (`last`). */
  private out = "";
  private last = "";
  /** (protected: the relay's door writes the open block's deltas as bytes from it, relay/doors/anthropic-messages/bytes.ts) */
  protected open: Open | null = null;

  /**
   * @param output how one write of records goes out: its UTF-8 bytes in one chunk (the stream), or
   * (AnthropicMessagesEncoderCore) its text as two outputs, the last record apart (a kept answer's
   * event id goes on it: the relay's writer, stream/encoding.ts)
   */
  constructor(
    private readonly options: AnthropicMessagesEncoderOptions,
    private readonly write: boolean,
    name: string,
    private readonly output: (out: string, last: string, emit: (out: O) => void) => void = wholeBytes as never,
  ) {
    checkOptions(name, options, OPTIONS);
    const id = options.id ??
      `msg_${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("")}`;
    this.message = {
      id,
      type: "message",
      role: "assistant",
      model: options.model ?? "",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: options.inputTokens ?? 0, output_tokens: 0 },
    };
  }

  /** One record more (the one before it joins the others). */
  private add(record: string): void {
    this.out += this.last;
    this.last = record;
  }

  private flush(emit: (out: O) => void): void {
    if (this.last === "") return;
    this.output(this.out, this.last, emit);
    this.out = this.last = "";
  }

  start(emit: (out: O) => void): void {
    if (this.write) {
      this.add(sse("message_start", { type: "message_start", message: { ...this.message, usage: { ...this.message.usage } } }));
    }
    this.flush(emit);
  }

  push(event: UniEvent, emit: (out: O) => void): void {
    if (this.ended) return;
    if (event.event_type === "stop") this.stop(event);
    else for (const item of event.content_items) this.item(item);
    this.flush(emit);
  }

  private item(item: UniEvent["content_items"][number]): void {
    switch (item.type) {
      case "text.delta": {
        if (item.text === "") return void this.begin("text");
        const o = this.begin("text");
        if (!o.started) this.startBlock(o);
        this.delta(o, "text.delta", item.text);
        return;
      }
      case "thinking.delta": {
        const o = this.begin("thinking");
        let thinking = item.thinking;
        if (!o.started) {
          thinking = o.pending += thinking;
          if (REDACTED_THINKING.startsWith(thinking)) return; // (maybe the redacted mark: wait for the .done)
          this.startBlock(o);
        }
        if (thinking !== "") this.delta(o, "thinking.delta", thinking);
        return;
      }
      case "tool_call.delta": {
        const o = this.begin("tool_call", item.tool_call_id, item.name);
        if (!o.started) this.startBlock(o);
        if (item.arguments !== "") this.delta(o, "tool_call.delta", item.arguments);
        return;
      }
      case "text.done":
      case "thinking.done":
      case "tool_call.done":
        return this.done(item);
      default:
        if (!item.type.endsWith(".done")) return void this.begin("skipped");
        this.open = null;
        this.options.onWarning?.(`Anthropic Messages has no content block for ${item.type}: left out.`);
    }
  }

  /** The group's state, its first fragment opening it (its block starts with the first fragment that says something). */
  private begin(kind: Open["kind"], id = "", name = ""): Open {
    if (this.open) return this.open;
    const o: Open = { index: this.message.content.length, kind, started: false, pending: "", id, name };
    this.open = o;
    return o;
  }

  private startBlock(o: Open): void {
    o.started = true;
    if (!this.write) return;
    const block = o.kind === "text"
      ? { type: "text", text: "" }
      : o.kind === "thinking"
      ? { type: "thinking", thinking: "", signature: "" }
      : { type: "tool_use", id: o.id, name: o.name, input: {} };
    this.add(sse("content_block_start", { type: "content_block_start", index: o.index, content_block: block }));
  }

  /** One delta of the open block, written by hand (the hot path: no object to stringify). */
  private delta(o: Open, kind: keyof typeof DELTA_OF, value: string): void {
    if (!this.write) return;
    const [type, member] = DELTA_OF[kind];
    this.add(deltaHead(o.index, type, member) + JSON.stringify(value) + DELTA_END);
  }

  private done(item: TextDone | ThinkingDone | ToolCallDone): void {
    const o = this.open ?? this.begin(item.type === "text.done" ? "text" : item.type === "thinking.done" ? "thinking" : "tool_call");
    this.open = null;
    const signature = item.fidelity?.signature;
    // an item that says nothing (empty text, empty thinking with no signature: a text block has no place for one) is no block
    if (
      !o.started &&
      (item.type === "text.done"
        ? item.text === ""
        : item.type === "thinking.done" && item.thinking === "" && typeof signature !== "string")
    ) {
      return;
    }
    let block: AnthropicContentBlock;
    if (item.type === "text.done") {
      if (!o.started) this.startBlock(o);
      block = { type: "text", text: item.text };
    } else if (item.type === "tool_call.done") {
      const call = item;
      if (!o.started) {
        o.id = call.tool_call_id;
        o.name = call.name;
        this.startBlock(o);
      }
      block = { type: "tool_use", id: o.id || call.tool_call_id, name: o.name || call.name, input: call.arguments };
    } else {
      const thinking = item.thinking;
      if (!o.started && thinking === REDACTED_THINKING && typeof signature === "string") {
        block = { type: "redacted_thinking", data: signature };
        if (this.write) this.add(sse("content_block_start", { type: "content_block_start", index: o.index, content_block: block }));
      } else {
        if (!o.started) {
          this.startBlock(o);
          if (o.pending !== "") this.delta(o, "thinking.delta", o.pending);
        }
        if (typeof signature === "string" && this.write) {
          this.add(sse("content_block_delta", {
            type: "content_block_delta",
            index: o.index,
            delta: { type: "signature_delta", signature },
          }));
        }
        block = { type: "thinking", thinking, signature: typeof signature === "string" ? signature : "" };
      }
    }
    this.message.content.push(block);
    if (this.write) this.add(`event: content_block_stop\ndata: {"type":"content_block_stop","index":${o.index}}\n\n`);
  }

  private stop(event: UniEvent): void {
    this.ended = true;
    const stop_reason = anthropicStopReason(event.finish_reason);
    const usage = anthropicUsage(event.usage_metadata);
    this.message.stop_reason = stop_reason;
    Object.assign(this.message.usage, usage);
    if (!this.write) return;
    this.add(sse("message_delta", { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage }));
    this.add('event: message_stop\ndata: {"type":"message_stop"}\n\n');
  }

  /** An error on the writable side: Anthropic's `event: error`, and the stream ends there. */
  abort(reason: unknown, emit: (out: O) => void): void {
    if (this.ended) return;
    this.ended = true;
    // a thinking block still waiting on the redacted mark: what it said, before the error
    const o = this.open;
    if (o?.kind === "thinking" && !o.started && o.pending !== "") {
      this.startBlock(o);
      this.delta(o, "thinking.delta", o.pending);
    }
    this.add(sse("error", anthropicMessagesError(reason).body));
    this.flush(emit);
  }

  end(emit: (out: O) => void): void {
    // a stream that ends without its stop event is no whole answer (the checked reader errors first)
    if (!this.ended) this.abort(new Error("the stream ended before its stop event"), emit);
  }
}

/**
 * Writes checked UniEvents (a public stream: SPEC §3) as the bytes of an Anthropic Messages stream
 * (`event: <type>` + `data: <json>` per event, as the API frames them): `message_start`, each item a
 * content block, `message_delta` with the stop reason and the usage, `message_stop`. Every event an
 * input event makes goes out in one chunk. An error on the writable side (a failed upstream, a Stop)
 * becomes `event: error` with {@link anthropicMessagesError}'s body, and the stream ends.
 *
 * @example
 * ```ts
 * import type { UniEvent } from "mmsp-streams";
 * import { AnthropicMessagesEncoderStream } from "mmsp-streams/encode";
 *
 * const usage = { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 };
 * const events: UniEvent[] = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: "stop" },
 * ];
 * const body = ReadableStream.from(events).pipeThrough(new AnthropicMessagesEncoderStream({ id: "msg_1", model: "claude-sonnet-4-5" }));
 * const text = await new Response(body).text();
 * console.log(text.split("\n")[0]); // event: message_start
 * ```
 */
export class AnthropicMessagesEncoderStream extends CoreStream<UniEvent, Uint8Array> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the encoder (`id`, `model` and `inputTokens` make `message_start`). */
  constructor(options: AnthropicMessagesEncoderOptions = {}) {
    super(new Encoder(options, true, "AnthropicMessagesEncoderStream"));
  }
}

/**
 * The non-streamed Messages answer of the same events (the message the stream's events build, as the
 * SDK's `finalMessage()` has it): content blocks, `stop_reason`, usage. From the events of a whole
 * public stream (a `TypeError` when they end without their stop event), or from the message a reader
 * built (`stream.message`: its done items, usage and finish reason).
 *
 * @example
 * ```ts
 * import type { UniEvent } from "mmsp-streams";
 * import { anthropicMessage } from "mmsp-streams/encode";
 *
 * const usage = { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 };
 * const events: UniEvent[] = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: "stop" },
 * ];
 * const message = anthropicMessage(events, { id: "msg_1", model: "claude-sonnet-4-5" });
 * console.log(message.content, message.stop_reason); // [ { type: 'text', text: 'Hi' } ] end_turn
 * ```
 */
export function anthropicMessage(
  events: Iterable<UniEvent> | StreamedMessage,
  options: AnthropicMessagesEncoderOptions = {},
): AnthropicMessage {
  const encoder = new Encoder(options, false, "anthropicMessage");
  const none = (): void => {};
  if (Symbol.iterator in events) { for (const event of events) encoder.push(event, none); }
  else {
    for (const item of events.content_items) {
      encoder.push({ role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null }, none);
    }
    const usage_metadata = events.usage_metadata ?? null;
    encoder.push(
      { role: "assistant", event_type: "stop", content_items: [], usage_metadata, finish_reason: events.finish_reason ?? null },
      none,
    );
  }
  if (!encoder.ended) {
    throw new TypeError("anthropicMessage: the events end without their stop event (a whole public stream is one message)");
  }
  return encoder.message;
}

/**
 * The encoder's core (its state machine, the stream's text out: no UTF-8 bytes made to be read back),
 * for a writer that runs it with no stream between its stages (the relay's Messages door: stream/encoding.ts).
 * Each event's records go out as at most two texts: the last record apart, where a writer puts the
 * event's SSE id (a cut between two records resumes from their event).
 */
export class AnthropicMessagesEncoderCore extends Encoder<string> {
  constructor(options: AnthropicMessagesEncoderOptions = {}) {
    super(options, true, "AnthropicMessagesEncoderStream", (out, last, emit) => {
      if (out !== "") emit(out);
      emit(last);
    });
  }
}
