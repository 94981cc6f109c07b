/**
 * Anthropic Messages' stream (`message_start`, `content_block_start` / `_delta` / `_stop`,
 * `message_delta`, `message_stop`, `ping`, `error`) → SPEC §5 fragments, each block keyed by its
 * `index`. Thinking signatures (`signature_delta`) and `redacted_thinking` data pass byte for byte as
 * `fidelity.signature`; a thinking block of a model that summarizes its thinking (models.ts, by the
 * model `message_start` names) says `fidelity.summary: true` with its signature; blocks with no UniEvent kind (`server_tool_use`, tool results run by the
 * server…) are skipped with a warning; the stream is whole only at `message_stop`.
 */
import { isRecord } from "../../internal/values.js";
import type { EventReader, FragmentSink } from "../event-reader.js";
import { eventObject, outOfOrder, streamedError, truncated } from "../wire.js";
import { finishOf, usageOf } from "./maps.js";
import { summarizesThinking } from "./models.js";

/** The thinking text MMSP writes for a `redacted_thinking` block (its `data` is the signature). */
export const REDACTED_THINKING = "_REDACTED_THINKING";

/**
 * What a block that began is, for its deltas: a kind the package writes, or skipped. A thinking
 * block's `said`: it wrote a fragment; `marked`: one of them carried its fidelity.
 */
type Block =
  | { kind: "text" | "thinking" | "tool_call"; input?: unknown; deltas: number; said?: boolean; marked?: boolean }
  | { kind: "skipped" };

/** The reader of one Messages stream. */
export class AnthropicReader implements EventReader {
  private readonly blocks = new Map<number, Block>();
  private started = false;
  private stopped = false;
  /** The model `message_start` named gives its thinking as a summary (models.ts): its thinking's fidelity says `summary: true`. */
  private summary: { summary: true } | undefined;

  constructor(private readonly client: string) {}

  read(value: unknown, sink: FragmentSink): void {
    if (value === "[DONE]" || this.stopped) return; // (gateways that add OpenAI's end; nothing counts after message_stop)
    const event = eventObject(value);
    switch (event.type) {
      case "message_start": {
        if (this.started) return sink.warn("a second message_start was ignored (the first one's usage is kept)");
        this.started = true;
        const model = isRecord(event.message) ? event.message.model : undefined;
        if (typeof model === "string" && summarizesThinking(model)) this.summary = { summary: true };
        const usage = isRecord(event.message) ? event.message.usage : undefined;
        if (isRecord(usage)) sink.stop(usageOf(usage, false), null);
        return;
      }
      case "content_block_start":
        return this.begin(event, sink);
      case "content_block_delta":
        return this.delta(event, sink);
      case "content_block_stop":
        return this.close(event, sink);
      case "message_delta": {
        const reason = isRecord(event.delta) ? event.delta.stop_reason : undefined;
        const usage = isRecord(event.usage) ? usageOf(event.usage, true) : null;
        if (typeof reason === "string") {
          const finish = finishOf(reason);
          if (finish === "unknown") sink.reason(`stop_reason ${JSON.stringify(reason)}`);
          sink.stop(usage, finish);
        } else if (usage) sink.stop(usage, null);
        return;
      }
      case "message_stop":
        this.stopped = true;
        return;
      case "error":
        throw streamedError(event.error ?? event, this.client);
      default:
        return; // ping, and event types this version does not know
    }
  }

  end(): void {
    if (!this.stopped) throw truncated("message_stop");
  }

  private index(event: Record<string, unknown>): number {
    const index = event.index;
    if (typeof index !== "number" || !Number.isInteger(index)) throw outOfOrder(`${event.type} without an integer index`);
    return index;
  }

  private begin(event: Record<string, unknown>, sink: FragmentSink): void {
    const index = this.index(event);
    const key = String(index);
    const block = isRecord(event.content_block) ? event.content_block : {};
    if (this.blocks.has(index)) throw outOfOrder(`content_block_start of block ${index}, which had begun already`);
    switch (block.type) {
      case "text":
        this.blocks.set(index, { kind: "text", deltas: 0 });
        if (typeof block.text === "string" && block.text !== "") sink.item({ type: "text.delta", text: block.text }, key);
        return;
      case "thinking": {
        const thinking = typeof block.thinking === "string" ? block.thinking : "";
        const signature = typeof block.signature === "string" && block.signature !== "" ? block.signature : undefined;
        this.blocks.set(index, { kind: "thinking", deltas: 0, said: thinking !== "" || !!signature, marked: !!signature });
        if (thinking !== "" || signature) {
          sink.item({ type: "thinking.delta", thinking, ...(signature ? { fidelity: { signature, ...this.summary } } : {}) }, key);
        }
        return;
      }
      case "redacted_thinking":
        this.blocks.set(index, { kind: "thinking", deltas: 0 });
        sink.item({ type: "thinking.delta", thinking: REDACTED_THINKING, fidelity: { signature: block.data } }, key);
        return;
      case "tool_use":
        this.blocks.set(index, { kind: "tool_call", input: block.input, deltas: 0 });
        sink.item({ type: "tool_call.delta", name: String(block.name ?? ""), tool_call_id: String(block.id ?? ""), arguments: "" }, key);
        return;
      default:
        // kept for the stream's life (its deltas are skipped too) and no item of the message: held
        sink.hold(0, 1);
        this.blocks.set(index, { kind: "skipped" });
        sink.warn(`a ${JSON.stringify(block.type)} content block (no UniEvent kind) was skipped`);
    }
  }

  private delta(event: Record<string, unknown>, sink: FragmentSink): void {
    const index = this.index(event);
    const block = this.blocks.get(index);
    if (block === undefined) throw outOfOrder(`content_block_delta of block ${index}, which never began`);
    if (block.kind === "skipped") return;
    const delta = isRecord(event.delta) ? event.delta : {};
    const key = String(index);
    block.deltas++;
    switch (delta.type) {
      case "text_delta":
        return sink.item({ type: "text.delta", text: String(delta.text ?? "") }, key);
      case "thinking_delta":
        block.said = true;
        return sink.item({ type: "thinking.delta", thinking: String(delta.thinking ?? "") }, key);
      case "signature_delta":
        // the signature as sent: never re-serialised (anthropic-sdk-python #1598)
        block.said = block.marked = true;
        return sink.item({ type: "thinking.delta", thinking: "", fidelity: { signature: delta.signature, ...this.summary } }, key);
      case "input_json_delta":
        return sink.item({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: String(delta.partial_json ?? "") }, key);
      default:
        block.deltas--;
        sink.warn(`a ${JSON.stringify(delta.type)} delta of block ${index} (no UniEvent kind) was skipped`);
    }
  }

  private close(event: Record<string, unknown>, sink: FragmentSink): void {
    const index = this.index(event);
    const block = this.blocks.get(index);
    if (block === undefined) throw outOfOrder(`content_block_stop of block ${index}, which never began`);
    // a summary's thinking that no signature came for (a gateway's): the mark alone, as its fidelity
    if (block.kind === "thinking" && block.said && !block.marked && this.summary) {
      block.marked = true;
      sink.item({ type: "thinking.delta", thinking: "", fidelity: { ...this.summary } }, String(index));
    }
    // a gateway that sends a tool call's input whole in its start (and no deltas): the input is its arguments
    if (block.kind === "tool_call" && block.deltas === 0 && isRecord(block.input) && Object.keys(block.input).length > 0) {
      sink.item({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: JSON.stringify(block.input) }, String(index));
    }
  }
}
