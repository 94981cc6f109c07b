/**
 * The one rule that cuts a provider's key out of text (SPEC §10): the factories' refusals
 * (providers/provider.ts), the relay's stored and served errors and its log lines (relay/secrets.ts,
 * relay/models.ts) all use it. The secrets are read from the credential headers of the request that
 * went out (what the provider was sent is what it may echo), and a text is cut *before* it is cut
 * short: a 200-character preview must not end inside a key. A part of a key long enough to matter
 * counts as the key: the first 8 characters or more of one, wherever they stand (a text another
 * cut short, a provider's `sk-proj-****ABCD`).
 */
import { UpstreamError } from "../errors.js";
import { isRecord } from "./values.js";

/** What a key is replaced by. */
export const KEY_CUT = "[api key]";
/** The shortest secret, and the shortest start of one that counts as it (a shorter one would cut ordinary text). */
export const MIN_SECRET_CHARS = 8;

/** The headers a provider's request carries its key in (the value, or a Bearer token's). */
const KEY_HEADERS = ["authorization", "x-api-key", "x-goog-api-key", "api-key"];

/** The secrets of a provider's request: each credential header's value, or for `Bearer <token>` the token. */
export function secretsOf(request: Request): string[] {
  const out: string[] = [];
  for (const name of KEY_HEADERS) {
    const value = request.headers.get(name);
    if (!value) continue;
    out.push(/^Bearer\s+(\S+)$/i.exec(value)?.[1] ?? value);
  }
  return out.filter((s) => s.length >= MIN_SECRET_CHARS);
}

/** `text` with every secret, and every run of 8 or more of a secret's first characters, replaced by `[api key]`. */
export function cutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_CHARS) continue;
    const head = secret.slice(0, MIN_SECRET_CHARS);
    let at = out.indexOf(head);
    if (at < 0) continue;
    let cut = "";
    let from = 0;
    while (at >= 0) {
      // the match runs as far as the text goes on as the secret does (each character looked at once)
      let end = at + MIN_SECRET_CHARS;
      while (end < out.length && end - at < secret.length && out[end] === secret[end - at]) end++;
      cut += out.slice(from, at) + KEY_CUT;
      from = end;
      at = out.indexOf(head, end);
    }
    out = cut + out.slice(from);
  }
  return out;
}

/** A JSON value with `cutSecrets` applied to every string in it (keys included); the same value when none held a secret. */
export function cutSecretsIn(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === "string") return cutSecrets(value, secrets);
  if (Array.isArray(value)) {
    const out = value.map((v) => cutSecretsIn(v, secrets));
    return out.some((v, i) => v !== value[i]) ? out : value;
  }
  if (!isRecord(value)) return value;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = cutSecrets(k, secrets);
    const cut = cutSecretsIn(v, secrets);
    changed ||= key !== k || cut !== v;
    // (defined as own data: a provider's "__proto__" stays a member, never the object's prototype)
    Object.defineProperty(out, key, { value: cut, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}

/** An `UpstreamError` with every secret cut out of its message and its error object (the same error when none held one). */
export function errorWithoutSecrets(error: UpstreamError, secrets: readonly string[]): UpstreamError {
  const message = cutSecrets(error.message, secrets);
  const object = cutSecretsIn(error.error, secrets);
  if (message === error.message && object === error.error) return error;
  return new UpstreamError({ client: error.client, status: error.status, errorType: error.errorType, error: object, message });
}
