// Routing: SPEC §10 "Fallbacks" (after it, with `continueOnFailure`: the answer continued by the next target).
//
// SPEC §10 "Fallbacks", after the first event: with a target's `continueOnFailure`, a failure
// mid-answer (a cut, an in-stream error of an overloaded or server kind, a stall: fallback.ts's
// `retryable`) while the answer so far is text only (no tool call, no thinking, nothing else made or
// open) moves to the next target that can continue an assistant prefix (`provider.continuesPrefix`),
// asked with the request plus the text so far as its final assistant message, and for what is left
// of the claim's output (`max_tokens`: the reserve less the text so far; nothing left, no continuation). Its text goes on in
// the same open `text` group: one `.done` holding both parts (nothing repeated or lost at the seam, as
// far as the provider honours the prefix). Anything else ends the stream with the first target's
// error, as without continuation: two answers are never spliced (the continuing target's first item
// must be text; its events pass the relay's own grammar check after this, in the stream's object).
// The stop event's usage is the last target's plus what the earlier targets spent before their cuts:
// each request's own input (continued-cost.ts: its target's count, else one request's input plus the
// prefix it carried, from the moment it is sent) and their output estimated from their text (a cut
// answer reports no output count), since the quota settles from it.
import type { UniEvent } from "../../schema.js";
import { answered, logMove, retryable, type ServeOptions } from "./retry.js";
import type { MmspBody, RelayModel } from "./models.js";
import { type StartedTarget, startTarget, targetEvents } from "./target.js";
import { follow } from "../../internal/abort.js";
import { batchedOne } from "../../providers/batches.js";
import { flattened } from "../reads.js";
import { inputEstimate, textTokens, trustedInput } from "../accounting/usage-estimate.js";
import { carry, requestInput, type Serving, withCarried } from "./continued-cost.js";

type Item = UniEvent["content_items"][number] & {
  text?: string;
  fidelity?: unknown;
};

/** The answer so far, as continuation needs it. */
export class Answer {
  /** Every text so far (each group's, in order): the prefix a continuing target is asked with. */
  text = "";
  /** Only text items came (open or done). */
  textOnly = true;
  /** The open group's kind, or null between groups. */
  open: string | null = null;
  /** The open text group's text and fidelity (its `.done` is rebuilt from them: a continued group spans two targets). */
  group = "";
  groupFidelity: unknown = undefined;

  /** One event out; returns the event to send (a text `.done` rebuilt from the whole group). */
  see(event: UniEvent): UniEvent {
    const item = event.content_items[0] as Item | undefined;
    if (item === undefined) return event;
    const kind = item.type.slice(0, item.type.lastIndexOf("."));
    if (kind !== "text") this.textOnly = false;
    if (item.type === "text.delta") {
      if (this.open !== "text") {
        [this.group, this.groupFidelity] = ["", undefined];
      }
      this.open = "text";
      this.group += item.text ?? "";
      this.text += item.text ?? "";
      if (nonEmpty(item.fidelity)) this.groupFidelity ??= item.fidelity;
      return event;
    }
    if (item.type === "text.done") {
      this.open = null;
      const { fidelity: _, ...rest } = item;
      const done = nonEmpty(this.groupFidelity)
        ? { ...rest, text: this.group, fidelity: this.groupFidelity }
        : { ...rest, text: this.group };
      return {
        ...event,
        content_items: [done as UniEvent["content_items"][number]],
      };
    }
    this.open = item.type.endsWith(".done") ? null : kind;
    return event;
  }
}

/** The failures that are a restart of the relay's own (take-up.ts): mended by the same target. */
export const RESTARTS = new WeakSet<object>();

const nonEmpty = (f: unknown): boolean => typeof f === "object" && f !== null && Object.keys(f).length > 0;

/**
 * A continuing target's first text: the whitespace the prefix left out (`skip`) dropped where it
 * repeats it, its fidelity dropped when the open group has one (FIDELITY-ONCE). Returns the event
 * (null: nothing left of it) and what is still to skip.
 */
function seam(
  answer: Answer,
  skip: string,
  event: UniEvent,
): [UniEvent | null, string] {
  const item = event.content_items[0] as Item | undefined;
  if (item?.type !== "text.delta") return [event, ""];
  let text = item.text ?? "";
  let at = 0;
  while (at < skip.length && at < text.length && text[at] === skip[at]) at++;
  const still = at === text.length ? skip.slice(at) : "";
  text = text.slice(at);
  const fidelity = nonEmpty(item.fidelity) && answer.open === "text" &&
      nonEmpty(answer.groupFidelity)
    ? undefined
    : item.fidelity;
  if (text === "" && !nonEmpty(fidelity)) return [null, still];
  const { fidelity: _, ...rest } = item;
  const out = nonEmpty(fidelity) ? { ...rest, text, fidelity } : { ...rest, text };
  return [{
    ...event,
    content_items: [out as UniEvent["content_items"][number]],
  }, still];
}

/** Where a continued answer stands: the target serving it and its events, the targets left, the seam, what earlier targets spent. */
export interface Continuing {
  readonly answer: Answer;
  reader: ReadableStreamDefaultReader<UniEvent>;
  current: RelayModel;
  left: readonly RelayModel[];
  /** Bytes of whitespace the prefix left out (a provider refuses a prefill ending in whitespace), skipped in the next target's first text. */
  skip: string;
  attempt: AbortController | null;
  /**
   * The output of the targets before the last one (their text before each cut, estimated: a cut
   * answer never reports its count), added to the stop event's `response_tokens`: the quota settles
   * from that event (stream-cost.ts), and those tokens were spent.
   */
  carried: number;
  /** One request's input: the first target's count, else the claim's estimate (the request's text: usage-estimate.ts); null until needed. */
  asked: number | null;
}

/** What continued() is asked with besides its state. */
export interface ContinueParts {
  body: MmspBody;
  signal: AbortSignal;
  options: ServeOptions;
  serving: Serving;
}

/**
 * `candidate` asked to continue the answer so far: started when its first item is text (anything else
 * would close the open group: a splice), null when it cannot (the next candidate is tried), "none"
 * when nothing is left of the claim's output (no continuation).
 */
async function ask(
  candidate: RelayModel,
  state: Continuing,
  parts: ContinueParts,
  failure: unknown,
): Promise<StartedTarget | null | "none"> {
  const { body, signal, options } = parts;
  const prefix = state.answer.text.trimEnd();
  // (what is left of the claim's output: the text so far was spent from it)
  const maxTokens = options.maxTokens === undefined ? undefined : options.maxTokens - textTokens(state.answer.text);
  if (maxTokens !== undefined && maxTokens < 1) return "none";
  state.asked ??= trustedInput(parts.serving.events.reportedUsage) ?? inputEstimate(body.messages, body.config);
  parts.serving.estimate ??= state.asked; // (the first request's: one request's input while its target counted none)
  const input = requestInput(state.asked, prefix);
  // (a throw — the duty could not be stored — sends nothing)
  options.sending?.({ input });
  const attempt = state.attempt = new AbortController();
  follow(attempt, signal);
  const start = await startTarget(candidate, body, attempt.signal, options.bounds, {
    stallMs: options.watchdog.stallMs,
    prefix,
    maxTokens,
  });
  if (signal.aborted) return "none";
  const first = "started" in start ? start.started.first : null;
  const firstItem = first && !("error" in first) && !first.done ? first.value[0]?.content_items[0] : undefined;
  if ("started" in start && firstItem?.type === "text.delta") return start.started;
  attempt.abort(failure);
  // (a request its provider took is charged, whatever came of it: its count, else its estimate)
  if ("started" in start) carry(parts.serving, start.started.events.reportedUsage, input);
  else if (answered(start.error)) carry(parts.serving, null, input);
  if ("started" in start) start.started.reader.cancel(failure).catch(() => {});
  return null;
}

/** The next target that continues the answer so far, started (true), or none could: the error stands (false). */
export async function next(state: Continuing, parts: ContinueParts, failure: unknown): Promise<boolean> {
  const { body, signal, options, serving } = parts;
  const mendable = RESTARTS.has(failure as object) || retryable(failure); // (a restart: the failure was the relay's)
  if (state.current.continueOnFailure !== true || !state.answer.textOnly || !mendable || signal.aborted) return false;
  while (state.left.length > 0) {
    const candidate = state.left[0]!;
    state.left = state.left.slice(1);
    if (candidate.provider.continuesPrefix !== true) continue;
    const started = await ask(candidate, state, parts, failure);
    if (started === "none") return false;
    if (started === null) continue;
    const { answer } = state;
    options.trace?.continued(state.current, candidate, failure, answer.text.length);
    if (options.nameOf) logMove(body.model, options.nameOf(state.current), options.nameOf(candidate), failure, "continuation");
    state.skip = answer.text.slice(answer.text.trimEnd().length);
    state.carried = textTokens(answer.text);
    state.current = candidate;
    carry(serving, serving.events.reportedUsage, serving.estimate!); // (the request left: ask() set its estimate)
    serving.events = started.events;
    serving.estimate = requestInput(state.asked!, answer.text.trimEnd());
    if (options.nameOf) options.sending?.({ serving: options.nameOf(candidate) }); // (a take-up after a restart asks it)
    state.reader = flattened(targetEvents(started)).getReader();
    return true;
  }
  return false;
}

/**
 * `events` (the first target's, already started) continued past a failure by the targets of `rest`
 * that can continue a prefix, when `target` allows it (see the top). `signal` (a DELETE…) stops the
 * target being asked too; `serving.events` follows the target that serves (what it reports counts at an early end).
 */
export function continued(
  target: RelayModel,
  events: ReadableStream<UniEvent[]>,
  rest: readonly RelayModel[],
  body: MmspBody,
  signal: AbortSignal,
  options: ServeOptions,
  serving: Serving,
): ReadableStream<UniEvent[]> {
  if (target.continueOnFailure !== true || !rest.some((t) => t.provider.continuesPrefix === true)) return events;
  const parts: ContinueParts = { body, signal, options, serving };
  const state: Continuing = {
    answer: new Answer(),
    reader: flattened(events).getReader(),
    current: target,
    left: rest,
    skip: "",
    attempt: null,
    carried: 0,
    asked: null,
  };
  return batchedOne(continuedStream(state, parts)); // (a continued answer: its events one by one, the seam's rule per event)
}

/** The events of a continued answer from where `state` stands: the next target asked past each failure it may mend. */
export function continuedStream(state: Continuing, parts: ContinueParts): ReadableStream<UniEvent> {
  return new ReadableStream<UniEvent>({
    async pull(controller) {
      for (;;) {
        let r: ReadableStreamReadResult<UniEvent>;
        try {
          r = await state.reader.read();
        } catch (e) {
          if (await next(state, parts, e)) continue;
          throw e;
        }
        if (r.done) return controller.close();
        let event: UniEvent | null = r.value;
        if (state.skip !== "") [event, state.skip] = seam(state.answer, state.skip, r.value);
        if (event === null) continue;
        if (event.event_type === "stop" && parts.serving.estimate !== undefined) event = withCarried(event, parts.serving, state.carried);
        return controller.enqueue(state.answer.see(event));
      }
    },
    cancel: (reason) => {
      state.attempt?.abort(reason);
      return state.reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}
