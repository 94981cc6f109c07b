// Routing: SPEC §10 "Doors" (a door's count of tokens — Messages' count_tokens, Gemini's :countTokens —
// from its row's target's own counter, where it has one).
//
// The row's first target (where a request of the row goes first) is asked through its provider's
// counter (providers/count.ts: the request mapped to that provider's shape by its request builder,
// within the row's ceilings, with the provider's key): Anthropic's count_tokens, Gemini's countTokens,
// the Responses API's input_tokens. Null — the door then answers the relay's estimate and says it is
// one (doors/count.ts) — for a target without a counter (an OpenAI-compatible Chat server), a request
// the row would refuse, or a counter that fails (a refusal, no connection, no answer within COUNT_MS):
// a count is never a 5xx. A count asks no model: no fallback, no claim of tokens (admission's `counting`).
import { follow } from "../../internal/abort.js";
import { configWithin } from "./ceilings.js";
import { mmspBody, modelOf, type RelayModels, rowOf, targetsOf } from "./models.js";
import { whyOf } from "./retry.js";

/** The longest a target's counter is waited for before the count is the relay's estimate. */
export const COUNT_MS = 10_000;

/** The input tokens of an admitted request (`bytes`: its MMSP body) as its row's first target counts them, or null. */
export async function targetCount(table: RelayModels, bytes: Uint8Array, signal?: AbortSignal): Promise<number | null> {
  const name = modelOf(bytes);
  const row = name === undefined ? undefined : rowOf(table, name);
  const body = row === undefined ? undefined : mmspBody(bytes);
  if (row === undefined || body === undefined || body instanceof Response) return null;
  const target = targetsOf(row)[0]!;
  const { provider } = target;
  if (typeof provider.countTokens !== "function") return null;
  const config = configWithin(target.config, target.allow, body.config);
  if (config instanceof Response) return null;
  const abort = new AbortController();
  follow(abort, signal);
  const timer = setTimeout(() => abort.abort(new Error(`no count within ${COUNT_MS} ms`)), COUNT_MS);
  try {
    const history = target.foreignThinking === undefined ? {} : { foreignThinking: target.foreignThinking };
    return await provider.countTokens({ model: target.model, messages: body.messages, config }, { ...history, signal: abort.signal });
  } catch (e) {
    console.warn(`relay: the token counter of ${provider.name} failed (${whyOf(e)}); the count answered is the relay's estimate`);
    return null;
  } finally {
    clearTimeout(timer);
  }
}
