/**
 * UniEvents → wire bytes: the JSON of an event with its byte fields as padded base64 (SPEC §1), and
 * the encoder core shared by `SseEncoderStream` and `NdjsonEncoderStream`.
 *
 * An error on the writable side (`writer.abort(err)`, or a pipe whose source errors) is written as
 * one `{"error": toWireError(err)}` record (then `[DONE]` in SSE) and the output ends normally, as
 * an MMSP server does once the stream has begun, instead of a broken connection.
 */
import { toWireError } from "../errors.js";
import type { StreamCore } from "../internal/core.js";
import { isRecord } from "../internal/values.js";
import { carriesBytes } from "../internal/byte-kinds.js";
import { describeValue } from "../internal/options.js";
import { encodeBase64 } from "../decode/base64.js";
import type { UniEvent } from "../schema.js";

/** Whether an item's `data` is one of the protocol's byte fields. */

/**
 * A JSON-ready copy of an event (or a message): the `data` of `inline_data.*` and
 * `inline_thinking.*` items as padded base64 text; nothing else is touched. The input is not changed.
 */
export function toWireEvent<T extends { content_items: readonly unknown[] }>(event: T): T {
  const items = event.content_items;
  if (!Array.isArray(items)) return event;
  let copied: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (isRecord(item) && carriesBytes(item.type) && item.data instanceof Uint8Array) {
      (copied ??= items.slice())[i] = { ...item, data: encodeBase64(item.data) };
    }
  }
  return copied ? { ...event, content_items: copied } : event;
}

/**
 * Why a value given to an encoder is not an event, or undefined when it looks like one (an object with
 * `event_type` "delta" or "stop" and a `content_items` array; the rest is the producer's to get right,
 * e.g. with `MessageAssemblerStream` before the encoder). Catches the wrong pipe, not every bad event.
 */
function notAnEvent(value: unknown): string | undefined {
  if (isRecord(value) && Array.isArray(value.content_items) && (value.event_type === "delta" || value.event_type === "stop")) {
    return undefined;
  }
  const hint = value instanceof Uint8Array || typeof value === "string"
    ? ": the encoders turn events into bytes; text or bytes already encoded go to the response as they are"
    : isRecord(value) && typeof value.data === "string"
    ? " (an SSE message?): decode records with UniEventDecoderStream first"
    : "";
  return `an encoder writes UniEvents ({role, event_type: "delta" | "stop", content_items, …}), not ${describeValue(value)}${hint}`;
}

/** The JSON text of an event as it goes on the wire; a `TypeError` for a value that is no event. */
export function encodeWireEvent(event: UniEvent): string {
  const wrong = notAnEvent(event);
  if (wrong !== undefined) throw new TypeError(wrong);
  const json = JSON.stringify(toWireEvent(event));
  if (json === undefined) throw new TypeError("the event cannot be written as JSON");
  return json;
}

/** What stands for a value whose JSON text is known while the event around it is written (`encodeWireEventWith`). */
const KNOWN = "\u0000mmsp:known-json\u0000";
/** …as `JSON.stringify` writes it. */
const KNOWN_JSON = JSON.stringify(KNOWN);
/** Values shorter than this are written by `JSON.stringify` as they are (a known text saves nothing). */
const KNOWN_MIN_CHARS = 1024;

/**
 * @internal `encodeWireEvent`, with the known JSON text of an item's `arguments` value (`textOf`:
 * providers/json-text.ts, a Gemini call's, its `.done` holding the very object its fragment's text was
 * written from) put in place of stringifying that value again: the same bytes (issue #49: a large
 * call's value is written once, not once for its fragment and again for its `.done`). For a writer
 * that holds the event unchanged since it was read (the relay's run loop).
 */
export function encodeWireEventWith(event: UniEvent, textOf: (value: object) => string | undefined): string {
  const items = event.content_items;
  let copied: unknown[] | undefined;
  let texts: string[] | undefined;
  if (Array.isArray(items)) {
    for (let i = 0; i < items.length; i++) {
      const item: unknown = items[i];
      if (!isRecord(item) || typeof item.arguments !== "object" || item.arguments === null) continue;
      const text = textOf(item.arguments);
      if (text === undefined || text.length < KNOWN_MIN_CHARS) continue;
      (copied ??= items.slice())[i] = { ...item, arguments: KNOWN };
      (texts ??= []).push(text);
    }
  }
  if (copied === undefined) return encodeWireEvent(event);
  const json = encodeWireEvent({ ...event, content_items: copied } as UniEvent);
  // (each stand-in, in order; any other count — the event's own text holds one — written anew)
  let out = "";
  let from = 0;
  for (const text of texts!) {
    const at = json.indexOf(KNOWN_JSON, from);
    if (at < 0) return encodeWireEvent(event);
    out += json.slice(from, at) + text;
    from = at + KNOWN_JSON.length;
  }
  if (json.includes(KNOWN_JSON, from)) return encodeWireEvent(event);
  return out + json.slice(from);
}

/** How each wire format frames one JSON record, and how it ends. */
export interface WireFraming {
  record(json: string): string;
  /** Written after the last record (SSE's `data: [DONE]`), or "". */
  end: string;
  /** A comment that keeps a silent connection alive, or undefined when the format has none. */
  keepAlive?: string;
}

export const SSE_FRAMING: WireFraming = {
  record: (json) => `data: ${json}\n\n`,
  end: "data: [DONE]\n\n",
  keepAlive: ": keep-alive\n\n",
};

export const NDJSON_FRAMING: WireFraming = {
  record: (json) => `${json}\n`,
  end: "",
};

/**
 * A keep-alive: `fire` after `ms` without output (`wrote()` says there was some), then every `ms`
 * of silence, until disposed. Its timer never keeps a process alive by itself (unref where it can).
 * @internal The encoders' (WireEncoderCore) and a relay's answer body's (relay/stream/encoding.ts).
 */
export class KeepAlive {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastOutput = Date.now();
  private disposed = false;

  constructor(private readonly ms: number, private readonly fire: () => void) {
    this.arm(ms);
  }

  /** Output went out now. */
  wrote(): void {
    this.lastOutput = Date.now();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Fires after `delay` ms if nothing went out since. */
  private arm(delay: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.disposed) return;
      const idle = Date.now() - this.lastOutput;
      if (idle >= this.ms) {
        this.lastOutput = Date.now();
        this.fire();
        this.arm(this.ms);
      } else this.arm(this.ms - idle);
    }, delay);
    // Where timers can be unreferenced (Node, Bun), a keep-alive never keeps the process alive by itself.
    const t = this.timer as unknown as { unref?: () => void };
    if (typeof t === "object" && t !== null && typeof t.unref === "function") t.unref();
  }
}

/** The encoder as a synchronous core: UniEvents in, UTF-8 bytes out. */
export class WireEncoderCore implements StreamCore<UniEvent, Uint8Array> {
  private readonly utf8 = new TextEncoder();
  private alive: KeepAlive | undefined;
  finished = false;

  constructor(
    private readonly framing: WireFraming,
    /** Milliseconds of silence after which `framing.keepAlive` is written; 0 or undefined: never. */
    private readonly keepAliveMs = 0,
  ) {}

  start(emit: (bytes: Uint8Array) => void): void {
    const text = this.framing.keepAlive;
    if (!(this.keepAliveMs > 0) || text === undefined) return;
    this.alive = new KeepAlive(this.keepAliveMs, () => emit(this.utf8.encode(text)));
  }

  push(event: UniEvent, emit: (bytes: Uint8Array) => void): void {
    if (this.finished) return;
    let json: string;
    try {
      json = encodeWireEvent(event);
    } catch (error) {
      // an event that cannot be written (a cycle, a BigInt…) ends the output with its error
      this.fail(error, emit);
      this.finished = true;
      return;
    }
    this.write(this.framing.record(json), emit);
  }

  end(emit: (bytes: Uint8Array) => void): void {
    if (this.framing.end) this.write(this.framing.end, emit);
  }

  abort(reason: unknown, emit: (bytes: Uint8Array) => void): void {
    this.fail(reason, emit);
  }

  dispose(): void {
    this.alive?.dispose();
    this.alive = undefined;
  }

  private fail(error: unknown, emit: (bytes: Uint8Array) => void): void {
    let json: string;
    try {
      json = JSON.stringify({ error: toWireError(error) });
    } catch {
      json = JSON.stringify({ error: { type: "Error", message: "an error that cannot be written as JSON" } });
    }
    this.write(this.framing.record(json) + this.framing.end, emit);
  }

  private write(text: string, emit: (bytes: Uint8Array) => void): void {
    this.alive?.wrote();
    emit(this.utf8.encode(text));
  }
}
