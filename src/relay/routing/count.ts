// Routing: SPEC §10 "Doors" (a door's count of tokens — Messages' count_tokens, Gemini's :countTokens —
// from its row's targets' own counters, where they have one) and "Fallbacks" (tried in the row's order).
//
// The row's targets are asked in order, as a request goes (fallback.ts), each through its provider's
// counter (providers/count.ts: the request mapped to that provider's shape by its request builder,
// within that target's ceilings, with the provider's key): Anthropic's count_tokens, Gemini's
// countTokens, the Responses API's input_tokens. A target without a counter (an OpenAI-compatible Chat
// server), or whose counter fails (a refusal, no connection), is passed for the next; a count spends
// nothing, so every failure moves on. All of them within COUNT_MS in total. Null — the door then answers
// the relay's estimate and says it is one (doors/count.ts) — when no target counts it, or when the
// row's first target would refuse the request (its ceilings: the request itself would be refused
// there): a count is never a 5xx. A count asks no model: no claim of tokens (admission's `counting`).
import { follow } from "../../internal/abort.js";
import { configWithin } from "./ceilings.js";
import { type MmspBody, mmspBody, modelOf, type RelayModel, type RelayModels, rowOf, targetsOf } from "./models.js";
import { whyOf } from "./retry.js";

/** The longest the row's counters are waited for, all of them together, before the count is the relay's estimate. */
export const COUNT_MS = 10_000;

/** The input tokens of an admitted request (`bytes`: its MMSP body) as the first of its row's targets that can counts them, or null. */
export async function targetCount(table: RelayModels, bytes: Uint8Array, signal?: AbortSignal): Promise<number | null> {
  const name = modelOf(bytes);
  const row = name === undefined ? undefined : rowOf(table, name);
  const body = row === undefined ? undefined : mmspBody(bytes);
  if (row === undefined || body === undefined || body instanceof Response) return null;
  const abort = new AbortController();
  follow(abort, signal);
  const timer = setTimeout(() => abort.abort(new Error(`no count within ${COUNT_MS} ms`)), COUNT_MS);
  try {
    for (const [i, target] of targetsOf(row).entries()) {
      const counted = await countOf(target, body, abort.signal);
      if (typeof counted === "number") return counted;
      if (counted === "refused" && i === 0) return null; // (the request itself would be refused: no fallback)
      if (abort.signal.aborted) return null;
    }
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** One target's count of `body`: its figure, "none" (no counter, or it failed: the next is asked), or "refused" (over its ceilings). */
async function countOf(target: RelayModel, body: MmspBody, signal: AbortSignal): Promise<number | "none" | "refused"> {
  const { provider } = target;
  if (typeof provider.countTokens !== "function") return "none";
  const config = configWithin(target.config, target.allow, body.config);
  if (config instanceof Response) return "refused";
  try {
    const history = target.foreignThinking === undefined ? {} : { foreignThinking: target.foreignThinking };
    return await provider.countTokens({ model: target.model, messages: body.messages, config }, { ...history, signal });
  } catch (e) {
    console.warn(
      `relay: the token counter of ${provider.name} failed (${whyOf(e)}); the next target's is asked, else the relay's estimate`,
    );
    return "none";
  }
}
