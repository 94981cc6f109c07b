/**
 * `UIMessageChunkStream`: checked UniEvents in, AI SDK UI message chunks out (the mapping is in
 * chunk-mapper.ts), as a `{ readable, writable }` pair for `pipeThrough`.
 *
 * Why not a `TransformStream`: an error on its writable side errors its readable, and the AI SDK
 * wants the opposite: a failed stream still ends as a stream, with an `error` chunk and then the end,
 * so `useChat` shows the error instead of a broken connection. Hence a small shell:
 * - backpressure: a write waits until the reader has taken the chunks of the previous one;
 * - an error on the writable side (`writer.abort(e)`, an erroring source piped in: a protocol
 *   violation, an upstream error event, a dropped connection) → one `error` chunk, then the end;
 * - input that is not a checked MMSP stream → the same, and the write fails (the source is cancelled);
 * - cancelling the readable errors the writable, so a pipe into it cancels its source (the upstream).
 */
import type { UniEvent } from "../index.js";
import { CHUNK_OBJECTS, ChunkMapper } from "./chunk-mapper.js";
import { checkOptions, FUNCTION, NON_EMPTY_STRING, type OptionSpec } from "../internal/options.js";
import { generateMessageId } from "./ids.js";
import type { UIMessageChunk } from "./types.js";

/** Options of `UIMessageChunkStream`. */
export interface UIMessageChunkStreamOptions {
  /** The assistant message's id (the `start` chunk's `messageId`). Default: a random `msg-…` id. */
  messageId?: string;
  /**
   * The `errorText` of the `error` chunk for a failure. Default: the error's message (MMSP errors
   * are written for people: `upstream broke the streaming protocol: …`). Return something generic
   * here to keep details from a browser.
   */
  onError?: (error: unknown) => string;
}

const OPTIONS: OptionSpec = { messageId: NON_EMPTY_STRING, onError: FUNCTION };

/** The `error` chunk's text of a failure: its message (or name), else the value as text. */
export function defaultErrorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Turns a checked MMSP stream into the AI SDK's UI message stream.
 *
 * @example
 * ```ts
 * import { fromResponse } from "mmsp-streams";
 * import { UIMessageChunkStream, toUIMessageStreamResponse } from "mmsp-streams/ai-sdk";
 *
 * const { readable } = fromResponse(await fetch(`${MMSP}/stream`, { method: "POST", body }));
 * return toUIMessageStreamResponse(readable.pipeThrough(new UIMessageChunkStream()));
 * ```
 */
export class UIMessageChunkStream implements ReadableWritablePair<UIMessageChunk, UniEvent> {
  /** The UI message chunks: `start`, the parts' chunks, then `finish` (or `error`). */
  readonly readable: ReadableStream<UIMessageChunk>;
  /** Where the checked UniEvents go in (a `UniEventStream`'s or `fromResponse`'s readable). */
  readonly writable: WritableStream<UniEvent>;
  /** The `start` chunk's message id. */
  readonly messageId: string;

  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one) and makes the stream. */
  constructor(options?: UIMessageChunkStreamOptions) {
    checkOptions("UIMessageChunkStream", options, OPTIONS);
    const o: UIMessageChunkStreamOptions = options ?? {};
    const onError = o.onError ?? defaultErrorText;
    this.messageId = o.messageId ?? generateMessageId();
    const mapper = new ChunkMapper(this.messageId, CHUNK_OBJECTS);

    let rc!: ReadableStreamDefaultController<UIMessageChunk>;
    let wc!: WritableStreamDefaultController;
    let over = false; // the readable is closed or cancelled: nothing more goes out
    let wakeWriter: (() => void) | null = null;
    const wake = (): void => {
      const w = wakeWriter;
      wakeWriter = null;
      w?.();
    };
    const emit = (chunk: UIMessageChunk): void => {
      if (!over) rc.enqueue(chunk);
    };
    const end = (): void => {
      if (over) return;
      over = true;
      rc.close();
      wake();
    };
    const fail = (error: unknown): void => {
      let errorText: string;
      try {
        errorText = String(onError(error));
      } catch {
        errorText = defaultErrorText(error);
      }
      emit({ type: "error", errorText });
      end();
    };

    this.readable = new ReadableStream<UIMessageChunk>(
      {
        start: (c) => {
          rc = c;
          mapper.start(emit);
        },
        pull: wake,
        cancel: (reason) => {
          over = true;
          wc.error(reason ?? new DOMException("The UI message stream was cancelled", "AbortError"));
          wake();
        },
      },
      { highWaterMark: 0 },
    );
    this.writable = new WritableStream<UniEvent>(
      {
        start: (c) => {
          wc = c;
        },
        write: (event) => {
          if (over) return;
          try {
            mapper.push(event, emit);
          } catch (error) {
            fail(error);
            throw error;
          }
          if (mapper.finished) return end();
          if ((rc.desiredSize ?? 0) < 0) return new Promise<void>((resolve) => (wakeWriter = resolve));
        },
        close: () => {
          if (!mapper.finished) fail(new TypeError("UIMessageChunkStream: the input ended before its stop event"));
          end();
        },
        abort: (reason) => fail(reason),
      },
      { highWaterMark: 1 },
    );
  }
}
