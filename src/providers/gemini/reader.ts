/**
 * Gemini's `streamGenerateContent?alt=sse` stream (one `GenerateContentResponse` per SSE message) →
 * the fragments of SPEC §5. Gemini gives a part no identity, so the reader keys the items itself:
 * consecutive text parts (or thought parts, or chunks of one audio stream) are one item; every
 * function call, image and thought image is an item of its own; a second signature begins a new
 * item, so each `thoughtSignature` stays with the part that carried it, byte for byte (on an empty
 * text part, on a function call: only the first of parallel calls has one, prism-php/prism #830).
 */
import { UpstreamError } from "../../errors.js";
import { Fault } from "../../internal/fault.js";
import { isRecord } from "../../internal/values.js";
import type { DeltaItem, UsageMetadata } from "../../schema.js";
import type { EventReader, FragmentSink } from "../event-reader.js";
import { eventObject, truncated } from "../wire.js";
import { bytesOf, text } from "../wire-values.js";
import { finishOf, usageOf } from "./maps.js";
import { PartialArgs } from "./partial-args.js";

type Rec = Record<string, unknown>;

/** A function call whose arguments are streaming (`willContinue`), written when it ends. */
interface StreamedCall {
  name: string;
  id: string;
  signature: string | undefined;
  args: PartialArgs;
  /** Characters of its `partialArgs` held (counted against the limits until it is written). */
  held: number;
}

/** Whether `id` is one the reader made for a call of `name` without one (`GeminiReader.idOf`): it goes back to Gemini without an id. */
export function isMadeId(id: string, name: string): boolean {
  return id === name || (id.startsWith(`${name}_`) && /^[1-9]\d*$/.test(id.slice(name.length + 1)));
}

/** Gemini's event reader (one per stream). */
export class GeminiReader implements EventReader {
  /** The item streaming now: its key (a counter) and what continues it. */
  private key = 0;
  private kind: string | undefined;
  private signed = false;
  /** The turn made a function call (Gemini's `STOP` is then `tool_call`). */
  private called = false;
  /** A candidate's finishReason (or the prompt's block) came: the provider's own end. */
  private ended = false;
  private streamed: StreamedCall | undefined;
  /** The last chunk's usage. */
  private usage: UsageMetadata | null = null;
  /** The calls' ids so far (a call without one gets one made from its name: `idOf`). */
  private readonly ids = new Set<string>();

  constructor(private readonly client: string) {}

  read(value: unknown, sink: FragmentSink): void {
    if (value === "[DONE]") return;
    const chunk = eventObject(value);
    if (isRecord(chunk.error)) throw streamError(chunk.error, this.client);
    const candidate = Array.isArray(chunk.candidates) && isRecord(chunk.candidates[0]) ? chunk.candidates[0] : undefined;
    if (candidate) {
      const parts = isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
      for (const part of parts) if (isRecord(part)) this.part(part, sink);
      if (typeof candidate.finishReason === "string" && candidate.finishReason) {
        this.flush(sink);
        this.closeThought(sink);
        this.ended = true;
        const finish = finishOf(candidate.finishReason, this.called);
        if (finish === "unknown") {
          const message = typeof candidate.finishMessage === "string" && candidate.finishMessage ? `: ${candidate.finishMessage}` : "";
          sink.reason(`Gemini stopped the candidate with finishReason ${candidate.finishReason}${message}`);
        }
        sink.stop(null, finish);
      }
    }
    const feedback = isRecord(chunk.promptFeedback) ? chunk.promptFeedback : undefined;
    if (feedback && typeof feedback.blockReason === "string" && feedback.blockReason) {
      // a blocked prompt has no candidate at all: this chunk is the stream's end
      const message = typeof feedback.blockReasonMessage === "string" && feedback.blockReasonMessage
        ? `: ${feedback.blockReasonMessage}`
        : "";
      sink.reason(`Gemini blocked the prompt with blockReason ${feedback.blockReason}${message}`);
      this.ended = true;
      sink.stop(null, "unknown");
    }
    // each chunk's counts are the whole turn's so far: the last one counts whole (a member it leaves
    // out must not keep an earlier chunk's value, as the sink's merge would)
    this.usage = usageOf(chunk.usageMetadata) ?? this.usage;
  }

  end(sink: FragmentSink): void {
    if (!this.ended || this.streamed) throw truncated("a candidate's finishReason");
    if (this.usage !== null) sink.stop(this.usage, null);
  }

  usageSoFar(): UsageMetadata | null {
    return this.usage;
  }

  private part(part: Rec, sink: FragmentSink): void {
    const signature = typeof part.thoughtSignature === "string" && part.thoughtSignature ? part.thoughtSignature : undefined;
    if (isRecord(part.functionCall)) return this.functionCall(part.functionCall, signature, sink);
    this.flush(sink);
    const thought = part.thought === true;
    if (typeof part.text === "string") {
      // a response ends on an empty text part, which carries something only when it brings a signature
      if (!part.text && !signature) return;
      const item: DeltaItem = thought ? { type: "thinking.delta", thinking: part.text } : { type: "text.delta", text: part.text };
      return this.put(item, thought ? "thought" : "text", false, signature, sink);
    }
    if (isRecord(part.inlineData)) {
      const mime = text(part.inlineData.mimeType) || "application/octet-stream";
      const data = bytesOf(part.inlineData.data ?? "", "an inlineData part's data");
      if (thought) return this.put({ type: "inline_thinking.delta", data, mime_type: mime }, "thought image", true, signature, sink);
      // each image is an item of its own; the chunks of one audio stream join
      const image = mime.toLowerCase().startsWith("image/");
      return this.put({ type: "inline_data.delta", data, mime_type: mime }, `data ${mime.toLowerCase()}`, image, signature, sink);
    }
    const kind = Object.keys(part).find((k) => k !== "thoughtSignature" && k !== "thought") ?? "empty";
    sink.warn(`skipped a Gemini part of kind ${JSON.stringify(kind)}: it has no UniEvent kind`);
  }

  /** One fragment of the item `kind` names: a new item when the kind changes, when `begins`, or for a second signature. */
  private put(item: DeltaItem, kind: string, begins: boolean, signature: string | undefined, sink: FragmentSink, parsed?: Rec): void {
    if (begins || kind !== this.kind || (signature !== undefined && this.signed)) {
      this.closeThought(sink);
      this.key++;
      this.kind = kind;
      this.signed = false;
    }
    if (signature !== undefined) {
      (item as { fidelity?: Rec }).fidelity = kind === "thought" ? { signature, summary: true } : { signature };
      this.signed = true;
    }
    sink.item(item, String(this.key), parsed);
  }

  /**
   * Gemini's thoughts are summaries (SPEC §9): a thought item's fidelity says `summary: true`, with its
   * signature when one came, else alone as the item ends (a later signature then begins a new item).
   */
  private closeThought(sink: FragmentSink): void {
    if (this.kind !== "thought" || this.signed) return;
    this.signed = true;
    sink.item({ type: "thinking.delta", thinking: "", fidelity: { summary: true } }, String(this.key));
  }

  private functionCall(call: Rec, signature: string | undefined, sink: FragmentSink): void {
    const name = text(call.name);
    const partial = Array.isArray(call.partialArgs) ? call.partialArgs : [];
    if (name) {
      this.flush(sink);
      const id = text(call.id) || this.idOf(name);
      this.ids.add(id);
      if (call.willContinue !== true && partial.length === 0) {
        // generateContent sends a call whole: one fragment
        this.called = true;
        const args = isRecord(call.args) ? call.args : {};
        const item: DeltaItem = { type: "tool_call.delta", name, tool_call_id: id, arguments: JSON.stringify(args) };
        return this.put(item, "call", true, signature, sink, args);
      }
      this.streamed = { name, id, signature, args: new PartialArgs(call.args), held: 0 };
    } else if (this.streamed === undefined) {
      if (partial.length === 0) return; // the empty call that ends a streamed one
      throw new Fault("TOOL-HEADER", "a functionCall's partialArgs continue no function call (the first chunk of a call names it)");
    }
    const open = this.streamed!;
    open.signature ??= signature;
    for (const arg of partial) {
      // counted before it is kept: a path and its string value (a number, a boolean: a few characters)
      const chars = isRecord(arg) ? text(arg.jsonPath).length + text(arg.stringValue).length + 8 : 0;
      sink.hold(chars, 0);
      open.held += chars;
      open.args.add(arg);
    }
    if (call.willContinue !== true) this.flush(sink);
  }

  /**
   * The id of a call Gemini sent without one (SPEC §9): its function's name for the first such call,
   * `<name>_2`, `<name>_3`… for the next (the first of those not taken in the message), so it is
   * unique in the message and the same each time the stream is read (geminiCallId names it back).
   */
  private idOf(name: string): string {
    let id = name;
    for (let k = 2; this.ids.has(id); k++) id = `${name}_${k}`;
    return id;
  }

  /** Writes the streamed call that is open, now whole. */
  private flush(sink: FragmentSink): void {
    const call = this.streamed;
    if (call === undefined) return;
    this.streamed = undefined;
    sink.hold(-call.held, 0);
    this.called = true;
    this.put(
      { type: "tool_call.delta", name: call.name, tool_call_id: call.id, arguments: call.args.json() },
      "call",
      true,
      call.signature,
      sink,
    );
  }
}

/** An error Gemini wrote inside its stream (`{"error": {"code", "message", "status"}}`): its status as the type. */
function streamError(error: Rec, client: string): UpstreamError {
  const errorType = typeof error.status === "string" && error.status ? error.status : null;
  const status = typeof error.code === "number" && Number.isInteger(error.code) ? error.code : null;
  const message = typeof error.message === "string" && error.message ? error.message : (errorType ?? "unknown error");
  return new UpstreamError({ client, status, errorType, error, message });
}
