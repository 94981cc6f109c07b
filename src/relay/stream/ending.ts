// The stream: SPEC §8 and §10 "Principals and quotas" (a stream ends once, however it ends — its
// upstream's end, an error, a bound, a cancel, abandonment, a restart — and is then settled once).
//
// The part of a stream's object that ends and settles (stream-object.ts is the shell):
// - `stop`: a live stream ended now, with one `{"error": {type, message}}` event (marked with the usage
//   so far), the upstream request aborted;
// - `end`: the stream marked ended (every event stored first), its claim settled, kept STREAM_TTL_S;
// - the one alarm for both deadlines: abandonment (no client read for ABANDON_S) or MAX_STREAM_S while
//   live or waiting for the headers, expiry (storage deleted) once ended.
import type { Settlement } from "../accounting/quota.js";
import { snapshotOf, StreamCost, ticketOf } from "../accounting/stream-cost.js";
import { limitsOf, type Live, type StreamContext, StreamStopped } from "./parts.js";

/**
 * While a stream is live its alarm comes at least this often (SPEC §10 "A stream outlives its object"):
 * an object reset under it (a deploy, an eviction, a crash) starts again within this long even when
 * no client comes back, and ends and settles the stream then (stream-object.ts `load`), its claim
 * released within seconds, not at ABANDON_S.
 */
const WATCH_MS = 10_000;

/** Ending, settling and the alarm of one stream's object. */
export class StreamEnding<E> {
  constructor(private readonly ctx: StreamContext<E>, private readonly live: Live) {}

  /**
   * Ends a live stream now: one `{"error": {type, message}}` event, then the end, and the upstream
   * request aborted. False when the stream had already ended.
   */
  stop(type: string, message: string): boolean {
    const { store } = this.ctx;
    if (!store.exists || store.ended) return false;
    const cost = this.live.cost;
    store.append(JSON.stringify({ error: cost ? cost.mark({ type, message }) : { type, message } }));
    this.end();
    this.live.upstream?.abort(new StreamStopped(type, message));
    this.live.upstream = null;
    return true;
  }

  /** Marks the stream ended (kept for the TTL, then deleted by the alarm), its claim settled. */
  end(): void {
    const { store, viewers } = this.ctx;
    if (store.ended) return;
    store.flush(); // (every event before the state that says the stream ended)
    store.ended = true;
    if (this.live.cost) this.settle(this.live.cost.settlement());
    this.live.cost = null;
    store.markEnded(Date.now() + limitsOf(this.ctx).ttlMs);
    viewers.notify();
    void this.schedule();
  }

  /**
   * A stream stored as live that no instance reads any more (its object restarted: a deploy, an
   * eviction, a crash; SPEC §10 "A stream outlives its object"): it can never complete, so it ends
   * now with a StreamInterrupted error event its readers can act on, and is settled once from its
   * stored duty (store.ts: the usage stored with the last batch — the provider's counts so far and the
   * estimate of what was stored), its claim released at once rather than when it expires.
   */
  interrupted(): void {
    const { store } = this.ctx;
    if (store.ended) return;
    const stored = this.stored();
    const message = "the relay lost this stream's upstream connection (its object restarted)";
    store.append(JSON.stringify({ error: { type: "StreamInterrupted", message, ...stored?.usage } }));
    this.end();
    if (stored) this.settle(stored.settlement);
  }

  /** What the stream cost as its duty stored it (store.ts; the claim's input alone before the first batch), or null without a claim. */
  stored(): ReturnType<typeof snapshotOf> {
    const duty = this.ctx.store.duty();
    const ticket = ticketOf(duty?.ticket ?? null);
    return snapshotOf(duty?.usage ?? null) ?? (ticket && new StreamCost(ticket).snapshot());
  }

  /** Hands a settlement to the quotas (kept alive past the answer; a failure is logged: the claim expires). */
  settle(settlement: Settlement): void {
    const { config, env, state } = this.ctx;
    const settling = config.settle?.(env, settlement);
    if (settling) state.waitUntil(settling.catch((e) => console.error("relay: a stream's usage could not be settled", e)));
  }

  /** One alarm for both deadlines: abandonment while live or pending (checked again until it is due), expiry once ended. */
  async schedule(): Promise<void> {
    const { store, state, viewers } = this.ctx;
    if (store.ended && !this.live.pending) await state.storage.setAlarm(store.expiresAt);
    else if (this.live.upstream) {
      const limits = limitsOf(this.ctx);
      const now = Date.now();
      await state.storage.setAlarm(
        Math.min(viewers.idleSince(now) + limits.abandonMs, this.live.startedAt + limits.streamMs, now + WATCH_MS),
      );
    }
  }

  /** Why a live stream (or one waiting for its headers) must stop now: [type, message], or null. */
  private overdue(now: number): [string, string] | null {
    if (!this.live.upstream) return null;
    const { abandonMs, streamMs } = limitsOf(this.ctx);
    if (now >= this.live.startedAt + streamMs) {
      return ["StreamLimitExceeded", `the stream ran for ${streamMs / 1000} s (MAX_STREAM_S): the relay stopped its upstream request`];
    }
    if (now < this.ctx.viewers.idleSince(now) + abandonMs) return null;
    const s = abandonMs / 1000;
    // (waiting for the headers, no client reads: the clock runs from the request, see run.ts awaitHeaders)
    if (this.live.pending) {
      return ["UpstreamTimeout", `the upstream sent no answer within ${s} s (ABANDON_S): the relay stopped its request`];
    }
    return ["StreamAbandoned", `no client read the stream for ${s} s (ABANDON_S): the relay stopped its upstream request`];
  }

  /** The object's alarm: abandonment, MAX_STREAM_S (before the upstream's headers too), expiry. */
  async alarm(): Promise<void> {
    const { store, state, viewers } = this.ctx;
    const now = Date.now();
    if (this.live.pending) {
      const due = this.overdue(now);
      if (due) this.live.upstream?.abort(new StreamStopped(...due));
      else await this.schedule();
      return;
    }
    if (!store.exists) return; // (nothing kept: a subclass may keep something else, see holdsStream)
    if (!store.ended) {
      const due = this.overdue(now);
      if (due) this.stop(...due);
      else await this.schedule();
      return;
    }
    // a client still reading an expired stream keeps it a while longer (one that stopped reading does not)
    const { abandonMs, ttlMs } = limitsOf(this.ctx);
    const reading = viewers.size > 0 && now < viewers.idleSince(now) + abandonMs;
    if (reading || now < store.expiresAt) {
      if (reading) store.expiresAt = Math.max(store.expiresAt, now + ttlMs);
      await state.storage.setAlarm(store.expiresAt);
      return;
    }
    await state.storage.deleteAll();
    store.forget();
  }
}
