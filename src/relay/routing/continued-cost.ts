// Routing: SPEC §10 "Principals and quotas" and "Fallbacks" (what a continued answer's requests cost:
// each provider request its own input, from the moment it is sent).
//
// An answer continued past a failure (continuation.ts) is several provider requests: the first, and
// each continuation, asked the whole request plus the text so far as a prefix. Each is charged its own
// input, never one earlier request's for two: its target's count where it gave one (Anthropic's
// `message_start`), else its estimate, one request's input (`asked`: the first target's count, else the
// claim's estimate) plus its prefix's tokens (`requestInput`), marked estimated. That holds from the
// moment a continuation is sent (the stream's object stores it then: ServeOptions `sending`), for a
// request the provider took that could not continue the text (it is charged, and the next is asked),
// for what the answer reports before its stop event (`reportedSoFar`: the settlement's `reported`, also
// stored with each batch for a restart) and for the stop event itself (`withCarried`).
import type { UniEvent, UsageMetadata } from "../../schema.js";
import { passing } from "../reads.js";
import type { StartedTarget } from "./target.js";
import { type Reported, textTokens, trustedCount, trustedInput } from "../accounting/usage-estimate.js";

/**
 * The target serving a continued answer now (a continuation moves it on); once a continuation was
 * asked, the input of every other request sent for it (`carriedInput`: the targets before, and one that
 * answered but could not continue; each its target's count, else its estimate, `carriedEstimated` of
 * it) and the serving request's own estimate (`estimate`: its input while its target counted none).
 */
export interface Serving {
  events: StartedTarget["events"];
  carriedInput?: number;
  carriedEstimated?: number;
  estimate?: number;
}

/** `serving` charged one request more that serves no longer: its target's count of its input (`reported`), else `estimate`. */
export function carry(serving: Pick<Serving, "carriedInput" | "carriedEstimated">, reported: UsageMetadata | null, estimate: number): void {
  const counted = trustedInput(reported); // (a count the settlement would not trust: estimated)
  serving.carriedInput = (serving.carriedInput ?? 0) + (counted ?? estimate);
  if (counted === null) serving.carriedEstimated = (serving.carriedEstimated ?? 0) + estimate;
}

/** A continuation request's own input, counted from the moment it is sent: one request's (`asked`) and its prefix's text. */
export const requestInput = (asked: number, prefix: string): number => asked + textTokens(prefix);

/**
 * What the targets of a continued answer reported so far: the serving one's counts, its input with the
 * input of the requests before it (each its own: SPEC §10 "Principals and quotas"). What an answer that
 * ends before its stop event is settled from (and stored with each batch, for a restart: SPEC §10 "A
 * stream outlives its object"); the stop event carries the same (withCarried). Before any
 * continuation, the serving target's own counts (null while it reported none: the settlement then
 * estimates); after one, the serving request's input is its estimate while its target counted none,
 * and `estimated_input` says how much of the input is estimated.
 */
export function reportedSoFar(serving: Serving): Reported | null {
  const own = serving.events.reportedUsage;
  if (serving.estimate === undefined) return own; // (no continuation asked)
  const counted = trustedInput(own);
  const cached = counted === null ? null : trustedCount(own!.cached_tokens);
  const input = (counted ?? serving.estimate) + (serving.carriedInput ?? 0);
  return {
    cached_tokens: cached,
    prompt_tokens: input - (cached ?? 0),
    thoughts_tokens: own?.thoughts_tokens ?? null,
    response_tokens: own?.response_tokens ?? null,
    estimated_input: (counted === null ? serving.estimate : 0) + (serving.carriedEstimated ?? 0),
  };
}

/**
 * The stop event with what the earlier targets spent added: their input (`serving.carriedInput`) to
 * its `prompt_tokens` — its own input, when its target counted none, the request's estimate
 * (`serving.estimate`) — and their output (`output`) to its `response_tokens` (a count the last target
 * did not report: left to the estimate).
 */
export function withCarried(event: UniEvent, serving: Serving, output: number): UniEvent {
  const usage = event.usage_metadata;
  if (!usage) return event;
  const own = trustedInput(usage) === null ? null : trustedCount(usage.prompt_tokens) ?? 0;
  const prompt = (own ?? serving.estimate ?? 0) + (serving.carriedInput ?? 0);
  const response = usage.response_tokens === null ? null : usage.response_tokens + output;
  return { ...event, usage_metadata: { ...usage, prompt_tokens: prompt, response_tokens: response } };
}

/**
 * The serving target's events, its stop event charged the requests before it (`withCarried`): an
 * answer that fell back past targets that took the request (fallback.ts), when no continuation
 * writes its stop event (continuedStream does then).
 */
export function carriedStop(events: ReadableStream<UniEvent[]>, serving: Serving): ReadableStream<UniEvent[]> {
  const reader = events.getReader();
  return passing<UniEvent[]>(async () => {
    const r = await reader.read();
    const at = r.done ? -1 : r.value.findIndex((e) => e.event_type === "stop");
    if (at < 0) return r;
    const batch = r.value!.slice();
    batch[at] = withCarried(batch[at]!, serving, 0);
    return { done: false, value: batch };
  }, (reason) => reader.cancel(reason));
}
