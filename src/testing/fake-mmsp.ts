/**
 * `fakeMmspServer`: an MMSP server (SPEC §1) in one fetch-shaped function, answering from captures
 * by model name. `POST /v1/stream` streams the model's capture (with the faults asked for) and names
 * where the stream is kept (`Content-Location: /v1/streams/<id>`); a GET there with `Last-Event-ID: n`
 * sends the events after n (as the relay Worker does, so `fromFetch` resumes); a DELETE there stops
 * it (SPEC §8). `GET /v1/models` lists the models; every refusal is MMSP's `{"error": {type, message}}`.
 */
import { fail } from "../internal/describe.js";
import { isRecord } from "../internal/values.js";
import { type Capture, captureFormat, checkCapture } from "./capture.js";
import { bodyEvents } from "./records.js";
import { replay, type ReplayOptions } from "./replay.js";
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS } from "../relay/admission/cors.js";
import { withCors } from "./cors.js";
import { type FakeServer, fakeServer, logRequest, tracked } from "./request-log.js";
import { MMSP_ERRORS, mmspErrorEvent, type ProblemKind } from "./routes.js";

/** A model's stream: a capture and the faults of its first answer (`resume`: of the answers that resume it). */
export interface FakeStream extends ReplayOptions {
  /** The answer to replay. */
  capture: Capture;
  /** How a resumed answer (a GET with `Last-Event-ID`) is delivered: chunking and pace (no faults by default). */
  resume?: ReplayOptions;
}

/** Options of `fakeMmspServer`. */
export interface FakeMmspServerOptions {
  /** The models it serves: a capture each, or a capture with the faults of its answer. */
  streams: Record<string, Capture | FakeStream>;
  /** The key a request must carry (`Authorization: Bearer <key>`); default: none asked. */
  key?: string;
  /**
   * The model that answers a request for a model not in `streams`, or for none (local work: any
   * name gets an answer); default: none (a 404, or a 400 without a model, as SPEC §1 says).
   */
  fallback?: string;
  /** The largest request body taken, in bytes (a larger one is a 413); default 1 MiB. */
  maxBodyBytes?: number;
}

const STREAM_PATH = /^\/v1\/streams\/([0-9a-f]{32})$/;

/** A stream this server answered: where it is kept, and its live answers (a DELETE ends them). */
interface Kept {
  stream: FakeStream;
  stopped: boolean;
  live: Set<(text: string) => void>;
}

const asStream = (value: Capture | FakeStream): FakeStream => ("capture" in value ? value : { capture: value });

/**
 * An MMSP server answering from `streams` (model → capture), for tests and local work: call it
 * with a `Request` (or as `fetch(input, init)`), serve it from a Worker, `Deno.serve` or `Bun.serve`;
 * `.requests` logs what it was asked.
 *
 * @example A stream cut after two events, resumed by fromFetch
 * ```ts
 * import { fromFetch } from "mmsp-streams";
 * import { fakeMmspServer, parseCapture } from "mmsp-streams/testing";
 *
 * const capture = parseCapture(await Deno.readTextFile("samples/chat.sse"));
 * const server = fakeMmspServer({ streams: { "sample-chat": { capture, cutAfterEvents: 2 } } });
 * const { message } = fromFetch("http://fake/v1/stream", { method: "POST", body: JSON.stringify({ model: "sample-chat", messages: [] }) }, { fetch: server });
 * console.log((await message).content_items.length, server.requests.length); // the whole message, from 2 requests
 * ```
 */
export function fakeMmspServer(options: FakeMmspServerOptions): FakeServer {
  if (!isRecord(options)) fail(TypeError, "fakeMmspServer: options", "an object { streams, key? }", options);
  if (!isRecord(options.streams)) fail(TypeError, "fakeMmspServer: options.streams", "an object { [model]: capture }", options.streams);
  for (const [model, value] of Object.entries(options.streams)) {
    checkCapture(asStream(value).capture, `fakeMmspServer: options.streams[${JSON.stringify(model)}]`);
  }
  if (options.key !== undefined && (typeof options.key !== "string" || options.key === "")) {
    fail(TypeError, "fakeMmspServer: options.key", "a non-empty string", options.key);
  }
  if (options.fallback !== undefined && !Object.prototype.hasOwnProperty.call(options.streams, options.fallback)) {
    fail(
      RangeError,
      "fakeMmspServer: options.fallback",
      `one of the models in streams (${Object.keys(options.streams).join(", ")})`,
      options.fallback,
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const created = Math.floor(Date.now() / 1000);
  const kept = new Map<string, Kept>();
  const refuse = (status: number, kind: ProblemKind, message: string): Response =>
    Response.json(MMSP_ERRORS.refusal(kind, message).body, { status });

  // as the relay Worker answers a page (relay/cors.ts, its default CORS_ORIGINS "*")
  const policy = { methods: CORS_ALLOW_METHODS, allowHeaders: CORS_ALLOW_HEADERS, exposeHeaders: CORS_EXPOSE_HEADERS };
  const server = fakeServer(withCors(policy, async (request) => {
    const entry = await logRequest(request, options.key === undefined ? null : "authorization");
    server.requests.push(entry);
    const answer = (response: Response): Response => tracked(entry, response, request.signal).response;
    const url = new URL(request.url);
    const bearer = /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    entry.authorized = options.key === undefined || bearer === options.key;
    if (!entry.authorized) return answer(refuse(401, "auth", "Invalid or missing API key."));

    if (request.method === "GET" && url.pathname === "/v1/models") {
      const data = Object.keys(options.streams).map((id) => ({ id, object: "model", created, owned_by: "mmsp" }));
      return answer(Response.json({ object: "list", data }));
    }
    const id = STREAM_PATH.exec(url.pathname)?.[1];
    if (id !== undefined) return resume(request, kept.get(id), answer, entry);
    if (request.method !== "POST" || url.pathname !== "/v1/stream") {
      return answer(refuse(404, "not-found", `No route ${request.method} ${url.pathname} (POST /v1/stream, GET /v1/models).`));
    }
    if (new TextEncoder().encode(entry.body).length > maxBodyBytes) return answer(refuse(413, "invalid", "Request body is too large."));
    const body = entry.json;
    if (!isRecord(body)) return answer(refuse(400, "invalid", "Request body must be a JSON object."));
    const fallback = options.fallback;
    if ((typeof body.model !== "string" || body.model === "") && fallback === undefined) {
      return answer(refuse(400, "invalid", "model must be a non-empty string."));
    }
    const model = typeof body.model === "string" && body.model !== "" ? body.model : fallback!;
    entry.model = model;
    if (!Array.isArray(body.messages)) return answer(refuse(400, "invalid", "messages must be a list of messages."));
    if (body.config !== undefined && !isRecord(body.config)) return answer(refuse(400, "invalid", "config must be an object."));
    const own = (name: string | undefined) =>
      name !== undefined && Object.prototype.hasOwnProperty.call(options.streams, name) ? options.streams[name] : undefined;
    const value = own(model) ?? own(fallback);
    if (!value) {
      const names = Object.keys(options.streams).join(", ");
      return answer(
        refuse(
          404,
          "not-found",
          `The model '${model}' does not exist; GET /v1/models lists the models this server serves (${names}).`,
        ),
      );
    }
    const stream = asStream(value);
    const { capture: _capture, resume: _resume, ...faults } = stream;
    const first = replay(stream.capture, faults);
    if (first.status !== 200) return answer(first);
    const streamId = (kept.size + 1).toString(16).padStart(32, "0");
    first.headers.set("content-location", `/v1/streams/${streamId}`);
    const t = tracked(entry, first, request.signal);
    kept.set(streamId, { stream, stopped: false, live: new Set([t.interrupt]) });
    return t.response;
  }));

  /** GET (resume) or DELETE (stop) on a kept stream. */
  function resume(
    request: Request,
    k: Kept | undefined,
    answer: (r: Response) => Response,
    entry: Awaited<ReturnType<typeof logRequest>>,
  ): Response {
    if (!k) return answer(refuse(404, "not-found", "No such stream (it was never made, or has expired)."));
    const format = captureFormat(k.stream.capture);
    const cancelled = mmspErrorEvent({ type: "StreamCancelled", message: "The stream was stopped (DELETE)." }, format);
    if (request.method === "DELETE") {
      k.stopped = true;
      for (const interrupt of k.live) interrupt(cancelled);
      k.live.clear();
      return answer(new Response(null, { status: 204 }));
    }
    if (request.method !== "GET") {
      return answer(refuse(404, "not-found", `No route ${request.method} on a stream (GET resumes it, DELETE stops it).`));
    }
    const capture = k.stream.capture;
    const headers = { "content-type": format === "ndjson" ? "application/x-ndjson" : "text/event-stream" };
    if (k.stopped) return answer(new Response(cancelled, { headers }));
    const raw = request.headers.get("last-event-id");
    const after = raw === null ? -1 : /^(0|[1-9][0-9]{0,14})$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
    if (Number.isNaN(after)) {
      return answer(refuse(400, "invalid", `Last-Event-ID must be the index of the last event received, not ${JSON.stringify(raw)}.`));
    }
    const { ends } = bodyEvents(capture.body, format);
    if (after >= ends.length) return answer(refuse(400, "invalid", `Last-Event-ID ${after} is past the stream's ${ends.length} events.`));
    const from = after === -1 ? 0 : ends[after]!;
    const rest: Capture = { ...capture, body: capture.body.subarray(from) };
    if (capture.timing) rest.timing = capture.timing.slice(after + 1).map((t) => t - (capture.timing![after] ?? 0));
    const t = tracked(entry, replay(rest, k.stream.resume), request.signal);
    k.live.add(t.interrupt);
    return t.response;
  }

  return server;
}
