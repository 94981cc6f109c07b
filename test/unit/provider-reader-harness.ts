// Drives a provider's EventReader without any stream around it: each SSE message's data parsed and
// read, the fragments it writes recorded and fed through the package's assembler (assemble mode), so
// the test sees both what the reader wrote and the public stream it makes.
import { createGrammar } from "../../src/assemble/grammar.ts";
import { HeldBudget } from "../../src/internal/limits.ts";
import type { EventReader, FragmentSink } from "../../src/providers/event-reader.ts";
import type { DeltaItem, FinishReason, UniEvent, UniMessage, UsageMetadata } from "../../src/schema.ts";

/** The data of each SSE message of `body` (LF or CRLF), as the framer would pass them. */
export function sseData(body: string): string[] {
  return body.split(/\r?\n\r?\n/).flatMap((message) => {
    const data = message.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, ""));
    return data.length > 0 ? [data.join("\n")] : [];
  });
}

export interface Run {
  /** What the reader wrote, in order: fragments with their key, stops. */
  fragments: { item: DeltaItem; key: string }[];
  stops: { usage: Partial<UsageMetadata> | null; finish: FinishReason | null }[];
  warnings: string[];
  reason: string | undefined;
  /** The public stream the assembler made of them. */
  events: UniEvent[];
  message: UniMessage | undefined;
  error: unknown;
}

/** Reads `body` with `reader`; the first error stops the run (as in a stream), what came before is kept. */
export function runReader(reader: EventReader, body: string): Run {
  const grammar = createGrammar("assemble", "provider", { maxItems: 1000, maxDepth: 64 });
  const run: Run = { fragments: [], stops: [], warnings: [], reason: undefined, events: [], message: undefined, error: undefined };
  const emit = (e: UniEvent): void => void run.events.push(e);
  const event = (type: "delta" | "stop", items: DeltaItem[], usage: unknown, finish: FinishReason | null): UniEvent =>
    ({ role: "assistant", event_type: type, content_items: items, usage_metadata: usage, finish_reason: finish }) as UniEvent;
  const held = new HeldBudget({ maxEventBytes: 64 * 1024 * 1024, maxItems: 1000 });
  const sink: FragmentSink = {
    item(item, key) {
      run.fragments.push({ item, key });
      grammar.push(event("delta", [{ ...item, fidelity: { ...(item as { fidelity?: object }).fidelity, item_id: key } } as DeltaItem], null, null), emit);
    },
    stop(usage, finish) {
      run.stops.push({ usage, finish });
      grammar.push(event("stop", [], usage, finish), emit);
    },
    warn: (message) => void run.warnings.push(message),
    reason: (text) => void (run.reason = text),
    hold: (chars, items) => held.hold(chars, items),
  };
  try {
    for (const data of sseData(body)) reader.read(data === "[DONE]" ? data : JSON.parse(data), sink);
    reader.end(sink);
    grammar.end(emit);
    run.message = grammar.message;
  } catch (e) {
    run.error = e;
  }
  return run;
}

/** The public stream's items, each as `type` + its one content member (for short assertions). */
export const itemsOf = (events: UniEvent[]): unknown[] =>
  events.filter((e) => e.event_type === "delta").map((e) => e.content_items[0]);

/** Re-reads a public stream with the package's validator (SPEC §3, §4): throws when it breaks a rule; its message. */
export function validated(events: UniEvent[]): UniMessage | undefined {
  const v = createGrammar("validate", "check", { maxItems: 1000, maxDepth: 64 });
  for (const e of events) v.push(e, () => {});
  v.end(() => {});
  return v.message;
}
