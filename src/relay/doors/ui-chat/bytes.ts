// The useChat door: issue #47 "Speed" (its answer in the stream's object written as bytes).
//
// The chunk mapper as the door runs it where a kept chat's events are: a text, reasoning or tool-input
// fragment of the open part (one event, one SSE `data:` record) written straight as UTF-8 from the same
// template CHUNK_SSE writes it from (sseDeltaHead, SSE_DELTA_TAIL: the part's head made bytes once per
// part, the fragment JSON-escaped, stream/utf8-out.ts), every other event through `push` as text. The
// bytes are the text's (test/unit/relay/stream/door-bytes.test.ts). The answer is no SSE with event
// ids (the AI SDK resumes a chat from its start); the writer would place one (stream/encoding.ts). Here, not in the package's UIMessageChunkStream, which builds chunk objects.
import {
  CHUNK_SSE,
  ChunkMapper,
  type ChunkOut,
  type DeltaType,
  type Open,
  SSE_DELTA_TAIL,
  sseDeltaHead,
} from "../../../ai-sdk/chunk-mapper.js";
import type { UniEvent } from "../../../schema.js";
import { utf8Of, type Utf8Out } from "../../stream/utf8-out.js";

const TAIL = utf8Of(SSE_DELTA_TAIL);

/** CHUNK_SSE, remembering the delta head of the part opened last (while a part with deltas is open: its own). */
class SseRecords implements ChunkOut<string> {
  head = "";
  readonly chunk = CHUNK_SSE.chunk;
  deltas(type: DeltaType, id: string): (delta: string) => string {
    this.head = sseDeltaHead(type, id);
    return CHUNK_SSE.deltas(type, id);
  }
}

/** The chunk mapper writing SSE records, its open part's fragments also as bytes (`pushInto`). */
export class UiChatBytesMapper extends ChunkMapper<string> {
  /** The open part whose head `head` is (made again when another part opens). */
  private headOf: Open<string> | null = null;
  private head: Uint8Array = new Uint8Array(0);

  constructor(messageId: string, private readonly records = new SseRecords()) {
    super(messageId, records);
  }

  /**
   * An event of one fragment of the open text, reasoning or tool-input part written as `push` writes
   * its delta record (none for an empty fragment); false for any other event (nothing written).
   */
  pushInto(event: UniEvent, out: Utf8Out): boolean {
    const open = this.open;
    if (open === null || this.finished || event.event_type === "stop") return false;
    if (event.content_items.length !== 1) return false;
    const item = event.content_items[0]!;
    let fragment: string;
    switch (item.type) {
      case "text.delta":
        if (open.kind !== "text") return false;
        fragment = item.text;
        break;
      case "thinking.delta":
        if (open.kind !== "thinking") return false;
        fragment = item.thinking;
        break;
      case "tool_call.delta":
        if (open.kind !== "tool_call") return false;
        fragment = item.arguments;
        break;
      default:
        return false; // (a part's end, a media item, an error to throw: `push`)
    }
    if (fragment === "") return true;
    if (open !== this.headOf) {
      this.head = utf8Of(this.records.head);
      this.headOf = open;
    }
    out.bytes(this.head);
    out.json(fragment);
    out.bytes(TAIL);
    return true;
  }
}
