/**
 * OpenAI Chat Completions' stream (`chat.completion.chunk`s, then `[DONE]`) → SPEC §5 fragments.
 * Text (`content`, and a `refusal`'s text) and reasoning (`reasoning_content` / `reasoning`, named in
 * `fidelity.reasoning_field`) are written as they come, keyed by the field that carried them; the
 * compatible servers' dialects (`reasoning_details`, `content` as chunks, `x_groq.usage`) are read from
 * the table in dialects.ts. Tool
 * calls are not: parallel calls interleave their `tool_calls[].index` deltas, and UniEvent groups
 * never interleave, so each index is kept apart and every call is written as its own group, in index
 * order, when the calls end (at `finish_reason`, or `[DONE]`) — MMSP's client appends every fragment
 * to the call named last, which corrupts interleaved calls (SPEC §9).
 */
import { isRecord, ownValue } from "../../internal/values.js";
import type { DeltaItem } from "../../schema.js";
import type { EventReader, FragmentSink } from "../event-reader.js";
import { eventObject, streamedError, truncated } from "../wire.js";
import { addDetail, CONTENT_CHUNKS, DETAILS_FIELD, detailText, REASONING_FIELDS, usageIn } from "./dialects.js";
import { finishOf, usageOf } from "./maps.js";

type Rec = Record<string, unknown>;

/** One tool call being received: its header and its argument fragments as they came. */
interface HeldCall {
  id: string;
  name: string;
  pieces: string[];
}

/** The reader of one Chat Completions stream (choice 0: a streamed request asks for one). */
export class OpenaiChatReader implements EventReader {
  private readonly calls = new Map<number, HeldCall>();
  /** The index of the call a fragment without one continues (servers that send no index). */
  private lastIndex = -1;
  private finished = false;
  private done = false;
  /**
   * The `reasoning_details` entries of the run of reasoning streaming now (merged as they stream): they
   * go whole on its thinking item as one fidelity when the run ends, before anything else is written
   * (an item carries one fidelity). `runs` keys each run's item apart.
   */
  private details: Rec[] | undefined;
  private runs = 0;

  constructor(private readonly client: string) {}

  read(value: unknown, sink: FragmentSink): void {
    if (this.done) return;
    if (value === "[DONE]") {
      this.endDetails(sink);
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
        this.endDetails(sink);
        this.flush(sink);
        this.finished = true;
        sink.stop(null, finishOf(choice.finish_reason));
      }
    }
    const usage = usageIn(chunk);
    if (usage !== undefined) sink.stop(usageOf(usage), null);
  }

  end(sink: FragmentSink): void {
    if (!this.done) throw truncated(this.finished ? "[DONE]" : "its finish_reason and [DONE]");
    void sink;
  }

  private delta(delta: Record<string, unknown>, sink: FragmentSink): void {
    // the reasoning first: one chunk may end the reasoning and begin the answer
    const entries = Array.isArray(delta[DETAILS_FIELD]) ? delta[DETAILS_FIELD] : [];
    // entries that carry text are the thinking; the string fields beside them are their copy (OpenRouter sends both)
    if (!entries.some((e) => isRecord(e) && detailText(e) !== "")) this.readReasoning(delta, sink);
    this.readDetails(entries, sink);
    if (typeof delta.content === "string" && delta.content !== "") this.write({ type: "text.delta", text: delta.content }, "content", sink);
    else if (Array.isArray(delta.content)) { for (const chunk of delta.content) if (isRecord(chunk)) this.readChunk(chunk, sink); }
    // a refusal's text is the answer's text (SPEC §9)
    if (typeof delta.refusal === "string" && delta.refusal !== "") this.write({ type: "text.delta", text: delta.refusal }, "refusal", sink);
    if (Array.isArray(delta.tool_calls)) {
      this.endDetails(sink);
      for (const call of delta.tool_calls) if (isRecord(call)) this.hold(call);
    }
  }

  /** `reasoning_content` / `reasoning`: thinking named by its field. */
  private readReasoning(delta: Rec, sink: FragmentSink): void {
    const both = typeof delta.reasoning_content === "string" && delta.reasoning_content !== "" &&
      typeof delta.reasoning === "string" && delta.reasoning !== "";
    for (const field of REASONING_FIELDS) {
      const thinking = delta[field];
      if (typeof thinking !== "string" || thinking === "") continue;
      // both fields at once: their origin is ambiguous, so no field is recorded (a replay sends both), as MMSP does
      this.write({ type: "thinking.delta", thinking, ...(both ? {} : { fidelity: { reasoning_field: field } }) }, field, sink);
      if (both) break;
    }
  }

  /** `reasoning_details` entries: kept for the run's fidelity, their text written as the run's thinking. */
  private readDetails(entries: unknown[], sink: FragmentSink): void {
    for (const entry of entries) {
      if (!isRecord(entry)) continue;
      addDetail(this.details ??= [], entry);
      const thinking = detailText(entry);
      if (thinking !== "") this.write({ type: "thinking.delta", thinking }, `${DETAILS_FIELD}.${this.runs}`, sink);
    }
  }

  /** One chunk of `content` as an array (Mistral), by its shape in the dialects' table. */
  private readChunk(chunk: Rec, sink: FragmentSink): void {
    const shape = typeof chunk.type === "string" ? ownValue(CONTENT_CHUNKS, chunk.type) : undefined;
    if (shape === undefined) return; // (a `reference` chunk, say: no UniEvent kind)
    for (const piece of shape.texts(chunk)) {
      if (typeof piece !== "string" || piece === "") continue;
      if (shape.kind === "text") this.write({ type: "text.delta", text: piece }, "content", sink);
      // named by its field, `content`: a replay sends it back as a thinking chunk (Mistral takes no reasoning field)
      else this.write({ type: "thinking.delta", thinking: piece, fidelity: { reasoning_field: "content" } }, "content.thinking", sink);
    }
  }

  /** Every fragment but a tool call's: one of another item than the run of `reasoning_details` ends that run first. */
  private write(item: DeltaItem, key: string, sink: FragmentSink): void {
    if (this.details !== undefined && key !== `${DETAILS_FIELD}.${this.runs}`) this.endDetails(sink);
    sink.item(item, key);
  }

  /**
   * The run of `reasoning_details` ends: its entries go on its thinking item (an item of its own, with
   * empty thinking, when none carried text: an encrypted entry alone).
   */
  private endDetails(sink: FragmentSink): void {
    const entries = this.details;
    if (entries === undefined) return;
    this.details = undefined;
    sink.item({ type: "thinking.delta", thinking: "", fidelity: { reasoning_details: entries } }, `${DETAILS_FIELD}.${this.runs++}`);
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
