/**
 * `serve(handler, { port })`: a fetch-shaped handler (a fake server of this kit, or any
 * `(request) => Response`) listening on a port, from Deno (`Deno.serve`), Bun (`Bun.serve`) or Node
 * (its `node:http`, which the caller passes: this package imports no Node module, so the kit stays
 * web-only and bundles for a browser or a Worker unchanged). Node's request becomes a web `Request`
 * (its `signal` aborts when the client goes away) and the `Response` is written as it streams: a
 * replayed cut destroys the connection, so a reader sees a real cut.
 *
 * The handler is called as a Worker's fetch handler is: `(request, env, connection)`, `env` the
 * option `env` (undefined when not given), `connection.clientAddress` the client's address as the
 * socket has it — so `serve(relay.fetch, { env, http })` serves a relay of mmsp-streams/relay that
 * knows its anonymous clients' addresses (a header a client sets is not one).
 */
import { fail } from "../internal/describe.js";

/** The parts of Node's `node:http` that `serve` uses (pass the module itself: `await import("node:http")`). */
export interface NodeHttp {
  /** Makes the server (`http.createServer`). */
  createServer(listener: (req: NodeIncoming, res: NodeOutgoing) => void): NodeServer;
}
/** Node's `IncomingMessage`, as `serve` reads it. */
export interface NodeIncoming {
  method?: string;
  url?: string;
  rawHeaders: string[];
  /** The connection: its peer's address. */
  readonly socket?: { readonly remoteAddress?: string | undefined } | null;
  on(event: "data" | "end" | "error", listener: (chunk?: never) => void): unknown;
}
/** Node's `ServerResponse`, as `serve` writes it. */
export interface NodeOutgoing {
  writeHead(status: number, headers: string[]): unknown;
  flushHeaders(): void;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(): unknown;
  /** The connection (null once detached). */
  readonly socket: { end(): unknown } | null;
  readonly writableEnded: boolean;
  on(event: "close" | "drain", listener: () => void): unknown;
}
/** Node's `http.Server`, as `serve` runs it. */
export interface NodeServer {
  listen(port: number, hostname: string, ready: () => void): unknown;
  address(): unknown;
  close(done?: () => void): unknown;
  closeAllConnections?(): void;
  once(event: "error", listener: (error: Error) => void): unknown;
}

/** Options of `serve`. */
export interface ServeOptions {
  /** The port; default 0: a free one (read it from `port` or `url`). */
  port?: number;
  /** The address to listen on; default `"127.0.0.1"`. */
  hostname?: string;
  /**
   * On Node: the `node:http` module (`await import("node:http")`). Deno and Bun need none (their own
   * servers are used); given there, it is used instead.
   */
  http?: NodeHttp;
}

/** What `serve` tells the handler of a request's connection (a relay's fetch reads `clientAddress`). */
export interface ServeConnection {
  /** The client's IP address as the socket has it (null when the server gives none). */
  clientAddress: string | null;
}

/** A handler listening on a port. */
export interface Served {
  /** `http://<hostname>:<port>`: the base URL to give a client (`baseURL`, `fromFetch`'s URL). */
  readonly url: string;
  /** The port it listens on (the free one chosen when `port` was 0). */
  readonly port: number;
  /** Stops listening and ends the open connections. */
  close(): Promise<void>;
}

/** A fetch-shaped handler: `(request)`, or a Worker's `(request, env, ctx)` (a relay's fetch). */
type Handler<E> = (request: Request, env: E, connection: ServeConnection) => Response | Promise<Response>;
type DenoHandler = (request: Request, info: { remoteAddr?: { hostname?: string } }) => Response | Promise<Response>;
type BunHandler = (request: Request, server: { requestIP?(request: Request): { address: string } | null }) => Response | Promise<Response>;
interface DenoServe {
  serve(options: { port: number; hostname: string; onListen(): void }, handler: DenoHandler): {
    addr: { port: number };
    shutdown(): Promise<void>;
  };
}
interface BunServe {
  serve(
    options: { port: number; hostname: string; idleTimeout: number; fetch: BunHandler },
  ): { port: number; stop(force: boolean): unknown };
}

/**
 * Serves `handler` on a port: `Deno.serve` on Deno, `Bun.serve` on Bun, and on Node the `node:http`
 * given as `options.http`.
 *
 * @example
 * ```ts
 * import * as http from "node:http"; // Node only
 * import { fakeProvider, parseCapture, serve } from "mmsp-streams/testing";
 *
 * const capture = parseCapture('event: message_stop\ndata: {"type":"message_stop"}\n\n');
 * const server = await serve(fakeProvider("anthropic", { streams: { "claude-test": capture } }), { port: 8787, http });
 * console.log(server.url); // http://127.0.0.1:8787 — anthropic({ apiKey, baseURL: server.url }) in a page
 * await server.close();
 * ```
 */
export async function serve<E = undefined>(handler: Handler<E>, options: ServeOptions & { env?: E } = {}): Promise<Served> {
  if (typeof handler !== "function") fail(TypeError, "serve: handler", "a function (request) => Response (a fake server)", handler);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(RangeError, "serve: options.port", "an integer from 0 to 65535", port);
  const hostname = options.hostname ?? "127.0.0.1";
  const env = options.env as E;
  const at = (p: number): string => `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${p}`;
  const g = globalThis as { Deno?: Partial<DenoServe>; Bun?: Partial<BunServe> };
  if (!options.http && typeof g.Deno?.serve === "function") {
    let listening!: () => void;
    const ready = new Promise<void>((resolve) => (listening = resolve));
    // (Deno's second argument is no RequestInit, which a fake's fetch(input, init) would take it for)
    const server = g.Deno.serve(
      { port, hostname, onListen: () => listening() },
      (request, info) => handler(request, env, { clientAddress: info?.remoteAddr?.hostname ?? null }),
    );
    await ready;
    return { url: at(server.addr.port), port: server.addr.port, close: () => server.shutdown() };
  }
  if (!options.http && typeof g.Bun?.serve === "function") {
    // (idleTimeout 0: a paced stream may stay silent longer than Bun's default 10 s)
    const server = g.Bun.serve({
      port,
      hostname,
      idleTimeout: 0,
      fetch: (request, bun) => handler(request, env, { clientAddress: bun?.requestIP?.(request)?.address ?? null }),
    });
    return { url: at(server.port), port: server.port, close: async () => void server.stop(true) };
  }
  if (!options.http) {
    throw new TypeError(
      'serve: on Node, pass its HTTP module: serve(handler, { port, http: await import("node:http") }) ' +
        "(the package imports no Node module itself; Deno and Bun need none)",
    );
  }
  const server = options.http.createServer((req, res) => void answer(handler, env, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, hostname, resolve);
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: at(bound),
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.(); // (a stream still open would hold close() until it ends)
      }),
  };
}

/** One Node request → `handler` → its response written as it streams. */
async function answer<E>(handler: Handler<E>, env: E, req: NodeIncoming, res: NodeOutgoing): Promise<void> {
  const left = new AbortController();
  /** Wakes a write waiting for the socket (drained, or closed). */
  let wake: (() => void) | null = null;
  res.on("drain", () => wake?.());
  res.on("close", () => {
    if (!res.writableEnded) left.abort(new DOMException("the client went away", "AbortError"));
    wake?.();
  });
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? null : new ReadableStream<Uint8Array>({
    start(c) {
      req.on("data", (chunk?: Uint8Array) => c.enqueue(new Uint8Array(chunk!)));
      req.on("end", () => c.close());
      req.on("error", (e?: unknown) => c.error(e));
    },
  });
  let response: Response;
  try {
    const url = new URL(req.url ?? "/", `http://${headers.get("host") ?? "localhost"}`);
    const init = { method, headers, body, signal: left.signal, duplex: "half" } as RequestInit;
    response = await handler(new Request(url, init), env, { clientAddress: req.socket?.remoteAddress ?? null });
  } catch (error) {
    response = new Response(`serve: the handler failed: ${error instanceof Error ? error.message : String(error)}`, { status: 500 });
  }
  const flat: string[] = [];
  response.headers.forEach((value, name) => flat.push(name, value));
  res.writeHead(response.status, flat);
  res.flushHeaders(); // a stream's headers go at once, before its first event
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  left.signal.addEventListener("abort", () => void reader.cancel(left.signal.reason).catch(() => {}), { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value) && !left.signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
      if (left.signal.aborted) return;
    }
    res.end();
  } catch {
    // the answer broke (a replayed cut): the connection ends after what was written (no last chunk), a cut to the client
    if (res.socket) res.socket.end();
    else res.destroy();
  }
}
