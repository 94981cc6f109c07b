/**
 * What a fake server was asked, for a test to assert on: each request as it came (its key redacted)
 * and what became of its answer — delivered to the end, or left early by the caller (an abort or a
 * cancelled body), and when.
 */
import { parseJsonText } from "../internal/json.js";

/**
 * How an answer ended: its body delivered to the end (`"finished"`), left by the caller (`"aborted"`),
 * broken by a replayed cut (`"cut"`), ended by a DELETE of its stream (`"stopped"`), or no body to
 * deliver (`"answered"`: a refusal, the model list).
 */
export type AnswerEnd = "finished" | "aborted" | "cut" | "stopped" | "answered";

/** One request a fake server got, and what became of its answer. */
export interface RequestRecord {
  /** The request's method. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** The request's headers, names lower-cased; when the server was given a key, the header that carries one says `"[redacted]"`. */
  readonly headers: Record<string, string>;
  /** The body as text ("" for none). */
  readonly body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
  /** The model asked for, when the request named one. */
  model: string | undefined;
  /** A token counter's count of the request (a fake provider's counting route: counters.ts), set when it answered one. */
  counted?: number;
  /** Whether the request carried the server's key (true when the server wants none). */
  authorized: boolean;
  /** The answer's status (0 while there is none yet). */
  status: number;
  /** When the request came (`Date.now()`). */
  readonly at: number;
  /** Milliseconds after `at` when the caller went away before the answer's end (an abort, a cancelled body), else null. */
  aborted: number | null;
  /** Whether the answer's body was delivered to its end. */
  finished: boolean;
  /** Settles when the answer has ended: how (see `AnswerEnd`). */
  readonly ended: Promise<AnswerEnd>;
}

/** A fake server: a fetch-shaped handler (serve it from a Worker, Deno, Bun or Node) with its log. */
export interface FakeServer {
  /** Answers one request (also callable as `fetch(input, init)`: pass it as `fromFetch`'s `fetch`). */
  (input: Request | string | URL, init?: RequestInit): Promise<Response>;
  /** Every request so far, oldest first. */
  readonly requests: RequestRecord[];
}

/** The record of `request` (its body read), the value of its key header redacted (`keyHeader`; null: a server without a key keeps it). */
export async function logRequest(request: Request, keyHeader: string | null): Promise<RequestRecord & { end(how: AnswerEnd): void }> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = name === keyHeader ? "[redacted]" : value));
  const body = await request.text().catch(() => "");
  let json: unknown;
  try {
    json = body === "" ? undefined : parseJsonText(body);
  } catch {
    json = undefined;
  }
  let settle!: (how: AnswerEnd) => void;
  const ended = new Promise<AnswerEnd>((resolve) => (settle = resolve));
  const entry = {
    method: request.method,
    url: request.url,
    headers,
    body,
    json,
    model: undefined as string | undefined,
    authorized: true,
    status: 0,
    at: Date.now(),
    aborted: null as number | null,
    finished: false,
    ended,
    end(how: AnswerEnd): void {
      if (how === "aborted" && !this.finished && this.aborted === null) this.aborted = Date.now() - this.at;
      if (how === "finished") this.finished = true;
      settle(how);
    },
  };
  Object.defineProperty(entry, "end", { enumerable: false }); // (a test's deepEqual on an entry sees data only)
  return entry;
}

/**
 * `response` with its body watched for the log: its end, or the caller going away (the request's
 * signal aborts, or the body is cancelled) — which also cancels the body underneath, so a replay's
 * timers stop. `interrupt(text)` ends a live body early with `text` (a stopped stream's last event).
 */
export function tracked(
  entry: Awaited<ReturnType<typeof logRequest>>,
  response: Response,
  signal: AbortSignal | null,
): { response: Response; interrupt(text: string): void } {
  entry.status = response.status;
  const source = response.body;
  if (!source) {
    entry.end("answered");
    return { response, interrupt: () => {} };
  }
  const reader = source.getReader();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let over = false;
  const leave = (reason: unknown): void => {
    if (over) return;
    over = true;
    entry.end("aborted");
    reader.cancel(reason).catch(() => {});
  };
  signal?.addEventListener("abort", () => {
    leave(signal.reason);
    try {
      controller.error(signal.reason);
    } catch {
      // already closed
    }
  }, { once: true });
  // One read ahead of the caller: a caller that stops at the last event (`[DONE]`) without reading
  // on still sees its answer counted as finished once the body underneath has ended.
  let ahead: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  const readAhead = (): void => {
    ahead = reader.read();
    ahead.then((r) => {
      if (r.done && !over) (over = true), entry.end("finished");
    }, () => {});
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      try {
        const { done, value } = await (ahead ?? reader.read());
        ahead = undefined;
        if (done) {
          if (!over) (over = true), entry.end("finished");
          return c.close();
        }
        c.enqueue(value);
        readAhead();
      } catch (error) {
        // the answer itself broke (a replayed cut): the caller did not leave
        if (!over) (over = true), entry.end("cut");
        c.error(error);
      }
    },
    cancel: (reason) => leave(reason),
  }, { highWaterMark: 0 });
  const interrupt = (text: string): void => {
    if (over) return;
    over = true;
    entry.end("stopped");
    reader.cancel().catch(() => {});
    try {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    } catch {
      // the caller already went away
    }
  };
  return { response: new Response(body, { status: response.status, headers: response.headers }), interrupt };
}

/** A fetch-shaped handler with its log: `answer` gets each request as a `Request` (the two-argument form made one). */
export function fakeServer(answer: (request: Request) => Promise<Response>): FakeServer {
  const requests: RequestRecord[] = [];
  const server = ((input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    return answer(request);
  }) as FakeServer;
  Object.defineProperty(server, "requests", { value: requests, enumerable: true });
  return server;
}
