/**
 * Checked UniEvents → an OpenAI Chat Completions stream (`chat.completion.chunk`s, then `[DONE]`): the
 * reverse of the `openai-chat` reader (SPEC §9). One choice (index 0); the first chunk says
 * `role: "assistant"`; text is `delta.content`; thinking is the reasoning field the common dialects
 * write (`reasoning_content`, or `reasoning`: the item's `fidelity.reasoning_field`, else the option);
 * a provider-bound value (a signature, encrypted reasoning, a Gemini thought signature, the entries of
 * a Chat dialect's `reasoning_details`) goes as it is in a `reasoning_details` chunk where its item
 * carries it, so a Chat client keeping `reasoning_details` carries it back; tool calls are
 * `tool_calls` by index (the first fragment with `id`, `type` and `name`); the stop event is a chunk
 * with `finish_reason`, then the usage chunk (`choices: []`) when asked (`includeUsage`, the request's
 * `stream_options.include_usage`), then `data: [DONE]`. An error on the writable side is the chunk
 * `{"error": {message, type, param, code}}` OpenAI-compatible servers send, then `[DONE]`.
 */
import { CoreStream } from "../internal/core-stream.js";
import type { StreamCore } from "../internal/core.js";
import { BOOLEAN, checkOptions, FUNCTION, integer, NON_EMPTY_STRING, oneOf, type OptionSpec } from "../internal/options.js";
import { isRecord } from "../internal/values.js";
import type { FinishReason, UniEvent, UniMessage, UsageMetadata } from "../schema.js";
import { errorParts } from "./wire-error.js";

type Rec = Record<string, unknown>;

/** The reasoning fields the encoder writes (the dialects' string fields: SPEC §9). */
export type ChatReasoningField = "reasoning_content" | "reasoning";

/** Options of {@link ChatCompletionsEncoderStream} and {@link chatCompletion}. */
export interface ChatCompletionsEncoderOptions {
  /** The completion's id (`chatcmpl-…`); default a random one. */
  id?: string;
  /** The model named in every chunk (the name the client asked for); default `""`. */
  model?: string;
  /** When the completion was created, Unix seconds; default now. */
  created?: number;
  /** Write the usage chunk before `[DONE]` (the request's `stream_options.include_usage`); default false. */
  includeUsage?: boolean;
  /** The field thinking is written in when its item names none (`fidelity.reasoning_field`); default `reasoning_content`. */
  reasoningField?: ChatReasoningField;
  /** Told about an item Chat Completions has no place for (images, audio, embeddings), which is left out. */
  onWarning?: (message: string) => void;
}

/** The options' rules (checked at the boundary). */
const OPTIONS: OptionSpec = {
  id: NON_EMPTY_STRING,
  model: { must: "a string", type: (v) => typeof v === "string" },
  created: /*#__PURE__*/ integer(2 ** 40),
  includeUsage: BOOLEAN,
  reasoningField: /*#__PURE__*/ oneOf(["reasoning_content", "reasoning"]),
  onWarning: FUNCTION,
};

/** A finish reason → Chat's `finish_reason` (SPEC §9 read backwards; `unknown` has no value of its own: `stop`). */
export const CHAT_FINISH: Readonly<Record<FinishReason, string>> = {
  stop: "stop",
  length: "length",
  tool_call: "tool_calls",
  unknown: "stop",
};

/** The `format` a `reasoning_details` entry names for each maker (OpenRouter's names). */
const FORMAT: Readonly<Record<string, string>> = {
  anthropic: "anthropic-claude-v1",
  gemini: "google-gemini-v1",
  "openai-responses": "openai-responses-v1",
};

const n = (v: number | null | undefined): number => (typeof v === "number" ? v : 0);

/** A stop event's usage as Chat's `usage` (prompt = cached + prompt, completion = thoughts + response). */
export function chatCompletionsUsage(usage: UsageMetadata | null | undefined): Rec {
  const prompt = n(usage?.cached_tokens) + n(usage?.prompt_tokens);
  const completion = n(usage?.thoughts_tokens) + n(usage?.response_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: n(usage?.cached_tokens) },
    completion_tokens_details: { reasoning_tokens: n(usage?.thoughts_tokens) },
  };
}

/**
 * The `reasoning_details` entries that carry an item's provider-bound values as they are: a Chat
 * dialect's own entries whole; a signature as a `reasoning.text` entry with no text of its own (its text
 * is the thinking streamed before it) — a Gemini thought signature, encrypted reasoning and a tool
 * call's signature as `reasoning.encrypted` entries (`id`: the call's) — each with its maker's `format`.
 */
export function reasoningDetails(fidelity: unknown, toolCallId?: string): Rec[] {
  if (!isRecord(fidelity)) return [];
  if (Array.isArray(fidelity.reasoning_details)) return fidelity.reasoning_details.filter(isRecord);
  const maker = typeof fidelity.provider === "string" ? fidelity.provider : "";
  const format = Object.prototype.hasOwnProperty.call(FORMAT, maker) ? FORMAT[maker]! : "unknown";
  const out: Rec[] = [];
  const signature = fidelity.signature;
  if (typeof signature === "string" && signature) {
    if (toolCallId !== undefined) out.push({ type: "reasoning.encrypted", data: signature, id: toolCallId, format });
    else if (maker === "gemini") out.push({ type: "reasoning.encrypted", data: signature, format });
    else out.push({ type: "reasoning.text", text: "", signature, format });
  }
  const encrypted = fidelity.encrypted_content;
  if (typeof encrypted === "string" && encrypted) out.push({ type: "reasoning.encrypted", data: encrypted, format });
  return out;
}

const hex = (k: number): string => Array.from(crypto.getRandomValues(new Uint8Array(k)), (b) => b.toString(16).padStart(2, "0")).join("");
const fieldOf = (fidelity: unknown): ChatReasoningField | undefined => {
  const f = isRecord(fidelity) ? fidelity.reasoning_field : undefined;
  return f === "reasoning_content" || f === "reasoning" ? f : undefined;
};

/**
 * The Chat Completions writer over one stream of UniEvents: one output per SSE message
 * (`data: <chunk>\n\n`, then `data: [DONE]\n\n`), the text as it goes on the wire. The relay's Chat
 * Completions door runs it where the stream's events are (its encoding); {@link ChatCompletionsEncoderStream}
 * writes each event's messages as one piece of bytes.
 */
export class ChatCompletionsEncoderCore implements StreamCore<UniEvent, string> {
  finished = false;
  /** Every chunk up to its `delta`, and what follows it: each chunk is `head + delta + tail`. */
  private readonly head: string;
  private readonly tail = `,"logprobs":null,"finish_reason":null}]}\n\n`;
  // (the templates and the state the hot chunks read are protected: the relay's door writes the same
  // chunks as bytes from them, relay/doors/chat-completions/encoding.ts)
  /**
   * The hot chunks (a text, a thinking, an argument fragment) written from templates made once per
   * answer, only the fragment JSON-escaped: `open + JSON.stringify(fragment) + close` is the bytes
   * `head + JSON.stringify({ content: fragment }) + tail` writes (the object built only to be
   * stringified cost more than the rest of the chunk).
   */
  protected readonly content: string;
  protected readonly reasoning: Readonly<Record<ChatReasoningField, string>>;
  protected readonly close: string;
  /** The open call's argument chunk up to its fragment (index -1 before the first call, as before), and after it. */
  protected argumentsHead: string;
  protected readonly argumentsTail: string;
  private readonly top: string;
  protected readonly field: ChatReasoningField;
  /** The open thinking group's field; the open tool call's index; the calls begun so far. */
  protected groupField: ChatReasoningField | undefined;
  private calls = 0;
  protected callId = "";
  protected ended = false;

  constructor(private readonly options: ChatCompletionsEncoderOptions) {
    const id = options.id ?? `chatcmpl-${hex(12)}`;
    const created = options.created ?? Math.floor(Date.now() / 1000);
    this.top = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${
      JSON.stringify(options.model ?? "")
    }`;
    this.head = `data: ${this.top},"choices":[{"index":0,"delta":`;
    this.content = `${this.head}{"content":`;
    this.reasoning = { reasoning_content: `${this.head}{"reasoning_content":`, reasoning: `${this.head}{"reasoning":` };
    this.close = `}${this.tail}`;
    this.argumentsTail = `}}]}${this.tail}`;
    this.argumentsHead = `${this.head}{"tool_calls":[{"index":-1,"function":{"arguments":`;
    this.field = options.reasoningField ?? "reasoning_content";
  }

  start(emit: (s: string) => void): void {
    emit(`${this.head}{"role":"assistant","content":""}${this.tail}`);
  }

  push(event: UniEvent, emit: (s: string) => void): void {
    if (this.ended) return;
    if (event.event_type === "stop") return this.stop(event, emit);
    for (const item of event.content_items) {
      switch (item.type) {
        case "text.delta":
          if (item.text) emit(this.content + JSON.stringify(item.text) + this.close);
          if (item.fidelity !== undefined) this.bound(emit, item.fidelity);
          break;
        case "thinking.delta": {
          const own = item.fidelity === undefined ? undefined : fieldOf(item.fidelity);
          this.groupField ??= own;
          if (item.thinking) emit(this.reasoning[own ?? this.groupField ?? this.field] + JSON.stringify(item.thinking) + this.close);
          if (item.fidelity !== undefined) this.bound(emit, item.fidelity);
          break;
        }
        case "tool_call.delta": {
          if (item.name && item.tool_call_id !== this.callId) {
            this.callId = item.tool_call_id;
            const index = this.calls++;
            // (the call's first chunk: `{ index, id, type, function: { name, arguments } }` written as JSON.stringify writes it)
            emit(
              `${this.head}{"tool_calls":[{"index":${index},"id":${
                JSON.stringify(item.tool_call_id)
              },"type":"function","function":{"name":${JSON.stringify(item.name)},"arguments":${
                JSON.stringify(item.arguments)
              }${this.argumentsTail}`,
            );
            this.argumentsHead = `${this.head}{"tool_calls":[{"index":${index},"function":{"arguments":`;
          } else if (item.arguments) {
            emit(this.argumentsHead + JSON.stringify(item.arguments) + this.argumentsTail);
          }
          if (item.fidelity !== undefined) this.bound(emit, item.fidelity, this.callId);
          break;
        }
        case "thinking.done":
          this.groupField = undefined;
          break;
        case "tool_call.done":
          this.callId = "";
          break;
        case "text.done":
          break;
        default:
          if (item.type.endsWith(".done")) this.options.onWarning?.(`Chat Completions has no place for ${item.type}: left out.`);
      }
    }
  }

  /** A fragment's provider-bound values, as one `reasoning_details` chunk (none when it carries none). */
  private bound(emit: (s: string) => void, fidelity: unknown, toolCallId?: string): void {
    if (!isRecord(fidelity)) return;
    const entries = reasoningDetails(fidelity, toolCallId);
    if (entries.length) emit(`${this.head}${JSON.stringify({ reasoning_details: entries })}${this.tail}`);
  }

  private stop(event: UniEvent, emit: (s: string) => void): void {
    this.ended = this.finished = true;
    const finish = CHAT_FINISH[event.finish_reason ?? "unknown"] ?? "stop";
    emit(`${this.head}{}${this.tail.replace('"finish_reason":null', `"finish_reason":"${finish}"`)}`);
    if (this.options.includeUsage) {
      emit(`data: ${this.top},"choices":[],"usage":${JSON.stringify(chatCompletionsUsage(event.usage_metadata))}}\n\n`);
    }
    emit("data: [DONE]\n\n");
  }

  abort(reason: unknown, emit: (s: string) => void): void {
    if (this.ended) return;
    this.ended = this.finished = true;
    emit(`data: ${JSON.stringify(chatCompletionsError(reason).body)}\n\n`);
    emit("data: [DONE]\n\n");
  }

  end(emit: (s: string) => void): void {
    // a stream that ends without its stop event is no whole answer (the checked reader errors first)
    if (!this.ended) this.abort(new Error("the stream ended before its stop event"), emit);
  }
}

/** The core's messages of each call as one piece of UTF-8 bytes (the public stream's outputs; one collector per stream, no closure per event). */
class Bytes implements StreamCore<UniEvent, Uint8Array> {
  private readonly utf8 = new TextEncoder();
  private readonly core: ChatCompletionsEncoderCore;
  private out = "";
  private readonly collect = (s: string): void => void (this.out += s);

  constructor(options: ChatCompletionsEncoderOptions) {
    this.core = new ChatCompletionsEncoderCore(options);
  }

  get finished(): boolean {
    return this.core.finished;
  }

  private flush(emit: (b: Uint8Array) => void): void {
    if (this.out) emit(this.utf8.encode(this.out));
    this.out = "";
  }

  start(emit: (b: Uint8Array) => void): void {
    this.core.start(this.collect);
    this.flush(emit);
  }

  push(event: UniEvent, emit: (b: Uint8Array) => void): void {
    this.core.push(event, this.collect);
    this.flush(emit);
  }

  abort(reason: unknown, emit: (b: Uint8Array) => void): void {
    this.core.abort(reason, this.collect);
    this.flush(emit);
  }

  end(emit: (b: Uint8Array) => void): void {
    this.core.end(this.collect);
    this.flush(emit);
  }
}

/**
 * Writes checked UniEvents (a public stream: SPEC §3) as an OpenAI Chat Completions stream's bytes:
 * `data: <chat.completion.chunk>` messages, each UniEvent's chunks in one piece, then `data: [DONE]`.
 * An error on the writable side (a failed upstream, a Stop) becomes the `{"error": …}` chunk and
 * `[DONE]`, as OpenAI-compatible servers end a stream that fails.
 *
 * @example
 * ```ts
 * import type { UniEvent } from "mmsp-streams";
 * import { ChatCompletionsEncoderStream } from "mmsp-streams/encode";
 *
 * const usage = { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 };
 * const events: UniEvent[] = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: "stop" },
 * ];
 * const body = ReadableStream.from(events).pipeThrough(new ChatCompletionsEncoderStream({ model: "m", includeUsage: true }));
 * console.log(await new Response(body).text()); // data: {"id":"chatcmpl-…","object":"chat.completion.chunk",…}
 * ```
 */
export class ChatCompletionsEncoderStream extends CoreStream<UniEvent, Uint8Array> {
  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the encoder (`id`, `model` and `created` name every chunk). */
  constructor(options: ChatCompletionsEncoderOptions = {}) {
    checkOptions("ChatCompletionsEncoderStream", options, OPTIONS);
    super(new Bytes(options));
  }
}

/**
 * The non-streamed answer (`chat.completion`) of a finished message: its text as `content` (null when
 * none), its thinking in the reasoning field, its provider-bound values as `reasoning_details`, its
 * tool calls, `finish_reason` and `usage`.
 *
 * @example
 * ```ts
 * import { chatCompletion } from "mmsp-streams/encode";
 *
 * const message = { role: "assistant" as const, content_items: [{ type: "text.done" as const, text: "Hi" }], finish_reason: "stop" as const };
 * console.log(chatCompletion(message, { id: "chatcmpl-1", model: "m" }).choices); // [{ index: 0, message: { role: "assistant", content: "Hi", … }, … }]
 * ```
 */
export function chatCompletion(
  message: UniMessage,
  options: Omit<ChatCompletionsEncoderOptions, "includeUsage"> = {},
): Rec & { choices: Rec[] } {
  checkOptions("chatCompletion", options, OPTIONS);
  let content: string | null = null;
  const reasoning: Partial<Record<ChatReasoningField, string>> = {};
  const details: Rec[] = [];
  const calls: Rec[] = [];
  for (const item of message.content_items) {
    if (item.type === "text.done") content = (content ?? "") + item.text;
    else if (item.type === "thinking.done") {
      const field = fieldOf(item.fidelity) ?? options.reasoningField ?? "reasoning_content";
      reasoning[field] = (reasoning[field] ?? "") + item.thinking;
    } else if (item.type === "tool_call.done") {
      calls.push({ id: item.tool_call_id, type: "function", function: { name: item.name, arguments: JSON.stringify(item.arguments) } });
    } else {
      options.onWarning?.(`Chat Completions has no place for ${item.type}: left out.`);
      continue;
    }
    details.push(
      ...reasoningDetails("fidelity" in item ? item.fidelity : undefined, item.type === "tool_call.done" ? item.tool_call_id : undefined),
    );
  }
  const out: Rec = { role: "assistant", content, refusal: null, ...reasoning };
  if (details.length) out.reasoning_details = details;
  if (calls.length) out.tool_calls = calls;
  return {
    id: options.id ?? `chatcmpl-${hex(12)}`,
    object: "chat.completion",
    created: options.created ?? Math.floor((message.created_at ?? Date.now()) / 1000),
    model: options.model ?? "",
    choices: [{ index: 0, message: out, logprobs: null, finish_reason: CHAT_FINISH[message.finish_reason ?? "unknown"] ?? "stop" }],
    usage: chatCompletionsUsage(message.usage_metadata),
  };
}

/** The OpenAI error `type` of an HTTP status (the relay's Chat Completions door writes its refusals with it too). */
export const openaiType = (status: number): string =>
  status === 401 || status === 403
    ? "authentication_error"
    : status === 429
    ? "rate_limit_exceeded"
    : status >= 500
    ? "server_error"
    : "invalid_request_error";

/**
 * Any thrown value in the error shape of the OpenAI API (and of its compatible servers): the HTTP
 * status it stands for and the body `{"error": {message, type, param, code}}`, `type` the API's word
 * for the status, `code` the error's own type (an MMSP type, or the upstream's). In a stream the same
 * object is the `{"error": …}` chunk.
 *
 * @example
 * ```ts
 * import { chatCompletionsError } from "mmsp-streams/encode";
 *
 * class RateLimitError extends Error {}
 * console.log(chatCompletionsError(new RateLimitError("slow down")));
 * // { status: 429, body: { error: { message: "slow down", type: "rate_limit_exceeded", param: null, code: "RateLimitError" } } }
 * ```
 */
export function chatCompletionsError(reason: unknown): { status: number; body: { error: Rec } } {
  const { type, message, status } = errorParts(reason);
  const upstream = isRecord((reason as { error?: unknown })?.error) ? (reason as { error: Rec }).error : undefined;
  // an OpenAI error relayed as it was read keeps its own type and code
  if (upstream && typeof upstream.type === "string" && "param" in upstream) return { status, body: { error: upstream } };
  return { status, body: { error: { message, type: openaiType(status), param: null, code: type } } };
}
