// The Anthropic Messages door: issue #47 "Speed" (its answer in the stream's object written as bytes).
//
// The encoder core as the door runs it where a kept stream's events are: a fragment of the open,
// started block (a text, a thinking, a call's partial JSON: one `content_block_delta` record) written
// straight as UTF-8 (stream/utf8-out.ts), its record's head made once per block; every other event
// (a block's start or stop, a thinking that may still be the redacted mark, the stop) through `push`
// as text. The bytes are the text's (test/unit/relay/stream/door-bytes.test.ts). Here, not in the public
// encoder: the package's AnthropicMessagesEncoderStream writes text and keeps its size.
import { AnthropicMessagesEncoderCore, DELTA_END, DELTA_OF, deltaHead, type Open } from "../../../encode/anthropic-messages.js";
import type { UniEvent } from "../../../schema.js";
import { utf8Of, type Utf8Out, type WritesInto } from "../../stream/utf8-out.js";

/** A delta record's end, after its fragment's JSON. */
const CLOSE = utf8Of(DELTA_END);

/** The Messages encoder core with the open block's deltas written as bytes (`pushInto`). */
export class MessagesBytesCore extends AnthropicMessagesEncoderCore implements WritesInto {
  /** The head of the last delta record written as bytes: for which block and item type, and its bytes. */
  private headOf: Open | null = null;
  private headType = "";
  private head: Uint8Array = new Uint8Array(0);

  /** An event of one fragment of the open, started block written as `push` writes its record; false for any other (nothing written). */
  pushInto(event: UniEvent, out: Utf8Out): boolean {
    const o = this.open;
    if (this.ended || o === null || !o.started || event.event_type === "stop" || event.content_items.length !== 1) return false;
    const item = event.content_items[0]!;
    if (item.type !== "text.delta" && item.type !== "thinking.delta" && item.type !== "tool_call.delta") return false;
    const [type, member] = DELTA_OF[item.type];
    const fragment = item.type === "text.delta" ? item.text : item.type === "thinking.delta" ? item.thinking : item.arguments;
    if (fragment === "") return true; // (push writes no record for an empty fragment of a started block)
    if (this.headOf !== o || this.headType !== item.type) {
      this.headOf = o;
      this.headType = item.type;
      this.head = utf8Of(deltaHead(o.index, type, member));
    }
    out.bytes(this.head);
    out.json(fragment);
    out.bytes(CLOSE);
    return true;
  }
}
