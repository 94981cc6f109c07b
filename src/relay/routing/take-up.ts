// Routing: SPEC §10 "A stream outlives its object" (an answer whose stream's object restarted, taken up
// again by continuation.ts's continuation).
//
// A Durable Object's life ends without warning (a deploy, an eviction, a crash): the failure is the
// relay's, not the provider's. Where §10's continuation allows it (a target with `continueOnFailure`,
// the answer so far text only), the restarted object (stream/run.ts `takeUp`) asks that same target
// again, or the next one that can continue a prefix, to continue the stored text in the same open
// group — the one continuation request of continuation.ts, with its seam and its carried usage —
// and reads the stored events replayed first, then the rest. Otherwise the stream ends typed.
import type { UniEvent } from "../../schema.js";
import { UpstreamError } from "../../errors.js";
import type { ServeOptions } from "./retry.js";
import type { MmspBody, RelayModel } from "./models.js";
import type { StartedTarget } from "./target.js";
import { inputEstimate } from "../accounting/usage-estimate.js";
import { Answer, continuedStream, type ContinueParts, type Continuing, next, RESTARTS } from "./continuation.js";
import type { Serving } from "./continued-cost.js";

/** The error a taken-up stream ends with when no target could continue it (SPEC §10 "A stream outlives its object"). */
const restarted = (): UpstreamError => {
  const message = "the relay lost this stream's upstream connection (its object restarted) and no target could continue it";
  const error = new UpstreamError({
    client: "relay",
    status: null,
    errorType: "StreamInterrupted",
    error: { type: "StreamInterrupted", message },
    message,
  });
  RESTARTS.add(error);
  return error;
};

/**
 * A stream whose object restarted under it (SPEC §10 "A stream outlives its object": the failure was
 * the relay's), taken up again: `stored` (the events the dead object stored) replayed, then `target`
 * asked again, or the next of `rest` that can, to continue their text in the same open group, as
 * `continued` does past a provider's failure — one continuation request, never a splice. `reported`
 * is what the targets before the restart reported (their input carried into the stop event, with
 * the estimate of the stored text; `options.sending` is told before each continuation request leaves),
 * `asked` one request's input as the stream's cost knows it (else the request's estimate): a
 * continuation request's own input is estimated from it and its prefix until its target counts it.
 * Null when the answer cannot be continued (no `continueOnFailure` — continuation.ts `next` decides —,
 * not text only, already stopped, no target took it up): the object then ends it typed.
 */
export async function takenUp(
  target: RelayModel,
  rest: readonly RelayModel[],
  stored: readonly UniEvent[],
  body: MmspBody,
  signal: AbortSignal,
  options: ServeOptions,
  reported: UniEvent["usage_metadata"] | null,
  asked?: number,
): Promise<{ events: ReadableStream<UniEvent>; serving: Serving } | null> {
  if (stored.some((e) => e.event_type === "stop")) return null;
  const answer = new Answer();
  for (const event of stored) answer.see(event);
  if (!answer.textOnly || answer.text.trim() === "") return null;
  // (the target before the restart: what it reported, carried into the stop event as a continuation carries it)
  const serving = { events: { reportedUsage: reported ?? null } as unknown as StartedTarget["events"] };
  const parts: ContinueParts = { body, signal, options, serving };
  const state: Continuing = {
    answer,
    reader: new ReadableStream<UniEvent>().getReader(),
    current: target,
    left: [target, ...rest],
    skip: "",
    attempt: null,
    carried: 0,
    // (what the dead object reported is the whole stream's so far, not one request's)
    asked: asked ?? inputEstimate(body.messages, body.config),
  };
  if (!(await next(state, parts, restarted()))) return null;
  let replayed = 0;
  const reader = continuedStream(state, parts).getReader();
  const events = new ReadableStream<UniEvent>({
    async pull(controller) {
      if (replayed < stored.length) return controller.enqueue(stored[replayed++]!);
      const r = await reader.read();
      if (r.done) controller.close();
      else controller.enqueue(r.value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
  return { events, serving };
}
