/**
 * The chunk checks of the streams: a stage that reads bytes given text or objects (or one that
 * takes records given bytes) says which stage is missing from the pipe, instead of failing later.
 */
import { describeValue } from "./describe.js";

/** The error for a chunk that is not bytes, or undefined when it is a `Uint8Array` (a `Buffer` is one). */
export function bytesChunkError(chunk: unknown, stageName: string): TypeError | undefined {
  if (chunk instanceof Uint8Array || isForeignUint8Array(chunk)) return undefined;
  const wants = `${stageName} reads bytes (Uint8Array chunks)`;
  let fix: string;
  if (typeof chunk === "string") {
    fix =
      "a string: remove the TextDecoderStream (or other text step) before it and pipe the bytes in as they came (response.body), or encode text with .pipeThrough(new TextEncoderStream())";
  } else if (chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk)) {
    fix = `${describeValue(chunk)}: wrap it as new Uint8Array(buffer) (a view of the same bytes) before writing it`;
  } else if (typeof chunk === "number") fix = "a number: write the bytes as Uint8Array chunks, not one number at a time";
  else if (typeof chunk === "object" && chunk !== null && "event_type" in chunk) {
    fix = "a UniEvent object: it is already decoded; pipe it into MessageAssemblerStream (events in), not a stage that reads bytes";
  } else if (typeof chunk === "object" && chunk !== null && "data" in chunk) {
    fix = "an object (an SSE message?): records go into UniEventDecoderStream; this stage wants the raw bytes of the body";
  } else {fix = `${
      describeValue(chunk)
    }: pipe the body's bytes in (response.body), or encode text with .pipeThrough(new TextEncoderStream())`;}
  return new TypeError(`${wants}, but was given ${fix}`);
}

/**
 * For the stages that take objects (records, events): bytes or text mean a stage is missing before
 * it — the caller's pipe, not the producer, is wrong. Undefined for anything else (its checks follow).
 */
export function textChunkError(chunk: unknown, stageName: string, takes: string, fix: string): TypeError | undefined {
  if (typeof chunk !== "string" && !ArrayBuffer.isView(chunk) && !(chunk instanceof ArrayBuffer)) return undefined;
  const what = typeof chunk === "string" ? `text (${describeValue(chunk)})` : "bytes";
  return new TypeError(`${stageName} takes ${takes}, but was given ${what}: ${fix}`);
}

/** Throws `bytesChunkError` for a chunk that is not bytes. */
export function checkBytesChunk(chunk: unknown, stageName: string): asserts chunk is Uint8Array {
  const error = bytesChunkError(chunk, stageName);
  if (error) throw error;
}

/** A Uint8Array of another realm (an iframe, a vm context): not `instanceof` ours, still bytes. */
function isForeignUint8Array(v: unknown): boolean {
  return ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === "[object Uint8Array]";
}
