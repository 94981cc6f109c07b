/**
 * The `message` of a reading stream wired to its shell, one way for every reader (`UniEventStream`,
 * `UniEventBatchStream`, `MessageAssemblerStream`): it resolves when the stream closes cleanly and
 * rejects with the very error the readable errors with (SPEC §7), and awaiting it while nobody reads
 * drains the stream.
 */
import type { UniMessage } from "../schema.js";
import type { CoreStreamHooks, CoreStreamOptions } from "./core-stream.js";
import { MessagePromise } from "./message-promise.js";

export interface ReaderMessage {
  message: MessagePromise<UniMessage>;
  /** The hooks to give the stream shell. */
  hooks: CoreStreamHooks;
  /** Names the stream `message` drains (call it once the stream exists). */
  drains(stream: { drain(): boolean }): void;
}

/** `result()`: the message the grammar built, asked for once the stream has closed cleanly. */
export function readerMessage(options: CoreStreamOptions, result: () => UniMessage | undefined): ReaderMessage {
  let target: { drain(): boolean } | undefined;
  const message = new MessagePromise<UniMessage>(() => void target?.drain());
  return {
    message,
    hooks: {
      signal: options.signal,
      idleTimeoutMs: options.idleTimeoutMs,
      onError: (e) => message.reject(e),
      onClose: () => message.resolve(result()!),
    },
    drains: (stream) => {
      target = stream;
    },
  };
}
