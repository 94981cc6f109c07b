// Admission: SPEC §1 and §8 (a request's and a stream's bounds: body, events, bytes, clients, lifetimes).
//
// The relay's bounds, each a variable with a default (docs/guide/relay.md, "Safe by default"), and the checks of a POST
// body made before anything is forwarded: JSON only (415: a cross-site form posts text/plain with no
// preflight), at most MAX_BODY_BYTES, counted while the body streams in (413; a Content-Length is
// not trusted alone: a chunked body has none, and a client may lie), and within the JSON bounds
// (json-bounds.ts: depth, values, MAX_INLINE_BYTES for one string), scanned as it streams in (400).
// Reading stops at the first bound passed; a refused body goes nowhere.
import { joinBytes } from "../../internal/bytes.js";
import { DEFAULT_LIMITS } from "../../internal/limits.js";
import { boundMessage, type JsonBounds, JsonBoundsScan } from "./json-bounds.js";
import { mediaType } from "../../internal/media-type.js";
import { seconds } from "../stream/resume.js";
import { refusal } from "../refusal.js";
import { ownMembers } from "../../internal/values.js";
import { DEFAULT_MAX_TOKENS } from "../accounting/usage-estimate.js";

/** The variables the bounds are read from (each unset, empty or invalid: its default). */
export interface LimitsEnv {
  /** Request body limit, bytes (default 16 MiB). */
  MAX_BODY_BYTES?: string;
  /** The longest string in a request body, bytes: an inline file's base64 or data: URL (default 12 MiB). */
  MAX_INLINE_BYTES?: string;
  /** A stream's longest life, seconds (default 1800). */
  MAX_STREAM_S?: string;
  /** Events a stream may store (default 100 000). */
  MAX_EVENTS?: string;
  /** Bytes of event JSON a stream may store, and so about what its object holds while it reads (default 32 MiB). */
  MAX_STREAM_BYTES?: string;
  /** The largest event the relay reads from its upstream, bytes (default 16 MiB: a 12 MiB image's `.done` in base64). */
  MAX_EVENT_BYTES?: string;
  /** Clients connected to one stream at a time (default 32); one more is a 429. */
  MAX_CLIENTS?: string;
  /** Seconds an ended stream stays resumable (default 300). */
  STREAM_TTL_S?: string;
  /** Seconds without a client reading (pulling its answer) after which a stream stops its upstream (default 60). */
  ABANDON_S?: string;
  /** The output tokens reserved and asked of the provider when neither the client nor the row sets `max_tokens` (default 16 384). */
  DEFAULT_MAX_TOKENS?: string;
}

/**
 * The relay's bounds and lifetimes, as `createRelay({ limits })` takes them: each one given here wins
 * over its variable (in parentheses), which wins over the default.
 */
export interface RelayLimits {
  /** Request body limit in bytes, 413 past it (MAX_BODY_BYTES; 16 MiB). */
  maxBodyBytes?: number;
  /** The longest string in a request body in bytes, 400 past it (MAX_INLINE_BYTES; 12 MiB: a 9 MiB file in base64). */
  maxInlineBytes?: number;
  /** A stream's longest life in seconds, then StreamLimitExceeded (MAX_STREAM_S; 1800). */
  maxStreamSeconds?: number;
  /** Events a stream may store, then StreamLimitExceeded (MAX_EVENTS; 100 000). */
  maxEvents?: number;
  /**
   * Bytes of event JSON a stream may store, then StreamLimitExceeded (MAX_STREAM_BYTES; 32 MiB). It
   * bounds what the stream's object holds while it reads too: the message being checked.
   */
  maxStreamBytes?: number;
  /** The largest upstream event in bytes, then StreamLimitExceeded (MAX_EVENT_BYTES; 16 MiB). */
  maxEventBytes?: number;
  /** Clients connected to one stream at a time, 429 past it (MAX_CLIENTS; 32). */
  maxClients?: number;
  /** Seconds an ended stream stays resumable (STREAM_TTL_S; 300). */
  streamTtlSeconds?: number;
  /**
   * Seconds without a client reading after which a live stream stops its upstream, StreamAbandoned;
   * also the longest wait for the upstream's headers, UpstreamTimeout (ABANDON_S; 60).
   */
  abandonSeconds?: number;
  /**
   * The output tokens a request of the models table reserves on its principal's quota, and asks of
   * the provider, when neither the client's `config.max_tokens` nor the row's sets it
   * (DEFAULT_MAX_TOKENS; 16 384).
   */
  defaultMaxTokens?: number;
}

/** The bounds in effect (milliseconds and counts). */
export interface Limits {
  bodyBytes: number;
  /** The JSON bounds of a request body (json-bounds.ts). */
  json: JsonBounds;
  streamMs: number;
  events: number;
  streamBytes: number;
  eventBytes: number;
  clients: number;
  ttlMs: number;
  abandonMs: number;
  /** The output reserved and asked for when neither the client nor the row says (usage-estimate.ts `outputReserve`). */
  defaultMaxTokens: number;
}

const MiB = 1024 * 1024;

/**
 * The nesting a request body may have (the reader's own default for an event, 64) and the values it
 * may hold: a chat of a thousand messages with tool calls is far below 100 000.
 */
export const BODY_DEPTH = DEFAULT_LIMITS.maxDepth;
export const BODY_VALUES = 100_000;

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
  // each bound from an own member only: one a polluted Object.prototype holds is not set (issue #34)
  env = ownMembers(env);
  options = ownMembers(options);
  return {
    bodyBytes: given(options.maxBodyBytes) ?? count(env.MAX_BODY_BYTES, 16 * MiB),
    json: {
      depth: BODY_DEPTH,
      values: BODY_VALUES,
      stringBytes: given(options.maxInlineBytes) ?? count(env.MAX_INLINE_BYTES, 12 * MiB),
    },
    streamMs: (givenSeconds(options.maxStreamSeconds) ?? seconds(env.MAX_STREAM_S, 1800)) * 1000,
    events: given(options.maxEvents) ?? count(env.MAX_EVENTS, 100_000),
    streamBytes: given(options.maxStreamBytes) ?? count(env.MAX_STREAM_BYTES, 32 * MiB),
    eventBytes: given(options.maxEventBytes) ?? count(env.MAX_EVENT_BYTES, 16 * MiB),
    clients: given(options.maxClients) ?? count(env.MAX_CLIENTS, 32),
    ttlMs: (givenSeconds(options.streamTtlSeconds) ?? seconds(env.STREAM_TTL_S, 300)) * 1000,
    abandonMs: (givenSeconds(options.abandonSeconds) ?? seconds(env.ABANDON_S, 60)) * 1000,
    defaultMaxTokens: given(options.defaultMaxTokens) ?? count(env.DEFAULT_MAX_TOKENS, DEFAULT_MAX_TOKENS),
  };
}

/** `application/json`, with or without parameters (`; charset=utf-8`): the package's one Content-Type reading. */
export function isJson(contentType: string | null): boolean {
  return mediaType(contentType) === "application/json";
}

/**
 * A POST's body, checked: its bytes, or the refusal to answer (415 when it is not application/json,
 * 413 past `bounds.bodyBytes`, 400 past a JSON bound or when the client went away mid-upload;
 * reading stops there). An empty body is allowed (the replay's default model).
 */
export async function readJsonBody(
  request: Request,
  bounds: Pick<Limits, "bodyBytes" | "json">,
): Promise<Uint8Array<ArrayBuffer> | Response> {
  if (!isJson(request.headers.get("content-type"))) {
    return refusal(415, "InvalidRequestError", "The request body must be JSON: send it with Content-Type: application/json.");
  }
  const maxBytes = bounds.bodyBytes;
  const tooLarge = (): Response =>
    refusal(413, "InvalidRequestError", `Request body is too large. The limit is ${maxBytes} bytes (MAX_BODY_BYTES).`);
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) return tooLarge();
  if (!request.body) return new Uint8Array(new ArrayBuffer(0));
  const scan = new JsonBoundsScan(bounds.json);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (e) {
      // a client gone mid-upload is ordinary (and a stranger can make many): one line, no stack
      console.warn(`relay: a request body was cut off after ${size} bytes (${e instanceof Error ? e.name : "error"})`);
      return refusal(400, "InvalidRequestError", "The request body was cut off before its end.");
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    const refused = size > maxBytes
      ? tooLarge()
      : scan.push(value)
      ? refusal(400, "InvalidRequestError", boundMessage(scan.passed!))
      : null;
    if (refused) {
      await reader.cancel("request body refused").catch(() => {});
      return refused;
    }
    parts.push(value);
  }
  return joinBytes(parts, size) as Uint8Array<ArrayBuffer>;
}
