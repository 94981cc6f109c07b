/**
 * The framing stages as the MMSP reader reads (what `UniEventStream` does below its decoder), for a
 * pipe of stages that must read exactly as it does: strict UTF-8 (rule `UTF8`), an SSE message or
 * NDJSON line cut by the end of the body still handed out (flagged, so a body cut right after the
 * stop event or inside the final `[DONE]` reads cleanly), long base64 strings of inline items decoded
 * while they arrive (NDJSON), and a body that holds no event explained (`NOT-A-STREAM`: an HTML page,
 * a JSON document, the other format, compressed bytes…). The explanation (diagnose.ts) is why these
 * are classes of their own: the general-purpose stages do not carry it.
 */
import { bodyExplainer } from "../diagnose.js";
import { CoreStream } from "../internal/core-stream.js";
import { resolveLimits } from "../internal/limits.js";
import { BODY_CONTEXT, checkOptions, MMSP_NDJSON_DECODER_OPTIONS, MMSP_SSE_DECODER_OPTIONS } from "../internal/options.js";
import { parseJson, recordValueAt } from "../decode/record.js";
import { INLINE_DATA_CAPTURE } from "./base64-capture.js";
import { type BodyContext, NdjsonFramer } from "./framer.js";
import { NdjsonDecoderCore, type NdjsonDecoderOptions } from "./ndjson.js";
import { SseDecoderCore, type SseDecoderOptions, type SseMessage } from "./sse.js";

/** Options of `MmspSseDecoderStream`: a size limit, who is blamed, and the stream options. */
export type MmspSseDecoderOptions = Omit<SseDecoderOptions, "mmsp">;
/** Options of `MmspNdjsonDecoderStream`: limits, who is blamed, and the stream options. */
export type MmspNdjsonDecoderOptions = Omit<NdjsonDecoderOptions, "mmsp">;

/**
 * Bytes → SSE messages `{data, event?, id?}`, read as the MMSP reader (`UniEventStream`) reads them,
 * so that this stage chained with `UniEventDecoderStream` and `MessageAssemblerStream` gives exactly
 * its events and errors (see the module's header for how that differs from `SseDecoderStream`).
 *
 * @example
 * ```ts
 * const events = response.body!
 *   .pipeThrough(new MmspSseDecoderStream({}, { contentType: response.headers.get("content-type") }))
 *   .pipeThrough(new UniEventDecoderStream())
 *   .pipeThrough(new MessageAssemblerStream());
 * ```
 */
export class MmspSseDecoderStream extends CoreStream<Uint8Array, SseMessage> {
  /**
   * Checks the options and the context (a `TypeError` / `RangeError` naming a wrong one) and makes the stream.
   * @param options see the options type
   * @param context what the response said about the body (`Content-Type`, `Content-Encoding`): with it,
   *   the diagnosis of a body that is no stream names them (`fromResponse` passes them for you)
   */
  constructor(options: MmspSseDecoderOptions = {}, context: BodyContext = {}) {
    checkOptions("MmspSseDecoderStream", options, MMSP_SSE_DECODER_OPTIONS);
    checkOptions("MmspSseDecoderStream", context, BODY_CONTEXT, "MmspSseDecoderStream: context");
    const how = { strictUtf8: true, keepUnterminated: true, explain: bodyExplainer(context, "sse") };
    super(new SseDecoderCore("MmspSseDecoderStream", options, how), options);
  }
}

/**
 * Bytes → one JSON object (an event) per line that is not blank, read as the MMSP reader
 * (`UniEventStream`) reads them: a line that is not a JSON object is rule `JSON`, and what
 * `NdjsonDecoderStream` does not do (see the module's header) is done.
 *
 * @example
 * ```ts
 * const events = response.body!.pipeThrough(new MmspNdjsonDecoderStream()).pipeThrough(new UniEventDecoderStream());
 * ```
 */
export class MmspNdjsonDecoderStream extends CoreStream<Uint8Array, unknown> {
  /**
   * Checks the options and the context (a `TypeError` / `RangeError` naming a wrong one) and makes the stream.
   * @param options see the options type
   * @param context what the response said about the body (`Content-Type`, `Content-Encoding`): with it,
   *   the diagnosis of a body that is no stream names them (`fromResponse` passes them for you)
   */
  constructor(options: MmspNdjsonDecoderOptions = {}, context: BodyContext = {}) {
    checkOptions("MmspNdjsonDecoderStream", options, MMSP_NDJSON_DECODER_OPTIONS);
    checkOptions("MmspNdjsonDecoderStream", context, BODY_CONTEXT, "MmspNdjsonDecoderStream: context");
    const client = options.client ?? "upstream";
    const { maxEventBytes, maxDepth } = resolveLimits(options);
    const f = new NdjsonFramer({
      stage: "MmspNdjsonDecoderStream",
      client,
      maxEventBytes,
      strictUtf8: true,
      keepUnterminated: true,
      capture: INLINE_DATA_CAPTURE,
      explain: bodyExplainer(context, "ndjson"),
    });
    const diagnosis = () => f.recordDiagnosis();
    const parse = (text: string, captured: Uint8Array | undefined) =>
      recordValueAt(parseJson(text, f.index, f.unterminated, diagnosis), captured, maxDepth, f.index, f.unterminated, diagnosis);
    super(new NdjsonDecoderCore(f, parse, client), options);
  }
}
