/**
 * `record(response)`: a live answer read into a `Capture`, with when each event arrived. It reads the
 * response it is given as fast as the bytes come: to read the answer yourself too, give it
 * `response.clone()` and read `response` as usual — the two branches of the clone are fed together,
 * and since the recording never waits, your reading is never held back by it.
 */
import { joinBytes } from "../internal/bytes.js";
import { fail } from "../internal/describe.js";
import { checkOptions, oneOf, type OptionSpec } from "../internal/options.js";
import { type Capture, captureFormat } from "./capture.js";
import { bodyEvents } from "./records.js";
import { type ProviderName, PROVIDERS } from "./routes.js";

/** Options of `record`. */
export interface RecordOptions {
  /** Whose stream it is, written into the capture (left out: MMSP). */
  provider?: ProviderName;
  /** The framing of the body's events; default: from `Content-Type`. */
  format?: "sse" | "ndjson";
}

const RECORD_OPTIONS: OptionSpec = { provider: /*#__PURE__*/ oneOf(PROVIDERS), format: /*#__PURE__*/ oneOf(["sse", "ndjson"]) };
/** Headers of the wire (its encoding, its connection), not of the decoded body a Response hands out. */
const WIRE_HEADERS = ["content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"];

const now = (): number => (typeof performance !== "undefined" ? performance.now() : Date.now());

/**
 * Reads `response` to its end into a `Capture`: status, headers (less those of the wire encoding,
 * which the body no longer has), the body's bytes and the time each event arrived (ms after this
 * call). A body that breaks mid-way rejects with its error.
 *
 * @example Record an answer while the app reads it
 * ```ts
 * import { formatCapture, record } from "mmsp-streams/testing";
 *
 * const response = new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
 * const recording = record(response.clone());
 * await response.text(); // the app's own reading
 * console.log(formatCapture(await recording));
 * ```
 */
export async function record(response: Response, options: RecordOptions = {}): Promise<Capture> {
  // (by shape: a Response of another realm or fetch implementation records as well)
  const r = response as { status?: unknown; headers?: { forEach?: unknown } } | null;
  if (typeof r !== "object" || r === null || typeof r.status !== "number" || typeof r.headers?.forEach !== "function") {
    fail(TypeError, "record: the response", "a Response", response);
  }
  checkOptions("record", options, RECORD_OPTIONS);
  if (response.bodyUsed || response.body?.locked) {
    throw new TypeError("record: the response's body was already read; pass response.clone() to record it and read it too");
  }
  const start = now();
  const chunks: Uint8Array[] = [];
  /** The body's length after each chunk, and when that chunk came. */
  const arrivals: [end: number, ms: number][] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      chunks.push(r.value);
      size += r.value.length;
      arrivals.push([size, Math.round(now() - start)]);
    }
  }
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (!WIRE_HEADERS.includes(name)) headers.push([name, value]);
  });
  const capture: Capture = { status: response.status, headers, body: joinBytes(chunks, size) };
  if (options.format) capture.format = options.format;
  if (options.provider) capture.provider = options.provider;
  // an event arrived with the chunk that held its last byte
  let k = 0;
  capture.timing = bodyEvents(capture.body, captureFormat(capture)).ends.map((end) => {
    while (arrivals[k]![0] < end) k++;
    return arrivals[k]![1];
  });
  return capture;
}
