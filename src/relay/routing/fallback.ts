// Routing: SPEC §10 "Fallbacks" (before the first event: the next target).
//
// SPEC §10 "Fallbacks": a row's targets tried in order. Before the first event reaches the stream, a
// refusal that a retry may mend (408, 409, 429, 5xx, 529), no answer (no connection, an in-stream
// error of an overloaded or server kind, a stall) or no first event within FIRST_EVENT_S moves to
// the next target; 400, 401/403 (the operator's key), 404, 413 and every other refusal do not. The
// last target's refusal is the relay's answer; `x-mmsp-provider` names the provider that served,
// `x-mmsp-target` the target (its `name`, else its index in the row); each move to another target
// (a fallback, a continuation) is one line of the log naming the failed target and why (no content, no key).
// After the first event, continuation.ts decides (a row's `continueOnFailure`). The claim on the
// principal's quota is the request's (create-relay.ts): a fallback spends from it, as the stream
// its stop event settles, whichever target served; a target that took the request and failed before
// its first event (its answer began) is charged its input too (continued-cost.ts `carry`), never left out.
import { UpstreamError } from "../../errors.js";
import { follow } from "../../internal/abort.js";
import type { UniEvent } from "../../schema.js";
import { continued } from "./continuation.js";
import { carriedStop, carry, reportedSoFar, type Serving } from "./continued-cost.js";
import { takenUp } from "./take-up.js";
import { answered, logMove, retryable, type Sending, type ServeOptions } from "./retry.js";
import { inputEstimate } from "../accounting/usage-estimate.js";
import type { Spent } from "../accounting/stream-cost.js";
import { type MmspBody, type RelayModel, type RelayRow, TARGET_HEADER, targetName, targetsOf } from "./models.js";
import { type StartedTarget, startTarget, targetEvents } from "./target.js";
import { sseAnswer } from "../stream/answer.js";
import { batchedOne } from "../../providers/batches.js";
import { firstEvent, LATE } from "./watchdog.js";

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

/** What the requests a refused answer's fallbacks moved past had spent (their provider took them), by the refusal. */
const SPENT = new WeakMap<Response, Spent>();

/**
 * What the requests before a refusal of servedAnswer spent, when a provider took one of them before
 * the last target refused (its settlement charges it: SPEC §10 "Principals and quotas"); else undefined.
 */
export const spentBefore = (refusal: Response): Spent | undefined => SPENT.get(refusal);

/** Lets a target go: its request aborted, its reader cancelled. */
function release(
  attempt: AbortController,
  started: StartedTarget | undefined,
  why: unknown,
): void {
  attempt.abort(why);
  started?.reader.cancel(why).catch(() => {});
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
  // (the requests before the serving one that their provider took: each charged its own input)
  const before: Pick<Serving, "carriedInput" | "carriedEstimated"> = {};
  let estimated: number | undefined;
  const estimate = (): number => (estimated ??= inputEstimate(body.messages, body.config)); // (one request's input, made once)
  for (let i = 0;; i++) {
    const target = targets[i]!;
    const last = i === targets.length - 1;
    const attempt = new AbortController();
    follow(attempt, signal);
    const firstRead = last || watchdog.firstEventMs === undefined
      ? undefined
      : async (read: Promise<ReadableStreamReadResult<UniEvent[]>>) => {
        const r = await firstEvent(read, watchdog.firstEventMs);
        return r === LATE ? { error: lateError(target.provider.name, watchdog.firstEventMs!) } : r;
      };
    const start = await startTarget(
      target,
      body,
      attempt.signal,
      options.bounds,
      { stallMs: watchdog.stallMs, firstRead, maxTokens: options.maxTokens, passThrough: options.passThrough },
    );
    const failure = failureOf(start);
    if (
      !last && !signal.aborted && failure !== undefined && retryable(failure)
    ) {
      release(attempt, "started" in start ? start.started : undefined, failure);
      // (a provider that took the request — its answer began, then failed before its first event — may
      // bill its input: charged, its count where it gave one, else the estimate; a refusal is not)
      const reported = "started" in start ? start.started.events.reportedUsage : answered(failure) ? null : undefined;
      if (reported !== undefined) carry(before, reported, estimate());
      trace?.fallback(target, targets[i + 1]!, failure);
      logMove(body.model, targetName(row, i), targetName(row, i + 1), failure, "fallback");
      continue;
    }
    if ("refused" in start) {
      trace?.refused(target, start.refused.status, failure);
      if (before.carriedInput !== undefined) {
        SPENT.set(start.refused, { input: before.carriedInput, estimated: before.carriedEstimated ?? 0 });
      }
      return start.refused;
    }
    trace?.served(target);
    // (a passed-through answer is the provider's bytes: no continuation joins another's to them)
    const rest = start.started.bytes ? [] : targets.slice(i + 1);
    // (the target serving now: a continuation moves it on)
    const serving: Serving = { events: start.started.events, ...before };
    if (before.carriedInput !== undefined) serving.estimate = estimate(); // (its own, while it counts none)
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
    // (no continuation: the provider reader's own events, checked by construction; past a fallback
    // that took a request, its stop event charged it: withCarried rewrites counts only)
    const checked = events === own;
    const served = checked && before.carriedInput !== undefined ? carriedStop(own, serving) : events;
    const answer = sseAnswer(
      trace ? trace.follow(served) : served,
      target.provider.name,
      { reported: () => reportedSoFar(serving), checked, bytes: start.started.bytes },
    );
    answer.headers.set(TARGET_HEADER, targetName(row, i)); // (the target that serves from the first event)
    return answer;
  }
}

/** What a restarted stream's object knows of its answer so far (stream/store.ts: its duty and its events). */
export interface TakenUp {
  /** The target that served it (its `name`, else its index in the row: x-mmsp-target), or null. */
  target: string | null;
  /** The events stored so far. */
  events: readonly UniEvent[];
  /** What that target reported of its usage before the restart, or null. */
  reported: UniEvent["usage_metadata"] | null;
  /**
   * Told just before each continuation request is sent (the object stores the request as sent, its
   * input counted, so one that dies before the target answers is still charged for it) and when its
   * target serves (stored as the stream's target): stream/run.ts.
   */
  sending?: (news: Sending) => void;
  /** One request's input as the stream's cost knows it (stream-cost.ts `askedOf`): a continuation's estimate starts from it. */
  asked?: number;
}

/**
 * The answer of a row taken up again after its stream's object restarted (SPEC §10 "A stream
 * outlives its object"; continuation.ts `takenUp`): the stored events, then the rest from the target
 * that served them or the next one that can continue; null when none can (the object ends it typed).
 */
export async function takenUpAnswer(
  row: RelayRow,
  body: MmspBody,
  taken: TakenUp,
  signal: AbortSignal,
  options: ServeOptions,
): Promise<Response | null> {
  const targets = targetsOf(row);
  const i = targets.findIndex((_, n) => targetName(row, n) === taken.target);
  if (i < 0) return null;
  const nameOf = (target: RelayModel): string => targetName(row, targets.indexOf(target));
  const up = await takenUp(
    targets[i]!,
    targets.slice(i + 1),
    taken.events,
    body,
    signal,
    { ...options, nameOf, sending: taken.sending },
    taken.reported,
    taken.asked,
  );
  if (up === null) return null;
  const answer = sseAnswer(batchedOne(up.events), targets[i]!.provider.name, { reported: () => reportedSoFar(up.serving) });
  answer.headers.set(TARGET_HEADER, taken.target!);
  return answer;
}
