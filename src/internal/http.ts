/**
 * What the two readers of HTTP answers (`fromResponse`, `fromFetch`) share: who a protocol error is
 * blamed on, what a refused answer's body says (SPEC §1, §6), and what a failed connection means.
 */
import { ConnectionError, MmspError, refusalError, UpstreamError } from "../errors.js";
import { joinBytes } from "./bytes.js";

/**
 * The error a stream stopped on purpose ends with (SPEC §8), the same whichever side stopped: the
 * relay's `{"error": {"type": "StreamCancelled"}}` event as read, or a local `stop()` (`fromFetch`'s,
 * a provider stream's). `e.errorType === "StreamCancelled"` tells a Stop from a failure.
 */
export function cancelledError(client: string, detail: string): UpstreamError {
  return new UpstreamError({
    client,
    status: null,
    errorType: "StreamCancelled",
    error: { type: "StreamCancelled", message: detail },
    message: detail,
  });
}

/**
 * The error of a provider silent for `ms` while its stream is open (SPEC §10 "Stalls": the
 * provider's fault, so an `UpstreamError` of type `StreamStalled`, not the reader's own limit).
 */
export function stalledError(client: string, ms: number): UpstreamError {
  const message = `${client} sent no byte for ${ms} ms (stallMs): the request was aborted`;
  return new UpstreamError({ client, status: null, errorType: "StreamStalled", error: { type: "StreamStalled", message }, message });
}

/** How much of a refusal's body is read to describe it. */
const REFUSAL_BODY_LIMIT = 64 * 1024;

/** The URL of a fetch input. */
export function urlOf(input: RequestInfo | URL): string {
  return typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
}

/** Who a protocol error is blamed on: the host of `url` (SPEC §7), else "upstream". */
export function producerOf(url: string | undefined): string {
  try {
    return url ? new URL(url).host || "upstream" : "upstream";
  } catch {
    return "upstream";
  }
}

/** The first bytes of a refused answer's body, at most 64 KiB; the rest is not read. */
async function readHead(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < REFUSAL_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return joinBytes(chunks, size);
}

/**
 * The error a refused answer (non-2xx) describes (SPEC §1, §6): its JSON error, else an `HTTPError`
 * `HTTP <status>: <first 200 chars of body>` — plain text (a gateway's `Bad Gateway`) and any other
 * JSON stay exactly that; an HTML page (by its title, never its markup), binary or compressed bytes
 * are described instead, with the advice the status calls for (diagnose.ts `describeRefusal`).
 * `clean` (a provider's: its key cut out) runs on the body's text before anything reads or cuts it,
 * so a preview never ends inside what it would have cut.
 */
export async function refusalOf(response: Response, client: string, clean?: (text: string) => string): Promise<UpstreamError> {
  let head = await readHead(response.body).catch(() => new Uint8Array(0));
  const read = new TextDecoder().decode(head);
  const text = clean ? clean(read) : read;
  if (text !== read) head = new TextEncoder().encode(text);
  let described = false;
  const plain = refusalError(response.status, text, client, () => {
    described = true;
    return "an empty body";
  });
  if (!described || head.length === 0) return plain;
  // The diagnosis is loaded only for a refusal that is no JSON error (an HTML page, a binary body):
  // a bundle split by its dynamic imports (a provider's) does not load it before one comes.
  const { describeRefusal, diagnosisText } = await import("../diagnose.js");
  return refusalError(response.status, text, client, () => {
    const info = { contentType: response.headers.get("content-type"), contentEncoding: response.headers.get("content-encoding") };
    const d = describeRefusal(head, { ...info, format: "auto", totalBytes: head.length }, response.status);
    return d ? diagnosisText(d) : text.slice(0, 200);
  });
}

/** What a failed connection most likely means, by the platform's error code (Node, Deno and Bun give one). */
const CONNECT_HINTS: Record<string, (host: string, hostname: string) => string> = {
  ECONNREFUSED: (host) => `nothing listens on ${host}: is the server running, and on this port?`,
  ENOTFOUND: (_, hostname) => `no such host ${hostname}: check the URL`,
  EAI_AGAIN: (_, hostname) => `the name ${hostname} could not be resolved now (DNS): check the network`,
  ECONNRESET: () => "the server closed the connection: check the server's logs (a TLS URL given as http://, or the reverse?)",
  ETIMEDOUT: (host) => `${host} did not answer: check the URL, the port and any firewall`,
};
CONNECT_HINTS.UND_ERR_CONNECT_TIMEOUT = CONNECT_HINTS.ETIMEDOUT!; // undici's name
CONNECT_HINTS.ConnectionRefused = CONNECT_HINTS.ECONNREFUSED!; // Bun's names
CONNECT_HINTS.ConnectionReset = CONNECT_HINTS.ECONNRESET!;

/** The messages platforms give a request that got no answer (Node, browsers, Deno, workerd). */
const NETWORK_FAILURE = /fetch failed|failed to fetch|networkerror|load failed|error sending request|connect|network connection/i;

/** The platform's error code of a failed fetch (`error.cause.code`, or `error.code`), or null. */
function codeOf(error: unknown): string | null {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    // Deno: "error trying to connect: tcp connect error: Connection refused (os error 111)"
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && /Connection refused|ECONNREFUSED/i.test(message)) return "ECONNREFUSED";
  }
  return null;
}

/**
 * A request that got no answer → `ConnectionError` naming the host asked and the likely cause (the
 * platform's `TypeError: fetch failed` as its cause; workerd's is a plain `Error: Network connection
 * lost`). Anything else (an abort, a TypeError of a bad argument) is returned as it is — unless
 * `anyThrow`: a request the package built itself (a provider's), where whatever its fetch throws
 * before the answer's headers is no answer (SPEC §10: a fallback may mend it), whatever the runtime
 * calls it.
 */
export function connectionError(error: unknown, url: string, anyThrow = false): unknown {
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return error;
  if (!(error instanceof Error) && !anyThrow) return error;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (!code && !anyThrow && !NETWORK_FAILURE.test(message)) return error;
  let host: string, hostname: string;
  try {
    ({ host, hostname } = new URL(url, (globalThis as { location?: { href?: string } }).location?.href));
  } catch {
    return error; // fetch refused the URL itself: its own message says why
  }
  const hint = code && CONNECT_HINTS[code]
    ? CONNECT_HINTS[code](host, hostname)
    : `the request failed before any answer (${
      message.slice(0, 300)
    }): is the server running, the URL right, and (in a browser) does the server allow this origin (CORS)?`;
  return new ConnectionError({ host, code, message: `could not connect to ${host}: ${hint}`, cause: error });
}

/**
 * A body the package owns that failed while it was read (the connection cut mid-body: Node's
 * `TypeError: terminated`, a browser's `network error`) → `ConnectionError` naming the host, how far
 * it came and the platform's error as `cause`. The package's own errors and an abort pass as they are.
 */
export function cutError(error: unknown, url: string, bytesRead: number, eventsRead: number): unknown {
  if (error instanceof MmspError || (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"))) {
    return error;
  }
  const host = producerOf(url);
  const said = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new ConnectionError({
    host,
    code: codeOf(error),
    bytesRead,
    eventsRead,
    cause: error,
    message: `the connection to ${host} broke after ${bytesRead} bytes and ${eventsRead} event${eventsRead === 1 ? "" : "s"} (${said}): ` +
      "the answer is incomplete; ask again, or resume it where its server keeps it",
  });
}
