// Routing: SPEC §10 "Stalls" and "Fallbacks" (FIRST_EVENT_S, STALL_S).
//
// SPEC §10 "Stalls" (and the first-event deadline of "Fallbacks"): how long the relay waits for a
// provider. No provider byte for STALL_S (default 60) while a stream is open: the provider's request
// is aborted (its `stallMs`, the providers' own watchdog: an `UpstreamError` of type StreamStalled),
// then a fallback or a continuation (fallback.ts, continuation.ts), else that error ends the stream.
// No first event within FIRST_EVENT_S (default 30): the next target, as for a refusal that a retry
// may mend. 0 turns either off.
import { ownValue } from "../../internal/values.js";
import { seconds } from "../stream/resume.js";

/** The variables of the watchdog (seconds, decimals allowed). */
export interface WatchdogEnv {
  /** Seconds without a provider byte before a stream counts as stalled (default 60; 0: never). */
  STALL_S?: string;
  /** Seconds a target has to send its first event before the next target is asked (default 30; 0: no deadline). */
  FIRST_EVENT_S?: string;
}

/** The watchdog's deadlines in milliseconds (undefined: none). */
export interface Watchdog {
  stallMs: number | undefined;
  firstEventMs: number | undefined;
}

const ms = (
  s: number,
): number | undefined => (s > 0 ? Math.min(s * 1000, 2 ** 31 - 1) : undefined);

/** The deadlines in effect for `env` (own members only, as every variable of the relay). */
export function watchdogOf(env: object): Watchdog {
  const read = (name: keyof WatchdogEnv): string | undefined => ownValue(env as WatchdogEnv, name);
  return {
    stallMs: ms(seconds(read("STALL_S"), 60)),
    firstEventMs: ms(seconds(read("FIRST_EVENT_S"), 30)),
  };
}

/** What `firstEvent` resolves to when the deadline passed first. */
export const LATE: unique symbol = Symbol("late");

/**
 * `read` (a stream's first read), or LATE when `ms` passes first (the caller aborts the target and
 * asks the next). The timer is cleared either way.
 */
export async function firstEvent<T>(
  read: Promise<T>,
  ms: number | undefined,
): Promise<T | typeof LATE> {
  if (ms === undefined) return read;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<typeof LATE>((
    resolve,
  ) => (timer = setTimeout(() => resolve(LATE), ms)));
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}
