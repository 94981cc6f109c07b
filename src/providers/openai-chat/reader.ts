/**
 * OpenAI Chat Completions' stream (`chat.completion.chunk`s, then `[DONE]`) → SPEC §5 fragments.
 * Text (`content`, and a `refusal`'s text) and reasoning (`reasoning_content` / `reasoning`, named in
 * `fidelity.reasoning_field`) are written as they come, keyed by the field that carried them. Tool
 * calls are not: parallel calls interleave their `tool_calls[].index` deltas, and UniEvent groups
 * never interleave, so each index is kept apart and every call is written as its own group, in index
 * order, when the calls end (at `finish_reason`, or `[DONE]`) — MMSP's client appends every fragment
 * to the call named last, which corrupts interleaved calls (SPEC §9).
 */
import { isRecord } from "../../internal/values.js";
import type { EventReader, FragmentSink } from "../event-reader.js";
import { eventObject, streamedError, truncated } from "../wire.js";
import { finishOf, usageOf } from "./maps.js";

/** One tool call being received: its header and its argument fragments as they came. */
interface HeldCall {
  id: string;
  name: string;
  pieces: string[];
}

/** The reasoning fields servers use (vLLM, DeepSeek: `reasoning_content`; OpenRouter: `reasoning`). */
const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/** The reader of one Chat Completions stream (choice 0: a streamed request asks for one). */
export class OpenaiChatReader implements EventReader {
  private readonly calls = new Map<number, HeldCall>();
  /** The index of the call a fragment without one continues (servers that send no index). */
  private lastIndex = -1;
  private finished = false;
  private done = false;

  constructor(private readonly client: string) {}

  read(value: unknown, sink: FragmentSink): void {
    if (this.done) return;
    if (value === "[DONE]") {
      this.flush(sink);
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
        this.flush(sink);
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
      sink.item({ type: "thinking.delta", thinking, ...(both ? {} : { fidelity: { reasoning_field: field } }) }, field);
      if (both) break;
    }
    if (typeof delta.content === "string" && delta.content !== "") sink.item({ type: "text.delta", text: delta.content }, "content");
    // a refusal's text is the answer's text (SPEC §9)
    if (typeof delta.refusal === "string" && delta.refusal !== "") sink.item({ type: "text.delta", text: delta.refusal }, "refusal");
    if (Array.isArray(delta.tool_calls)) { for (const call of delta.tool_calls) if (isRecord(call)) this.hold(call); }
  }

  /** A tool call fragment, kept with the others of its index. */
  private hold(call: Record<string, unknown>): void {
    const fn = isRecord(call.function) ? call.function : {};
    const id = typeof call.id === "string" ? call.id : "";
    const name = typeof fn.name === "string" ? fn.name : "";
    const index = typeof call.index === "number" && Number.isInteger(call.index) && call.index >= 0 ? call.index : this.unindexed(id, name);
    this.lastIndex = index;
    let held = this.calls.get(index);
    if (!held) this.calls.set(index, held = { id: "", name: "", pieces: [] });
    if (held.id === "") held.id = id;
    if (held.name === "") held.name = name;
    if (typeof fn.arguments === "string" && fn.arguments !== "") held.pieces.push(fn.arguments);
  }

  /**
   * The call a fragment without an index belongs to (some compatible servers send none): one that
   * names another call (a new id, or a new name without id) begins the next; a repeated header or a
   * bare argument piece continues the last.
   */
  private unindexed(id: string, name: string): number {
    const last = this.calls.get(this.lastIndex);
    const begins = last === undefined || (id !== "" && id !== last.id) || (id === "" && name !== "" && name !== last.name);
    return begins ? this.calls.size : this.lastIndex;
  }

  /** The calls end: each written as its own group, in index order, its first fragment carrying the header. */
  private flush(sink: FragmentSink): void {
    const indexes = [...this.calls.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const { id, name, pieces } = this.calls.get(index)!;
      const key = `tool_calls.${index}`;
      // a call without an id is named by its function's name (as MMSP does)
      sink.item({ type: "tool_call.delta", name, tool_call_id: id || name, arguments: pieces[0] ?? "" }, key);
      for (let i = 1; i < pieces.length; i++) {
        sink.item({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: pieces[i]! }, key);
      }
    }
    this.calls.clear();
    this.lastIndex = -1;
  }
}
