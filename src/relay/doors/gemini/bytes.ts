// The Gemini door: issue #47 "Speed" (its answer in the stream's object written as bytes).
//
// The encoder core as the door runs it where a kept stream's events are: its hot chunks (a text or a
// thought fragment with no provider-bound value: no `fidelity`, so no `thoughtSignature`) written
// straight as UTF-8 from the core's own templates (stream/utf8-out.ts), CRLF record ends and all, every
// other event through `push` as text. The bytes are the text's (test/unit/relay/stream/door-bytes.test.ts).
// Here, not in the public encoder: the package's GeminiEncoderStream writes text and keeps its size.
import { GeminiEncoderCore } from "../../../encode/gemini.js";
import type { UniEvent } from "../../../schema.js";
import { utf8Of, type Utf8Out, type WritesInto } from "../../stream/utf8-out.js";

/** The Gemini encoder core with its hot chunks written as bytes (`pushInto`). */
export class GeminiBytesCore extends GeminiEncoderCore implements WritesInto {
  /** The templates' bytes, made at the first `pushInto` (a stateless answer, all text, never makes them). */
  private bytes: { text: Uint8Array; close: Uint8Array; thoughtClose: Uint8Array } | null = null;

  /** An event of one text or thought fragment written as `push` writes its one chunk; false for any other (nothing written). */
  pushInto(event: UniEvent, out: Utf8Out): boolean {
    if (this.ended || event.event_type === "stop" || event.content_items.length !== 1) return false;
    const item = event.content_items[0]!;
    if (item.type !== "text.delta" && item.type !== "thinking.delta") return false;
    if (item.fidelity !== undefined) return false; // (a bound value: `push` writes its thoughtSignature)
    const fragment = item.type === "text.delta" ? item.text : item.thinking;
    if (!fragment) return true; // (as `push`: an empty fragment with no signature is no chunk)
    const bytes = (this.bytes ??= {
      text: utf8Of(this.text),
      close: utf8Of(this.close),
      thoughtClose: utf8Of(this.thought + this.close),
    });
    out.bytes(bytes.text);
    out.json(fragment);
    out.bytes(item.type === "text.delta" ? bytes.close : bytes.thoughtClose);
    return true;
  }
}
