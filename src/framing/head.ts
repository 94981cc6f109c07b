/**
 * The first bytes of a body, kept while its chunks pass, for the explainer a reader may be given
 * (the MMSP reader's diagnosis, diagnose.ts): what a body was when it held no record is judged from
 * them after the failure, so the framing itself never carries the diagnosis.
 */

/** How many of the first bytes are kept for the explainer. */
export const HEAD_BYTES = 1024;

/** Keeps the first `HEAD_BYTES` of a body and counts them all. Copies at most 1 KiB, once. */
export class BodyHead {
  private readonly kept = new Uint8Array(HEAD_BYTES);
  /** The bytes seen so far. */
  totalBytes = 0;

  push(chunk: Uint8Array): void {
    if (this.totalBytes < HEAD_BYTES) this.kept.set(chunk.subarray(0, HEAD_BYTES - this.totalBytes), this.totalBytes);
    this.totalBytes += chunk.length;
  }

  /** The first bytes (a copy). */
  bytes(): Uint8Array {
    return this.kept.slice(0, Math.min(this.totalBytes, HEAD_BYTES));
  }
}

/** Bytes as hex pairs, `1f 8b 08` (`between: ""`: one hex string, as a digest or an id is written). */
export const hexBytes = (bytes: Uint8Array, between = " "): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(between);
