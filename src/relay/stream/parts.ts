// The stream: SPEC §8 and §10 (what the parts of a stream's Durable Object share: the object's state,
// createRelay's config, the store, the viewers).
//
// A stream's object (stream-object.ts, a thin shell) is four parts a reader can hold apart: the store
// (store.ts), the viewers it serves (viewers.ts), the upstream it runs (run.ts) and its end and
// settlement (ending.ts). They share this context; none imports the shell.
import type { Limits } from "../admission/limits.js";
import type { ResponseKeeper } from "./responses.js";
import type { StreamCost } from "../accounting/stream-cost.js";
import type { Settlement } from "../accounting/quota.js";
import type { RelayState } from "../platform.js";
import type { TakenUp } from "../routing/fallback.js";
import type { Sending } from "../routing/retry.js";
import type { DoorEncoding } from "./encoding.js";
import type { StreamStore } from "./store.js";
import type { Viewers } from "./viewers.js";

/** What a stream's object needs from `createRelay` (create-relay.ts). */
export interface StreamObjectConfig<E> {
  /** Makes the upstream request: its stream (2xx), its refusal (wrapped), or a 502 that names no URL. */
  open(request: Request, env: E, signal: AbortSignal, sending?: (news: Sending) => void): Promise<Response>;
  /** How protocol errors name the upstream of this answer. */
  clientOf(upstream: Response): string;
  /** The bounds in effect. */
  limits(env: E): Limits;
  /** Settles a stream's claim on its principal's quota (quota.ts) when the stream ends, however it ends. */
  settle?(env: E, settlement: Settlement): Promise<void>;
  /**
   * Takes a stream up again after its object restarted (SPEC §10 "A stream outlives its object";
   * routing/serve.ts `takeUp`): the stored request, what is known of the answer so far, and the new
   * reading's signal; the answer going on (the stored events first), or null when it cannot.
   */
  takeUp?(request: Request, env: E, taken: TakenUp, signal: AbortSignal): Promise<Response | null>;
  /** The doors' encodings by name (stream/encoding.ts): a door's request names the one its answer is written in. */
  encodings?: Readonly<Record<string, DoorEncoding>>;
  /** Where responses are kept (stream/responses.ts), for a door's encoding to keep its answer; absent or null: none. */
  keeper?(env: E): ResponseKeeper | null;
}

/** What the parts of one stream's object share. */
export interface StreamContext<E> {
  readonly state: RelayState;
  readonly env: E;
  readonly config: StreamObjectConfig<E>;
  readonly store: StreamStore;
  readonly viewers: Viewers;
}

/** The bounds in effect (the env's, parsed anew at each call). */
export const limitsOf = <E>(ctx: StreamContext<E>): Limits => ctx.config.limits(ctx.env);

/** Why the object stopped reading before the upstream's end; its wire type is `type`. */
export class StreamStopped extends Error {
  constructor(readonly type: string, message: string) {
    super(message);
  }
  override name = "StreamStopped";
}

/** What the object holds while a stream is live (one instance's memory; storage holds the rest: store.ts). */
export interface Live {
  /** The creating request waits for the upstream's headers (nothing stored yet). */
  pending: boolean;
  /** When this instance began reading the upstream (MAX_STREAM_S counts from here). */
  startedAt: number;
  /** Aborts the upstream reading; set while this instance reads it. */
  upstream: AbortController | null;
  /** The stream's cost, while it runs with a claim on a quota (stream-cost.ts): settled at its end. */
  cost: StreamCost | null;
}
