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

/** A request header a key is sent in (doors/door.ts's `KeyHeader`): its name, and `"Bearer"` when the key is the token of `Bearer <key>`. */
export interface KeyHeaderName {
  readonly name: string;
  readonly scheme?: "Bearer";
}

/** The relay's own key headers, which every door's clients may use: `x-relay-key: <key>`, `Authorization: Bearer <key>`. */
export const RELAY_KEY_HEADERS: readonly KeyHeaderName[] = [{ name: "x-relay-key" }, { name: "authorization", scheme: "Bearer" }];

/** The relay's own key headers, then every door's (`keyHeaders`), each name once: what admission reads a key from. */
export function keyHeadersWith(doors: readonly { readonly keyHeaders?: readonly KeyHeaderName[] | undefined }[]): KeyHeaderName[] {
  const out = [...RELAY_KEY_HEADERS];
  for (const header of doors.flatMap((d) => d.keyHeaders ?? [])) {
    const name = header.name.toLowerCase();
    if (!out.some((h) => h.name === name)) out.push(header.scheme ? { name, scheme: header.scheme } : { name });
  }
  return out;
}

/** The value a key header offers (a Bearer header's token), or null. */
function offeredIn(headers: Headers, header: KeyHeaderName): string | null {
  if (header.scheme === "Bearer") {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(headers.get(header.name) ?? "");
    return m ? m[1]! : null;
  }
  return headers.get(header.name);
}

/** The keys a request offers, with the header each is in: the relay's own headers, then the doors' (`keyHeaders`). */
export function offeredKeys(headers: Headers, keyHeaders: readonly KeyHeaderName[] = RELAY_KEY_HEADERS): [string, string][] {
  const out: [string, string][] = [];
  for (const header of keyHeaders) {
    const value = offeredIn(headers, header);
    if (value !== null && !out.some(([name]) => name === header.name)) out.push([header.name, value]);
  }
  return out;
}

/** Whether one of the keys offered is `key` (every offer compared: the time says nothing of which). */
export async function offersKey(offered: [string, string][], key: string): Promise<boolean> {
  let found = false;
  for (const [, value] of offered) if (await sameSecret(value, key)) found = true;
  return found;
}

/** The key of the secrets' comparison, imported once per isolate (a constant: the HMAC only hides the time). */
let compareKey: Promise<CryptoKey> | undefined;

/** A secret's HMAC for the comparison. */
async function compareHmac(text: string): Promise<string> {
  compareKey ??= crypto.subtle.importKey("raw", utf8.encode("relay-key"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hexBytes(new Uint8Array(await crypto.subtle.sign("HMAC", await compareKey, utf8.encode(text))), "");
}

/**
 * The secrets' HMACs, kept: the operator's (RELAY_KEY, the principals' keys: the same few on every
 * request) and the offers (a client sends its key with each request; admission compares it more than
 * once). A constant key makes them plain digests; which are kept tells nothing a request's own answer
 * does not (its key matched or not). At most KEPT_HMACS each (of at most KEPT_LENGTH characters), then made anew.
 */
const operatorHmacs = new Map<string, Promise<string>>();
const offerHmacs = new Map<string, Promise<string>>();
const KEPT_HMACS = 1024;
/** The longest secret whose HMAC is kept (a key is far shorter; a header of junk is hashed each time, never held). */
const KEPT_LENGTH = 512;

function keptHmac(kept: Map<string, Promise<string>>, text: string): Promise<string> {
  if (text.length > KEPT_LENGTH) return compareHmac(text);
  let known = kept.get(text);
  if (known === undefined) {
    if (kept.size >= KEPT_HMACS) kept.clear();
    known = compareHmac(text);
    kept.set(text, known);
    known.catch(() => kept.delete(text));
  }
  return known;
}

/**
 * Two secrets compared through their HMACs: the time taken says nothing about either. `b` is the
 * operator's, `a` the client's offer (their HMACs kept: `operatorHmacs`, `offerHmacs`).
 */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  return sameHash(await keptHmac(offerHmacs, a), await keptHmac(operatorHmacs, b));
}

/**
 * With RELAY_KEY set: a 401 for a request that does not offer it (any request to a stream), else
 * null. `keyHeaders`: the headers read for it (the relay's own, then every door's: create-relay.ts).
 */
export async function keyRefusal(
  request: Request,
  env: BindEnv,
  keyHeaders: readonly KeyHeaderName[] = RELAY_KEY_HEADERS,
): Promise<Response | null> {
  const relayKey = ownValue(env, "RELAY_KEY");
  if (!relayKey) return null;
  if (await offersKey(offeredKeys(request.headers, keyHeaders), relayKey)) return null;
  return refusal(
    401,
    "AuthenticationError",
    `This relay needs a key: send x-relay-key: <key> or Authorization: Bearer <key>${othersOf(keyHeaders)}.`,
    {
      "www-authenticate": 'Bearer realm="mmsp-streams relay"',
    },
  );
}

/** The doors' key headers besides the relay's own, as the 401 names them (` (or x-api-key: <key>)`). */
function othersOf(keyHeaders: readonly KeyHeaderName[]): string {
  const others = keyHeaders.filter((h) => !RELAY_KEY_HEADERS.some((own) => own.name === h.name)).map((h) => `${h.name}: <key>`);
  return others.length === 0 ? "" : ` (or ${others.join(", or ")})`;
}
