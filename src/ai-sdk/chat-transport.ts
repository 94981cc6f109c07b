/**
 * `MmspChatTransport`: a chat transport for the AI SDK's `useChat` (structurally its `ChatTransport`,
 * without importing `ai`) that has both verbs a resumable relay offers:
 *
 * - **stop**: when the caller's `abortSignal` aborts (useChat's `stop()`), it sends
 *   `DELETE ${api}/${chatId}/stream`, so the generation stops server-side, and ends the stream
 *   with an `AbortError`, as `DefaultChatTransport` does;
 * - **resume**: when the connection drops mid-answer (a network error, or an end before the
 *   `finish` / `error` chunk), it reconnects with `GET ${api}/${chatId}/stream` (naming the answer
 *   by its `ETag` with `If-Match`) and goes on where it was: the relay replays an answer from its
 *   start, deterministically, so the chunks already delivered are skipped. `reconnectToStream` (useChat's
 *   `resume: true`, after a reload) does the same GET: 204 → null.
 *
 * The requests are the AI SDK's: the POST body is `DefaultChatTransport`'s (`id`, `messages`,
 * `trigger`, `messageId` and the `body` option), the answers its UI message stream (SSE of chunk
 * JSON). The transport follows no redirect and sends nothing to a URL of another origin than `api`'s
 * (it derives the stream's URL from `api`, never from an answer), so credentials stay where they belong.
 */
import { checkOptions, FUNCTION, integer, NON_EMPTY_STRING, type OptionSpec, type Rule } from "../internal/options.js";
import { sleep, within } from "../internal/abort.js";
import { SseDecoderStream, type SseMessage } from "../framing/sse.js";
import type { UIMessageChunk } from "./types.js";
import { parseJsonText } from "../internal/json.js";

/** A value, or a function that gives it (possibly as a promise), read at each request. */
export type Resolvable<T> = T | (() => T | PromiseLike<T>);

/** Options of `MmspChatTransport`. */
export interface MmspChatTransportOptions {
  /** The chat endpoint (default `"/api/chat"`); the stream of chat `<id>` is `${api}/<id>/stream`. */
  api?: string;
  /** Headers of every request (the POST, the reconnects, the DELETE). */
  headers?: Resolvable<Record<string, string> | Headers>;
  /** Extra JSON properties of the POST body (e.g. `{ model, config }` for the relay). */
  body?: Resolvable<object>;
  /** The fetch credentials mode (default `"same-origin"`). */
  credentials?: Resolvable<RequestCredentials>;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch;
  /** Reconnects in a row that bring no new chunk before the drop is reported (default 3). */
  maxReconnects?: number;
  /** The wait before the first reconnect, doubled for each next one, in ms (default 250). */
  reconnectDelayMs?: number;
}

/** The request options `useChat` passes with each call (the AI SDK's `ChatRequestOptions`). */
export interface ChatRequestOptions {
  /** Headers of this request, over the transport's. */
  headers?: Record<string, string> | Headers;
  /** JSON properties of this request's body, over the transport's `body`. */
  body?: object;
  /** The request's metadata (not sent). */
  metadata?: unknown;
}

/** What `useChat` passes to `sendMessages` (the AI SDK's `ChatTransport`). */
export interface SendMessagesOptions<MESSAGE> extends ChatRequestOptions {
  /** A new user message, or regenerating an assistant message. */
  trigger: "submit-message" | "regenerate-message";
  /** The chat's id (the POST body's `id`; the stream's URL). */
  chatId: string;
  /** The message to regenerate, or undefined. */
  messageId: string | undefined;
  /** The conversation. */
  messages: MESSAGE[];
  /** Aborted by useChat's `stop()`: the transport then cancels the generation server-side. */
  abortSignal: AbortSignal | undefined;
}

/** What `useChat` passes to `reconnectToStream`. */
export interface ReconnectToStreamOptions extends ChatRequestOptions {
  /** The chat whose active answer to resume. */
  chatId: string;
  /** Aborted by useChat's `stop()` (a cancel server-side) or by a newer resume (not a cancel). */
  abortSignal?: AbortSignal;
}

/** An object, or a function that gives one. */
const resolvable: Rule = { must: "an object or a function", type: (v) => v !== null && (typeof v === "object" || typeof v === "function") };
const OPTIONS: OptionSpec = {
  api: NON_EMPTY_STRING,
  headers: resolvable,
  body: resolvable,
  credentials: { must: "a RequestCredentials string or a function", type: (v) => typeof v === "string" || typeof v === "function" },
  fetch: FUNCTION,
  maxReconnects: /*#__PURE__*/ integer(100),
  reconnectDelayMs: /*#__PURE__*/ integer(60_000),
};

/** The chunks after which an answer is complete: a body that ends before one of them was cut. */
const TERMINAL = new Set(["finish", "error", "abort"]);
/** How long a new POST waits for the DELETE of the chat's stopped answer (so it cannot cancel the new one). */
const STOP_ORDER_MS = 2000;

const resolve = async <T>(value: Resolvable<T> | undefined): Promise<T | undefined> =>
  typeof value === "function" ? await (value as () => T | PromiseLike<T>)() : value;

function headerRecord(...all: (Record<string, string> | Headers | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of all) new Headers(h).forEach((value, name) => (out[name] = value));
  return out;
}

/** `url` with `path` added to its path (before any query or fragment), as the AI SDK's transport does. */
function appendPath(url: string, path: string): string {
  const at = url.search(/[?#]/);
  const base = at === -1 ? url : url.slice(0, at);
  return `${base.replace(/\/+$/, "")}${path}${at === -1 ? "" : url.slice(at)}`;
}

/** The origin of `url` (relative to the page, where there is one), or null when it cannot be told. */
function originOf(url: string): string | null {
  try {
    return new URL(url, (globalThis as { location?: { href?: string } }).location?.href).origin;
  } catch {
    return null;
  }
}

/** The error of a refused request: the MMSP / AI SDK refusal's message when the body has one. */
async function refusalError(response: Response, what: string): Promise<Error> {
  const text = await response.text().catch(() => "");
  let message = text.slice(0, 500);
  try {
    const body = parseJsonText(text) as { error?: { type?: string; message?: string } | string; message?: string };
    if (typeof body.error === "object" && body.error?.message) message = `${body.error.type ?? "Error"}: ${body.error.message}`;
    else if (typeof body.error === "string") message = body.error;
    else if (typeof body.message === "string") message = body.message;
  } catch {
    // not JSON: the text as it is
  }
  return new Error(`${what} failed: HTTP ${response.status}${message ? `: ${message}` : ""}`);
}

const abortError = (signal: AbortSignal): unknown => signal.reason ?? new DOMException("This operation was aborted", "AbortError");

/**
 * The `data` of each SSE event of a body, read by the package's one SSE parser (`SseDecoderStream`,
 * as the standard reads: an event the body ends inside is dropped).
 */
function sseData(body: ReadableStream<Uint8Array>): ReadableStream<string> {
  return body.pipeThrough(new SseDecoderStream()).pipeThrough(
    new TransformStream<SseMessage, string>({ transform: (m, out) => out.enqueue(m.data) }),
  );
}

/** The request settings of one call, resolved once: a reconnect and a DELETE reuse them. */
interface Call {
  chatId: string;
  streamUrl: string;
  headers: Record<string, string>;
  credentials: RequestCredentials | undefined;
}

/**
 * A chat transport for `useChat` with a relay that keeps answers (the package's Worker: `POST
 * /api/chat`, `GET` / `DELETE /api/chat/<chatId>/stream`): `stop()` stops the generation
 * server-side, a dropped connection resumes, and `resume: true` picks an answer up after a reload.
 *
 * @example
 * ```ts
 * import { useChat } from "@ai-sdk/react";
 * import { MmspChatTransport } from "mmsp-streams/ai-sdk";
 *
 * const transport = new MmspChatTransport({ api: "/api/chat", body: { model: "sample-chat" } });
 * const { messages, sendMessage, stop } = useChat({ id: chatId, transport, resume: true });
 * ```
 */
export class MmspChatTransport<MESSAGE = unknown> {
  /** A reconnect replays the answer from its start (useChat resets the message at its `start` chunk). */
  readonly resumeStreamIsReplay: true = true;
  private readonly api: string;
  private readonly options: MmspChatTransportOptions;
  /** The DELETEs in flight, by chat: a new POST of the chat waits for its chat's. */
  private readonly stopping = new Map<string, Promise<void>>();
  /** Calls per chat: a resume aborted because a newer call began is not a stop. */
  private readonly calls = new Map<string, number>();

  /** Checks the options (a `TypeError` / `RangeError` naming a wrong one). */
  constructor(options: MmspChatTransportOptions = {}) {
    checkOptions("MmspChatTransport", options, OPTIONS);
    this.options = options;
    this.api = options.api ?? "/api/chat";
  }

  /** POSTs the conversation (as `DefaultChatTransport` does) and streams the answer's UI message chunks. */
  async sendMessages(options: SendMessagesOptions<MESSAGE>): Promise<ReadableStream<UIMessageChunk>> {
    const { chatId, abortSignal } = options;
    const call = await this.call(chatId, options.headers);
    this.begin(chatId);
    const stopping = this.stopping.get(chatId);
    if (stopping) await within(stopping, STOP_ORDER_MS);
    const body = {
      ...(await resolve(this.options.body)),
      ...options.body,
      id: chatId,
      messages: options.messages,
      trigger: options.trigger,
      messageId: options.messageId,
    };
    const answer: { etag: string | null } = { etag: null };
    const onAbort = (): void => this.stop(call, answer.etag);
    const response = await this.answered(abortSignal, onAbort, "The chat request", () =>
      this.fetch(this.api, {
        method: "POST",
        headers: { "content-type": "application/json", ...call.headers },
        body: JSON.stringify(body),
        credentials: call.credentials,
        signal: abortSignal,
      }));
    answer.etag = response.headers.get("etag");
    return this.deliver(call, response, answer.etag, abortSignal, () => abortSignal?.removeEventListener("abort", onAbort));
  }

  /**
   * Resumes the chat's active answer (`GET ${api}/${chatId}/stream`) from its start: its chunks, or
   * null when none is active (204). Aborting `abortSignal` cancels the answer server-side, unless a
   * newer call of the same chat began at once (useChat aborts a resume it replaces).
   */
  async reconnectToStream(options: ReconnectToStreamOptions): Promise<ReadableStream<UIMessageChunk> | null> {
    const { chatId, abortSignal } = options;
    const call = await this.call(chatId, options.headers);
    const generation = this.begin(chatId);
    const answer: { etag: string | null } = { etag: null };
    const onAbort = (): void => {
      // useChat aborts a resume when it starts a newer one (then calls us again at once): not a stop
      setTimeout(() => {
        if (this.calls.get(chatId) === generation) this.stop(call, answer.etag);
      }, 0);
    };
    const response = await this.answered(
      abortSignal,
      onAbort,
      "Resuming the chat's answer",
      () => this.fetch(call.streamUrl, { headers: call.headers, credentials: call.credentials, signal: abortSignal }),
    );
    if (response.status === 204) {
      abortSignal?.removeEventListener("abort", onAbort);
      return null;
    }
    answer.etag = response.headers.get("etag");
    return this.deliver(call, response, answer.etag, abortSignal, () => abortSignal?.removeEventListener("abort", onAbort));
  }

  /**
   * The answer to `request`, with `onAbort` listening to `abortSignal` from before it is sent (an abort
   * then stops the generation); the listener goes again when no answer comes or it is a refusal
   * (`what` names the request in that error). A 2xx answer keeps it: `deliver` releases it.
   */
  private async answered(
    abortSignal: AbortSignal | undefined,
    onAbort: () => void,
    what: string,
    request: () => Promise<Response>,
  ): Promise<Response> {
    abortSignal?.addEventListener("abort", onAbort, { once: true });
    try {
      const response = await request();
      if (!response.ok) throw await refusalError(response, what);
      return response;
    } catch (e) {
      abortSignal?.removeEventListener("abort", onAbort);
      throw e;
    }
  }

  /** The request settings of a call to chat `chatId`. */
  private async call(chatId: string, headers: Record<string, string> | Headers | undefined): Promise<Call> {
    if (typeof chatId !== "string" || chatId === "" || chatId === "." || chatId === "..") {
      throw new TypeError(`MmspChatTransport: chatId must be a chat id, not ${JSON.stringify(chatId)}`);
    }
    const streamUrl = appendPath(this.api, `/${encodeURIComponent(chatId)}/stream`);
    const origin = originOf(this.api);
    if (origin !== null && originOf(streamUrl) !== origin) {
      throw new TypeError(`MmspChatTransport: ${streamUrl} is not on the origin of api (${origin}); nothing is sent there`);
    }
    return {
      chatId,
      streamUrl,
      headers: headerRecord(await resolve(this.options.headers), headers),
      credentials: await resolve(this.options.credentials),
    };
  }

  /** Counts a call of chat `chatId`; its number. */
  private begin(chatId: string): number {
    const n = (this.calls.get(chatId) ?? 0) + 1;
    this.calls.set(chatId, n);
    return n;
  }

  /** fetch, never following a redirect (a redirect would take the headers elsewhere). */
  private fetch(url: string, init: RequestInit): Promise<Response> {
    return (this.options.fetch ?? globalThis.fetch)(url, { ...init, redirect: "error" });
  }

  /** Cancels the generation server-side: `DELETE ${api}/${chatId}/stream`, `If-Match` its ETag when known. */
  private stop(call: Call, etag: string | null): void {
    const headers: Record<string, string> = { ...call.headers };
    if (etag !== null) headers["if-match"] = etag;
    const done = this.fetch(call.streamUrl, { method: "DELETE", headers, credentials: call.credentials }).then(
      (res) => void res.body?.cancel().catch(() => {}),
      () => {}, // the stop is best effort: the local read ends anyway
    );
    this.stopping.set(call.chatId, done);
    void done.then(() => {
      if (this.stopping.get(call.chatId) === done) this.stopping.delete(call.chatId);
    });
  }

  /**
   * The answer's chunks, reconnecting after a drop: each reconnect replays the answer from its start
   * (`If-Match` the first answer's ETag), and the chunks already delivered are skipped (the last
   * one compared: a replay that differs is an error, never a silently wrong message).
   */
  private deliver(
    call: Call,
    first: Response,
    etag: string | null,
    signal: AbortSignal | undefined,
    release: () => void,
  ): ReadableStream<UIMessageChunk> {
    const { maxReconnects = 3, reconnectDelayMs = 250 } = this.options;
    const frames = (response: Response): ReadableStreamDefaultReader<string> =>
      sseData(response.body ?? new Response("").body!).getReader();
    let reader = frames(first);
    let delivered = 0; // chunks handed out
    let lastJson = ""; // the last one's JSON
    let seen = 0; // chunks read from the current answer
    let complete = false; // a terminal chunk (or [DONE]) arrived
    let over = false;
    let ctl!: ReadableStreamDefaultController<UIMessageChunk>;
    const local = new AbortController(); // ends a reconnect in flight when the reader leaves or stops
    const finish = (): void => {
      over = true;
      release();
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = (): void => {
      if (over) return;
      finish();
      local.abort();
      void reader.cancel().catch(() => {});
      ctl.error(abortError(signal!));
    };

    let failures = 0; // reconnects in a row that brought no new chunk

    /** After a drop: a new answer replacing the dropped one (true), or false (the drop is reported). */
    const reconnect = async (): Promise<boolean> => {
      while (failures < maxReconnects) {
        await sleep(reconnectDelayMs * 2 ** failures, local.signal);
        failures++;
        if (local.signal.aborted) return false;
        const headers: Record<string, string> = { ...call.headers };
        if (etag !== null) headers["if-match"] = etag;
        let response: Response;
        try {
          response = await this.fetch(call.streamUrl, { headers, credentials: call.credentials, signal: local.signal });
        } catch {
          continue; // still unreachable: again, later
        }
        if (!response.ok || response.status === 204) {
          void response.body?.cancel().catch(() => {});
          if (response.status >= 500 || response.status === 429) continue;
          return false; // 204 / 404 / 412: the answer is gone; 403: not ours
        }
        void reader.cancel().catch(() => {});
        reader = frames(response);
        seen = 0;
        return true;
      }
      return false;
    };

    return new ReadableStream<UIMessageChunk>(
      {
        start: (c) => {
          ctl = c;
          if (signal?.aborted) onAbort();
          else signal?.addEventListener("abort", onAbort, { once: true });
        },
        pull: async (c) => {
          for (;;) {
            if (over) return;
            let read: ReadableStreamReadResult<string>;
            let drop: unknown = null;
            try {
              read = await reader.read();
            } catch (e) {
              read = { done: true, value: undefined };
              drop = e;
            }
            if (over) return;
            if (!read.done) {
              const data = read.value;
              if (data === "[DONE]") {
                complete = true;
                continue;
              }
              let chunk: UIMessageChunk;
              try {
                chunk = parseJsonText(data) as UIMessageChunk;
                if (chunk === null || typeof chunk !== "object" || typeof chunk.type !== "string") throw new TypeError("not a chunk");
              } catch {
                finish();
                return c.error(
                  new TypeError(`MmspChatTransport: the answer is not a UI message stream (${JSON.stringify(data.slice(0, 80))})`),
                );
              }
              seen++;
              if (seen < delivered) continue; // delivered before the drop
              if (seen === delivered) {
                if (data !== lastJson) {
                  finish();
                  return c.error(
                    new Error(
                      "MmspChatTransport: the resumed answer differs from the one delivered (the server's replay is not deterministic)",
                    ),
                  );
                }
                continue;
              }
              delivered++;
              lastJson = data;
              failures = 0;
              if (TERMINAL.has(chunk.type)) complete = true;
              return c.enqueue(chunk);
            }
            if (complete) {
              finish();
              return c.close();
            }
            // dropped: a network error, or an end before the answer's last chunk
            const error = drop ?? new TypeError("network error: the chat answer ended before its finish chunk");
            if (!(await reconnect())) {
              if (over) return;
              finish();
              return c.error(error);
            }
          }
        },
        cancel: (reason) => {
          // the reader leaves (the answer stays resumable server-side): not a stop
          finish();
          local.abort();
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }
}
