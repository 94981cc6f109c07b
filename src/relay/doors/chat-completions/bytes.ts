// The Chat Completions door: issue #47 "Speed" (its answer in the stream's object written as bytes).
//
// The encoder core as the door runs it where a kept stream's events are: its hot chunks (a text, a
// thinking, an argument fragment, with no provider-bound value) written straight as UTF-8 from the
// core's own templates (stream/utf8-out.ts), every other event through `push` as text. The bytes are
// the text's (test/unit/relay/stream/door-bytes.test.ts). Here, not in the public encoder: the package's
// ChatCompletionsEncoderStream writes text and keeps its size.
import { ChatCompletionsEncoderCore } from "../../../encode/chat-completions.js";
import type { UniEvent } from "../../../schema.js";
import { utf8Of, type Utf8Out, type WritesInto } from "../../stream/utf8-out.js";

type Field = "reasoning_content" | "reasoning";

/** The Chat Completions encoder core with its hot chunks written as bytes (`pushInto`). */
export class ChatBytesCore extends ChatCompletionsEncoderCore implements WritesInto {
  /** The templates' bytes, made at the first `pushInto` (a stateless answer, all text, never makes them). */
  private bytes: { content: Uint8Array; reasoning: Record<Field, Uint8Array>; close: Uint8Array; argumentsTail: Uint8Array } | null = null;
  /** The open call's argument head, and its bytes (made again when a new call changes it). */
  private callHead = "";
  private callHeadBytes: Uint8Array = new Uint8Array(0);

  /** An event of one hot fragment written as `push` writes its one chunk; false for any other (nothing written). */
  pushInto(event: UniEvent, out: Utf8Out): boolean {
    if (this.ended || event.event_type === "stop" || event.content_items.length !== 1) return false;
    const item = event.content_items[0]!;
    if ("fidelity" in item && item.fidelity !== undefined) return false; // (a bound value: `push` writes its own chunk after)
    const bytes = (this.bytes ??= {
      content: utf8Of(this.content),
      reasoning: { reasoning_content: utf8Of(this.reasoning.reasoning_content), reasoning: utf8Of(this.reasoning.reasoning) },
      close: utf8Of(this.close),
      argumentsTail: utf8Of(this.argumentsTail),
    });
    switch (item.type) {
      case "text.delta":
        return chunk(out, bytes.content, item.text, bytes.close);
      case "thinking.delta":
        return chunk(out, bytes.reasoning[this.groupField ?? this.field], item.thinking, bytes.close);
      case "tool_call.delta":
        if (item.name && item.tool_call_id !== this.callId) return false; // (the call's first chunk)
        if (this.callHead !== this.argumentsHead) this.callHeadBytes = utf8Of(this.callHead = this.argumentsHead);
        return chunk(out, this.callHeadBytes, item.arguments, bytes.argumentsTail);
      default:
        return false;
    }
  }
}

/** One hot chunk, `head`, the fragment's JSON, `close`; none for an empty fragment (as `push`). */
function chunk(out: Utf8Out, head: Uint8Array, fragment: string, close: Uint8Array): true {
  if (!fragment) return true;
  out.bytes(head);
  out.json(fragment);
  out.bytes(close);
  return true;
}
