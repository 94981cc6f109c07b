// The stream: SPEC §8 and §10 "A stream outlives its object" (the Durable Object that keeps one stream).
//
// One stream, one Durable Object (SQLite storage). The object makes the stream's one upstream
// request, reads it through the package (validate mode: every event checked, the grammar enforced),
// appends every checked event to storage (the events of one turn in one go, at its end: event-log.ts),
// and serves any number of clients what is stored: a client resuming after event n gets n+1… from
// storage, then follows the live stream (served from the last events written, held in memory).
//
//   upstream ─ fromResponse (validate) ─▶ events table ─▶ client 1 (SSE, `id: <n>`)
//                                                      ─▶ client 2 (NDJSON, resumed by line count) …
//
// - The upstream is read once, whatever the clients do: a client going away does not cancel it. Only
//   when no client has read for ABANDON_S seconds does the object stop reading (an alarm; an upstream
//   that sent no headers ABANDON_S after its request is given up too: see awaitHeaders). "Read" is
//   the answer being pulled: a client that keeps its connection open but has stopped reading applies
//   backpressure, its answer is no longer pulled, and it counts as gone.
// - Stopping is a request of its own (DELETE, SPEC §8): the upstream fetch is aborted at once and the
//   stream ends with one `{"error": {"type": "StreamCancelled"}}` event for every viewer and resume.
// - An upstream failure (a refusal mid-stream, a protocol violation, a broken connection,
//   abandonment, a cancel) is stored as the stream's last event, `{"error": …}`, and replayed like
//   any event.
// - An ended stream is kept STREAM_TTL_S seconds, then an alarm deletes it (a resume is then a 404).
// - A stream created with credentials (bind.ts: Authorization, Cookie, X-Api-Key, Cloudflare Access)
//   can be resumed or cancelled only with the same ones (to others it is a 404, as none): the Worker
//   sends their HMAC as x-stream-binding, the object keeps it and compares.
// - Bounds (limits.ts): a stream past MAX_STREAM_S, MAX_EVENTS or MAX_STREAM_BYTES ends with a
//   StreamLimitExceeded error event (the upstream aborted); past MAX_CLIENTS a new client is a 429.
//
// - A plain class (constructor(state, env) + fetch + alarm), not `cloudflare:workers`' DurableObject:
//   the module loads anywhere (Node type-checks it); workerd runs it as a Durable Object all the same.
//
// Requests come from the Worker (create-relay.ts), which owns the public routes:
//   POST https://stream/create   (x-relay-url: the public URL)  the creating request, body as admitted
//   GET  https://stream/resume  (x-resume-after: <n>)           a resume, after validation of n
//   DELETE https://stream/cancel                                a cancel (DELETE /v1/streams/<id>)
// A subclass may add routes of its own (the repository's Worker keeps a chat's record in an object
// named `chat:<HMAC of its creator and chat id>` of the same namespace: worker/chat-record.ts).
import { KeptResponses } from "./responses.js";
import { encodeWireEvent, toWireError } from "../../index.js";
import { sameHash } from "../admission/bind.js";
import type { Limits } from "../admission/limits.js";
import type { RelayState } from "../platform.js";
import { StreamStore } from "./store.js";
import { Viewers } from "./viewers.js";
import { refusal } from "../refusal.js";
import type { Settlement } from "../accounting/quota.js";
import { CLAIM_HEADER, StreamCost, ticketOf } from "../accounting/stream-cost.js";
import { BINDING_HEADER, META_HEADER, URL_HEADER } from "./headers.js";
import { PROVIDER_HEADER, TARGET_HEADER } from "../routing/models.js";
import { checkedEvents, reportedUsageOf } from "../routing/answer.js";

/** (the headers the Worker hands the object: headers.ts) */
export { BINDING_HEADER, URL_HEADER } from "./headers.js";

/** What a stream's object needs from `createRelay` (create-relay.ts). */
export interface StreamObjectConfig<E> {
  /** Makes the upstream request: its stream (2xx), its refusal (wrapped), or a 502 that names no URL. */
  open(request: Request, env: E, signal: AbortSignal): Promise<Response>;
  /** How protocol errors name the upstream of this answer. */
  clientOf(upstream: Response): string;
  /** The bounds in effect. */
  limits(env: E): Limits;
  /** Settles a stream's claim on its principal's quota (quota.ts) when the stream ends, however it ends. */
  settle?(env: E, settlement: Settlement): Promise<void>;
}

/** Why the object stopped reading before the upstream's end; its wire type is `type`. */
class StreamStopped extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
  }
  override name = "StreamStopped";
}

/**
 * The Durable Object class that keeps one stream (one object per stream; see the top of
 * stream-object.ts). Not constructed directly: `createRelay(...).StreamObject` is the class to
 * export from a Worker (and to extend, for more routes of one's own).
 */
export class RelayStreamObject<E = unknown> {
  /** The object's state (its storage). */
  protected readonly state: RelayState;
  /** The Worker's bindings and variables. */
  protected readonly env: E;
  private readonly config: StreamObjectConfig<E>;
  /** What the object keeps in storage (store.ts). */
  private readonly store: StreamStore;
  /** The clients it serves (viewers.ts). */
  private readonly viewers = new Viewers();
  /** The creating request waits for the upstream's headers (nothing stored yet). */
  private pending = false;
  /** When this instance began reading the upstream (MAX_STREAM_S counts from here). */
  private startedAt = 0;
  /** Aborts the upstream reading; set while this instance reads it. */
  private upstream: AbortController | null = null;
  /** The stored responses an object of a principal keeps (SPEC §10 "Stored responses"; responses.ts). */
  private readonly kept: KeptResponses;
  /** The stream's cost, while it runs with a claim on a quota (stream-cost.ts): settled at its end. */
  private cost: StreamCost | null = null;

  /**
   * Called by `createRelay`'s subclass, which workerd constructs with `(state, env)`.
   *
   * @param config what `createRelay` says (the upstream, the bounds)
   */
  constructor(state: RelayState, env: E, config: StreamObjectConfig<E>) {
    this.state = state;
    this.env = env;
    this.config = config;
    this.store = new StreamStore(state.storage.sql, () => this.viewers.notify(), (e: unknown) => this.upstream?.abort(e));
    this.kept = new KeptResponses(state.storage);
    this.load();
  }

  /** How long an ended stream is kept. */
  private get ttlMs(): number {
    return this.limits.ttlMs;
  }

  /** How long a live stream goes on without a client reading. */
  private get abandonMs(): number {
    return this.limits.abandonMs;
  }

  /** The bounds in effect. */
  private get limits(): Limits {
    return this.config.limits(this.env);
  }

  // (what the parts hold, as the object's own: its tests in workerd read and move these clocks)
  /** Events stored (store.ts): what the answers may send. */
  private get count(): number {
    return this.store.count;
  }
  /** Whether the stream ended (store.ts). */
  private get ended(): boolean {
    return this.store.ended;
  }
  /** When an ended stream is deleted (store.ts; ms since the epoch). */
  private get expiresAt(): number {
    return this.store.expiresAt;
  }
  private set expiresAt(ms: number) {
    this.store.expiresAt = ms;
  }
  /** When a client last read (viewers.ts): the abandon clock. */
  private get lastRead(): number {
    return this.viewers.lastRead;
  }
  private set lastRead(ms: number) {
    this.viewers.lastRead = ms;
  }

  /** The streamed answer to one client (viewers.ts): stored events from `from`, then live ones, then the end. */
  private answer(from: number, accept: string | null): Response {
    return this.viewers.answer(this.store, from, accept, this.store.meta());
  }

  /** Whether this object holds a stream now (false: never created, or expired and deleted). */
  protected get holdsStream(): boolean {
    return this.store.exists || this.pending;
  }

  /** The state from storage, after a restart (or nothing: a new or unknown stream). */
  private load(): void {
    // Stored as live, but no instance reads its upstream any more (the object was restarted): the
    // stream can never complete, so it ends here, with an error its readers can act on.
    if (this.store.load()) {
      this.store.append(
        JSON.stringify({
          error: { type: "StreamInterrupted", message: "the relay lost this stream's upstream connection (its object restarted)" },
        }),
      );
      this.end();
    }
  }

  /** The Worker's requests to the object (see the top). */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/create" && request.method === "POST") return this.create(request);
    if (url.pathname === "/resume") return this.resume(request);
    if (url.pathname === "/cancel" && request.method === "DELETE") return this.cancel(request);
    if (KeptResponses.handles(url)) return this.kept.fetch(request); // (an object of a principal's stored responses: responses.ts)
    return refusal(404, "NotFoundError", "No such route in the stream object.");
  }

  /** The creating request: the upstream request, then the answer (the stream from event 0). */
  private async create(request: Request): Promise<Response> {
    if (this.store.exists || this.pending) return refusal(409, "ConflictError", "This stream id is taken.");
    // The body is read whole first (the Worker checked its size), so the upstream request does not
    // depend on this request's connection, which ends when the client goes away. The upstream gets
    // the client's request as the Worker admitted it, at its public URL, without the internal headers.
    const binding = request.headers.get(BINDING_HEADER);
    const headers = new Headers(request.headers);
    headers.delete(BINDING_HEADER);
    headers.delete(URL_HEADER);
    const ticket = ticketOf(headers.get(CLAIM_HEADER));
    headers.delete(CLAIM_HEADER);
    // (an Open Responses stream's settings: kept with it, answered with every replay, never sent upstream)
    const meta = headers.get(META_HEADER);
    headers.delete(META_HEADER);
    const publicUrl = request.headers.get(URL_HEADER) ?? request.url;
    const upstreamRequest = new Request(publicUrl, { method: "POST", headers, body: await request.arrayBuffer() });
    const reading = new AbortController();
    const cost = ticket && new StreamCost(ticket);
    const upstream = await this.awaitHeaders(reading, () => this.config.open(upstreamRequest, this.env, reading.signal));
    if (reading.signal.aborted && reading.signal.reason instanceof StreamStopped) {
      // given up before the headers (the alarm): the creator, if still there, is told why
      await upstream.body?.cancel().catch(() => {});
      if (cost) this.settle(cost.settlement());
      const { type, message } = reading.signal.reason;
      return refusal(504, type, message);
    }
    if (!upstream.ok) {
      if (cost) this.settle(cost.refused());
      return upstream; // a refusal: passed on, nothing kept
    }
    this.cost = cost;
    cost?.follow(reportedUsageOf(upstream)); // (a provider of the models table: what it reports counts at an early end)
    const client = this.config.clientOf(upstream);
    this.store.create(binding, meta);
    this.upstream = reading;
    this.lastRead = Date.now();
    this.state.waitUntil(this.read(upstream, client, reading.signal));
    await this.schedule();
    const answer = this.answer(0, request.headers.get("accept"));
    // the target that served (a models row's fallback.ts), for the Worker's x-mmsp-provider
    const served = upstream.headers.get(PROVIDER_HEADER);
    if (served !== null && /^[\w.:-]{1,100}$/.test(served)) answer.headers.set(PROVIDER_HEADER, served);
    const target = upstream.headers.get(TARGET_HEADER);
    if (target !== null && /^[\w.:-]{1,100}$/.test(target)) answer.headers.set(TARGET_HEADER, target);
    return answer;
  }

  /**
   * The upstream request until its headers, watched by the same alarm as a live stream's: given up
   * (`reading` aborted) ABANDON_S after it was made, or at MAX_STREAM_S. Whether the creator still
   * waits does not count: before the answer's headers there is nothing to read, and a client that
   * leaves then is not always told (through Miniflare neither the Worker's request nor the object's
   * aborts), so a wait counted as reading held a silent upstream until MAX_STREAM_S.
   */
  private async awaitHeaders(reading: AbortController, open: () => Promise<Response>): Promise<Response> {
    this.pending = true;
    this.upstream = reading;
    this.lastRead = this.startedAt = Date.now();
    try {
      await this.schedule();
      return await open();
    } finally {
      this.pending = false;
      this.upstream = null;
    }
  }

  /** Reads the upstream to its end; every checked event is stored, a failure as the last event. */
  private async read(upstream: Response, client: string, signal: AbortSignal): Promise<void> {
    // (what the object holds while reading: one event of at most MAX_EVENT_BYTES, the message being
    // checked, bounded by MAX_STREAM_BYTES through bound(); the events of a turn, stored at its end or
    // past 256 Ki characters, and the window of the last ones written: event-log.ts)
    const limits = this.limits; // (read once: the env's bounds, parsed anew at each call)
    // (an answer of the models table made in this isolate: its events themselves, answer.ts)
    const reader = checkedEvents(upstream, { client, signal, maxEventBytes: limits.eventBytes }).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (this.ended) {
          // stopped (stop()): its event is the last one
          await reader.cancel().catch(() => {}); // (the abort's error, already known)
          break;
        }
        this.store.append(encodeWireEvent(value));
        this.cost?.see(value);
        this.bound(limits);
      }
    } catch (e) {
      if (this.ended) return; // stopped: the abort's own error is not stored
      let json: string;
      try {
        const error = toWireError(e);
        json = JSON.stringify({ error: this.cost ? this.cost.mark(error) : error });
      } catch {
        json = JSON.stringify({ error: { type: "Error", message: "an error that cannot be written as JSON" } });
      }
      this.store.append(json);
    } finally {
      this.upstream = null;
      this.end();
    }
  }

  /** Stops the stream when it holds more events or bytes than the bounds allow. */
  private bound({ events, streamBytes }: Limits): void {
    if (this.store.log.taken >= events) {
      this.stop("StreamLimitExceeded", `the stream reached ${events} events (MAX_EVENTS): the relay stopped its upstream request`);
    } else if (this.store.bytes > streamBytes) {
      this.stop("StreamLimitExceeded", `the stream passed ${streamBytes} bytes (MAX_STREAM_BYTES): the relay stopped its upstream request`);
    }
  }

  /**
   * Ends a live stream now: one `{"error": {type, message}}` event, then the end, and the upstream
   * request aborted. False when the stream had already ended.
   */
  private stop(type: string, message: string): boolean {
    if (!this.store.exists || this.ended) return false;
    this.store.append(JSON.stringify({ error: this.cost ? this.cost.mark({ type, message }) : { type, message } }));
    this.end();
    this.upstream?.abort(new StreamStopped(type, message));
    this.upstream = null;
    return true;
  }

  /** Marks the stream ended (kept for the TTL, then deleted by the alarm). */
  private end(): void {
    if (this.ended) return;
    this.store.flush(); // (every event before the state that says the stream ended)
    this.store.ended = true;
    if (this.cost) this.settle(this.cost.settlement());
    this.cost = null;
    this.store.markEnded(Date.now() + this.ttlMs);
    this.viewers.notify();
    void this.schedule();
  }

  /** Hands a settlement to the quotas (kept alive past the answer; a failure is logged: the claim expires). */
  private settle(settlement: Settlement): void {
    const settling = this.config.settle?.(this.env, settlement);
    if (settling) this.state.waitUntil(settling.catch((e) => console.error("relay: a stream's usage could not be settled", e)));
  }

  /**
   * 404 for a stream that does not exist and, the same, for one bound to other credentials (no
   * oracle of which ids exist); null when `request` may use it.
   */
  private refuse(request: Request): Response | null {
    const binding = request.headers.get(BINDING_HEADER);
    const mine = this.store.authHash === null || (binding !== null && sameHash(binding, this.store.authHash));
    if (!this.store.exists || !mine) return refusal(404, "NotFoundError", "No such stream: it never existed, or it ended and expired.");
    return null;
  }

  /** A cancel (SPEC §8): 204 when stopped now or already ended. */
  private async cancel(request: Request): Promise<Response> {
    const refused = this.refuse(request);
    if (refused) return refused;
    this.stop("StreamCancelled", "the stream was cancelled (DELETE on its Content-Location): the relay stopped its upstream request");
    return new Response(null, { status: 204 });
  }

  /** A resume: checks who asks and from where, then the answer from event `after + 1`. */
  private async resume(request: Request): Promise<Response> {
    const refused = this.refuse(request);
    if (refused) return refused;
    // a chat's resume (GET /api/chat/<chatId>/stream) wants a live stream only: 204 once it ended
    if (request.headers.get("x-resume-live-only") !== null && this.ended) return new Response(null, { status: 204 });
    const max = this.limits.clients;
    if (this.viewers.size >= max) {
      return refusal(429, "RateLimitError", `This stream has ${max} clients connected (MAX_CLIENTS): try again when one has left.`, {
        "retry-after": "5",
      });
    }
    const after = Number(request.headers.get("x-resume-after") ?? -1);
    if (after >= this.count) {
      return refusal(400, "InvalidRequestError", `Last-Event-ID ${after} is past the last event sent so far (${this.count - 1}).`);
    }
    return this.answer(after + 1, request.headers.get("accept"));
  }

  /** One alarm for both deadlines: abandonment while live or pending (checked again until it is due), expiry once ended. */
  private async schedule(): Promise<void> {
    if (this.ended && !this.pending) await this.state.storage.setAlarm(this.expiresAt);
    else if (this.upstream) {
      await this.state.storage.setAlarm(
        Math.min(this.viewers.idleSince(Date.now()) + this.abandonMs, this.startedAt + this.limits.streamMs),
      );
    }
  }

  /** Why a live stream (or one waiting for its headers) must stop now: [type, message], or null. */
  private overdue(now: number): [string, string] | null {
    if (!this.upstream) return null;
    if (now >= this.startedAt + this.limits.streamMs) {
      const s = this.limits.streamMs / 1000;
      return ["StreamLimitExceeded", `the stream ran for ${s} s (MAX_STREAM_S): the relay stopped its upstream request`];
    }
    if (now < this.viewers.idleSince(now) + this.abandonMs) return null;
    const s = this.abandonMs / 1000;
    // (waiting for the headers, no client reads: the clock runs from the request, see awaitHeaders)
    if (this.pending) return ["UpstreamTimeout", `the upstream sent no answer within ${s} s (ABANDON_S): the relay stopped its request`];
    return ["StreamAbandoned", `no client read the stream for ${s} s (ABANDON_S): the relay stopped its upstream request`];
  }

  /** The object's alarm: abandonment, MAX_STREAM_S (before the upstream's headers too), expiry. */
  async alarm(): Promise<void> {
    if (!this.store.exists && !this.pending && await this.kept.alarm()) return;
    const now = Date.now();
    if (this.pending) {
      const due = this.overdue(now);
      if (due) this.upstream?.abort(new StreamStopped(...due));
      else await this.schedule();
      return;
    }
    if (!this.store.exists) return; // (nothing kept: a subclass may keep something else, see holdsStream)
    if (!this.ended) {
      const due = this.overdue(now);
      if (due) this.stop(...due);
      else await this.schedule();
      return;
    }
    // a client still reading an expired stream keeps it a while longer (one that stopped reading does not)
    const reading = this.viewers.size > 0 && now < this.viewers.idleSince(now) + this.abandonMs;
    if (reading || now < this.expiresAt) {
      if (reading) this.expiresAt = Math.max(this.expiresAt, now + this.ttlMs);
      await this.state.storage.setAlarm(this.expiresAt);
      return;
    }
    await this.state.storage.deleteAll();
    this.store.forget();
  }
}
