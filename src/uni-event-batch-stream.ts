/**
 * `UniEventBatchStream`: `UniEventStream` read in batches — the same reader (the same core, checks,
 * order, errors, `message` and `snapshot()`), its readable giving one array of events per input
 * chunk instead of one event per `read()`.
 */
import { BatchingCore } from "./internal/batching-core.js";
import { ReaderStream } from "./internal/reader-stream.js";
import { BODY_CONTEXT, checkOptions, READER_OPTIONS } from "./internal/options.js";
import type { UniEvent } from "./schema.js";
import { type BodyContext, UniEventCore, type UniEventStreamOptions } from "./uni-event-stream.js";

/**
 * Bytes of an MMSP stream → arrays of checked UniEvents: each array holds the events one input chunk
 * completed (never empty; the end of the input may complete one more), so a 16 KiB chunk of chat costs one `read()` instead of ~100. Everything
 * else is `UniEventStream`'s: the options, the checks, the error after every valid event (the events
 * before it arrive as the last array), `message` and `snapshot()`. Worth it where a `read()` is dear:
 * see `bench/RESULTS.md` (Chromium and workerd).
 *
 * @example
 * ```ts
 * import { UniEventBatchStream } from "mmsp-streams";
 *
 * const stop = {
 *   role: "assistant", event_type: "stop", content_items: [], finish_reason: "stop",
 *   usage_metadata: { cached_tokens: 0, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 },
 * };
 * const delta = (type: string) => ({ role: "assistant", event_type: "delta", content_items: [{ type, text: "Hi" }], usage_metadata: null, finish_reason: null });
 * const body = [delta("text.delta"), delta("text.done"), stop].map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";
 * const stream = new UniEventBatchStream();
 * for await (const events of new Response(body).body!.pipeThrough(stream)) console.log(events.length, "events");
 * console.log((await stream.message).content_items);
 * ```
 */
export class UniEventBatchStream extends ReaderStream<Uint8Array, UniEvent[]> {
  /**
   * Checks the options and the context (a `TypeError` / `RangeError` naming a wrong one) and makes the stream.
   * @param options see the options type
   * @param context what the response said about the body (`Content-Type`, `Content-Encoding`): with it,
   *   the diagnosis of a body that is no stream names them (`fromResponse` passes them for you)
   */
  constructor(options: UniEventStreamOptions = {}, context: BodyContext = {}) {
    checkOptions("UniEventBatchStream", options, READER_OPTIONS);
    checkOptions("UniEventBatchStream", context, BODY_CONTEXT, "UniEventBatchStream: context");
    const core = new UniEventCore(options, context);
    super(new BatchingCore(core), core, options);
  }
}
