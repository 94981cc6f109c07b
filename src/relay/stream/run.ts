// The stream: SPEC §8 and §10 (the one upstream request of a stream, read once, whatever its clients do).
//
// The part of a stream's object that runs the upstream (stream-object.ts is the shell): the creating
// request made into the upstream request (read whole, so it does not depend on the client's
// connection; the internal headers taken off), the wait for its headers (watched by the alarm:
// ending.ts), and the reading, through the package in validate mode (every event checked, the grammar
// enforced), each checked event stored (store.ts) and counted (stream-cost.ts), a failure stored as
// the last event, the bounds MAX_EVENTS and MAX_STREAM_BYTES enforced.
import { parseJsonText } from "../../internal/json.js";
import { toWireError } from "../../index.js";
import { encodeWireEventWith } from "../../encode/wire-event.js";
import { knownJsonText } from "../../providers/json-text.js";
import type { Limits } from "../admission/limits.js";
import { askedOf, CLAIM_HEADER, type Ticket, ticketOf, withRequest } from "../accounting/stream-cost.js";
import { checkedBatches, reportedUsageOf } from "./answer.js";
import { StreamCost } from "../accounting/stream-cost.js";
import type { UniEvent } from "../../schema.js";
import type { StreamEnding } from "./ending.js";
import { BINDING_HEADER, DOOR_HEADER, META_HEADER, URL_HEADER } from "./headers.js";
import { limitsOf, type Live, type StreamContext } from "./parts.js";
import { readsOf } from "../reads.js";
import type { Sending } from "../routing/retry.js";

/** A creating request, taken apart: the upstream request and what the object keeps of the rest. */
export interface Creation {
  upstreamRequest: Request;
  /** The creator's credentials' HMAC (bind.ts), or null. */
  binding: string | null;
  /** A door's settings (an Open Responses stream's), or null. */
  meta: string | null;
  /** A door's answer: its encoding's name (door-answer.ts), or null for MMSP's. */
  door: string | null;
  /** The claim to settle, or null (no quotas), and its header's text (kept with the stream: store.ts). */
  ticket: Ticket | null;
  ticketText: string | null;
  /** The request's body, read whole. */
  body: ArrayBuffer;
}

/**
 * The creating request as the upstream gets it: as the Worker admitted it, at its public URL, without
 * the internal headers; the body read whole first (the Worker checked its size), so the upstream
 * request does not depend on this request's connection, which ends when the client goes away.
 */
export async function creationOf(request: Request): Promise<Creation> {
  const headers = new Headers(request.headers);
  const taken = (name: string): string | null => {
    const value = headers.get(name);
    headers.delete(name);
    return value;
  };
  const binding = taken(BINDING_HEADER);
  const publicUrl = taken(URL_HEADER) ?? request.url;
  const ticketText = taken(CLAIM_HEADER);
  const ticket = ticketOf(ticketText);
  // (an Open Responses stream's settings: kept with it, answered with every replay, never sent upstream)
  const meta = taken(META_HEADER);
  const door = taken(DOOR_HEADER); // (a door's answer: its encoding's name, door-answer.ts)
  const body = await request.arrayBuffer();
  const upstreamRequest = new Request(publicUrl, { method: "POST", headers, body });
  return { upstreamRequest, binding, meta, door, ticket, ticketText: ticket && ticketText, body };
}

/** The upstream of one stream's object: waited for, then read to its end. */
export class StreamRun<E> {
  constructor(private readonly ctx: StreamContext<E>, private readonly live: Live, private readonly ending: StreamEnding<E>) {}

  /**
   * The upstream request until its headers, watched by the same alarm as a live stream's: given up
   * (`reading` aborted) ABANDON_S after it was made, or at MAX_STREAM_S. Whether the creator still
   * waits does not count: before the answer's headers there is nothing to read, and a client that
   * leaves then is not always told (through Miniflare neither the Worker's request nor the object's
   * aborts), so a wait counted as reading held a silent upstream until MAX_STREAM_S.
   */
  async awaitHeaders(reading: AbortController, open: () => Promise<Response>): Promise<Response> {
    this.live.pending = true;
    this.live.upstream = reading;
    this.ctx.viewers.lastRead = this.live.startedAt = Date.now();
    try {
      await this.ending.schedule();
      return await open();
    } finally {
      this.live.pending = false;
      this.live.upstream = null;
    }
  }

  /**
   * A stream stored as live that no instance reads any more (its object restarted: a deploy, an
   * eviction, a crash; SPEC §10 "A stream outlives its object"), taken up again where its row allows
   * (createRelay's `takeUp`: routing/continuation.ts) — its stored events replayed to the checks and
   * the cost, not stored again, then the continuation read as any upstream; the abandon time counts
   * from now. Otherwise, or when no target takes it up, it ends typed (ending.ts `interrupted`).
   */
  async takeUp(): Promise<void> {
    const { store, config, env } = this.ctx;
    const duty = store.duty();
    const request = config.takeUp && duty && store.request();
    if (!request) return this.ending.interrupted();
    const stored = this.ending.stored();
    const reading = new AbortController();
    this.live.upstream = reading;
    this.ctx.viewers.lastRead = this.live.startedAt = Date.now();
    let upstream: Response | null = null;
    // (a continuation request is stored as sent before it leaves — its input counted, `withRequest` — and
    // what its target reports replaces that at once when it answers: an object that dies in between
    // still charges it, and nothing is charged twice; SPEC §10 "A stream outlives its object")
    // (and a target that serves it stored as the stream's: a second restart takes up from it)
    const sending = (news: Sending) => {
      if ("serving" in news) store.saveTarget(news.serving);
      else if (stored) store.saveUsage(JSON.stringify(withRequest(stored, news.input)));
    };
    try {
      await this.ending.schedule();
      const events = store.events().map((json) => parseJsonText(json) as UniEvent);
      const reported = (stored?.usage.usage_metadata ?? null) as UniEvent["usage_metadata"] | null;
      const asked = stored ? askedOf(stored) : undefined;
      upstream = await config.takeUp!(request, env, { target: duty!.target, events, reported, sending, asked }, reading.signal);
    } catch (e) {
      console.error("relay: a restarted stream could not be taken up", e);
    }
    if (store.ended || upstream === null || !upstream.ok) {
      // (cancelled meanwhile — stop() ended it, unsettled — or none took it up: ended typed, settled from its duty)
      await upstream?.body?.cancel().catch(() => {});
      this.live.upstream = null;
      if (!store.ended && stored) store.saveUsage(JSON.stringify(stored)); // (no request answered: none counted)
      if (!store.ended) return this.ending.interrupted();
      if (stored) this.ending.settle(stored.settlement);
      return;
    }
    const ticket = ticketOf(duty!.ticket);
    const cost = ticket && new StreamCost(ticket, stored && askedOf(stored));
    this.live.cost = cost;
    cost?.follow(reportedUsageOf(upstream));
    if (cost) store.usage = () => JSON.stringify(cost.snapshot());
    await this.read(upstream, config.clientOf(upstream), reading.signal, store.count);
  }

  /**
   * A continuation request of the live stream is about to leave (routing/continuation.ts, past a
   * provider's failure): stored as sent, its own input counted (stream-cost.ts `withRequest`), so that
   * an object that dies before its target answers still charges it (the batch of its first event
   * stores what it reports instead). Or its target serves the answer now: stored as the stream's
   * target (the duty's), so a take-up after a restart asks it, not the one that failed.
   */
  sending(news: Sending): void {
    const { store } = this.ctx;
    if (!store.exists || store.ended) return;
    if ("serving" in news) return store.saveTarget(news.serving);
    const cost = this.live.cost;
    cost?.sent(news.input);
    if (cost) store.saveUsage();
  }

  /** Reads the upstream to its end; every checked event is stored (past the first `replayed`: stored already), a failure as the last event. */
  async read(upstream: Response, client: string, signal: AbortSignal, replayed = 0): Promise<void> {
    const { store } = this.ctx;
    // (what the object holds while reading: one event of at most MAX_EVENT_BYTES, the message being
    // checked, bounded by MAX_STREAM_BYTES through bound(); the events of a turn, stored at its end or
    // past 256 Ki characters, and the window of the last ones written: event-log.ts)
    const limits = limitsOf(this.ctx); // (read once: the env's bounds, parsed anew at each call)
    // (an answer of the models table made in this isolate: its events themselves, answer.ts)
    // (its reads taken directly when they are a provider's events: no stream hop per event, reads.ts)
    // (one read per provider chunk, its events stored in one synchronous loop: no promise per event)
    const reader = readsOf(checkedBatches(upstream, { client, signal, maxEventBytes: limits.eventBytes }));
    try {
      reading: for (;;) {
        const { done, value: batch } = await reader.read();
        if (done) break;
        let flushed = false;
        for (const value of batch) {
          if (store.ended) {
            // stopped (stop()): its event is the last one
            await reader.cancel().catch(() => {}); // (the abort's error, already known)
            break reading;
          }
          this.live.cost?.see(value); // (counted first: a batch stored by this append stores its usage with it)
          if (replayed > 0) {
            replayed--; // (an event the dead instance stored: checked and counted again, not stored twice)
            // (all counted again: what the continuation's target reported replaces the request's estimate now, not at the first batch)
            if (replayed === 0) store.saveUsage();
            continue;
          }
          // (a Gemini call's `.done` written with its fragment's very text, not stringified again: providers/json-text.ts)
          const json = encodeWireEventWith(value, knownJsonText);
          // (the checked event itself held for the live door answers: no parse-back, live-events.ts)
          this.ctx.viewers.live.add(store.log.taken, value, json.length);
          if (store.append(json)) flushed = true;
          this.bound(limits);
        }
        // (events stored mid-turn, an upstream that gives more at once than the window holds: the
        // viewers are given a turn to take them from memory before more push them out of it)
        if (flushed) await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } catch (e) {
      if (store.ended) return; // stopped: the abort's own error is not stored
      let json: string;
      try {
        const error = toWireError(e);
        json = JSON.stringify({ error: this.live.cost ? this.live.cost.mark(error) : error });
      } catch {
        json = JSON.stringify({ error: { type: "Error", message: "an error that cannot be written as JSON" } });
      }
      store.append(json);
    } finally {
      this.live.upstream = null;
      try {
        this.ending.end();
      } catch (e) {
        // (its storage gone: this instance died under the stream; its answers end, see `orphaned`)
        console.error("relay: a stream could not be ended (its object stopped)", e);
        this.ctx.viewers.notify();
      }
    }
  }

  /** Stops the stream when it holds more events or bytes than the bounds allow. */
  private bound({ events, streamBytes }: Limits): void {
    const { store } = this.ctx;
    if (store.log.taken >= events) {
      this.ending.stop("StreamLimitExceeded", `the stream reached ${events} events (MAX_EVENTS): the relay stopped its upstream request`);
    } else if (store.bytes > streamBytes) {
      this.ending.stop(
        "StreamLimitExceeded",
        `the stream passed ${streamBytes} bytes (MAX_STREAM_BYTES): the relay stopped its upstream request`,
      );
    }
  }
}
