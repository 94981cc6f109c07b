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
 * The mapper writes its chunks through a ChunkOut: the objects (UIMessageChunkStream), or each
 * chunk's SSE record (the relay's useChat door, CHUNK_SSE: a part's delta chunks written from a
 * template made once per part, the fragment alone JSON-escaped, the bytes JSON.stringify writes).
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

/** A streamable item type's kind and phase. */
type TypeOf = { kind: string; delta: boolean };

/** Each streamable item type's kind and phase, found by one lookup (no slicing of the type per item). */
const TYPES: ReadonlyMap<string, TypeOf> = /*#__PURE__*/ new Map(
  KINDS.flatMap((kind): [string, TypeOf][] => [
    [`${kind}.delta`, { kind, delta: true }],
    [`${kind}.done`, { kind, delta: false }],
  ]),
);

/** `{ mmsp: fidelity }`, or undefined for an absent, null or empty fidelity (they mean the same). */
export function fidelityMetadata(fidelity: unknown): ProviderMetadata | undefined {
  if (fidelity === null || typeof fidelity !== "object" || Array.isArray(fidelity)) return undefined;
  if (Object.keys(fidelity).length === 0) return undefined;
  return { mmsp: fidelity as Record<string, JSONValue> };
}

/** The delta chunks' types: a part's hot chunk, one per fragment. */
export type DeltaType = "text-delta" | "reasoning-delta" | "tool-input-delta";

/**
 * How a mapper writes its chunks: as the chunk objects (UIMessageChunkStream), or as the text a server
 * sends (the relay's useChat door: each chunk its SSE record). A part's delta chunks have a writer of
 * their own, made once per part (the id escaped once), since they are nearly every chunk of a stream.
 */
export interface ChunkOut<T> {
  /** A chunk. */
  chunk(chunk: UIMessageChunk): T;
  /** The writer of one part's delta chunks (`id`: the part's id, a tool call's `toolCallId`). */
  deltas(type: DeltaType, id: string): (delta: string) => T;
}

/** The chunks as objects (what UIMessageChunkStream hands on). */
export const CHUNK_OBJECTS: ChunkOut<UIMessageChunk> = {
  chunk: (chunk) => chunk,
  deltas: (type, id) =>
    type === "tool-input-delta" ? (delta) => ({ type, toolCallId: id, inputTextDelta: delta }) : (delta) => ({ type, id, delta }),
};

/**
 * The chunks as SSE `data:` records: `data: <JSON.stringify(chunk)>\n\n`, a delta chunk written from
 * its part's template with only the fragment JSON-escaped (the same bytes: keys in the objects' order).
 */
export const CHUNK_SSE: ChunkOut<string> = {
  chunk: (chunk) => `data: ${JSON.stringify(chunk)}\n\n`,
  deltas: (type, id) => {
    const head = sseDeltaHead(type, id);
    return (delta) => head + JSON.stringify(delta) + SSE_DELTA_TAIL;
  },
};

/**
 * A part's delta record up to its fragment's JSON, and after it: each is `head + JSON.stringify(delta) + tail`
 * (exported for the relay's useChat door, which writes the same records as bytes: relay/doors/ui-chat/bytes.ts).
 */
export const sseDeltaHead = (type: DeltaType, id: string): string =>
  type === "tool-input-delta"
    ? `data: {"type":"tool-input-delta","toolCallId":${JSON.stringify(id)},"inputTextDelta":`
    : `data: {"type":"${type}","id":${JSON.stringify(id)},"delta":`;
export const SSE_DELTA_TAIL = "}\n\n";

type Emit<T> = (chunk: T) => void;

/** The open group: its kind, the id its chunks share, and its delta chunks' writer. */
export interface Open<T> {
  kind: string;
  id: string;
  delta: ((delta: string) => T) | undefined;
}

export class ChunkMapper<T = UIMessageChunk> {
  /** The open group (protected: the relay's useChat door reads it to write a fragment as bytes, relay/doors/ui-chat/bytes.ts). */
  protected open: Open<T> | null = null;
  /** Index of the next item in the message (part ids are `<kind>-<index>`: unique in the message). */
  private index = 0;
  /** True once the stop event went out as `finish`. */
  finished = false;

  constructor(private readonly messageId: string, private readonly out: ChunkOut<T>) {}

  start(emit: Emit<T>): void {
    emit(this.out.chunk({ type: "start", messageId: this.messageId }));
  }

  /** One checked event; throws a TypeError on input that is not a checked MMSP stream. */
  push(event: UniEvent, emit: Emit<T>): void {
    if (this.finished) throw new TypeError("UIMessageChunkStream: an event after the stop event");
    if (event === null || typeof event !== "object" || !Array.isArray(event.content_items)) {
      throw new TypeError("UIMessageChunkStream: the input must be UniEvents (pipe a UniEventStream into it)");
    }
    if (event.event_type === "stop") return this.stop(event, emit);
    for (const item of event.content_items) this.item(item, emit);
  }

  private stop(event: UniEvent, emit: Emit<T>): void {
    if (this.open) throw new TypeError(`UIMessageChunkStream: the stop event came while a ${this.open.kind} item was open`);
    if (event.usage_metadata === null || event.finish_reason === null) {
      throw new TypeError("UIMessageChunkStream: a stop event without usage_metadata or finish_reason");
    }
    const metadata: MmspMessageMetadata = {
      mmsp: { usage_metadata: { ...event.usage_metadata }, finish_reason: event.finish_reason },
    };
    if (event.created_at !== undefined) metadata.mmsp.created_at = event.created_at;
    emit(this.out.chunk({ type: "finish", finishReason: FINISH_REASONS[event.finish_reason] ?? "other", messageMetadata: metadata }));
    this.finished = true;
  }

  private item(item: ContentItem, emit: Emit<T>): void {
    const type = TYPES.get(item.type);
    if (type === undefined) {
      throw new TypeError(`UIMessageChunkStream: an item of type ${JSON.stringify(item.type)} cannot stream`);
    }
    const open = this.open;
    if (open !== null && open.kind !== type.kind) {
      throw new TypeError(`UIMessageChunkStream: a ${item.type} while a ${open.kind} item was open`);
    }
    if (type.delta) {
      if (open === null) this.first(item, type.kind, emit);
      else if (open.delta !== undefined) this.fragment(item, open.delta, emit);
    } else if (open === null) throw new TypeError(`UIMessageChunkStream: a ${item.type} without its deltas`);
    else this.done(item, open.id, emit);
  }

  /** A group's first fragment: its part opened (its `-start` chunk, its delta writer), then its delta. */
  private first(item: ContentItem, kind: string, emit: Emit<T>): void {
    const { out } = this;
    let open: Open<T>;
    switch (item.type) {
      case "text.delta": {
        const id = `text-${this.index}`;
        open = { kind, id, delta: out.deltas("text-delta", id) };
        emit(out.chunk({ type: "text-start", id }));
        break;
      }
      case "thinking.delta": {
        const id = `reasoning-${this.index}`;
        open = { kind, id, delta: out.deltas("reasoning-delta", id) };
        emit(out.chunk({ type: "reasoning-start", id }));
        break;
      }
      case "tool_call.delta":
        open = { kind, id: item.tool_call_id, delta: out.deltas("tool-input-delta", item.tool_call_id) };
        emit(out.chunk({ type: "tool-input-start", toolCallId: item.tool_call_id, toolName: item.name }));
        break;
      default:
        // media and embeddings: one part when the .done brings the whole value
        open = { kind, id: `${kind}-${this.index}`, delta: undefined };
    }
    this.open = open;
    if (open.delta !== undefined) this.fragment(item, open.delta, emit);
  }

  /** A text, thinking or argument fragment as its part's delta chunk (none for an empty one). */
  private fragment(item: ContentItem, delta: (delta: string) => T, emit: Emit<T>): void {
    const text = item.type === "text.delta"
      ? item.text
      : item.type === "thinking.delta"
      ? item.thinking
      : (item as { arguments: string }).arguments;
    if (text !== "") emit(delta(text));
  }

  private done(item: ContentItem, id: string, emit: Emit<T>): void {
    const providerMetadata = "fidelity" in item ? fidelityMetadata(item.fidelity) : undefined;
    const meta = providerMetadata ? { providerMetadata } : {};
    const { out } = this;
    switch (item.type) {
      case "text.done":
        emit(out.chunk({ type: "text-end", id, ...meta }));
        break;
      case "thinking.done":
        emit(out.chunk({ type: "reasoning-end", id, ...meta }));
        break;
      case "tool_call.done":
        emit(
          out.chunk({ type: "tool-input-available", toolCallId: item.tool_call_id, toolName: item.name, input: item.arguments, ...meta }),
        );
        break;
      case "inline_data.done":
        emit(out.chunk({ type: "file", url: toDataUrl(item.data, item.mime_type), mediaType: item.mime_type, ...meta }));
        break;
      case "inline_thinking.done":
        emit(out.chunk({ type: "reasoning-file", url: toDataUrl(item.data, item.mime_type), mediaType: item.mime_type, ...meta }));
        break;
      case "embedding.done":
        emit(out.chunk({ type: "data-embedding", id, data: { embedding: item.embedding } }));
        break;
      default:
        throw new TypeError(`UIMessageChunkStream: an item of type ${JSON.stringify(item.type)} cannot stream`);
    }
    this.open = null;
    this.index++;
  }
}
