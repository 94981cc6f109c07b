// Admission: SPEC §8 and §10 (a stream is its creator's: resume and cancel bring the same credentials).
//
// Who may use a stream, and who may create one.
//
// A stream is bound to the credentials its creating request carried: the headers of BIND_HEADERS that
// were present, kept as an HMAC-SHA-256 under BIND_SECRET (never the values; a stolen database row is
// no key, and without the secret no guess can be checked). A resume or a cancel must carry the same
// values. BIND_SECRET unset: a default key derived from the stream's id (each stream's hash keyed
// differently, like a salt), but then anyone who reads a stream's storage can check guesses offline:
// set the secret in production (`wrangler secret put BIND_SECRET`). The Worker computes the binding
// and hands it to the stream's object (create-relay.ts), which keeps and compares it.
//
// A stream bound to other credentials than a request's is, to that request, no stream: the same 404
// as an id that never existed (no oracle of which ids exist). A name chosen by clients (a chat id) is
// scoped by scopedName(): each creator's credentials reach their own object, so a stranger posting
// the same name reaches another one and can neither see nor touch the first.
//
// RELAY_KEY set: every request to a stream (POST /v1/stream, POST /api/chat, and their resumes and
// cancels) needs `x-relay-key: <key>` or `Authorization: Bearer <key>` (401 otherwise). That
// Authorization is the relay's, not the upstream's: it is not forwarded upstream.
import { refusal } from "../refusal.js";
import { ownValue } from "../../internal/values.js";
import { hexBytes } from "../../framing/head.js";

/** The variables of the credential binding and the relay's key. */
export interface BindEnv {
  /** The HMAC key of the credentials that bind a stream (unset: a key derived from the stream id). */
  BIND_SECRET?: string;
  /** Set: creating, resuming or cancelling a stream needs `x-relay-key: <key>` or `Authorization: Bearer <key>` (401). */
  RELAY_KEY?: string;
}

/** The request headers that are credentials: they bind a stream to its creator. */
export const BIND_HEADERS = ["authorization", "cookie", "x-api-key", "cf-access-jwt-assertion"] as const;

const utf8 = new TextEncoder();

async function hmac(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", utf8.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hexBytes(new Uint8Array(await crypto.subtle.sign("HMAC", key, utf8.encode(text))), "");
}

/** The credential headers of `headers` that are present, as `name: value` lines (null: none): the default `credentials` hook. */
export function credentialsOf(headers: Headers): string | null {
  const lines = BIND_HEADERS.flatMap((name) => {
    const value = headers.get(name);
    return value === null ? [] : [`${name}: ${value}`];
  });
  return lines.length === 0 ? null : lines.join("\n");
}

/** The binding of a request's credentials to stream `streamId` (hex HMAC), or null when it carries none. */
export function bindingOf(headers: Headers, streamId: string, env: BindEnv): Promise<string | null> {
  return bindingOfText(credentialsOf(headers), streamId, env);
}

/** The binding of credentials given as text (what a `credentials` hook returned) to stream `streamId`, or null for none. */
export async function bindingOfText(text: string | null, streamId: string, env: BindEnv): Promise<string | null> {
  if (text === null) return null;
  return hmac(ownValue(env, "BIND_SECRET") || `mmsp-streams relay, stream ${streamId}`, text);
}

/**
 * The name of an object only the holder of these credentials reaches (`text`: what the `credentials`
 * hook gave, null for none): the hex HMAC of the credentials and `name` under BIND_SECRET.
 */
export function scopedName(text: string | null, name: string, env: BindEnv): Promise<string> {
  return hmac(ownValue(env, "BIND_SECRET") || "mmsp-streams relay, scoped names", `${text ?? ""}\n${name}`);
}

/** Compares two equally long hex digests without stopping at the first difference. */
export function sameHash(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(headers: Headers): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return m ? m[1]! : null;
}

/** The key a request offers: `x-relay-key`, the token of `Authorization: Bearer <key>`, or `x-api-key` (Anthropic's clients'). */
export function offeredKey(headers: Headers): string | null {
  return headers.get("x-relay-key") ?? bearerToken(headers) ?? headers.get("x-api-key");
}

/** Two secrets compared through their HMACs: the time taken says nothing about either. */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  return sameHash(await hmac("relay-key", a), await hmac("relay-key", b));
}

/** With RELAY_KEY set: a 401 for a request that does not offer it (any request to a stream), else null. */
export async function keyRefusal(request: Request, env: BindEnv): Promise<Response | null> {
  const relayKey = ownValue(env, "RELAY_KEY");
  if (!relayKey) return null;
  const key = offeredKey(request.headers);
  if (key !== null && (await sameSecret(key, relayKey))) return null;
  return refusal(
    401,
    "AuthenticationError",
    "This relay needs a key: send x-relay-key: <key> or Authorization: Bearer <key>.",
    {
      "www-authenticate": 'Bearer realm="mmsp-streams relay"',
    },
  );
}
