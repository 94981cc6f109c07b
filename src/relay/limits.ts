// The relay's bounds, each a variable with a default (README, "Bounds"), and the checks of a POST
// body made before anything is forwarded: JSON only (415: a cross-site form posts text/plain with no
// preflight), and at most MAX_BODY_BYTES, counted while the body streams in (413; a Content-Length
// is not trusted alone: a chunked body has none, and a client may lie).
import { joinBytes } from "../internal/bytes.js";
import { mediaType } from "../internal/media-type.js";
import { seconds } from "./resume.js";
import { refusal } from "./http.js";

/** The variables the bounds are read from (each unset, empty or invalid: its default). */
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
  /** Seconds an ended stream stays resumable (default 300). */
  STREAM_TTL_S?: string;
  /** Seconds without a client reading (pulling its answer) after which a stream stops its upstream (default 60). */
  ABANDON_S?: string;
}

/**
 * The relay's bounds and lifetimes, as `createRelay({ limits })` takes them: each one given here wins
 * over its variable (in parentheses), which wins over the default.
 */
export interface RelayLimits {
  /** Request body limit in bytes, 413 past it (MAX_BODY_BYTES; 50 MiB, as MMSP's own server). */
  maxBodyBytes?: number;
  /** A stream's longest life in seconds, then StreamLimitExceeded (MAX_STREAM_S; 1800). */
  maxStreamSeconds?: number;
  /** Events a stream may store, then StreamLimitExceeded (MAX_EVENTS; 100 000). */
  maxEvents?: number;
  /** Bytes of event JSON a stream may store, then StreamLimitExceeded (MAX_STREAM_BYTES; 256 MiB). */
  maxStreamBytes?: number;
  /** Clients connected to one stream at a time, 429 past it (MAX_CLIENTS; 32). */
  maxClients?: number;
  /** Seconds an ended stream stays resumable (STREAM_TTL_S; 300). */
  streamTtlSeconds?: number;
  /** Seconds without a client reading after which a live stream stops its upstream, StreamAbandoned (ABANDON_S; 60). */
  abandonSeconds?: number;
}

/** The bounds in effect (milliseconds and counts). */
export interface Limits {
  bodyBytes: number;
  streamMs: number;
  events: number;
  streamBytes: number;
  clients: number;
  ttlMs: number;
  abandonMs: number;
}

const MiB = 1024 * 1024;

/** A whole number from a variable, or the default when unset or not a positive whole number. */
function count(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** A positive whole number given as an option, or undefined. */
const given = (n: number | undefined): number | undefined => (n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined);
/** A number of seconds (>= 0) given as an option, or undefined. */
const givenSeconds = (n: number | undefined): number | undefined => (n !== undefined && Number.isFinite(n) && n >= 0 ? n : undefined);

/** The bounds in effect: `options` first, then the variables of `env`, then the defaults. */
export function limits(env: LimitsEnv, options: RelayLimits = {}): Limits {
  return {
    bodyBytes: given(options.maxBodyBytes) ?? count(env.MAX_BODY_BYTES, 50 * MiB),
    streamMs: (givenSeconds(options.maxStreamSeconds) ?? seconds(env.MAX_STREAM_S, 1800)) * 1000,
    events: given(options.maxEvents) ?? count(env.MAX_EVENTS, 100_000),
    streamBytes: given(options.maxStreamBytes) ?? count(env.MAX_STREAM_BYTES, 256 * MiB),
    clients: given(options.maxClients) ?? count(env.MAX_CLIENTS, 32),
    ttlMs: (givenSeconds(options.streamTtlSeconds) ?? seconds(env.STREAM_TTL_S, 300)) * 1000,
    abandonMs: (givenSeconds(options.abandonSeconds) ?? seconds(env.ABANDON_S, 60)) * 1000,
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
