/**
 * OpenAI Chat Completions' stream (`chat.completion.chunk`s, then `[DONE]`) → SPEC §5 fragments.
 * Text (`content`, and a `refusal`'s text) and reasoning (`reasoning_content` / `reasoning`, named in
 * `fidelity.reasoning_field`) are written as they come, keyed by the field that carried them. Tool
 * calls are each their own group in index order (tool-calls.ts): the call whose turn it is streams
 * live, a call of another index is held until the calls before it end (SPEC §9).
 */
import { isRecord } from "../../internal/values.js";
import type { EventReader, FragmentSink } from "../event-reader.js";
import { eventObject, streamedError, truncated } from "../wire.js";
import { finishOf, usageOf } from "./maps.js";
import { ToolCalls } from "./tool-calls.js";

/** The reasoning fields servers use (vLLM, DeepSeek: `reasoning_content`; OpenRouter: `reasoning`). */
const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/** The reader of one Chat Completions stream (choice 0: a streamed request asks for one). */
export class OpenaiChatReader implements EventReader {
  private readonly calls = new ToolCalls();
  private finished = false;
  private done = false;

  constructor(private readonly client: string) {}

  read(value: unknown, sink: FragmentSink): void {
    if (this.done) return;
    if (value === "[DONE]") {
      this.calls.flush(sink);
      this.done = true;
      return;
    }
    const chunk = eventObject(value);
    if (chunk.error !== undefined && chunk.error !== null) throw streamedError(chunk.error, this.client);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((c) => isRecord(c) && (c.index ?? 0) === 0);
    if (isRecord(choice)) {
      if (isRecord(choice.delta)) this.delta(choice.delta, sink);
      if (typeof choice.finish_reason === "string" && choice.finish_reason !== "") {
        this.calls.flush(sink);
        this.finished = true;
        sink.stop(null, finishOf(choice.finish_reason));
      }
    }
    if (isRecord(chunk.usage)) sink.stop(usageOf(chunk.usage), null);
  }

  end(sink: FragmentSink): void {
    // a finish reason and then a clean end of the body is the provider's end too (servers that omit [DONE], SPEC §9)
    if (!this.done && !this.finished) throw truncated("its finish_reason or [DONE]");
    void sink;
  }

  private delta(delta: Record<string, unknown>, sink: FragmentSink): void {
    // the reasoning first: one chunk may end the reasoning and begin the answer
    const both = typeof delta.reasoning_content === "string" && delta.reasoning_content !== "" &&
      typeof delta.reasoning === "string" && delta.reasoning !== "";
    for (const field of REASONING_FIELDS) {
      const thinking = delta[field];
      if (typeof thinking !== "string" || thinking === "") continue;
      // both fields at once: their origin is ambiguous, so no field is recorded (a replay sends both), as MMSP does
      this.calls.interrupt();
      sink.item({ type: "thinking.delta", thinking, ...(both ? {} : { fidelity: { reasoning_field: field } }) }, field);
      if (both) break;
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      this.calls.interrupt();
      sink.item({ type: "text.delta", text: delta.content }, "content");
    }
    // a refusal's text is the answer's text (SPEC §9)
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      this.calls.interrupt();
      sink.item({ type: "text.delta", text: delta.refusal }, "refusal");
    }
    if (Array.isArray(delta.tool_calls)) this.toolCalls(delta.tool_calls, sink);
  }

  /** A chunk's tool call fragments, in index order (a chunk may list its calls in any order). */
  private toolCalls(calls: unknown[], sink: FragmentSink): void {
    let sorted = calls;
    for (let i = 1; i < calls.length; i++) {
      if (indexOf(calls[i]) < indexOf(calls[i - 1])) {
        sorted = calls.slice().sort((a, b) => indexOf(a) - indexOf(b));
        break;
      }
    }
    for (const call of sorted) {
      if (!isRecord(call)) continue;
      const fn = isRecord(call.function) ? call.function : {};
      const args = typeof fn.arguments === "string" ? fn.arguments : "";
      const index = indexOf(call);
      this.calls.add(
        index < 0 ? undefined : index,
        typeof call.id === "string" ? call.id : "",
        typeof fn.name === "string" ? fn.name : "",
        args,
        sink,
      );
    }
  }
}

/** A fragment's `index` (-1: none, or not a whole number ≥ 0). */
function indexOf(call: unknown): number {
  const index = isRecord(call) ? call.index : undefined;
  return typeof index === "number" && Number.isInteger(index) && index >= 0 ? index : -1;
}
