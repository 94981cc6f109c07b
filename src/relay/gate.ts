// Who may make a provider-backed relay spend its operator's money. A relay with a models table is
// closed by default: without RELAY_KEY (bind.ts checks it) or an `authorize` hook, a request for a
// provider-backed model is a 401 that names the settings that open it. `allowAnonymous` (or the
// variable ALLOW_ANONYMOUS=true) opens it to anyone, for a public demo, with a rate limit per client.
//
// The rate limit is per isolate (a Worker runs in many; each counts on its own), a fixed window of a
// minute per client (CF-Connecting-IP, else one shared "unknown" client), in a Map of at most
// MAX_TRACKED clients (the oldest forgotten first): bounded memory whatever a stranger sends. For a
// limit across isolates, put Cloudflare's rate limiting binding in an `authorize` hook instead.
import { refusal } from "./http.js";
import { ownValue } from "../internal/values.js";

/** The variables of the gate. */
export interface GateEnv {
  /** `"true"`: provider-backed models serve anyone (rate-limited per client), when `allowAnonymous` is not given. */
  ALLOW_ANONYMOUS?: string;
  /** Streams one anonymous client may create per minute (default 10). */
  ANONYMOUS_PER_MINUTE?: string;
}

/** createRelay's `allowAnonymous`: `true` (the default rate), or the rate of streams per client per minute. */
export type AnonymousOption = boolean | { perMinute: number };

/** The anonymous rate when none is given: a demo's visitor, not a script. */
export const DEFAULT_PER_MINUTE = 10;
/** Clients a relay isolate counts at once (each ~100 bytes). */
const MAX_TRACKED = 10_000;
const WINDOW_MS = 60_000;

/** The 401 of a closed relay: what it is, and the three ways to open it. */
export function closedRefusal(model: string): Response {
  return refusal(
    401,
    "AuthenticationError",
    `The model '${model.slice(0, 200)}' is served by a provider with the operator's key, and this relay is closed by default: ` +
      "set RELAY_KEY (clients send x-relay-key: <key> or Authorization: Bearer <key>), give createRelay an `authorize` hook, " +
      "or set `allowAnonymous: true` (ALLOW_ANONYMOUS=true) for a public demo.",
    { "www-authenticate": 'Bearer realm="mmsp-streams relay"' },
  );
}

/** The anonymous rate in effect (per client per minute), or null when anonymous use is not allowed. */
export function anonymousRate(option: AnonymousOption | undefined, env: GateEnv): number | null {
  if (option === false) return null;
  if (option === true) return count(ownValue(env, "ANONYMOUS_PER_MINUTE")) ?? DEFAULT_PER_MINUTE;
  if (option !== undefined) return option.perMinute;
  return ownValue(env, "ALLOW_ANONYMOUS") === "true" ? count(ownValue(env, "ANONYMOUS_PER_MINUTE")) ?? DEFAULT_PER_MINUTE : null;
}

const count = (value: string | undefined): number | undefined => {
  const n = Number(value);
  return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : undefined;
};

/** Checks `allowAnonymous` at the boundary. */
export function checkAnonymous(option: unknown): void {
  if (option === undefined || typeof option === "boolean") return;
  const n = (option as { perMinute?: unknown } | null)?.perMinute;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0) {
    throw new TypeError("createRelay: `allowAnonymous` must be true, false or { perMinute: <a positive whole number> }.");
  }
}

/** Fixed one-minute windows per client, at most MAX_TRACKED clients (see the top). */
export class ClientRates {
  readonly #windows = new Map<string, { start: number; used: number }>();

  /** Takes one stream for `client`: null when within `perMinute`, else the 429 to answer. */
  take(client: string, perMinute: number, now = Date.now()): Response | null {
    let window = this.#windows.get(client);
    if (window === undefined || now - window.start >= WINDOW_MS) {
      this.#windows.delete(client); // (re-inserted last: the Map's order is the age)
      window = { start: now, used: 0 };
      this.#windows.set(client, window);
      if (this.#windows.size > MAX_TRACKED) this.#windows.delete(this.#windows.keys().next().value!);
    }
    if (window.used >= perMinute) {
      const retry = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
      return refusal(
        429,
        "RateLimitError",
        `Too many streams from this client: ${perMinute} a minute without a key (ANONYMOUS_PER_MINUTE).`,
        {
          "retry-after": String(retry),
        },
      );
    }
    window.used++;
    return null;
  }

  /** Clients counted now (for tests of the bound). */
  get size(): number {
    return this.#windows.size;
  }
}

/** The client an anonymous request counts against: Cloudflare's connecting IP, else one shared bucket. */
export function clientOf(request: Request): string {
  return request.headers.get("cf-connecting-ip") ?? "unknown";
}
