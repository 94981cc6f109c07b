/**
 * The package's errors (SPEC §6). Every error is an `MmspError`; errors the package detects itself
 * carry where they happened: the `rule` broken, the `eventIndex` (0-based, counting SSE messages or
 * NDJSON lines of the input), the `byteOffset` of the offending record where known, and a short
 * `preview` of it.
 *
 * @example
 * ```ts
 * import { StreamProtocolError, ToolCallArgumentParseError, UniEventStream, UpstreamError } from "mmsp-streams";
 *
 * const stream = new UniEventStream();
 * new Response('data: {"error": {"type": "RateLimitError", "message": "slow down"}}\n\n').body!.pipeThrough(stream);
 * try {
 *   await stream.message;
 * } catch (e) {
 *   if (e instanceof StreamProtocolError) console.error(e.rule, e.eventIndex, e.preview);
 *   else if (e instanceof UpstreamError && e.cause instanceof ToolCallArgumentParseError) console.error("retry");
 *   else if (e instanceof UpstreamError) console.error(e.errorType, e.message); // RateLimitError slow down
 * }
 * ```
 *
 * @module
 */
import type { FinishReason, UsageMetadata } from "./schema.js";
import { isRecord } from "./internal/values.js";
import { parseJsonText } from "./internal/json.js";
import { isTokenCount } from "./internal/usage.js";

/** Where a package-detected error happened. */
export interface ErrorContext {
  /** The rule broken: a SPEC §3 id, `UTF8`, `JSON`, `SCHEMA`, `KIND`, `DONE-CONTENT` or `LIMIT`. */
  rule?: string;
  /** 0-based index of the offending event among the input's events (SSE messages or NDJSON lines). */
  eventIndex?: number;
  /** Byte offset of the offending record in the input, where known. */
  byteOffset?: number;
  /** A short preview of the offending input. */
  preview?: string;
}

/** What every error's constructor takes besides its own fields. */
export interface MmspErrorOptions extends ErrorContext {
  /** The error behind this one (`Error.cause`). */
  cause?: unknown;
  /** Replaces the computed message (used when an error is rebuilt from the wire). */
  message?: string;
}

/**
 * The base of every error of the package: catch it to catch them all. The location fields are set
 * on errors the package detects itself, where known; errors rebuilt from the wire carry what was sent.
 *
 * @example
 * ```ts
 * import { MmspError, UniEventStream } from "mmsp-streams";
 *
 * const stream = new UniEventStream();
 * new Response("data: {not json}\n\n").body!.pipeThrough(stream);
 * try {
 *   await stream.message;
 * } catch (e) {
 *   if (e instanceof MmspError) console.log(e.name, e.rule, e.eventIndex); // StreamProtocolError JSON 0
 * }
 * ```
 */
export class MmspError extends Error {
  // Each class names itself literally: minifiers rename classes, so `new.target.name` would lie.
  /** The class's name, e.g. `"StreamProtocolError"` (set literally, so it survives minifiers). */
  override name = "MmspError";
  /**
   * The rule broken: a SPEC §3 id (`STOP-LAST`, `DELTA-SHAPE`, `NO-INTERLEAVE`…), `UTF8`, `JSON`,
   * `SCHEMA`, `KIND`, `DONE-CONTENT` or `LIMIT`. Unset on errors that break no stream rule.
   */
  rule?: string;
  /** 0-based index of the offending event among the input's events (SSE messages or NDJSON lines). */
  eventIndex?: number;
  /** Byte offset in the input where the offending record begins, where known. */
  byteOffset?: number;
  /** A short preview of the offending input (long strings shortened, bytes shown as their size). */
  preview?: string;

  /** An error with its message and, where known, where it happened (`rule`, `eventIndex`, `byteOffset`, `preview`). */
  constructor(message: string, options: MmspErrorOptions = {}) {
    super(options.message ?? message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.rule !== undefined) this.rule = options.rule;
    if (options.eventIndex !== undefined) this.eventIndex = options.eventIndex;
    if (options.byteOffset !== undefined) this.byteOffset = options.byteOffset;
    if (options.preview !== undefined) this.preview = options.preview;
  }
}

/** A stream broke the grammar of SPEC §3, or its bytes, JSON or schema were invalid. */
export class StreamProtocolError extends MmspError {
  /** `"StreamProtocolError"`. */
  override name = "StreamProtocolError";
  /** Who read the stream (the `client` option; default `"mmsp-streams"`). */
  client: string;
  /** The part of the message after `<client> broke the streaming protocol: `. */
  detail: string;

  /** The message is `<client> broke the streaming protocol: <detail>`. */
  constructor(fields: { client: string; detail: string } & MmspErrorOptions) {
    super(`${fields.client} broke the streaming protocol: ${fields.detail}`, fields);
    this.client = fields.client;
    this.detail = fields.detail;
  }
}

/** The fragments of a tool call did not join into a JSON object (SPEC §4). */
export class ToolCallArgumentParseError extends MmspError {
  /** `"ToolCallArgumentParseError"`. */
  override name = "ToolCallArgumentParseError";
  /** Who read the stream (the `client` option). */
  client: string;
  /** The tool's `name`. */
  toolName: string;
  /** The call's `tool_call_id`. */
  toolCallId: string;
  /** Length of the joined argument text in UTF-16 code units (JavaScript string length, as MMSP's TypeScript client counts). */
  rawArgumentsLength: number;
  /** The argument text, or its first and last 72 code units around `...[truncated]...` when longer than 160. */
  rawArgumentsPreview: string;

  // MMSP's own (snake_case) names of the fields, as its error classes and the wire spell them
  /** MMSP's name of {@link toolName}. */
  get tool_name(): string {
    return this.toolName;
  }
  /** MMSP's name of {@link toolCallId}. */
  get tool_call_id(): string {
    return this.toolCallId;
  }
  /** MMSP's name of {@link rawArgumentsLength}. */
  get raw_arguments_length(): number {
    return this.rawArgumentsLength;
  }
  /** MMSP's name of {@link rawArgumentsPreview}. */
  get raw_arguments_preview(): string {
    return this.rawArgumentsPreview;
  }

  /** The message is MMSP's, made from the fields (`reason`: the JSON parser's message, else `Expected a JSON object.`). */
  constructor(
    fields: {
      client: string;
      toolName: string;
      toolCallId: string;
      rawArgumentsLength: number;
      rawArgumentsPreview: string;
      reason?: string;
    } & MmspErrorOptions,
  ) {
    super(
      `Invalid streamed tool call arguments from ${fields.client} for tool "${fields.toolName}" ` +
        `(tool_call_id="${fields.toolCallId}", length=${fields.rawArgumentsLength}, ` +
        `preview=${JSON.stringify(fields.rawArgumentsPreview)}): ${fields.reason ?? "Expected a JSON object."}`,
      fields,
    );
    this.client = fields.client;
    this.toolName = fields.toolName;
    this.toolCallId = fields.toolCallId;
    this.rawArgumentsLength = fields.rawArgumentsLength;
    this.rawArgumentsPreview = fields.rawArgumentsPreview;
  }

  /** Builds the error from the raw argument text, with MMSP's length and preview rules. */
  static fromRaw(
    fields: { client: string; toolName: string; toolCallId: string; raw: string; reason: string } & MmspErrorOptions,
  ): ToolCallArgumentParseError {
    // Lengths and cuts count UTF-16 code units (JavaScript string length), as MMSP's TypeScript client does.
    const { raw } = fields;
    const rawArgumentsPreview = raw.length <= 160 ? raw : raw.slice(0, 72) + "...[truncated]..." + raw.slice(-72);
    return new ToolCallArgumentParseError({ ...fields, rawArgumentsLength: raw.length, rawArgumentsPreview });
  }
}

/** The response held nothing but thinking: it cannot be replayed to a model (SPEC §4). */
export class EmptyResponseError extends MmspError {
  /** `"EmptyResponseError"`. */
  override name = "EmptyResponseError";
  /** Who read the stream (the `client` option). */
  client: string;
  /** The stop event's `finish_reason`. */
  finishReason: FinishReason | null;
  /** The stop event's `usage_metadata` (the thinking was paid for). */
  usageMetadata: UsageMetadata | null;

  /** MMSP's name of {@link finishReason}. */
  get finish_reason(): FinishReason | null {
    return this.finishReason;
  }
  /** MMSP's name of {@link usageMetadata}. */
  get usage_metadata(): UsageMetadata | null {
    return this.usageMetadata;
  }

  /** The message is `<client> returned no content other than thinking (finish_reason=<JSON>).` */
  constructor(
    fields: { client: string; finishReason: FinishReason | null; usageMetadata: UsageMetadata | null } & MmspErrorOptions,
  ) {
    super(
      `${fields.client} returned no content other than thinking (finish_reason=${JSON.stringify(fields.finishReason)}).`,
      fields,
    );
    this.client = fields.client;
    this.finishReason = fields.finishReason;
    this.usageMetadata = fields.usageMetadata;
  }
}

/** A client was asked for a parameter it does not support (MMSP's error, relayed; SPEC §6). */
export class UnsupportedParameterError extends MmspError {
  /** `"UnsupportedParameterError"`. */
  override name = "UnsupportedParameterError";
  /** The client that refused. */
  client: string;
  /** The parameter's name. */
  parameter: string;

  /** The error MMSP raises for `parameter`, rebuilt with its fields. */
  constructor(fields: { client: string; parameter: string } & MmspErrorOptions) {
    super(`${fields.client} does not support the parameter ${JSON.stringify(fields.parameter)}`, fields);
    this.client = fields.client;
    this.parameter = fields.parameter;
  }
}

/** A client was asked for an operation it does not support (MMSP's error, relayed; SPEC §6). */
export class UnsupportedOperationError extends MmspError {
  /** `"UnsupportedOperationError"`. */
  override name = "UnsupportedOperationError";
  /** The client that refused. */
  client: string;
  /** The operation's name. */
  operation: string;

  /** The error MMSP raises for `operation`, rebuilt with its fields. */
  constructor(fields: { client: string; operation: string } & MmspErrorOptions) {
    super(`${fields.client} does not support the operation ${JSON.stringify(fields.operation)}`, fields);
    this.client = fields.client;
    this.operation = fields.operation;
  }
}

/** A configured limit was exceeded (rule `LIMIT`). */
export class StreamLimitError extends MmspError {
  /** `"StreamLimitError"`. */
  override name = "StreamLimitError";
  /** The option's name, e.g. `maxEventBytes`. */
  limit: string;
  /** The option's setting. */
  value: number;

  /** The limit (the option's name) and its setting; `detail` says what exceeded it. */
  constructor(fields: { limit: string; value: number; detail?: string } & MmspErrorOptions) {
    super(fields.detail ?? `the stream exceeded ${fields.limit}=${fields.value}`, { rule: "LIMIT", ...fields });
    this.limit = fields.limit;
    this.value = fields.value;
  }
}

/**
 * An error that crossed the wire: a refusal before the stream, or an in-stream `{"error": E}` event.
 * When `E.type` names one of the MMSP error classes, `cause` is that error rebuilt with its fields.
 */
export class UpstreamError extends MmspError {
  /** `"UpstreamError"`. */
  override name = "UpstreamError";
  /** Who read the stream or made the request (the `client` option). */
  client: string;
  /** The HTTP status of a refusal, else `E.status` when present, else null. */
  status: number | null;
  /** `E.type` (MMSP's `error_type`, e.g. `"RateLimitError"`, `"HTTPError"`), or null when `E` names none. */
  errorType: string | null;
  /** `E` exactly as sent. */
  error: unknown;
  /**
   * `E.usage_metadata`: what the stream cost so far, when the error event that ended it says (a relay
   * sends it on a stopped, cancelled, abandoned or cut stream: SPEC §8, §10); null otherwise.
   */
  usageMetadata: UsageMetadata | null;
  /** `E.usage_estimated`: whether {@link usageMetadata} is partly the relay's estimate (true) or the provider's own counts (false); null when `E` does not say. */
  usageEstimated: boolean | null;

  /** MMSP's name of {@link errorType}. */
  get error_type(): string | null {
    return this.errorType;
  }

  /** MMSP's name of {@link usageMetadata}. */
  get usage_metadata(): UsageMetadata | null {
    return this.usageMetadata;
  }

  /** MMSP's name of {@link usageEstimated}. */
  get usage_estimated(): boolean | null {
    return this.usageEstimated;
  }

  /** An error that crossed the wire, with its status, type and the object as sent. */
  constructor(
    fields:
      & {
        client: string;
        status: number | null;
        errorType: string | null;
        error: unknown;
        message: string;
        usageMetadata?: UsageMetadata | null;
        usageEstimated?: boolean | null;
      }
      & MmspErrorOptions,
  ) {
    super(fields.message, fields);
    this.client = fields.client;
    this.status = fields.status;
    this.errorType = fields.errorType;
    this.error = fields.error;
    this.usageMetadata = fields.usageMetadata ?? null;
    this.usageEstimated = fields.usageEstimated ?? null;
  }
}

/**
 * The request never got an answer: nothing listens there, no such host, the connection was reset or
 * timed out, or (in a browser) the network or CORS refused it. Raised by `fromFetch` in place of
 * the platform's bare `TypeError: fetch failed`, which stays its `cause`. Not a protocol error: no
 * stream was read, so a retry makes sense once the cause is mended.
 *
 * Also a connection cut while the package read an answer's body (`fromResponse`,
 * `fromProviderResponse`, a provider's `stream()`): Node's `TypeError: terminated`, a browser's
 * `network error`, as `cause`; `bytesRead` and `eventsRead` say how far it came (every event read was
 * delivered before this error). A caller's own `pipeThrough` of a body keeps the body's error as it is.
 */
export class ConnectionError extends MmspError {
  /** `"ConnectionError"`. */
  override name = "ConnectionError";
  /** The host asked (`host:port`), without credentials or path. */
  host: string;
  /** The platform's error code when it gives one (`ECONNREFUSED`, `ENOTFOUND`…), else null. */
  code: string | null;

  /** A body cut mid-way: its bytes read before the cut (unset when no answer came). */
  bytesRead?: number;
  /** A body cut mid-way: the events read (and delivered) before the cut (unset when no answer came). */
  eventsRead?: number;

  /** A failed connection to `host`, with what it most likely means. */
  constructor(fields: { host: string; code: string | null; message: string; cause?: unknown; bytesRead?: number; eventsRead?: number }) {
    super(fields.message, fields);
    this.host = fields.host;
    this.code = fields.code;
    if (fields.bytesRead !== undefined) this.bytesRead = fields.bytesRead;
    if (fields.eventsRead !== undefined) this.eventsRead = fields.eventsRead;
  }
}

// ---- the wire shape ---------------------------------------------------------------------------

/** The JSON shape of an error on the wire: `{"error": WireError}`. */
export interface WireError {
  /** The error's class name, e.g. `"StreamProtocolError"`; the reading side's `errorType` (MMSP's `error_type`). */
  type: string;
  /** The whole message, for people. */
  message: string;
  /** The class's own fields in snake_case (`client`, `rule`, `event_index`, `byte_offset`, `preview`, `limit`, `value`, `status`, `tool_call_id`…). */
  [field: string]: unknown;
}

const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
const int = (v: unknown): number | undefined => (typeof v === "number" && Number.isInteger(v) ? v : undefined);

/** A class's own field: its name on the class, its name on the wire, and how a value read from the wire is taken. */
type WireField = readonly [property: string, wire: string, read: (v: unknown) => unknown];
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const CLIENT: WireField = ["client", "client", text];
/** The fields every package-detected error may carry (ErrorContext), after the class's own. */
const CONTEXT: readonly WireField[] = [
  ["rule", "rule", text],
  ["eventIndex", "event_index", int],
  ["byteOffset", "byte_offset", int],
  ["preview", "preview", text],
];

/**
 * Each typed error's own fields as the wire spells them (SPEC §6): the one list `toWireError` writes
 * and `fromWireError` reads back (`rebuild: false`: sent, never rebuilt as a cause).
 */
// deno-lint-ignore no-explicit-any
const WIRE: Record<string, { cls: new (fields: any) => MmspError; fields: readonly WireField[]; rebuild?: false }> = {
  StreamProtocolError: { cls: StreamProtocolError, fields: [CLIENT] },
  ToolCallArgumentParseError: {
    cls: ToolCallArgumentParseError,
    fields: [
      CLIENT,
      ["toolName", "tool_name", str],
      ["toolCallId", "tool_call_id", str],
      ["rawArgumentsLength", "raw_arguments_length", (v) => int(v) ?? 0],
      ["rawArgumentsPreview", "raw_arguments_preview", str],
    ],
  },
  EmptyResponseError: {
    cls: EmptyResponseError,
    fields: [CLIENT, ["finishReason", "finish_reason", (v) => v ?? null], [
      "usageMetadata",
      "usage_metadata",
      (v) => (isRecord(v) ? v : null),
    ]],
  },
  UnsupportedParameterError: { cls: UnsupportedParameterError, fields: [CLIENT, ["parameter", "parameter", str]] },
  UnsupportedOperationError: { cls: UnsupportedOperationError, fields: [CLIENT, ["operation", "operation", str]] },
  StreamLimitError: {
    cls: StreamLimitError,
    fields: [["limit", "limit", str], ["value", "value", (v) => (typeof v === "number" ? v : 0)]],
  },
  ConnectionError: {
    cls: ConnectionError,
    fields: [["host", "host", str], ["code", "code", (v) => v ?? null], ["bytesRead", "bytes_read", int], [
      "eventsRead",
      "events_read",
      int,
    ]],
    rebuild: false,
  },
};

/**
 * The SPEC §6 wire shape of an error (snake_case fields), as written in `{"error": …}`.
 *
 * Every error travels with its whole message (SPEC §6: a `StreamProtocolError`'s message is
 * `<client> broke the streaming protocol: <detail>`); `fromWireError` also accepts the detail alone.
 * An `UpstreamError` is relayed as it was sent.
 */
export function toWireError(error: unknown): WireError {
  if (error instanceof UpstreamError) {
    if (isRecord(error.error)) return error.error as WireError;
    const out: WireError = { type: error.errorType ?? "UpstreamError", message: error.message };
    if (error.status !== null) out.status = error.status;
    if (error.usageMetadata !== null) out.usage_metadata = error.usageMetadata;
    if (error.usageEstimated !== null) out.usage_estimated = error.usageEstimated;
    return out;
  }
  if (error instanceof MmspError) {
    const type = Object.keys(WIRE).find((name) => error instanceof WIRE[name]!.cls);
    const out: WireError = { type: type ?? "MmspError", message: error.message };
    const fields = error as unknown as Record<string, unknown>;
    for (const [property, wire] of type === undefined ? CONTEXT : [...WIRE[type]!.fields, ...CONTEXT]) {
      if (fields[property] !== undefined) out[wire] = fields[property];
    }
    return out;
  }
  if (error instanceof Error) {
    // Named by its constructor, as MMSP does: `class RateLimitError extends Error {}` is "RateLimitError".
    const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
    const type = typeof ctor === "string" && ctor ? ctor : error.name || "Error";
    const out: WireError = { type, message: error.message || type };
    // SDK errors keep the upstream's HTTP status here (the 401 or 429 a caller acts on)
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && Number.isInteger(status)) out.status = status;
    return out;
  }
  return { type: "Error", message: String(error) || "Error" };
}

/** Rebuilds the typed MMSP error an `E` describes, or undefined for other types. */
function rebuildTyped(e: Record<string, unknown>, message: string, fallbackClient: string): MmspError | undefined {
  const typed = typeof e.type === "string" && Object.prototype.hasOwnProperty.call(WIRE, e.type) ? WIRE[e.type] : undefined;
  if (!typed || typed.rebuild === false) return undefined;
  const fields: Record<string, unknown> = { client: fallbackClient };
  for (const [property, wire, read] of [...typed.fields, ...CONTEXT]) {
    const value = read(e[wire]);
    if (value !== undefined) fields[property] = value;
  }
  if (typed.cls !== StreamProtocolError) fields.message = message;
  else {
    // MMSP sends the detail alone; the message is always `<client> broke the streaming protocol: <detail>`
    const prefix = `${fields.client} broke the streaming protocol: `;
    fields.detail = message.startsWith(prefix) ? message.slice(prefix.length) : message;
  }
  return new typed.cls(fields);
}

/**
 * Turns an error that crossed the wire into an `UpstreamError`. `object` is either the whole body
 * `{"error": E}` or `E` itself; `status` is the HTTP status of a refusal (else `E.status` is used).
 */
export function fromWireError(object: unknown, status: number | null = null, client = "upstream"): UpstreamError {
  const e: unknown = isRecord(object) && "error" in object ? object.error : object;
  if (!isRecord(e)) {
    const message = typeof e === "string" && e ? e : "unknown error";
    return new UpstreamError({ client, status, errorType: null, error: e, message });
  }
  const errorType = typeof e.type === "string" ? e.type : null;
  const message = typeof e.message === "string" && e.message ? e.message : errorType || "unknown error";
  const cause = rebuildTyped(e, message, client);
  const usageMetadata = usageOf(e.usage_metadata);
  const usageEstimated = typeof e.usage_estimated === "boolean" ? e.usage_estimated : null;
  return new UpstreamError({
    client,
    status: status ?? int(e.status) ?? null,
    errorType,
    error: e,
    message,
    cause,
    usageMetadata,
    usageEstimated,
  });
}

/**
 * An error's `usage_metadata` as sent, when it is one: the four counts, each a count to keep (a whole
 * number ≥ 0 within `MAX_TOKEN_COUNT`, as a provider's: internal/usage.ts) or null (a missing one null).
 */
function usageOf(v: unknown): UsageMetadata | null {
  if (!isRecord(v)) return null;
  const count = (n: unknown): number | null => (isTokenCount(n) ? n : null);
  return {
    cached_tokens: count(v.cached_tokens),
    prompt_tokens: count(v.prompt_tokens),
    thoughts_tokens: count(v.thoughts_tokens),
    response_tokens: count(v.response_tokens),
  };
}

/**
 * The error a refused request describes (SPEC §1): a JSON body `{"error": {"type", "message"}}`,
 * or type `HTTPError` with `HTTP <status>: <first 200 chars of body>` for any other body.
 * @param describe says what a body that is no JSON error was, in place of its first 200 chars
 *   (the readers pass the diagnosis of a body that is no stream)
 */
export function refusalError(status: number, bodyText: string, client = "upstream", describe?: () => string): UpstreamError {
  let parsed: unknown;
  try {
    parsed = parseJsonText(bodyText);
  } catch {
    parsed = undefined;
  }
  if (isRecord(parsed) && isRecord(parsed.error)) return fromWireError(parsed, status, client);
  const error = { type: "HTTPError", message: `HTTP ${status}: ${describe ? describe() : bodyText.slice(0, 200)}` };
  return new UpstreamError({ client, status, errorType: "HTTPError", error, message: error.message });
}
