// SPEC §9 "Where each item came from" and §10 "Stored responses": the provider-bound values a door
// writes in an encoded answer, sealed by the relay.
//
// What a thinking's provider needs back (Anthropic's `signature` or redacted data, Gemini's
// `thoughtSignature`, the Responses API's `encrypted_content`, a Chat dialect's `reasoning_details`)
// leaves the relay only sealed, with its provenance (`provider`, `model`): AES-GCM under a key of the
// relay's, so a client can keep it and send it back, but can neither read it (a relay's targets are its
// operator's business) nor make one: a value that carries the seal's mark and does not open is a
// forgery or was altered (`SealForged`, which a door refuses naming the member); a value without the
// mark is foreign (SPEC §10: an unsealed value a client sends back is the door's own API's provider's).
// Every door (Open Responses here; the Chat, Messages and Gemini doors after it) seals with this one
// module.
//
// The key: RELAY_SEAL_KEY (32 characters or more), else one derived from BIND_SECRET (a secret of the
// operator's that never leaves the relay; a distinct derivation, so neither key tells the other).
// RELAY_KEY and RELAY_KEYS are not used: clients hold them. With neither variable, sealing (and opening
// a sealed value) is a RelayConfigError naming RELAY_SEAL_KEY: the relay answers 500 "misconfigured"
// and its log says what to set. Every instance of a relay must share the key (a Worker's isolates, a
// restarted process): a seal made under another key does not open, and is refused as altered.
import { RelayConfigError } from "../admission/principal.js";
import { isBound } from "../../providers/provenance.js";
import { isRecord, ownValue } from "../../internal/values.js";
import { parseJsonText } from "../../internal/json.js";

/** The variables the seal reads. */
export interface SealEnv {
  /** The seal's secret (32 characters or more); unset: derived from BIND_SECRET; neither: sealing is a RelayConfigError. */
  RELAY_SEAL_KEY?: string;
  /** The credential binding's secret (admission/bind.ts), the seal key's source when RELAY_SEAL_KEY is unset. */
  BIND_SECRET?: string;
}

/**
 * What a sealed value holds: the provider-bound members of a fidelity and where they came from; `call`:
 * the id of the tool call the value belongs to, when a door carries a call's signature in an item of
 * its own (a Messages `redacted_thinking` block, a Responses `reasoning` item: doors/sealing.ts).
 */
export type Sealed = Record<string, unknown> & { provider: string; model?: string; call?: string };

/** A value bearing the seal's mark that does not open under the relay's key: forged, altered, or sealed by another relay. */
export class SealForged extends Error {
  override name = "SealForged";
}

/** The mark every sealed value starts with (what tells a seal of the relay's from a provider's own value). */
export const SEAL_MARK = "mmsp1.";
/** The shortest RELAY_SEAL_KEY taken. */
export const MIN_SEAL_KEY_LENGTH = 32;
/** The most a sealed value's text may be (a bound value is a few KB; Anthropic's redacted data may be more). */
const MAX_SEALED_CHARS = 1 << 20;
const AAD = new TextEncoder().encode("mmsp-streams relay seal v1");
const utf8 = new TextEncoder();

/** The key's source of `env`: RELAY_SEAL_KEY, else BIND_SECRET (its own derivation), else the RelayConfigError. */
function secretOf(env: SealEnv): string {
  const own = ownValue(env, "RELAY_SEAL_KEY");
  if (typeof own === "string" && own !== "") {
    if (own.length < MIN_SEAL_KEY_LENGTH) {
      throw new RelayConfigError(
        "RELAY_SEAL_KEY",
        `must be ${MIN_SEAL_KEY_LENGTH} characters or more (a random secret: openssl rand -hex 32).`,
      );
    }
    return `seal:${own}`;
  }
  const bind = ownValue(env, "BIND_SECRET");
  if (typeof bind === "string" && bind !== "") return `bind:${bind}`;
  throw new RelayConfigError(
    "RELAY_SEAL_KEY",
    "unset (and no BIND_SECRET): the relay cannot seal a thinking's provider data (include: reasoning.encrypted_content) nor open it; set RELAY_SEAL_KEY to a random secret of 32 characters or more, the same for every instance.",
  );
}

let cached: { secret: string; key: Promise<CryptoKey> } | undefined;

/** The AES-GCM key of `env` (HKDF-SHA-256 of its source; the last one kept). */
function keyOf(env: SealEnv): Promise<CryptoKey> {
  const secret = secretOf(env);
  if (cached?.secret !== secret) {
    const key = crypto.subtle.importKey("raw", utf8.encode(secret), "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: utf8.encode("mmsp-streams relay seal") },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      )
    );
    cached = { secret, key };
  }
  return cached.key;
}

/** Whether `text` bears the seal's mark (it is the relay's own, or a forgery of it). */
export function isSealed(text: string): boolean {
  return text.startsWith(SEAL_MARK);
}

/** `value` sealed under `env`'s key: `mmsp1.` + base64url(IV ‖ AES-GCM ciphertext of its JSON). */
export async function seal(value: Sealed, env: SealEnv): Promise<string> {
  const key = await keyOf(env);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: AAD }, key, utf8.encode(JSON.stringify(value))),
  );
  const out = new Uint8Array(iv.length + data.length);
  out.set(iv);
  out.set(data, iv.length);
  return SEAL_MARK + base64url(out);
}

/**
 * A sealed value opened: what it holds. A value without the mark is null (foreign: not the relay's);
 * one with the mark that does not open, or holds no provenance, is `SealForged`.
 */
export async function unseal(text: string, env: SealEnv): Promise<Sealed | null> {
  if (!isSealed(text)) return null;
  const bytes = text.length <= MAX_SEALED_CHARS ? fromBase64url(text.slice(SEAL_MARK.length)) : null;
  if (bytes === null || bytes.length < 12 + 16) throw new SealForged("not a value this relay sealed (malformed)");
  const key = await keyOf(env);
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.subarray(0, 12), additionalData: AAD }, key, bytes.subarray(12));
  } catch {
    throw new SealForged("not a value this relay sealed (altered, forged, or sealed under another key)");
  }
  const value = parseJsonText(new TextDecoder().decode(plain));
  if (
    !isRecord(value) || typeof value.provider !== "string" || (value.model !== undefined && typeof value.model !== "string") ||
    (value.call !== undefined && typeof value.call !== "string")
  ) {
    throw new SealForged("a sealed value without its provenance");
  }
  return value as Sealed;
}

/**
 * The part of `fidelity` a door seals (its provider-bound members with `provider` and `model`), or
 * undefined when it carries nothing bound or names no maker (`fallback` then: the door's own API's provider).
 */
export function boundPart(fidelity: unknown, fallback?: string): Sealed | undefined {
  if (!isBound(fidelity)) return undefined;
  const provider = typeof fidelity.provider === "string" ? fidelity.provider : fallback;
  if (provider === undefined) return undefined;
  const out: Sealed = { provider };
  for (const key of ["signature", "encrypted_content", "reasoning_details", "model"]) {
    const value = ownValue(fidelity, key);
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
