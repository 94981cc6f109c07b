// The Anthropic Messages door: SPEC §9 "Where each item came from" (provider-bound values through a Messages client's history).
//
// A thinking block's `signature` is the only place Messages gives a client's history for data only its
// maker can verify. An Anthropic signature (or one that names no maker) is written as it is: sent back,
// it is Anthropic's (request.ts). Another provider's (a Gemini thought signature, a Responses
// `encrypted_content`) is sealed into the signature with its provenance — `mmsp1.` and the base64url
// of its fidelity's JSON — so that, carried back after a fallback, it still reaches its maker (and no
// one else: the builders send a value only to the provider its fidelity names, history.ts).
import { isRecord } from "../../../internal/values.js";
import { parseJsonText } from "../../../internal/json.js";
import { isBound } from "../../../providers/provenance.js";
import type { ContentItem, UniEvent } from "../../../schema.js";

const PREFIX = "mmsp1.";
const OWN = "anthropic";

/** Base64url of UTF-8 text (no padding). */
function toBase64Url(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** A thinking item whose fidelity another provider made: its signature the sealed fidelity. */
function sealed(item: ContentItem): ContentItem {
  if (item.type !== "thinking.delta" && item.type !== "thinking.done") return item;
  const { fidelity } = item;
  if (!isBound(fidelity) || typeof fidelity.provider !== "string" || fidelity.provider === OWN) return item;
  return { ...item, fidelity: { signature: PREFIX + toBase64Url(JSON.stringify(fidelity)) } };
}

/** The event with other providers' thinking sealed, for the Messages encoder (the event itself when nothing is). */
export function sealedEvent(event: UniEvent): UniEvent {
  const items = event.content_items.map(sealed);
  return items.some((item, i) => item !== event.content_items[i]) ? { ...event, content_items: items } : event;
}

/**
 * The fidelity of a signature a client sent back: a sealed one's own (its maker named in it), else
 * Anthropic's. A sealed value that does not read back (altered) is undefined: the thinking goes without proof.
 */
export function unsealed(signature: string): Record<string, unknown> | undefined {
  if (!signature.startsWith(PREFIX)) return { signature, provider: OWN };
  const text = fromBase64Url(signature.slice(PREFIX.length));
  let fidelity: unknown;
  try {
    fidelity = text === undefined ? undefined : parseJsonText(text);
  } catch {
    return undefined;
  }
  return isRecord(fidelity) && typeof fidelity.provider === "string" && isBound(fidelity) ? { ...fidelity } : undefined;
}
