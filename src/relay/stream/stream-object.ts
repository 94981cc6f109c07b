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
// The class is a thin shell over its parts (parts.ts): the store (store.ts), the viewers (viewers.ts),
// the upstream it runs (run.ts), its end and settlement (ending.ts).
// - A plain class (constructor(state, env) + fetch + alarm), not `cloudflare:workers`' DurableObject:
//   the module loads anywhere (Node type-checks it); workerd runs it as a Durable Object all the same.
//
// Requests come from the Worker (create-relay.ts), which owns the public routes:
//   POST https://stream/create   (x-relay-url: the public URL)  the creating request, body as admitted
//   GET  https://stream/resume  (x-resume-after: <n>)           a resume, after validation of n
//   DELETE https://stream/cancel                                a cancel (DELETE /v1/streams/<id>)
//   POST https://stream/chat/…                                 a useChat chat's record (chat-record.ts), in
//                                                              an object named `chat:<HMAC>` that holds no stream
// A subclass may add routes of its own.
import { KeptResponses } from "./responses.js";
import { sameHash } from "../admission/bind.js";
import type { RelayState } from "../platform.js";
import { served as servedStream, StreamStore } from "./store.js";
import { Viewers } from "./viewers.js";
import { refusal } from "../refusal.js";
import { StreamCost } from "../accounting/stream-cost.js";
import { BINDING_HEADER, DOOR_HEADER } from "./headers.js";
import { doorOf, storedDoorAnswer } from "./door-answer.js";
import { chatRecord, chatRecordAlarm, isChatRecordRequest } from "./chat-record.js";
import { PROVIDER_HEADER, TARGET_HEADER } from "./headers.js";
import { reportedUsageOf } from "./answer.js";
import { limitsOf, type Live, type StreamContext, type StreamObjectConfig, StreamStopped } from "./parts.js";
import { StreamEnding } from "./ending.js";
import { creationOf, StreamRun } from "./run.js";
import type { Sending } from "../routing/retry.js";
import { spentBefore } from "../routing/fallback.js";

/** (the headers the Worker hands the object: headers.ts) */
export { BINDING_HEADER, URL_HEADER } from "./headers.js";
/** (what a stream's object needs from `createRelay`: parts.ts) */
export type { StreamObjectConfig } from "./parts.js";

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
  /** What the parts share (parts.ts). */
  private readonly ctx: StreamContext<E>;
  /** What this instance holds while the stream is live (parts.ts). */
  private readonly live: Live = { pending: false, startedAt: 0, upstream: null, cost: null };
  /** Ending and settling, and the alarm (ending.ts). */
  private readonly ending: StreamEnding<E>;
  /** The upstream (run.ts). */
  private readonly run: StreamRun<E>;
  /** The stored responses an object of a principal keeps (SPEC §10 "Stored responses"; responses.ts). */
  private readonly kept: KeptResponses;

  /**
   * Called by `createRelay`'s subclass, which workerd constructs with `(state, env)`.
   *
   * @param config what `createRelay` says (the upstream, the bounds)
   */
  constructor(state: RelayState, env: E, config: StreamObjectConfig<E>) {
    this.state = state;
    this.env = env;
    const viewers = new Viewers();
    const store = new StreamStore(
      state.storage.sql,
      () => viewers.notify(),
      (e: unknown) => this.live.upstream?.abort(e),
      () => viewers.lowest(),
    );
    const envOf = (): E => this.env; // (read anew: its tests in workerd change the object's env)
    this.ctx = {
      state,
      get env() {
        return envOf();
      },
      config,
      store,
      viewers,
    };
    this.ending = new StreamEnding(this.ctx, this.live);
    this.run = new StreamRun(this.ctx, this.live, this.ending);
    this.kept = new KeptResponses(state.storage);
    this.load();
  }

  // (what the parts hold, as the object's own: its tests in workerd read and move these clocks)
  /** What the object keeps in storage (store.ts). */
  private get store(): StreamStore {
    return this.ctx.store;
  }
  /** The clients it serves (viewers.ts). */
  private get viewers(): Viewers {
    return this.ctx.viewers;
  }
  /** Events stored (store.ts): what the answers may send. */
  private get count(): number {
    return this.store.count;
  }
  /** Whether the stream ended (store.ts). */
  private get ended(): boolean {
    return this.store.ended;
  }
  /** When an ended stream is deleted (store.ts; ms since the epoch). */
  /** (moved by its tests in workerd only: the object reads store.expiresAt) */
  protected get expiresAt(): number {
    return this.store.expiresAt;
  }
  protected set expiresAt(ms: number) {
    this.store.expiresAt = ms;
  }
  /** When a client last read (viewers.ts): the abandon clock. */
  private get lastRead(): number {
    return this.viewers.lastRead;
  }
  private set lastRead(ms: number) {
    this.viewers.lastRead = ms;
  }
  /** The creating request waits for the upstream's headers (run.ts). */
  private get pending(): boolean {
    return this.live.pending;
  }
  /** When this instance began reading the upstream (MAX_STREAM_S counts from here). */
  /** (moved by its tests in workerd only: the parts read live.startedAt) */
  protected get startedAt(): number {
    return this.live.startedAt;
  }
  protected set startedAt(ms: number) {
    this.live.startedAt = ms;
  }

  /** The streamed answer to one client (viewers.ts): stored events from `from`, then live ones, then the end; a door's in its encoding. */
  private answer(from: number, accept: string | null, door: string | null = null): Response | Promise<Response> {
    const { store, live } = this;
    const served = servedStream(store, () => live.upstream); // (orphaned once this instance reads no upstream: store.ts)
    const { ask, meta } = doorOf(door, store.meta()); // (a stream kept at its client's asking: its door's, door-answer.ts)
    if (ask === null) return this.viewers.answer(served, from, accept, meta);
    const where = { env: this.env, keeper: this.ctx.config.keeper?.(this.env) ?? null };
    return storedDoorAnswer(this.viewers, served, ask, this.ctx.config.encodings, meta, from, where);
  }

  /** Whether this object holds a stream now (false: never created, or expired and deleted). */
  protected get holdsStream(): boolean {
    return this.store.exists || this.pending;
  }

  /** The state from storage, after a restart (or nothing: a new or unknown stream). */
  private load(): void {
    // Stored as live, but no instance reads its upstream any more (the object was restarted): taken
    // up again where its row allows, else ended typed and settled from its stored duty (run.ts `takeUp`).
    if (this.store.load()) this.state.waitUntil(this.run.takeUp());
  }

  /** The Worker's requests to the object (see the top). */
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/create" && request.method === "POST") return this.create(request);
    if (url.pathname === "/resume") return this.resume(request);
    if (url.pathname === "/cancel" && request.method === "DELETE") return this.cancel(request);
    if (KeptResponses.handles(url)) return this.kept.fetch(request); // (an object of a principal's stored responses: responses.ts)
    if (isChatRecordRequest(request, url)) return chatRecord(this.state, limitsOf(this.ctx), request, url);
    return refusal(404, "NotFoundError", "No such route in the stream object.");
  }

  /** The creating request: the upstream request, then the answer (the stream from event 0). */
  private async create(request: Request): Promise<Response> {
    if (this.holdsStream) return refusal(409, "ConflictError", "This stream id is taken.");
    const { upstreamRequest, binding, meta, door, ticket, ticketText, body } = await creationOf(request);
    const reading = new AbortController();
    const cost = ticket && new StreamCost(ticket);
    // (a continuation past a provider's failure is stored as sent before it leaves: run.ts `sending`)
    const sending = (news: Sending) => this.run.sending(news);
    const upstream = await this.run.awaitHeaders(reading, () => this.ctx.config.open(upstreamRequest, this.env, reading.signal, sending));
    if (reading.signal.aborted && reading.signal.reason instanceof StreamStopped) {
      // given up before the headers (the alarm): the creator, if still there, is told why
      await upstream.body?.cancel().catch(() => {});
      if (cost) this.ending.settle(cost.settlement());
      const { type, message } = reading.signal.reason;
      return refusal(504, type, message);
    }
    if (!upstream.ok) {
      if (cost) this.ending.settle(cost.refused(spentBefore(upstream))); // (a request a fallback moved past is charged)
      return upstream; // a refusal: passed on, nothing kept
    }
    this.live.cost = cost;
    cost?.follow(reportedUsageOf(upstream)); // (a provider of the models table: what it reports counts at an early end)
    const client = this.ctx.config.clientOf(upstream);
    // (the stream's duty, stored with it: a restarted object settles it, store.ts)
    this.store.create(binding, meta, { target: upstream.headers.get(TARGET_HEADER), ticket: ticketText, request: upstreamRequest, body });
    if (cost) this.store.usage = () => JSON.stringify(cost.snapshot());
    this.store.saveUsage(); // (what the provider reported as it answered — Anthropic's input — stored at once, not with the first batch)
    this.live.upstream = reading;
    this.lastRead = Date.now();
    // (the creator's answer made first: its client counts from event 0, so the window keeps what it was not sent yet)
    const answering = (async () => this.answer(0, request.headers.get("accept"), door))();
    answering.catch(() => {}); // (its failure is the creator's, awaited below, once the upstream is read)
    this.state.waitUntil(this.run.read(upstream, client, reading.signal));
    await this.schedule();
    const answer = await answering;
    // the target that served (a models row's fallback.ts), for the Worker's x-mmsp-provider
    const served = upstream.headers.get(PROVIDER_HEADER);
    if (served !== null && /^[\w.:-]{1,100}$/.test(served)) answer.headers.set(PROVIDER_HEADER, served);
    const target = upstream.headers.get(TARGET_HEADER);
    if (target !== null && /^[\w.:-]{1,100}$/.test(target)) answer.headers.set(TARGET_HEADER, target);
    return answer;
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
    this.ending.stop(
      "StreamCancelled",
      "the stream was cancelled (DELETE on its Content-Location): the relay stopped its upstream request",
    );
    return new Response(null, { status: 204 });
  }

  /** A resume: checks who asks and from where, then the answer from event `after + 1`. */
  private async resume(request: Request): Promise<Response> {
    const refused = this.refuse(request);
    if (refused) return refused;
    // a chat's resume (GET /api/chat/<chatId>/stream) wants a live stream only: 204 once it ended
    if (request.headers.get("x-resume-live-only") !== null && this.ended) return new Response(null, { status: 204 });
    const max = limitsOf(this.ctx).clients;
    if (this.viewers.size >= max) {
      return refusal(429, "RateLimitError", `This stream has ${max} clients connected (MAX_CLIENTS): try again when one has left.`, {
        "retry-after": "5",
      });
    }
    const after = Number(request.headers.get("x-resume-after") ?? -1);
    if (after >= this.count) {
      return refusal(400, "InvalidRequestError", `Last-Event-ID ${after} is past the last event sent so far (${this.count - 1}).`);
    }
    return this.answer(after + 1, request.headers.get("accept"), request.headers.get(DOOR_HEADER));
  }

  /** Sets the one alarm for the stream's deadlines (ending.ts). */
  private schedule(): Promise<void> {
    return this.ending.schedule();
  }

  /** The object's alarm: abandonment, MAX_STREAM_S (before the upstream's headers too), expiry (ending.ts). */
  async alarm(): Promise<void> {
    if (!this.holdsStream && await this.kept.alarm()) return; // (an object of a principal's stored responses)
    if (!this.holdsStream) return chatRecordAlarm(this.state); // (no stream: a useChat chat's record, or nothing)
    return this.ending.alarm();
  }
}
