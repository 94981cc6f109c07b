/**
 * The chunk checks of the streams: a stage that reads bytes given text or objects (or one that
 * takes records given bytes) says which stage is missing from the pipe, instead of failing later.
 */
import { describeValue } from "./describe.js";

/** The error for a chunk that is not bytes, or undefined when it is a `Uint8Array` (a `Buffer` is one). */
export function bytesChunkError(chunk: unknown, stageName: string): TypeError | undefined {
  // (a Uint8Array of another realm, an iframe or a vm context, is not `instanceof` ours, still bytes)
  if (chunk instanceof Uint8Array || (ArrayBuffer.isView(chunk) && Object.prototype.toString.call(chunk) === "[object Uint8Array]")) {
    return undefined;
  }
  const isObject = typeof chunk === "object" && chunk !== null;
  const fix = typeof chunk === "string"
    ? "a string: remove the TextDecoderStream (or other text step) before it and pipe the bytes in as they came (response.body), or encode text with .pipeThrough(new TextEncoderStream())"
    : chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk)
    ? `${describeValue(chunk)}: wrap it as new Uint8Array(buffer) (a view of the same bytes) before writing it`
    : typeof chunk === "number"
    ? "a number: write the bytes as Uint8Array chunks, not one number at a time"
    : isObject && "event_type" in chunk
    ? "a UniEvent object: it is already decoded; pipe it into MessageAssemblerStream (events in), not a stage that reads bytes"
    : isObject && "data" in chunk
    ? "an object (an SSE message?): records go into UniEventDecoderStream; this stage wants the raw bytes of the body"
    : `${describeValue(chunk)}: pipe the body's bytes in (response.body), or encode text with .pipeThrough(new TextEncoderStream())`;
  return new TypeError(`${stageName} reads bytes (Uint8Array chunks), but was given ${fix}`);
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
