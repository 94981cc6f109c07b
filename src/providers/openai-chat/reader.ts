/**
 * OpenAI Chat Completions' stream (`chat.completion.chunk`s, then `[DONE]`) → SPEC §5 fragments.
 * Text (`content`, and a `refusal`'s text) and reasoning (`reasoning_content` / `reasoning`, named in
 * `fidelity.reasoning_field`) are written as they come, keyed by the field that carried them; the
 * compatible servers' dialects (`reasoning_details`, `content` as chunks, `x_groq.usage`) are read from
 * the table in dialects.ts. Tool
 * calls are each their own group in index order (tool-calls.ts): the call whose turn it is streams
 * live, a call of another index is held until the calls before it end (SPEC §9).
 */
import { isRecord, ownValue } from "../../internal/values.js";
import type { DeltaItem } from "../../schema.js";
import type { EventReader, FragmentSink } from "../event-reader.js";
import { eventObject, streamedError, truncated } from "../wire.js";
import { addDetail, CONTENT_CHUNKS, DETAILS_FIELD, detailText, REASONING_FIELDS, usageIn } from "./dialects.js";
import { finishOf, usageOf } from "./maps.js";
import { ToolCalls } from "./tool-calls.js";

type Rec = Record<string, unknown>;

/** The reader of one Chat Completions stream (choice 0: a streamed request asks for one). */
export class OpenaiChatReader implements EventReader {
  private readonly calls = new ToolCalls();
  private finished = false;
  private done = false;
  /**
   * The `reasoning_details` entries of the run of reasoning streaming now (merged as they stream): they
   * go whole on its thinking item as one fidelity when the run ends, before anything else is written
   * (an item carries one fidelity). `runs` keys each run's item apart.
   */
  private details: Rec[] | undefined;
  private runs = 0;
  /** What the run's entries hold back: characters, entries. */
  private readonly detailsHeld = [0, 0];

  constructor(private readonly client: string) {}

  read(value: unknown, sink: FragmentSink): void {
    if (this.done) return;
    if (value === "[DONE]") {
      this.endDetails(sink);
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
        this.endDetails(sink);
        this.calls.flush(sink);
        this.finished = true;
        sink.stop(null, finishOf(choice.finish_reason));
      }
    }
    const usage = usageIn(chunk);
    if (usage !== undefined) sink.stop(usageOf(usage), null);
  }

  end(sink: FragmentSink): void {
    // a finish reason and then a clean end of the body is the provider's end too (servers that omit [DONE], SPEC §9)
    if (!this.done && !this.finished) throw truncated("its finish_reason or [DONE]");
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
      this.toolCalls(delta.tool_calls, sink);
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
      const details = (this.details ??= []);
      const before = details.length;
      addDetail(details, entry);
      // held until the run ends: counted against the limits as it arrives (SPEC §9)
      const chars = stringChars(entry);
      this.detailsHeld[0] += chars;
      this.detailsHeld[1] += details.length - before;
      sink.hold(chars, details.length - before);
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
    this.calls.interrupt(); // (a live tool call ends where another item begins: tool-calls.ts)
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
    sink.hold(-this.detailsHeld[0], -this.detailsHeld[1]);
    this.detailsHeld[0] = this.detailsHeld[1] = 0;
    this.calls.interrupt();
    sink.item({ type: "thinking.delta", thinking: "", fidelity: { reasoning_details: entries } }, `${DETAILS_FIELD}.${this.runs++}`);
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

/** The characters of an entry's string members (what merging it keeps). */
function stringChars(entry: Record<string, unknown>): number {
  let n = 0;
  for (const v of Object.values(entry)) if (typeof v === "string") n += v.length;
  return n;
}
