/**
 * The reading steps after framing, written once and composed by both paths: the fused reader calls
 * them for every record its framer hands out; the decoding and grammar stages call them for every
 * record or event that reaches them through a pipe. Each step locates its failures (located.ts) from
 * a `Locator`: the framer itself in the fused reader, a record's tagged position in the stages.
 */
import { DONE, SKIP, UniEventDecoder } from "../decode/uni-event.js";
import type { Grammar } from "../assemble/grammar.js";
import { limitError, nestsDeeper } from "../internal/limits.js";
import type { UniEvent } from "../schema.js";
import { endFailure, failure, type LastEvent } from "./located.js";
import { type Locator, whereOf } from "./locator.js";
import { parseStep } from "./parse-step.js";

export { type Locator, whereOf };
export { DONE, SKIP };

/** Records → UniEvents (or `DONE` / `SKIP`), failures located. */
export class DecodeStep {
  constructor(
    readonly decoder: UniEventDecoder,
    private readonly client: string,
  ) {}

  /** An SSE message's data. */
  sse(data: string, captured: Uint8Array | undefined, loc: Locator): UniEvent | typeof DONE | typeof SKIP {
    if (UniEventDecoder.isDone(data, loc.unterminated)) return DONE;
    return this.value(parseStep(data, captured, loc, Infinity, this.client), loc, false);
  }

  /**
   * A record's text (an SSE message's data, an NDJSON line); `diagnosis` says what the body is when
   * its first record does not parse. Its nesting is bounded by the check, which walks only what the
   * schema leaves open (the same error as `parseRecordAt`'s, in the same place).
   */
  record(
    text: string,
    captured: Uint8Array | undefined,
    loc: Locator,
    diagnosis?: () => { detail: string } | undefined,
  ): UniEvent | typeof SKIP {
    return this.value(parseStep(text, captured, loc, Infinity, this.client, diagnosis), loc, false);
  }

  /**
   * Bounds the nesting of a value that did not come through `parseRecordAt` (an event from your own
   * source): the same limit, the same error.
   */
  depth(value: unknown, loc: Locator): void {
    const max = this.decoder.maxDepth;
    if (nestsDeeper(value, max)) throw failure(limitError("maxDepth", max, "the nesting of the event"), this.client, loc);
  }

  /** A parsed record (`bounded`: its nesting checked already). */
  value(value: Record<string, unknown>, loc: Locator, bounded = true): UniEvent | typeof SKIP {
    try {
      return this.decoder.value(value, loc.index, bounded);
    } catch (e) {
      throw failure(e, this.client, loc);
    }
  }
}

/** UniEvents through the grammar, failures located; the last event is kept (by its locator) for the end. */
export class GrammarStep {
  constructor(
    readonly grammar: Grammar,
    private readonly client: string,
  ) {}

  push(event: UniEvent, loc: Locator, emit: (event: UniEvent) => void): void {
    try {
      this.grammar.push(event, emit);
    } catch (e) {
      throw failure(e, this.client, loc);
    }
    loc.keepEnd();
  }

  /** The input ended; `last` is the last event kept (undefined when none came). */
  end(last: () => LastEvent | undefined, emit: (event: UniEvent) => void): void {
    try {
      this.grammar.end(emit);
    } catch (e) {
      throw endFailure(e, this.client, last());
    }
  }
}
