// Routing: SPEC §10 "Fallbacks", "Stalls", "Traces" (where an admitted request goes: a model of the
// table to its row's targets, watched and traced; any other to the upstream MMSP server).
//
// `open` is the one call every stream makes for its answer (the stream's object, the stateless
// pipe): a model of the models table is served by its row (fallback.ts: its targets in order,
// continuation.ts past a failure, watchdog.ts, tracing.ts); any other request goes to the upstream
// (upstream.ts: a URL or the operator's function), or is a 502 when the relay has none.
import { outputReserve } from "../accounting/usage-estimate.js";
import type { Limits } from "../admission/limits.js";
import { servedAnswer, type TakenUp, takenUpAnswer } from "./fallback.js";
import { type MmspBody, mmspBody, modelOf, type RelayModels, type RelayRow, rowOf, targetsOf, unknownModel } from "./models.js";
import { StreamTrace, type TraceTracer } from "./tracing.js";
import { callUpstream, openUpstream, type UpstreamFunction } from "./upstream.js";
import { targetCount } from "./count.js";
import { type WatchdogEnv, watchdogOf } from "./watchdog.js";
import { refusal } from "../refusal.js";
import type { Sending } from "./retry.js";
import { passThroughOf } from "./pass-through.js";
import { ownValue } from "../../internal/values.js";

/** What routing needs of the rest: the upstream, the table, the tracer, the bounds. */
export interface RoutingParts<E> {
  upstream: string | UpstreamFunction<E> | undefined;
  tableOf: ((env: E) => RelayModels) | undefined;
  tracer: TraceTracer | undefined;
  limitsOf(env: E): Limits;
}

/** The output a request of `row` reserves and asks every target for (usage-estimate.ts: one rule for the claim and the provider). */
export const reserveOf = (config: MmspBody["config"], row: RelayRow, limits: Limits): number =>
  outputReserve(config.max_tokens, targetsOf(row)[0]!.config?.max_tokens, limits.defaultMaxTokens);

/** The routing step of a relay: `open` (an admitted request's answer) and `clientOf` (who is named in its protocol errors). */
export function routing<E>(parts: RoutingParts<E>) {
  const { upstream, tableOf, tracer, limitsOf } = parts;

  async function open(request: Request, env: E, signal: AbortSignal, sending?: (news: Sending) => void): Promise<Response> {
    const target = upstream ?? ownValue(env as { MMSP_UPSTREAM?: string }, "MMSP_UPSTREAM");
    if (tableOf) {
      // a model of the table: its provider answers (models.ts); any other goes on to the upstream
      const table = tableOf(env);
      const bytes = new Uint8Array(await request.arrayBuffer());
      const name = modelOf(bytes);
      const row = name === undefined ? undefined : rowOf(table, name);
      if (row !== undefined || !target) {
        const body = mmspBody(bytes);
        if (body instanceof Response) return body;
        if (!row) return unknownModel(body.model, table);
        // the row's targets in order (fallback.ts), watched (watchdog.ts), traced (tracing.ts)
        const trace = tracer && new StreamTrace(tracer, body.model, targetsOf(row)[0]!, body.config.max_tokens);
        const maxTokens = reserveOf(body.config, row, limitsOf(env)); // (what admit reserved: each target is asked for it)
        const passThrough = passThroughOf(request); // (a door's client request, as written: pass-through.ts)
        return servedAnswer(row, body, signal, {
          bounds: limitsOf(env),
          watchdog: watchdogOf(env as WatchdogEnv),
          trace,
          maxTokens,
          passThrough,
          sending,
        });
      }
      request = new Request(request, { body: bytes });
    }
    if (typeof target === "function") return callUpstream(target, request, env, signal);
    if (!target) {
      return Promise.resolve(
        refusal(502, "UpstreamUnavailable", "This relay has no upstream (set MMSP_UPSTREAM, or createRelay's `upstream`)."),
      );
    }
    return openUpstream(request, target, signal);
  }

  // (an upstream function may name itself in protocol errors through this header; a URL upstream is "upstream")
  const clientOf = (response: Response): string =>
    typeof upstream === "function" || tableOf ? response.headers.get("x-mmsp-client") ?? "upstream" : "upstream";

  /**
   * A stream taken up again after its object restarted (SPEC §10 "A stream outlives its object"): its
   * stored request's row continues the stored answer (fallback.ts `takenUpAnswer`), or null — not a
   * model of the table, or no target can continue it.
   */
  async function takeUp(request: Request, env: E, taken: TakenUp, signal: AbortSignal): Promise<Response | null> {
    if (!tableOf) return null;
    const bytes = new Uint8Array(await request.arrayBuffer());
    const name = modelOf(bytes);
    const row = name === undefined ? undefined : rowOf(tableOf(env), name);
    const body = row === undefined ? null : mmspBody(bytes);
    if (!row || !body || body instanceof Response) return null;
    const maxTokens = reserveOf(body.config, row, limitsOf(env)); // (the reserve the claim holds, as `open` asks it)
    return takenUpAnswer(row, body, taken, signal, { bounds: limitsOf(env), watchdog: watchdogOf(env as WatchdogEnv), maxTokens });
  }

  /** A door's count of tokens of an admitted request: its row's target's counter's figure, or null for the estimate (count.ts). */
  async function count(request: Request, env: E): Promise<number | null> {
    if (!tableOf) return null;
    return targetCount(tableOf(env), new Uint8Array(await request.arrayBuffer()), request.signal);
  }

  return { open, clientOf, takeUp, count };
}
