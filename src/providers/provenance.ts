/**
 * Where an item came from (SPEC §9 "Where each item came from"): an item whose fidelity carries data
 * only its maker can verify (an Anthropic signature or redacted data, Responses `encrypted_content`,
 * a Gemini `thoughtSignature`, `reasoning_details`) also carries `fidelity.provider` and
 * `fidelity.model`. The reading core stamps it (core.ts), each provider's spec names the model its
 * stream said (`modelOf`), and the request builders read it back (history.ts).
 */
import { isRecord, ownValue } from "../internal/values.js";

/** The fidelity members only the provider that wrote them can verify. */
export const BOUND_KEYS: readonly string[] = ["signature", "encrypted_content", "reasoning_details"];

/** Whether `fidelity` carries data only its maker can verify. */
export function isBound(fidelity: unknown): fidelity is Record<string, unknown> {
  return isRecord(fidelity) && BOUND_KEYS.some((key) => ownValue(fidelity, key) != null);
}

/** The members a bound fidelity gains: the provider's name and, when its stream named one, the model. */
export function provenance(provider: string, model: string | undefined): Record<string, string> {
  return model === undefined ? { provider } : { provider, model };
}

/** A model name a stream gave, when it is one (a non-empty string of sane length: it is the provider's data). */
export function modelName(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" && value.length <= 256 ? value : undefined;
}
