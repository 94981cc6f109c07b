// The Anthropic Messages door: SPEC §9 "Where each item came from" (provider-bound values through a Messages client's history).
//
// A thinking block's `signature` (a `redacted_thinking` block's `data`) is the only place Messages
// gives a client's history for data only its maker can verify. SPEC §10: an unsealed value is the
// door's own API's provider's, so an Anthropic signature (or one that names no maker) is written as it
// is, and one sent back unsealed is Anthropic's. Another provider's (a Gemini thought signature, a
// Responses `encrypted_content`) goes sealed with its provenance by the relay's one seal (doors/seal.ts,
// composed by doors/sealing.ts: the encoding's sealing step, wherever its answer is written), so
// that, carried back after a fallback, it is opened and reaches its maker again (and no one else: the
// builders send a value only to the provider its fidelity names, history.ts). A sealed value that does
// not open is refused naming its member, in Messages' error shape (door.ts). A tool call's signature
// another provider made rides sealed, with the call's id, in a `redacted_thinking` block just before
// its `tool_use`; sent back, it goes to that call again (doors/sealing.ts `toTheirCalls`), not as thinking.
import { isSealed } from "../seal.js";
import { sealedFidelity, sealingStep } from "../sealing.js";

const OWN = "anthropic";

/** The thinking text the readers write for a `redacted_thinking` block (its `data` the signature). */
export const REDACTED_THINKING = "_REDACTED_THINKING";

/**
 * The Messages encoding's sealing step: a thinking item's proof another provider made, sealed as its
 * `signature`; a tool call's (a Gemini 3 call's thought signature: a `tool_use` block has no place for
 * it) sealed with the call's id as the `data` of a `redacted_thinking` block just before its `tool_use`
 * (the one block of Messages a client keeps and sends back as it got it: the SDKs, the AI SDK and
 * Claude Code do). No seal key: none.
 */
export const messagesSealing = sealingStep(
  OWN,
  (signature) => (signature === null ? null : { signature }),
  (item) => item.type === "thinking.delta" || item.type === "thinking.done",
  (data) => (data === null ? [] : [{ type: "thinking.done", thinking: REDACTED_THINKING, fidelity: { signature: data } }]),
);

/**
 * The fidelity of a signature (or redacted data) a client sent back at `member`: a sealed one's mark
 * (doors/sealing.ts `openSeals` opens it after the translation), else Anthropic's.
 */
export function unsealed(signature: string, member: string): Record<string, unknown> {
  return isSealed(signature) ? sealedFidelity(signature, member) : { signature, provider: OWN };
}
