// The stream object's event log as the stream tests read a stored stream back through it
// (door-encoding.test.ts, door-sealing.test.ts, door-bytes.test.ts): the stored events' rows (their
// wire JSON, a final error as its own row), sliced as the event log slices them; and the same stream as
// the stateless path takes it. One copy of each stub.
import { encodeWireEvent } from "../../../../src/encode/wire-event.ts";
import { fromWireError, toWireError } from "../../../../src/errors.ts";
import type { UniEvent } from "../../../../src/index.ts";
import type { EventLog } from "../../../../src/relay/stream/event-log.ts";
import type { Framer } from "../../../../src/relay/stream/resume.ts";

type Json = Record<string, any>;

/**
 * A log of `events` stored (and `error`, an Anthropic error document, stored last as the relay stores
 * a stream's error), each slice up to `perSlice` rows framed (the event log gives every small event at once).
 */
export function storedLog(events: UniEvent[], { error = null, perSlice = 64 }: { error?: Json | null; perSlice?: number } = {}): EventLog {
  const rows = events.map(encodeWireEvent);
  if (error) rows.push(JSON.stringify({ error: toWireError(fromWireError({ error }, null, "anthropic")) }));
  return {
    count: rows.length,
    slice(seq: number, _part: number, framer: Framer) {
      let text = "";
      for (let n = 0; n < perSlice && seq < rows.length; n++, seq++) text += framer.head(seq) + rows[seq] + framer.tail;
      return { text, seq, part: 0 };
    },
  } as unknown as EventLog;
}

/** The same stream as the stateless path takes it: the events, then the error (an Anthropic error document) raised as a provider reader raises it. */
export function takenEvents(events: UniEvent[], error: Json | null = null): ReadableStream<UniEvent> {
  let i = 0;
  return new ReadableStream<UniEvent>({
    pull(c) {
      if (i < events.length) c.enqueue(events[i++]!);
      else if (error) c.error(fromWireError({ error }, null, "anthropic"));
      else c.close();
    },
  });
}
