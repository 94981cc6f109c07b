/**
 * The line-level Server-Sent Events parser of the WHATWG standard ("Interpreting an event stream"),
 * as a tiny pure core: one line in (without its terminator), at most one message out. The line
 * splitting, UTF-8 decoding and the BOM are the framer's; this only interprets fields.
 *
 * As `EventSource` does: `data` lines join with LF; a blank line dispatches the message when it has
 * data (else it only resets the event type); the last event id persists across messages (a message
 * without `id:` keeps the previous one; `id:` with a NUL is ignored); unknown fields are ignored (`retry:` too: a stream has no reconnection delay to set);
 * a line `ï»¿data: x` after the first is the field `ï»¿data`, not a BOM.
 */

export interface SseMessage {
  /** The joined `data` lines. */
  data: string;
  /** The `event:` field, when the message had a non-empty one. */
  event?: string;
  /** The last event id (`EventSource.lastEventId`) when it is not empty. */
  id?: string;
}

export class SseParser {
  private data = "";
  private dataLines = 0;
  private eventType = "";
  /** The last event id buffer: it is not reset between messages. */
  lastEventId = "";

  /** A field line (not blank, not a comment). */
  field(line: string): void {
    // The line of nearly every message, `data:…`, read without slicing out and comparing the field's
    // name (a fresh string per line, compared by content in the switch below).
    if (line.charCodeAt(4) === 58 /* : */ && line.startsWith("data")) {
      const value = line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
      this.data = this.dataLines++ === 0 ? value : this.data + "\n" + value;
      return;
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
    switch (name) {
      case "data":
        this.data = this.dataLines++ === 0 ? value : this.data + "\n" + value;
        break;
      case "event":
        this.eventType = value;
        break;
      case "id":
        if (value.indexOf("\u0000") === -1) this.lastEventId = value;
        break;
    }
  }

  /** A blank line: the message it completes, if it had data. */
  dispatch(): SseMessage | undefined {
    if (this.dataLines === 0) {
      this.eventType = "";
      return undefined;
    }
    const message: SseMessage = { data: this.data };
    if (this.eventType !== "") message.event = this.eventType;
    if (this.lastEventId !== "") message.id = this.lastEventId;
    this.data = "";
    this.dataLines = 0;
    this.eventType = "";
    return message;
  }
}
