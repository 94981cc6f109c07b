// The Anthropic Messages door: SPEC §9 "Where each item came from" (provider-bound values through a Messages client's history).
//
// A thinking block's `signature` (a `redacted_thinking` block's `data`) is the only place Messages
// gives a client's history for data only its maker can verify. SPEC §10: an unsealed value is the
// door's own API's provider's, so an Anthropic signature (or one that names no maker) is written as it
// is, and one sent back unsealed is Anthropic's. Another provider's (a Gemini thought signature, a
// Responses `encrypted_content`) goes sealed with its provenance by the relay's one seal (doors/seal.ts,
// composed by doors/sealing.ts: the encoding writes it pending, the door seals it at these spots), so
// that, carried back after a fallback, it is opened and reaches its maker again (and no one else: the
// builders send a value only to the provider its fidelity names, history.ts). A sealed value that does
// not open is refused naming its member, in Messages' error shape (door.ts).
import type { ContentItem, UniEvent } from "../../../schema.js";
import { isSealed } from "../seal.js";
import { foreignPart, pendingValue, sealedFidelity, type SealSpots } from "../sealing.js";

const OWN = "anthropic";

/** A thinking item whose fidelity another provider made: its signature the pending seal of that fidelity's bound part. */
function pending(item: ContentItem): ContentItem {
  if (item.type !== "thinking.delta" && item.type !== "thinking.done") return item;
  const part = foreignPart(item.fidelity, OWN);
  return part === undefined ? item : { ...item, fidelity: { signature: pendingValue(part) } };
}

/** The event with other providers' thinking pending its seal, for the Messages encoder (the event itself when none is). */
export function sealedEvent(event: UniEvent): UniEvent {
  const items = event.content_items.map(pending);
  return items.some((item, i) => item !== event.content_items[i]) ? { ...event, content_items: items } : event;
}

/** Where a Messages answer holds a sealed value: a thinking block's or `signature_delta`'s `signature`, a `redacted_thinking`'s `data`. */
export const MESSAGES_SEAL_SPOTS: SealSpots = (o) =>
  o.type === "thinking" || o.type === "signature_delta" ? ["signature"] : o.type === "redacted_thinking" ? ["data"] : [];

/**
 * The fidelity of a signature (or redacted data) a client sent back at `member`: a sealed one's mark
 * (doors/sealing.ts `openSeals` opens it after the translation), else Anthropic's.
 */
export function unsealed(signature: string, member: string): Record<string, unknown> {
  return isSealed(signature) ? sealedFidelity(signature, member) : { signature, provider: OWN };
}
