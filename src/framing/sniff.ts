/**
 * `format: "auto"`'s one rule, in its one place: the fused reader asks it before it makes a framer
 * (uni-event-stream.ts; `fromResponse` and `fromFetch` read through it). The first byte that is not whitespace, after a leading UTF-8 BOM,
 * tells the format — `{` is NDJSON, anything else SSE (`data:`, `:`, `event:` …). Chunks may split the
 * BOM anywhere.
 */
import type { WireFormat } from "./framer.js";

const isSpace = (b: number): boolean => b === 32 || b === 9 || b === 10 || b === 13;
const BOM = [0xef, 0xbb, 0xbf];

export class FormatSniffer {
  /** Bytes of a leading BOM seen so far (3: all of it; -1: the input does not start with one). */
  private bomMatched = 0;
  private seen = 0;

  /** @param maxBytes whitespace this long without an end decides SSE (nothing is held without bound) */
  constructor(private readonly maxBytes: number) {}

  /** The format, once the bytes so far tell it; undefined while only whitespace (or a BOM) came. */
  push(chunk: Uint8Array): WireFormat | undefined {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.bomMatched >= 0 && this.bomMatched < 3) {
        if (b === BOM[this.bomMatched]) {
          this.bomMatched++;
          continue;
        }
        if (this.bomMatched > 0) return "sse"; // the start of something else
        this.bomMatched = -1;
      }
      if (!isSpace(b)) return b === 0x7b /* { */ ? "ndjson" : "sse";
    }
    this.seen += chunk.length;
    return this.seen >= this.maxBytes ? "sse" : undefined;
  }

  /** The input ended before it told (empty, or only whitespace): SSE, whose reader says what it was. */
  end(): WireFormat {
    return "sse";
  }
}
