/**
 * A capture: the bytes of one streamed answer with its status and headers, in a file a person reads
 * and diffs. The file is a short header, a blank line, then the body exactly as it came:
 *
 *   mmsp-capture 1
 *   status: 200
 *   format: sse
 *   timing: 0 12 31 48
 *   header: content-type: text/event-stream
 *   body: text
 *
 *   data: {"role":"assistant",…}
 *   …
 *
 * A body that is not UTF-8 (or holds a character a text file cannot keep byte for byte) is written
 * as base64 (`body: base64`, 76 characters a line) so the file stays text; every other body stays as
 * it was, so a diff of two captures is a diff of the streams. A text without the first line is read as
 * a bare body (a `.sse` or `.ndjson` file): status 200, the format told by its first bytes.
 */
import { decodeBase64, encodeBase64 } from "../decode/base64.js";
import { fail } from "../internal/describe.js";
import { isRecord } from "../internal/values.js";
import { mediaType, NDJSON_TYPES } from "../internal/media-type.js";
import { type ProviderName, PROVIDERS } from "./routes.js";

/** One streamed answer: its status, headers and body bytes, and what the body is. */
export interface Capture {
  /** The HTTP status (200 for a stream; a refusal's status otherwise). */
  status: number;
  /** The headers, names lower-cased, in the order they came. */
  headers: [name: string, value: string][];
  /** The framing of the body's events; when left out, told by `content-type` (NDJSON types), else SSE. */
  format?: "sse" | "ndjson";
  /** Whose stream it is: a provider's own (`"anthropic"`…), or left out for MMSP. */
  provider?: ProviderName;
  /** When each event of the body arrived (ms after the answer's headers; one number per event), if recorded. */
  timing?: number[];
  /** The body, byte for byte. */
  body: Uint8Array;
}

const MAGIC = "mmsp-capture 1";
const FORMATS = ["sse", "ndjson"] as const;

/** The framing of a capture's body: its `format`, else its content-type's. */
export function captureFormat(capture: Capture): "sse" | "ndjson" {
  if (capture.format) return capture.format;
  const type = mediaType(capture.headers.find(([name]) => name === "content-type")?.[1]);
  return type !== undefined && NDJSON_TYPES.includes(type) ? "ndjson" : "sse";
}

/** The body as text when a text file keeps it byte for byte (UTF-8, a BOM kept), else undefined. */
function bodyText(body: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return undefined;
  }
}

/**
 * Writes a capture as its text file (see the module's comment): the header lines, a blank line, the
 * body as text when it is UTF-8, else as base64.
 */
export function formatCapture(capture: Capture): string {
  checkCapture(capture, "formatCapture: the capture");
  const lines = [MAGIC, `status: ${capture.status}`];
  if (capture.format) lines.push(`format: ${capture.format}`);
  if (capture.provider) lines.push(`provider: ${capture.provider}`);
  if (capture.timing) lines.push(`timing:${capture.timing.map((t) => ` ${t}`).join("")}`);
  for (const [name, value] of capture.headers) lines.push(`header: ${name}: ${value}`);
  const text = bodyText(capture.body);
  if (text !== undefined) return `${lines.join("\n")}\nbody: text\n\n${text}`;
  const b64 = encodeBase64(capture.body);
  const wrapped = b64.match(/.{1,76}/g)?.join("\n") ?? "";
  return `${lines.join("\n")}\nbody: base64\n\n${wrapped}\n`;
}

const bad = (line: number, what: string): never => {
  throw new SyntaxError(`parseCapture: line ${line}: ${what}`);
};

/**
 * Reads a capture file (what `formatCapture` writes), or a bare SSE / NDJSON body (status 200, the
 * format told by its first non-blank character: `{` is NDJSON). A malformed header is a `SyntaxError`
 * naming its line.
 */
export function parseCapture(text: string): Capture {
  if (typeof text !== "string") fail(TypeError, "parseCapture: the text", "a string (a capture file's text)", text);
  if (!text.startsWith(MAGIC + "\n")) {
    const ndjson = text.trimStart().startsWith("{");
    const type = ndjson ? "application/x-ndjson" : "text/event-stream";
    return { status: 200, headers: [["content-type", type]], format: ndjson ? "ndjson" : "sse", body: new TextEncoder().encode(text) };
  }
  const end = text.indexOf("\n\n");
  if (end === -1) bad(1, "no blank line ends the header");
  const head = text.slice(0, end).split("\n");
  const capture: Capture = { status: 0, headers: [], body: new Uint8Array(0) };
  let encoding: string | undefined;
  for (let i = 1; i < head.length; i++) {
    const line = head[i]!;
    const colon = line.indexOf(": ");
    const key = colon === -1 ? line.replace(/:$/, "") : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 2);
    if (key === "status") {
      if (!/^[1-5][0-9]{2}$/.test(value)) bad(i + 1, `status must be a three-digit HTTP status, not ${JSON.stringify(value)}`);
      capture.status = Number(value);
    } else if (key === "format") {
      if (!(FORMATS as readonly string[]).includes(value)) bad(i + 1, `format must be sse or ndjson, not ${JSON.stringify(value)}`);
      capture.format = value as "sse" | "ndjson";
    } else if (key === "provider") {
      if (!(PROVIDERS as readonly string[]).includes(value)) {
        bad(i + 1, `provider must be one of ${PROVIDERS.join(", ")}, not ${JSON.stringify(value)}`);
      }
      capture.provider = value as ProviderName;
    } else if (key === "timing") {
      const times = value === "" ? [] : value.split(" ").map(Number);
      if (!times.every((t) => Number.isFinite(t) && t >= 0)) bad(i + 1, "timing must be numbers of milliseconds, one per event");
      capture.timing = times;
    } else if (key === "header") {
      const sep = value.indexOf(": ");
      if (sep <= 0) bad(i + 1, `a header line is "header: <name>: <value>", not ${JSON.stringify(line)}`);
      capture.headers.push([value.slice(0, sep).toLowerCase(), value.slice(sep + 2)]);
    } else if (key === "body") {
      if (value !== "text" && value !== "base64") bad(i + 1, `body must be text or base64, not ${JSON.stringify(value)}`);
      encoding = value;
    } else {
      bad(i + 1, `unknown header line ${JSON.stringify(line)} (status, format, provider, timing, header, body)`);
    }
  }
  if (capture.status === 0) bad(1, "no status line");
  if (encoding === undefined) bad(1, "no body line (body: text or body: base64)");
  const rest = text.slice(end + 2);
  if (encoding === "text") capture.body = new TextEncoder().encode(rest);
  else {
    const bytes = decodeBase64(rest.replace(/\s+/g, ""));
    if (!bytes) bad(head.length + 2, "the body is not valid base64");
    capture.body = bytes!;
  }
  return capture;
}

/** A capture's shape, checked where one is taken (a header value with a line break would not survive the file). */
export function checkCapture(capture: unknown, label: string): asserts capture is Capture {
  const c = capture as Partial<Capture>;
  if (!isRecord(capture)) fail(TypeError, label, "a Capture ({ status, headers, body }: parseCapture's or record's)", capture);
  if (!(c.body instanceof Uint8Array)) fail(TypeError, `${label}.body`, "a Uint8Array", c.body);
  if (!Number.isInteger(c.status) || c.status! < 100 || c.status! > 599) {
    fail(RangeError, `${label}.status`, "an HTTP status (100-599)", c.status);
  }
  const header = (h: unknown): boolean =>
    Array.isArray(h) && h.length === 2 && typeof h[0] === "string" && /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(h[0]) &&
    typeof h[1] === "string" && !/[\r\n\0]/.test(h[1]) && h[1] === h[1].trim();
  if (!Array.isArray(c.headers) || !c.headers.every(header)) {
    fail(TypeError, `${label}.headers`, "an array of [name, value] pairs (names lower-case, values on one line, trimmed)", c.headers);
  }
  if (c.format !== undefined && !(FORMATS as readonly string[]).includes(c.format)) {
    fail(RangeError, `${label}.format`, '"sse" or "ndjson"', c.format);
  }
  if (c.provider !== undefined && !(PROVIDERS as readonly string[]).includes(c.provider)) {
    fail(RangeError, `${label}.provider`, `one of ${PROVIDERS.join(", ")}`, c.provider);
  }
  if (
    c.timing !== undefined && !(Array.isArray(c.timing) && c.timing.every((t) => typeof t === "number" && Number.isFinite(t) && t >= 0))
  ) {
    fail(TypeError, `${label}.timing`, "an array of milliseconds (numbers from 0)", c.timing);
  }
}
