// Routing: SPEC §10 "Traces" (one span per stream of the models table).
//
// SPEC §10 "Traces", the relay's part: one span per stream (providers/tracing.ts's ChatSpan, shared
// with the providers' factories), with an event per fallback or continuation (fallback.ts,
// continuation.ts) and the provider that served; ended with the stream, however it ends.
import type { UniEvent } from "../../schema.js";
import { ChatSpan, errorType, type TraceTracer } from "../../providers/tracing.js";
import type { RelayModel } from "./models.js";

export type { TraceSpan, TraceTracer, TraceValue } from "../../providers/tracing.js";

/** One stream's span, fed by fallback.ts and continuation.ts, ended with the stream. */
export class StreamTrace {
  readonly #chat: ChatSpan;

  /** Starts the span of a stream of `model` (the client's name of it), with the request's `maxTokens` if any. */
  constructor(tracer: TraceTracer, model: string, first: RelayModel, maxTokens: number | undefined) {
    this.#chat = new ChatSpan(tracer, model, first.provider.name, maxTokens);
  }

  /** A target gave way before its first event: an event `gen_ai.fallback` naming both and the error's type. */
  fallback(from: RelayModel, to: RelayModel, error: unknown): void {
    this.#chat.span.addEvent("gen_ai.fallback", {
      "gen_ai.fallback.from": `${from.provider.name}:${from.model}`,
      "gen_ai.fallback.to": `${to.provider.name}:${to.model}`,
      "error.type": errorType(error),
    });
  }

  /** A target went on with the answer of another that failed mid-answer: an event `gen_ai.continuation`. */
  continued(from: RelayModel, to: RelayModel, error: unknown, chars: number): void {
    this.#chat.span.addEvent("gen_ai.continuation", {
      "gen_ai.fallback.from": `${from.provider.name}:${from.model}`,
      "gen_ai.fallback.to": `${to.provider.name}:${to.model}`,
      "gen_ai.continuation.prefix_chars": chars,
      "error.type": errorType(error),
    });
    this.served(to);
  }

  /** The target that serves the stream (its first event came). */
  served(target: RelayModel): void {
    this.#chat.served(target.provider.name, target.model);
  }

  /** The stream was refused before any event: the span ends with the status's error. */
  refused(target: RelayModel, status: number, error: unknown): void {
    this.#chat.served(target.provider.name);
    this.#chat.span.setAttribute("http.response.status_code", status);
    this.#chat.fail(error ?? { name: `HTTP ${status}` }, String(status));
  }

  /** `events` as they go, followed: the time to the first chunk, the stop event's usage and finish reason, the end or the error. */
  follow(events: ReadableStream<UniEvent[]>): ReadableStream<UniEvent[]> {
    const chat = this.#chat;
    const reader = events.getReader();
    return new ReadableStream<UniEvent[]>({
      pull: async (controller) => {
        let r: ReadableStreamReadResult<UniEvent[]>;
        try {
          r = await reader.read();
        } catch (e) {
          chat.fail(e);
          throw e;
        }
        if (r.done) {
          chat.end();
          return controller.close();
        }
        for (const event of r.value) {
          chat.chunk();
          if (event.event_type === "stop") chat.stop(event);
        }
        controller.enqueue(r.value);
      },
      cancel: (reason) => {
        chat.fail(reason);
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
  }
}
