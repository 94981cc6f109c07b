/**
 * What a provider's event reader is: the one part of a provider that knows its stream. It reads the
 * provider's records (each SSE `data`, parsed) and writes only the fragments of SPEC §5 — delta items
 * tagged with the provider's own item key (which becomes `fidelity.item_id`), and usage and finish
 * reason in pieces. The grammar, every `.done`, the stop event and the stream's errors are the
 * package's assemble mode's (assemble/assembler.ts), so a provider file never restates a rule of the
 * stream (STYLE.md, "Provider conversion").
 */
import type { DeltaItem, FinishReason, UsageMetadata } from "../schema.js";

/** Where an event reader writes. */
export interface FragmentSink {
  /**
   * One fragment of the answer. `key` names the provider's item it belongs to (an Anthropic block
   * index, a Responses `item_id` + part, a Gemini part's place…): a new key begins a new item (SPEC §5).
   * `parsed`: a tool call written whole whose `arguments` text the reader made by `JSON.stringify(parsed)`
   * (Gemini's `args`): its `.done` may take that value rather than parse the text again.
   */
  item(item: DeltaItem, key: string, parsed?: Record<string, unknown>): void;
  /** Usage members and / or the finish reason, in pieces: a non-null member overwrites the one before (SPEC §5). */
  stop(usage: Partial<UsageMetadata> | null, finish: FinishReason | null): void;
  /** Something of the answer that has no UniEvent kind was skipped (a server-side tool block…): said, not fatal. */
  warn(message: string): void;
  /**
   * Why the provider stopped, in its own words (`stop_reason "refusal"`, a blocked prompt…): should
   * the answer hold no content, its `EmptyResponseError` names this reason instead of "no content
   * other than thinking" (SPEC §9). Said before the stream's end; the last one said counts.
   */
  reason(text: string): void;
  /**
   * What the reader holds back to write later (Chat tool calls waiting for their turn, a Gemini
   * call's streamed arguments): `chars` characters and `items` items more, as they arrive; negative
   * when it lets them go. Throws `StreamLimitError` the moment what is held passes `maxEventBytes`
   * or `maxItems` (SPEC §9), so a reader counts before it keeps.
   */
  hold(chars: number, items: number): void;
}

/**
 * A provider's stream, one record at a time. Throws a typed error (`UpstreamError` for an error the
 * provider sent inside its stream, `EmptyResponseError`, `StreamProtocolError`) and the reader
 * locates it; what it wrote before stays delivered.
 */
export interface EventReader {
  /** One record: an SSE message's `data` parsed as JSON (`"[DONE]"` is passed as that string). */
  read(value: unknown, sink: FragmentSink): void;
  /** The body ended: write what was held (OpenAI Chat's tool calls), or throw when the provider's own end never came. */
  end(sink: FragmentSink): void;
  /**
   * Counts the provider sent that the reader holds back until its end (Gemini's, on each chunk, the
   * turn's so far), for the stream's `reportedUsage` before the end. Optional: a reader that writes
   * counts as they come (`sink.stop(usage, null)`) has none held.
   */
  usageSoFar?(): Partial<UsageMetadata> | null;
}
