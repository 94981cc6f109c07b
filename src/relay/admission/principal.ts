// Admission: SPEC §10 "Principals and quotas" (who a request spends for: a key, `authorize`, or anonymous).
//
// SPEC §10, "Principals and quotas": every request spends for one principal —
//   what `authorize` returns (`{ principal, quota? }`), else
//   the name of the RELAY_KEYS entry whose key the request offers (a secret: a JSON object name → key), else
//   "relay-key" for RELAY_KEY, else
//   "anon:" + the client's address (address.ts: what the runtime saw, an IPv6 client's /64) for an
//   anonymous caller; without one (library mode, no address given) a request that needs it is refused.
// With RELAY_KEYS or RELAY_KEY set, a request that offers none of their keys is a 401 (bind.ts's
// words); a key is offered as `x-relay-key: <key>` or `Authorization: Bearer <key>` (or in a header a door
// declares: doors/door.ts's `keyHeaders`, `x-api-key`…) and compared
// through HMACs (bind.ts). A principal's quota: the one `authorize` gave, else createRelay's
// `quotas.default` (a key) or `quotas.anonymous` (anonymous; `allowAnonymous`'s `perMinute` is its
// `requestsPerMinute` when it sets none).
import { ownMembers } from "../../internal/values.js";
import { type KeyHeaderName, keyRefusal, offeredKeys, offersKey, RELAY_KEY_HEADERS, sameSecret } from "./bind.js";
import { refusal } from "../refusal.js";
import { checkQuota, type Quota } from "../accounting/quota.js";
import { parseJsonText } from "../../internal/json.js";

/** The variables of the principals. */
export interface PrincipalEnv {
  /** A secret: a JSON object of principal names → keys (`{"app-1": "k1…", "ci": "k2…"}`); each key creates streams as its name. */
  RELAY_KEYS?: string;
  /** A secret: the key of `GET /v1/usage?all=1` (every principal's ledger). */
  ADMIN_KEY?: string;
}

/** Who a request spends for, as `authorize` may return it. */
export interface RelayPrincipal {
  /** The principal's name (1 to 200 characters; `anon:` names are the relay's own). */
  principal: string;
  /** Its quota; default `quotas.default`. */
  quota?: Quota;
}

/** A request's principal as the relay resolved it. */
export interface Resolved {
  principal: string;
  /** The quota to check, when any. */
  quota: Quota | undefined;
  /** No key and no principal from `authorize`. */
  anonymous: boolean;
  /** Anonymous, and the runtime gave no client address (address.ts): its principal is no one client's. */
  addressless?: boolean;
  /** The request's Authorization carries the relay's key: not to be forwarded. */
  keyInAuthorization: boolean;
  /** The headers that carry the relay's key (Authorization, a door's `x-api-key`…): not to be forwarded. */
  keyIn?: readonly string[];
}

/**
 * A setting of the relay that cannot work (RELAY_KEYS with a short key…): the operator's to fix. The
 * relay answers a 500 that says it is misconfigured and names the setting (never a value), and logs
 * this message, which names the rule.
 */
export class RelayConfigError extends Error {
  /** `"RelayConfigError"`. */
  override name = "RelayConfigError";
  /** The setting at fault (`"RELAY_KEYS"`). */
  readonly setting: string;
  /**
   * A configuration error of `setting`.
   * @param setting the setting at fault
   * @param message the rule it breaks (never a value of it)
   */
  constructor(setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.setting = setting;
  }
}

/** The shortest key RELAY_KEYS takes (a shorter one is guessed). */
export const MIN_KEY_LENGTH = 8;

/** RELAY_KEYS parsed (once per text): [name, key] pairs. A value that breaks the rules is a RelayConfigError (the relay's 500, logged). */
const parsedKeys = new Map<string, [string, string][]>();
function relayKeys(text: string): [string, string][] {
  let keys = parsedKeys.get(text);
  if (keys !== undefined) return keys;
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RelayConfigError("RELAY_KEYS", 'must be a JSON object of principal names to keys ({"app-1": "<key>", …}).');
  }
  keys = Object.entries(value as Record<string, unknown>).map(([name, key]) => {
    const at = `the entry ${JSON.stringify(name.slice(0, 100))}`;
    if (name === "") throw new RelayConfigError("RELAY_KEYS", "a principal's name must not be empty.");
    if (name.startsWith("anon:")) {
      throw new RelayConfigError(
        "RELAY_KEYS",
        `${at}: names starting "anon:" are the relay's own (anonymous clients, anon:<address>): choose another name.`,
      );
    }
    if (typeof key !== "string" || key.length < MIN_KEY_LENGTH) {
      throw new RelayConfigError(
        "RELAY_KEYS",
        `${at}: each key must be a string of ${MIN_KEY_LENGTH} characters or more (a long random one: openssl rand -hex 32).`,
      );
    }
    return [name, key];
  });
  parsedKeys.clear(); // (one value per deployment: no growth)
  parsedKeys.set(text, keys);
  return keys;
}

/** The principals' settings of `env` checked (RELAY_KEYS's rules): a RelayConfigError naming the setting and the rule, else nothing. */
export function checkPrincipalEnv(env: PrincipalEnv): void {
  const text = ownMembers(env).RELAY_KEYS;
  if (text) relayKeys(text);
}

/**
 * The principal whose key the request offers (RELAY_KEYS, then RELAY_KEY), null when the relay has
 * no keys, or the 401 of a request that offers none of them. `keyHeaders`: the headers a key is read
 * from (the relay's own, then every door's: create-relay.ts composes them).
 */
export async function keyPrincipal(
  request: Request,
  env: PrincipalEnv & { RELAY_KEY?: string },
  keyHeaders: readonly KeyHeaderName[] = RELAY_KEY_HEADERS,
): Promise<string | null | Response> {
  env = ownMembers(env); // (own variables only: one a polluted Object.prototype holds is not read, issue #34)
  if (!env.RELAY_KEYS) return env.RELAY_KEY ? ((await keyRefusal(request, env, keyHeaders)) ?? "relay-key") : null;
  const keys = relayKeys(env.RELAY_KEYS); // (checked on every request, with a key or not: a bad value is said at the first)
  const offered = offeredKeys(request.headers, keyHeaders);
  if (offered.length > 0) {
    let found: string | null = null;
    // (every entry compared, whichever matches: the time says nothing of which)
    for (const [name, key] of keys) if ((await offersKey(offered, key)) && found === null) found = name;
    if (found !== null) return found;
    if (env.RELAY_KEY && (await offersKey(offered, env.RELAY_KEY))) return "relay-key";
  }
  return keyRefusal(request, { RELAY_KEY: env.RELAY_KEYS }, keyHeaders) as Promise<Response>; // (never null: no key matched)
}

/** The headers of `keyHeaders` that carry one of the relay's keys (they then go no further: never sent upstream). */
export async function keyHeadersOf(
  request: Request,
  env: PrincipalEnv & { RELAY_KEY?: string },
  keyHeaders: readonly KeyHeaderName[] = RELAY_KEY_HEADERS,
): Promise<string[]> {
  env = ownMembers(env); // (own variables only: one a polluted Object.prototype holds is not read, issue #34)
  if (!env.RELAY_KEYS && !env.RELAY_KEY) return [];
  const keys = env.RELAY_KEYS ? relayKeys(env.RELAY_KEYS).map(([, key]) => key) : [];
  if (env.RELAY_KEY) keys.push(env.RELAY_KEY);
  const out: string[] = [];
  for (const [name, value] of offeredKeys(request.headers, keyHeaders)) {
    let found = false;
    for (const key of keys) if (await sameSecret(value, key)) found = true;
    if (found) out.push(name);
  }
  return out;
}

/** What `authorize` returned, when it names a principal: checked (a TypeError names what is wrong). */
export function principalOfVerdict(verdict: unknown): RelayPrincipal | null {
  if (verdict === null || typeof verdict !== "object" || verdict instanceof Response) return null;
  const { principal, quota } = verdict as Partial<RelayPrincipal>;
  if (typeof principal !== "string" || principal.length === 0 || principal.length > 200) {
    throw new TypeError("authorize: a principal must be a string of 1 to 200 characters.");
  }
  return { principal, quota: checkQuota(quota, "authorize: `quota`") };
}

/** The anonymous principal of a client address's key (address.ts), or of none (one shared name, "anon:unknown"). */
export function anonymousPrincipal(address: string | null): string {
  return `anon:${(address ?? "unknown").slice(0, 64)}`;
}

/** The key of `GET /v1/usage?all=1` offered and right: null; else the 401 to answer. */
export async function adminRefusal(request: Request, env: PrincipalEnv): Promise<Response | null> {
  env = ownMembers(env); // (own variables only: one a polluted Object.prototype holds is not read, issue #34)
  if (env.ADMIN_KEY) {
    if ((await keyRefusal(request, { RELAY_KEY: env.ADMIN_KEY })) === null) return null;
    return refusal(
      401,
      "AuthenticationError",
      "GET /v1/usage?all=1 (every principal's usage) needs admin rights: send the relay's ADMIN_KEY as x-relay-key: <key> or " +
        "Authorization: Bearer <key> (without ?all=1, GET /v1/usage lists your own principal's usage).",
      { "www-authenticate": 'Bearer realm="mmsp-streams relay admin"' },
    );
  }
  return refusal(403, "PermissionDeniedError", "GET /v1/usage?all=1 needs ADMIN_KEY set on the relay (and offered as its key).");
}
