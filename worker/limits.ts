// The relay's bounds, each a variable with a default (README, "Bounds"), and the checks of a POST
// body made before anything is forwarded: JSON only (415: a cross-site form posts text/plain with no
// preflight), and at most MAX_BODY_BYTES, counted while the body streams in (413; a Content-Length
// is not trusted alone: a chunked body has none, and a client may lie).
import { joinBytes } from "../src/internal/bytes.ts";
import { mediaType } from "../src/internal/media-type.ts";
import { seconds } from "./resume.ts";
import { refusal } from "./stream.ts";

export interface LimitsEnv {
  /** Request body limit, bytes (default 50 MiB, as MMSP's own server). */
  MAX_BODY_BYTES?: string;
  /** A stream's longest life, seconds (default 1800). */
  MAX_STREAM_S?: string;
  /** Events a stream may store (default 100 000). */
  MAX_EVENTS?: string;
  /** Bytes of event JSON a stream may store (default 256 MiB). */
  MAX_STREAM_BYTES?: string;
  /** Clients connected to one stream at a time (default 32); one more is a 429. */
  MAX_CLIENTS?: string;
}

export interface Limits {
  bodyBytes: number;
  streamMs: number;
  events: number;
  streamBytes: number;
  clients: number;
}

const MiB = 1024 * 1024;

/** A whole number from a variable, or the default when unset or not a positive whole number. */
function count(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

export function limits(env: LimitsEnv): Limits {
  return {
    bodyBytes: count(env.MAX_BODY_BYTES, 50 * MiB),
    streamMs: seconds(env.MAX_STREAM_S, 1800) * 1000,
    events: count(env.MAX_EVENTS, 100_000),
    streamBytes: count(env.MAX_STREAM_BYTES, 256 * MiB),
    clients: count(env.MAX_CLIENTS, 32),
  };
}

/** `application/json`, with or without parameters (`; charset=utf-8`): the package's one Content-Type reading. */
export function isJson(contentType: string | null): boolean {
  return mediaType(contentType) === "application/json";
}

/**
 * A POST's body, checked: its bytes, or the refusal to answer (415 when it is not application/json,
 * 413 past `maxBytes`; reading stops there). An empty body is allowed (the replay's default model).
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | Response> {
  if (!isJson(request.headers.get("content-type"))) {
    return refusal(415, "InvalidRequestError", "The request body must be JSON: send it with Content-Type: application/json.");
  }
  const tooLarge = (): Response =>
    refusal(413, "InvalidRequestError", `Request body is too large (the limit is ${maxBytes} bytes, MAX_BODY_BYTES).`);
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) return tooLarge();
  if (!request.body) return new Uint8Array(new ArrayBuffer(0));
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel("request body too large").catch(() => {});
      return tooLarge();
    }
    parts.push(value);
  }
  return joinBytes(parts, size) as Uint8Array<ArrayBuffer>;
}
