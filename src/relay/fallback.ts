// SPEC §10 "Fallbacks": a row's targets tried in order. Before the first event reaches the stream, a
// refusal that a retry may mend (408, 409, 429, 5xx, 529), no answer (no connection, an in-stream
// error of an overloaded or server kind, a stall) or no first event within FIRST_EVENT_S moves to
// the next target; 400, 401/403 (the operator's key), 404, 413 and every other refusal do not. The
// last target's refusal is the relay's answer; `x-mmsp-provider` names the provider that served,
// `x-mmsp-target` the target (its `name`, else its index in the row); each move to another target
// (a fallback, a continuation) is one line of the log naming the failed target and why (no content, no key).
// After the first event, continuation.ts decides (a row's `continueOnFailure`). The claim on the
// principal's quota is the request's (create-relay.ts): a fallback spends from it, as the stream
// its stop event settles, whichever target served.
import { ConnectionError, StreamProtocolError, UpstreamError } from "../errors.js";
import { follow } from "../internal/abort.js";
import type { UniEvent } from "../schema.js";
import { continued } from "./continuation.js";
import type { Limits } from "./admission/limits.js";
import {
  causeOf,
  type MmspBody,
  type RelayModel,
  type RelayRow,
  type StartedTarget,
  startTarget,
  TARGET_HEADER,
  targetEvents,
  targetName,
  targetsOf,
} from "./models.js";
import { sseAnswer } from "./answer.js";
import type { StreamTrace } from "./tracing.js";
import { firstEvent, LATE, type Watchdog } from "./watchdog.js";

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

/** The error of a target silent past FIRST_EVENT_S (a retry may mend it). */
const lateError = (client: string, ms: number): UpstreamError => {
  const message = `${client} sent no first event within ${ms} ms (FIRST_EVENT_S): the relay asked the next target`;
  return new UpstreamError({
    client,
    status: null,
    errorType: "UpstreamTimeout",
    error: { type: "UpstreamTimeout", message },
    message,
  });
};

/** What a try of one target ends with: the error that makes the next one asked, if any. */
const failureOf = (start: Awaited<ReturnType<typeof startTarget>>): unknown =>
  "refused" in start ? start.error : "error" in start.started.first ? start.started.first.error : undefined;

/** Lets a target go: its request aborted, its reader cancelled. */
function release(
  attempt: AbortController,
  started: StartedTarget | undefined,
  why: unknown,
): void {
  attempt.abort(why);
  started?.reader.cancel(why).catch(() => {});
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
}

/**
 * The answer of a row: its targets tried in order until one streams (see the top), its events then
 * continued past a failure when the row allows it (continuation.ts); the refusal of the last target
 * tried otherwise. `signal` (a DELETE, a bound, the client gone) stops every target, the one being
 * asked included.
 */
export async function servedAnswer(
  row: RelayRow,
  body: MmspBody,
  signal: AbortSignal,
  options: ServeOptions,
): Promise<Response> {
  const targets = targetsOf(row);
  const { trace, watchdog } = options;
  const nameOf = (target: RelayModel): string => targetName(row, targets.indexOf(target));
  for (let i = 0;; i++) {
    const target = targets[i]!;
    const last = i === targets.length - 1;
    const attempt = new AbortController();
    follow(attempt, signal);
    const firstRead = last || watchdog.firstEventMs === undefined
      ? undefined
      : async (read: Promise<ReadableStreamReadResult<UniEvent>>) => {
        const r = await firstEvent(read, watchdog.firstEventMs);
        return r === LATE ? { error: lateError(target.provider.name, watchdog.firstEventMs!) } : r;
      };
    const start = await startTarget(
      target,
      body,
      attempt.signal,
      options.bounds,
      { stallMs: watchdog.stallMs, firstRead, maxTokens: options.maxTokens },
    );
    const failure = failureOf(start);
    if (
      !last && !signal.aborted && failure !== undefined && retryable(failure)
    ) {
      release(attempt, "started" in start ? start.started : undefined, failure);
      trace?.fallback(target, targets[i + 1]!, failure);
      logMove(body.model, targetName(row, i), targetName(row, i + 1), failure, "fallback");
      continue;
    }
    if ("refused" in start) {
      trace?.refused(target, start.refused.status, failure);
      return start.refused;
    }
    trace?.served(target);
    const rest = targets.slice(i + 1);
    // (the target serving now: a continuation moves it on)
    const serving = { events: start.started.events };
    const own = targetEvents(start.started);
    const events = continued(
      target,
      own,
      rest,
      body,
      signal,
      { ...options, nameOf },
      serving,
    );
    const answer = sseAnswer(
      trace ? trace.follow(events) : events,
      target.provider.name,
      // (no continuation: the provider reader's own events, checked by construction)
      { reported: () => serving.events.reportedUsage, checked: events === own },
    );
    answer.headers.set(TARGET_HEADER, targetName(row, i)); // (the target that serves from the first event)
    return answer;
  }
}
