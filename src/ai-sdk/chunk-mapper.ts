/**
 * The mapping of checked UniEvents to UI message chunks, as a small synchronous core (the stream
 * shell is ui-message-chunk-stream.ts). MMSP's grammar makes it one-to-one: groups never
 * interleave and each closes with its `.done`, so every group is one AI SDK part with one id.
 *
 *   text.delta+ text.done              text-start, text-delta…, text-end
 *   thinking.delta+ thinking.done      reasoning-start, reasoning-delta…, reasoning-end
 *   tool_call.delta+ tool_call.done    tool-input-start, tool-input-delta…, tool-input-available
 *   inline_data.delta+ .done           file (a data: URL), when the .done arrives
 *   inline_thinking.delta+ .done       reasoning-file (a data: URL), when the .done arrives
 *   embedding.delta embedding.done     data-embedding
 *   stop                               finish (reason mapped; usage in messageMetadata.mmsp)
 *
 * An item's fidelity goes out as `providerMetadata.mmsp` on the chunk that completes the part (the
 * `-end`, `tool-input-available`, `file`): the `.done` carries the group's fidelity (FIDELITY-EQUAL),
 * so no fragment's fidelity is lost, and the AI SDK keeps the last providerMetadata it saw.
 */
import type { ContentItem, FinishReason, UniEvent } from "../index.js";
import { KINDS } from "../schema.js";
import { toDataUrl } from "./data-url.js";
import type { JSONValue, MmspMessageMetadata, ProviderMetadata, UIFinishReason, UIMessageChunk } from "./types.js";

const FINISH_REASONS: Record<FinishReason, UIFinishReason> = {
  stop: "stop",
  length: "length",
  tool_call: "tool-calls",
  unknown: "other",
};

const KIND_SET: ReadonlySet<string> = /*#__PURE__*/ new Set(KINDS);

/** `{ mmsp: fidelity }`, or undefined for an absent, null or empty fidelity (they mean the same). */
export function fidelityMetadata(fidelity: unknown): ProviderMetadata | undefined {
  if (fidelity === null || typeof fidelity !== "object" || Array.isArray(fidelity)) return undefined;
  if (Object.keys(fidelity).length === 0) return undefined;
  return { mmsp: fidelity as Record<string, JSONValue> };
}

type Emit = (chunk: UIMessageChunk) => void;

export class ChunkMapper {
  /** The open group: its kind and the id its chunks share. */
  private open: { kind: string; id: string } | null = null;
  /** Index of the next item in the message (part ids are `<kind>-<index>`: unique in the message). */
  private index = 0;
  /** True once the stop event went out as `finish`. */
  finished = false;

  constructor(private readonly messageId: string) {}

  start(emit: Emit): void {
    emit({ type: "start", messageId: this.messageId });
  }

  /** One checked event; throws a TypeError on input that is not a checked MMSP stream. */
  push(event: UniEvent, emit: Emit): void {
    if (this.finished) throw new TypeError("UIMessageChunkStream: an event after the stop event");
    if (event === null || typeof event !== "object" || !Array.isArray(event.content_items)) {
      throw new TypeError("UIMessageChunkStream: the input must be UniEvents (pipe a UniEventStream into it)");
    }
    if (event.event_type === "stop") return this.stop(event, emit);
    for (const item of event.content_items) this.item(item, emit);
  }

  private stop(event: UniEvent, emit: Emit): void {
    if (this.open) throw new TypeError(`UIMessageChunkStream: the stop event came while a ${this.open.kind} item was open`);
    if (event.usage_metadata === null || event.finish_reason === null) {
      throw new TypeError("UIMessageChunkStream: a stop event without usage_metadata or finish_reason");
    }
    const metadata: MmspMessageMetadata = {
      mmsp: { usage_metadata: { ...event.usage_metadata }, finish_reason: event.finish_reason },
    };
    if (event.created_at !== undefined) metadata.mmsp.created_at = event.created_at;
    emit({ type: "finish", finishReason: FINISH_REASONS[event.finish_reason] ?? "other", messageMetadata: metadata });
    this.finished = true;
  }

  private item(item: ContentItem, emit: Emit): void {
    const dot = item.type.lastIndexOf(".");
    const kind = item.type.slice(0, dot);
    const phase = item.type.slice(dot + 1);
    if (!KIND_SET.has(kind) || (phase !== "delta" && phase !== "done")) {
      throw new TypeError(`UIMessageChunkStream: an item of type ${JSON.stringify(item.type)} cannot stream`);
    }
    if (this.open !== null && this.open.kind !== kind) {
      throw new TypeError(`UIMessageChunkStream: a ${item.type} while a ${this.open.kind} item was open`);
    }
    if (phase === "delta") this.delta(item, kind, emit);
    else if (this.open === null) throw new TypeError(`UIMessageChunkStream: a ${item.type} without its deltas`);
    else this.done(item, this.open.id, emit);
  }

  private delta(item: ContentItem, kind: string, emit: Emit): void {
    let id = this.open?.id;
    const first = id === undefined;
    switch (item.type) {
      case "text.delta":
        id ??= `text-${this.index}`;
        if (first) emit({ type: "text-start", id });
        if (item.text !== "") emit({ type: "text-delta", id, delta: item.text });
        break;
      case "thinking.delta":
        id ??= `reasoning-${this.index}`;
        if (first) emit({ type: "reasoning-start", id });
        if (item.thinking !== "") emit({ type: "reasoning-delta", id, delta: item.thinking });
        break;
      case "tool_call.delta":
        id ??= item.tool_call_id;
        if (first) emit({ type: "tool-input-start", toolCallId: id, toolName: item.name });
        if (item.arguments !== "") emit({ type: "tool-input-delta", toolCallId: id, inputTextDelta: item.arguments });
        break;
      default:
        // media and embeddings: one part when the .done brings the whole value
        id ??= `${kind}-${this.index}`;
    }
    this.open = { kind, id };
  }

  private done(item: ContentItem, id: string, emit: Emit): void {
    const providerMetadata = "fidelity" in item ? fidelityMetadata(item.fidelity) : undefined;
    const meta = providerMetadata ? { providerMetadata } : {};
    switch (item.type) {
      case "text.done":
        emit({ type: "text-end", id, ...meta });
        break;
      case "thinking.done":
        emit({ type: "reasoning-end", id, ...meta });
        break;
      case "tool_call.done":
        emit({ type: "tool-input-available", toolCallId: item.tool_call_id, toolName: item.name, input: item.arguments, ...meta });
        break;
      case "inline_data.done":
        emit({ type: "file", url: toDataUrl(item.data, item.mime_type), mediaType: item.mime_type, ...meta });
        break;
      case "inline_thinking.done":
        emit({ type: "reasoning-file", url: toDataUrl(item.data, item.mime_type), mediaType: item.mime_type, ...meta });
        break;
      case "embedding.done":
        emit({ type: "data-embedding", id, data: { embedding: item.embedding } });
        break;
      default:
        throw new TypeError(`UIMessageChunkStream: an item of type ${JSON.stringify(item.type)} cannot stream`);
    }
    this.open = null;
    this.index++;
  }
}
