// SPEC §10 "Traces", the part shared by the relay (relay/tracing.ts: a span per stream, with its
// fallbacks) and the providers' factories (`anthropic({ tracer })`: a span per `stream()`): one span
// `chat <model>` (kind CLIENT) with the GenAI semantic conventions' attributes, the time to the first
// chunk, the usage and finish reason of the stop, error status with the error's type (`error.type`).
// Never a message's content, a provider's message or a key: only names, numbers and types are written.
//
// The tracer is typed by its shape (what `@opentelemetry/api`'s Tracer has), so the package imports
// nothing of OpenTelemetry: without a tracer nothing is loaded, with one the caller's API is used.
import { UpstreamError } from "../errors.js";
import type { FinishReason, UsageMetadata } from "../schema.js";
import type { Rule } from "../internal/options.js";
import { inputTokens, outputTokens } from "../internal/usage.js";

/** An attribute's value, as OpenTelemetry takes it. */
export type TraceValue = string | number | boolean | string[] | number[];

/** The part of an OpenTelemetry `Span` the package uses. */
export interface TraceSpan {
  /** Sets one attribute (a GenAI semantic convention's name, never message content or a key). */
  setAttribute(key: string, value: TraceValue): unknown;
  /** Adds an event (a fallback, a continuation) with its attributes. */
  addEvent(name: string, attributes?: Record<string, TraceValue>): unknown;
  /** The span's status: 2 (ERROR) with the error's type when the stream failed. */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span when the stream ends, however it ends. */
  end(): void;
}

/** The part of an OpenTelemetry `Tracer` (`@opentelemetry/api`) the package uses: `trace.getTracer("my-app")` is one. */
export interface TraceTracer {
  /** Starts one span per stream, `chat <model>`, of kind CLIENT (2). */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Record<string, TraceValue> },
  ): TraceSpan;
}

/** A `tracer` option: an object with `startSpan` (an OpenTelemetry Tracer). */
export const TRACER: Rule = {
  must: 'an OpenTelemetry Tracer (trace.getTracer("my-app") of @opentelemetry/api)',
  type: (v) => typeof v === "object" && v !== null && typeof (v as TraceTracer).startSpan === "function",
};

/** OpenTelemetry's SpanKind.CLIENT and SpanStatusCode.ERROR (their values in `@opentelemetry/api`). */
const CLIENT = 2;
const ERROR = 2;

/** gen_ai.provider.name of the package's providers (the conventions' well-known values). */
const PROVIDER_NAMES: Record<string, string> = {
  "openai-chat": "openai",
  "openai-responses": "openai",
  anthropic: "anthropic",
  gemini: "gcp.gemini",
};
const providerName = (name: string): string => PROVIDER_NAMES[name] ?? name;

/** MMSP's finish_reason in the conventions' words. */
const FINISH: Record<string, string> = {
  stop: "stop",
  length: "length",
  tool_call: "tool_call",
  unknown: "unknown",
};

/** The error's type for `error.type`: MMSP's type of an upstream error, else the class's name. */
export function errorType(error: unknown): string {
  if (error instanceof UpstreamError) return error.errorType ?? "UpstreamError";
  return error instanceof Error ? error.name : "Error";
}

/** One chat's span: started with the request's names, ended once, with the stop's usage or the error's type. */
export class ChatSpan {
  readonly span: TraceSpan;
  readonly #started = Date.now();
  #first = true;
  #ended = false;

  /** Starts `chat <model>` (the model as the caller named it), the provider's name, the request's `maxTokens` if any. */
  constructor(tracer: TraceTracer, model: string, provider: string, maxTokens: unknown) {
    const attributes: Record<string, TraceValue> = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": providerName(provider),
      "gen_ai.request.model": model,
    };
    if (typeof maxTokens === "number") attributes["gen_ai.request.max_tokens"] = maxTokens;
    this.span = tracer.startSpan(`chat ${model}`, { kind: CLIENT, attributes });
  }

  /** The provider and model that answer (a fallback may change them); a refusal has no model that answered. */
  served(provider: string, model?: string): void {
    this.span.setAttribute("gen_ai.provider.name", providerName(provider));
    if (model !== undefined) this.span.setAttribute("gen_ai.response.model", model);
  }

  /** An event came: the first one sets the time to the first chunk (seconds). */
  chunk(): void {
    if (!this.#first) return;
    this.#first = false;
    this.span.setAttribute("gen_ai.response.time_to_first_chunk", (Date.now() - this.#started) / 1000);
  }

  /** The stop's usage (input = cached + prompt, output = thoughts + response) and finish reason. */
  stop(stop: { usage_metadata?: UsageMetadata | null; finish_reason?: FinishReason | null }): void {
    const usage = stop.usage_metadata;
    if (usage) {
      this.span.setAttribute("gen_ai.usage.input_tokens", inputTokens(usage));
      this.span.setAttribute("gen_ai.usage.output_tokens", outputTokens(usage));
    }
    if (stop.finish_reason) {
      this.span.setAttribute("gen_ai.response.finish_reasons", [FINISH[stop.finish_reason] ?? "unknown"]);
    }
  }

  /** Ends the span with an error (its type only: a provider's message may quote the request). */
  fail(error: unknown, type = errorType(error)): void {
    if (this.#ended) return;
    this.span.setAttribute("error.type", type);
    this.span.setStatus({ code: ERROR, message: type });
    this.end();
  }

  /** Ends the span (once). */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.end();
  }
}
