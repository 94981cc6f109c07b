// SPEC §10 "Traces": with an OpenTelemetry tracer, one span per stream, `chat <model>` (kind CLIENT),
// with the GenAI semantic conventions' attributes: gen_ai.operation.name, gen_ai.provider.name,
// gen_ai.request.model, gen_ai.response.model, gen_ai.request.max_tokens, gen_ai.usage.input_tokens,
// gen_ai.usage.output_tokens, gen_ai.response.finish_reasons; the time to the first chunk; an event
// per fallback or continuation; error status with the error's type (`error.type`). Never a message's
// content, a provider's message or a key: only names, numbers and types are written.
//
// The tracer is typed by its shape (what `@opentelemetry/api`'s Tracer has), so the package imports
// nothing of OpenTelemetry: without a tracer nothing is loaded, with one the caller's API is used.
import { UpstreamError } from "../errors.js";
import type { UniEvent } from "../schema.js";
import type { RelayModel } from "./models.js";

/** An attribute's value, as OpenTelemetry takes it. */
export type TraceValue = string | number | boolean | string[] | number[];

/** The part of an OpenTelemetry `Span` the relay uses. */
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

/** The part of an OpenTelemetry `Tracer` (`@opentelemetry/api`) the relay uses: `trace.getTracer("my-relay")` is one. */
export interface TraceTracer {
  /** Starts one span per stream, `chat <model>`, of kind CLIENT (3). */
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: Record<string, TraceValue> },
  ): TraceSpan;
}

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
function errorType(error: unknown): string {
  if (error instanceof UpstreamError) return error.errorType ?? "UpstreamError";
  return error instanceof Error ? error.name : "Error";
}

/** One stream's span, fed by fallback.ts and continuation.ts, ended with the stream. */
export class StreamTrace {
  readonly #span: TraceSpan;
  readonly #started = Date.now();
  #ended = false;

  /** Starts the span of a stream of `model` (the client's name of it), with the request's `maxTokens` if any. */
  constructor(
    tracer: TraceTracer,
    model: string,
    first: RelayModel,
    maxTokens: number | undefined,
  ) {
    const attributes: Record<string, TraceValue> = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": providerName(first.provider.name),
      "gen_ai.request.model": model,
    };
    if (typeof maxTokens === "number") {
      attributes["gen_ai.request.max_tokens"] = maxTokens;
    }
    this.#span = tracer.startSpan(`chat ${model}`, {
      kind: CLIENT,
      attributes,
    });
  }

  /** A target gave way before its first event: an event `gen_ai.fallback` naming both and the error's type. */
  fallback(from: RelayModel, to: RelayModel, error: unknown): void {
    this.#span.addEvent("gen_ai.fallback", {
      "gen_ai.fallback.from": `${from.provider.name}:${from.model}`,
      "gen_ai.fallback.to": `${to.provider.name}:${to.model}`,
      "error.type": errorType(error),
    });
  }

  /** A target went on with the answer of another that failed mid-answer: an event `gen_ai.continuation`. */
  continued(
    from: RelayModel,
    to: RelayModel,
    error: unknown,
    chars: number,
  ): void {
    this.#span.addEvent("gen_ai.continuation", {
      "gen_ai.fallback.from": `${from.provider.name}:${from.model}`,
      "gen_ai.fallback.to": `${to.provider.name}:${to.model}`,
      "gen_ai.continuation.prefix_chars": chars,
      "error.type": errorType(error),
    });
    this.#span.setAttribute(
      "gen_ai.provider.name",
      providerName(to.provider.name),
    );
    this.#span.setAttribute("gen_ai.response.model", to.model);
  }

  /** The target that serves the stream (its first event came). */
  served(target: RelayModel): void {
    this.#span.setAttribute(
      "gen_ai.provider.name",
      providerName(target.provider.name),
    );
    this.#span.setAttribute("gen_ai.response.model", target.model);
  }

  /** The stream was refused before any event: the span ends with the status's error. */
  refused(target: RelayModel, status: number, error: unknown): void {
    this.#span.setAttribute(
      "gen_ai.provider.name",
      providerName(target.provider.name),
    );
    this.#span.setAttribute("http.response.status_code", status);
    this.fail(error ?? { name: `HTTP ${status}` }, String(status));
  }

  /** Ends the span with an error (its type only: a provider's message may quote the request). */
  fail(error: unknown, type = errorType(error)): void {
    if (this.#ended) return;
    this.#span.setAttribute("error.type", type);
    this.#span.setStatus({ code: ERROR, message: type });
    this.end();
  }

  /** Ends the span (once). */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#span.end();
  }

  /** `events` as they go, followed: the time to the first chunk, the stop event's usage and finish reason, the end or the error. */
  follow(events: ReadableStream<UniEvent>): ReadableStream<UniEvent> {
    let first = true;
    const reader = events.getReader();
    return new ReadableStream<UniEvent>({
      pull: async (controller) => {
        let r: ReadableStreamReadResult<UniEvent>;
        try {
          r = await reader.read();
        } catch (e) {
          this.fail(e);
          throw e;
        }
        if (r.done) {
          this.end();
          return controller.close();
        }
        const event = r.value;
        if (first) {
          first = false;
          this.#span.setAttribute(
            "gen_ai.response.time_to_first_chunk",
            (Date.now() - this.#started) / 1000,
          );
        }
        if (event.event_type === "stop") this.#stop(event);
        controller.enqueue(event);
      },
      cancel: (reason) => {
        this.fail(reason);
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
  }

  #stop(event: UniEvent): void {
    const usage = event.usage_metadata;
    if (usage) {
      this.#span.setAttribute(
        "gen_ai.usage.input_tokens",
        (usage.cached_tokens ?? 0) + (usage.prompt_tokens ?? 0),
      );
      this.#span.setAttribute(
        "gen_ai.usage.output_tokens",
        (usage.thoughts_tokens ?? 0) + (usage.response_tokens ?? 0),
      );
    }
    if (event.finish_reason) {
      this.#span.setAttribute("gen_ai.response.finish_reasons", [
        FINISH[event.finish_reason] ?? "unknown",
      ]);
    }
  }
}
