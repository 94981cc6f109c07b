// The Open Responses door: issue #47 "Speed" (its answer in the stream's object written as bytes).
//
// The encoder core as the door runs it where a kept stream's events are: its delta events (a text,
// a summary, an argument fragment of the open item, with no provider data: nearly all of a stream's
// events) written straight as UTF-8 from the open item's own templates (`head` + sequence number +
// `mid` + the fragment's JSON + `tail`, the text `push` frames: stream/utf8-out.ts), the core's state
// advanced as `push` advances it; every other event through `push` as text. A delta event is never
// terminal, so the encoding's `settle` (the response kept before its terminal event: sealing.ts) never
// waits for one: the bytes path may run beside it. The bytes are the text's
// (test/unit/relay/stream/door-bytes.test.ts). Here, not in the public encoder: the package's
// OpenResponsesEncoderStream writes text and keeps its size.
import { type Open, OpenResponsesEncoderCore, type OpenResponsesEncoderOptions } from "../../../encode/open-responses.js";
import type { OpenResponsesEvent } from "../../../encode.js";
import type { UniEvent } from "../../../schema.js";
import { utf8Of, type Utf8Out, type WritesInto } from "../../stream/utf8-out.js";

/** The Open Responses encoder core, framed (its deltas' text made at once), with its delta events written as bytes (`pushInto`). */
export class ResponsesBytesCore extends OpenResponsesEncoderCore implements WritesInto {
  /** The open item's delta templates (its `mid`, which names it, says whose), as bytes: made once per item. */
  private mid = "";
  private bytes: { head: Uint8Array; mid: Uint8Array; tail: Uint8Array } | null = null;

  constructor(options: OpenResponsesEncoderOptions, finish: (e: OpenResponsesEvent) => void) {
    super(options, false, true, finish);
  }

  /**
   * An event of one fragment of the open item written as `push` writes it: its one delta event (a text,
   * a known summary, an argument fragment after the call's first), or nothing (an empty fragment, a
   * thinking not yet known a summary or not — held —, a custom tool's input — written whole at its
   * end —), the item's state kept as `push` keeps it; false for any other event (nothing written).
   */
  pushInto(event: UniEvent, out: Utf8Out): boolean {
    const o = this.open;
    if (o === null || this.ended || event.event_type === "stop" || event.content_items.length !== 1) return false;
    const item = event.content_items[0]!;
    if ("fidelity" in item && item.fidelity !== undefined) return false; // (a summary's mark: `push` decides)
    let text: string;
    switch (item.type) {
      case "text.delta":
        text = item.text;
        break;
      case "thinking.delta":
        text = item.thinking;
        break;
      case "tool_call.delta":
        text = item.arguments;
        break;
      default:
        return false;
    }
    if (!text) return true; // (`push` writes nothing for an empty fragment)
    switch (o.kind) {
      case "text":
        break;
      case "thinking":
        if (o.summary === undefined) {
          o.text += text;
          o.held.push(text); // (its part opens, and its fragments go out, once it is known a summary or not)
          return true;
        }
        break;
      case "tool_call":
        if (o.deltas === 0) return false; // (the call's first fragment: `push` keeps its JSON for the done events)
        o.deltas++;
        break;
      case "custom":
        o.text += text;
        return true;
    }
    o.text += text;
    this.write(o, out, text);
    return true;
  }

  /** One delta event of `o`: `head` + sequence number + `mid` + the fragment's JSON + `tail`. */
  private write(o: Open, out: Utf8Out, text: string): void {
    if (this.mid !== o.mid || this.bytes === null) {
      this.mid = o.mid;
      this.bytes = { head: utf8Of(o.head), mid: utf8Of(o.mid), tail: utf8Of(o.tail) };
    }
    const bytes = this.bytes;
    out.bytes(bytes.head);
    out.int(this.seq++);
    out.bytes(bytes.mid);
    out.json(text);
    out.bytes(bytes.tail);
  }
}
