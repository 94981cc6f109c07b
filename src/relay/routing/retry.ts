// Routing: SPEC §10 "Fallbacks" (which failures move to the next target, and the log line of a move).
//
// What a fallback (fallback.ts, before the first event) and a continuation (continuation.ts, after
// it) share: whether a target's failure is one another target may mend, the one log line of a move,
// and how a row's answer is asked for (ServeOptions).
import { ConnectionError, StreamProtocolError, UpstreamError } from "../../errors.js";
import type { Limits } from "../admission/limits.js";
import type { RelayModel } from "./models.js";
import { causeOf } from "./target.js";
import type { StreamTrace } from "./tracing.js";
import type { Watchdog } from "./watchdog.js";
import type { PassThrough } from "./pass-through.js";

/** Statuses of a refusal that another target may not repeat (SPEC §10; 529: Anthropic's overloaded). */
const RETRYABLE = (status: number): boolean =>
  status === 408 || status === 409 || status === 429 ||
  (status >= 500 && status <= 599);
/** An error event inside a stream (no status) of a kind that a retry may mend: overloaded, a server's, a rate limit, a stall. */
const RETRYABLE_TYPE = /overload|server|internal|unavailable|api_error|rate_?limit|timeout|stalled|resource_exhausted/i;

/** Whether `error` (a target's, before or during its answer) is one another target may mend. */
export function retryable(seen: unknown): boolean {
  const error = causeOf(seen); // (the provider's own error, not what the client is told of it)
  if (error instanceof ConnectionError) return true;
  // a body that ended before the provider's own end (message_stop, [DONE]): a cut, which a proxy or
  // the runtime often delivers as a clean end rather than a broken connection (workerd does)
  if (error instanceof StreamProtocolError) return error.rule === "STOP-LAST";
  if (!(error instanceof UpstreamError)) return false;
  if (error.status !== null) return RETRYABLE(error.status);
  return error.errorType !== null && error.errorType !== "StreamCancelled" &&
    RETRYABLE_TYPE.test(error.errorType);
}

/**
 * Whether a request that failed before its first event was taken by its provider (its answer began:
 * a body cut, an error event, a broken stream), so that its input is charged (SPEC §10 "Principals and
 * quotas": never under-charged); a refusal with an HTTP status, no connection at all, or the relay's
 * own refusal (no provider error) was not.
 */
export function answered(seen: unknown): boolean {
  const error = causeOf(seen);
  if (error instanceof ConnectionError) return error.bytesRead !== undefined;
  if (error instanceof StreamProtocolError) return true;
  return error instanceof UpstreamError && error.status === null;
}

/** Why a target failed, for the log: the error's kind, status, type or rule; never its message (it may quote the request). */
export function whyOf(seen: unknown): string {
  const error = causeOf(seen);
  if (error instanceof ConnectionError) return `no connection${error.code ? ` (${error.code})` : ""}`;
  if (error instanceof StreamProtocolError) return `a broken stream (${error.rule})`;
  if (error instanceof UpstreamError) {
    return error.status === null
      ? `an error event ${error.errorType ?? "UpstreamError"}`
      : `HTTP ${error.status} ${error.errorType ?? ""}`.trim();
  }
  return error instanceof Error ? error.name : "a failure";
}

/** The log's line of a move from target `from` to `to` of model `model`'s row (a fallback or a continuation). */
export function logMove(model: string, from: string, to: string, failure: unknown, how: "fallback" | "continuation"): void {
  const what = how === "fallback" ? "failed before its first event" : "failed mid-answer";
  const next = how === "fallback" ? "asking" : "continuing with";
  console.warn(`relay: model ${JSON.stringify(model.slice(0, 200))}: target ${from} ${what} (${whyOf(failure)}); ${next} target ${to}`);
}

/** How `servedAnswer` asks: the relay's bounds, the watchdog, the trace (tracing.ts) if any. */
export interface ServeOptions {
  bounds: Pick<Limits, "eventBytes" | "events" | "streamBytes">;
  watchdog: Watchdog;
  trace?: StreamTrace | undefined;
  /** The output the request's claim reserved (usage-estimate.ts `outputReserve`): each target is asked for at most this. */
  maxTokens?: number | undefined;
  /** A target's name in the row (its `name`, else its index): set by servedAnswer for continuation.ts's log. */
  nameOf?: (target: RelayModel) => string;
  /** The client's own request, passed through to a target of its door's API (pass-through.ts). */
  passThrough?: PassThrough | undefined;
  /**
   * Told of each continuation (continuation.ts; SPEC §10 "A stream outlives its object"): just before
   * its request leaves (the stream's object stores it as sent, its own input counted, so an object
   * that dies before the target answers still charges it; a throw sends nothing), and when its target
   * serves the answer (stored as the stream's target: a take-up after a restart asks it).
   */
  sending?: ((news: Sending) => void) | undefined;
}

/**
 * What ServeOptions `sending` is told: a continuation request about to leave, with its own `input`
 * (counted from now: continuation.ts `requestInput`, one request's and its prefix), or the target that
 * serves the answer from now on (`serving`: its `name`, else its index in the row, as x-mmsp-target).
 */
export type Sending = { input: number } | { serving: string };
