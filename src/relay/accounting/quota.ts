// Accounting: SPEC §10 "Principals and quotas" (a principal's quota: its claim before the provider is asked, its settlement after).
//
// SPEC §10, "Principals and quotas": a quota (`requestsPerMinute`, `concurrentStreams`,
// `tokensPerDay`) is checked before the provider is called: 429 `RateLimitError` (rate,
// concurrency) or 429 `BudgetExceeded` (tokens), each with `Retry-After`. Tokens are reserved (the
// request's input estimate plus its `max_tokens`: usage-estimate.ts) and settled with what the
// stream cost; a settled stream also frees its place among the concurrent ones.
//
// QuotaBook is one principal's state and its one decision, the same wherever it is held: in a
// Durable Object per principal (quota-object.ts: the whole deployment's limit) or, for the stateless
// relay (Node, Deno, Bun: no namespace), in ProcessQuotas here (one process's limit; bounded memory).
// A claim that is never settled (its stream's object restarted, an isolate gone) expires at its
// `until` (the stream's longest life and a minute): a place is never held for ever. Every path out of
// a request after its claim settles it (create-relay.ts), once: a claim settled again as refused
// (the stream's object and the Worker both saw the refusal) is not counted twice (`recorded`).
import { refusal } from "../refusal.js";
import { dayOf, type Ledger, type LedgerRow, MemoryLedger, nextDayMs, type Settlement } from "./ledger.js";
import { parseJsonText } from "../../internal/json.js";

/** What a claim is settled with (beside the ledger that records it: ledger.ts). */
export type { Settlement };

/** A principal's limits; each one left out is no limit. */
export interface Quota {
  /** Streams created per minute (a fixed window of a minute). */
  requestsPerMinute?: number;
  /** Streams open at once. */
  concurrentStreams?: number;
  /** Tokens (input + output) per UTC day, reserved before a call and settled after it. */
  tokensPerDay?: number;
}

/** createRelay's `quotas`: the quota of named principals, of any other with a key (`default`), and of anonymous clients. */
export interface RelayQuotas {
  /** The quota of every principal with a key (RELAY_KEYS, RELAY_KEY, or `authorize` without its own) that `principals` does not name. */
  default?: Quota;
  /** The quota of each anonymous client (`"anon:" + its address`); `allowAnonymous`'s `perMinute` is its `requestsPerMinute`. */
  anonymous?: Quota;
  /**
   * Quotas of named principals (a RELAY_KEYS name, or the principal `authorize` names without a quota
   * of its own): `{ alice: { tokensPerDay: 2000000 } }`, each in place of `default`.
   */
  principals?: Readonly<Record<string, Quota>>;
}

const QUOTA_KEYS = ["requestsPerMinute", "concurrentStreams", "tokensPerDay"] as const;

/** The name of member `key` of the setting `where` (``createRelay: `quotas` `` → ``createRelay: `quotas.key` ``). */
const member = (where: string, key: string): string => (where.endsWith("`") ? `${where.slice(0, -1)}.${key}\`` : `${where}.${key}`);

/** A quota checked at the boundary (`where` names it in the TypeError). */
export function checkQuota(quota: unknown, where: string): Quota | undefined {
  if (quota === undefined) return undefined;
  if (quota === null || typeof quota !== "object") {
    throw new TypeError(`${where} must be an object { requestsPerMinute?, concurrentStreams?, tokensPerDay? }.`);
  }
  for (const [key, value] of Object.entries(quota)) {
    if (!(QUOTA_KEYS as readonly string[]).includes(key)) {
      throw new TypeError(`${member(where, key)} is no quota setting (${QUOTA_KEYS.join(", ")}).`);
    }
    if (value !== undefined && (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)) {
      throw new TypeError(`${member(where, key)} must be a whole number ≥ 0.`);
    }
  }
  return quota as Quota;
}

/** createRelay's `quotas` (or RELAY_QUOTAS: `where`) checked at the boundary. */
export function checkQuotas(option: unknown, where = "createRelay: `quotas`"): RelayQuotas {
  if (option === undefined) return {};
  if (option === null || typeof option !== "object" || Array.isArray(option)) {
    throw new TypeError(`${where} must be an object { default?, anonymous?, principals? }.`);
  }
  const at = (key: string): string => member(where, key);
  const { default: byDefault, anonymous, principals, ...rest } = option as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined) throw new TypeError(`${at(extra)} is not a setting (default, anonymous, principals).`);
  let named: Record<string, Quota> | undefined;
  if (principals !== undefined) {
    if (principals === null || typeof principals !== "object" || Array.isArray(principals)) {
      throw new TypeError(`${at("principals")} must be an object of principal names to quotas ({ "alice": { "tokensPerDay": 1000000 } }).`);
    }
    named = Object.create(null) as Record<string, Quota>;
    for (const [name, quota] of Object.entries(principals)) {
      if (name === "" || name.startsWith("anon:")) {
        throw new TypeError(
          `${at("principals")} names ${
            JSON.stringify(name.slice(0, 100))
          }: a principal's name, not empty nor "anon:…" (that is \`anonymous\`).`,
        );
      }
      const checked = checkQuota(quota, at(`principals[${JSON.stringify(name.slice(0, 100))}]`));
      if (checked === undefined) throw new TypeError(`${at(`principals[${JSON.stringify(name.slice(0, 100))}]`)} must be a quota object.`);
      named[name] = checked;
    }
  }
  return {
    default: checkQuota(byDefault, at("default")),
    anonymous: checkQuota(anonymous, at("anonymous")),
    ...(named ? { principals: named } : {}),
  };
}

/** The variable of the quotas. */
export interface QuotaEnv {
  /** createRelay's `quotas` as JSON (`{"default": {"tokensPerDay": 1000000}, "anonymous": {…}}`), when the option is not given. */
  RELAY_QUOTAS?: string;
}

const fromVariable = new Map<string, RelayQuotas>();
/** RELAY_QUOTAS read (once per text); a malformed value is the operator's error: thrown (a 500, logged). */
export function quotasOfVariable(text: string): RelayQuotas {
  let quotas = fromVariable.get(text);
  if (quotas === undefined) {
    let value: unknown;
    try {
      value = parseJsonText(text);
    } catch {
      throw new TypeError('RELAY_QUOTAS must be JSON: {"default": {…}, "anonymous": {…}, "principals": {"<name>": {…}}}.');
    }
    quotas = checkQuotas(value, "RELAY_QUOTAS");
    fromVariable.clear(); // (one value per deployment: no growth)
    fromVariable.set(text, quotas);
  }
  return quotas;
}

/** One request's claim on its principal's quota, made before the provider is asked. */
export interface Claim {
  /** The claim's id (the stream's, or a new one). */
  id: string;
  principal: string;
  /** The model name the client asked for (the ledger's `model`). */
  model: string;
  /** Tokens reserved: the input estimate plus the output reserve. */
  tokens: number;
  /** The input estimate alone (what a stream that ends early is settled with as its input). */
  input: number;
  /** When the claim expires if never settled (ms since the epoch). */
  until: number;
  /** The limits it is checked against. */
  quota: Quota;
}

/** A refusal of a claim: its type, its words and the seconds until it may succeed. */
export interface Refused {
  type: "RateLimitError" | "BudgetExceeded";
  message: string;
  retryAfter: number;
}

/**
 * The longest wait (seconds) after which a client's SDK is left to retry by itself: past it (a day's
 * budget spent, a minute's window nearly whole) the 429 says `x-should-retry: false`, which the OpenAI
 * and Anthropic SDKs obey (they would otherwise sleep the whole Retry-After, up to a day, per retry).
 */
export const RETRY_WITHIN_S = 60;

/** The 429 of a refused claim, in MMSP's error shape, with `Retry-After` (and `x-should-retry: false` past RETRY_WITHIN_S). */
export function refusedAnswer(r: Refused): Response {
  const seconds = Math.max(1, Math.ceil(r.retryAfter));
  return refusal(429, r.type, r.message, {
    "retry-after": String(seconds),
    ...(seconds > RETRY_WITHIN_S ? { "x-should-retry": "false" } : {}),
  });
}

const WINDOW_MS = 60_000;

/** One principal's quota state: the minute's window and the open claims (the day's tokens are the ledger's). */
export class QuotaBook {
  start = 0;
  used = 0;
  /** Open claims: id → tokens reserved and expiry. */
  readonly open = new Map<string, { tokens: number; until: number }>();

  /** Takes the claim (null) or says why not; `spent`: the tokens the ledger counts for the principal today. */
  claim(claim: Claim, spent: number, now: number): Refused | null {
    for (const [id, c] of this.open) if (c.until <= now) this.open.delete(id);
    if (this.used === 0 || now - this.start >= WINDOW_MS) {
      this.start = now;
      this.used = 0;
    }
    const { requestsPerMinute: rpm, concurrentStreams: streams, tokensPerDay: budget } = claim.quota;
    const who = claim.principal.startsWith("anon:") ? "this client" : `the principal '${claim.principal.slice(0, 100)}'`;
    if (rpm !== undefined && this.used >= rpm) {
      return {
        type: "RateLimitError",
        message: `Too many streams: ${rpm} a minute for ${who}.`,
        retryAfter: (this.start + WINDOW_MS - now) / 1000,
      };
    }
    if (streams !== undefined && this.open.size >= streams) {
      // (no date to tell: a stream may end any moment; a few seconds is a fair guess)
      return { type: "RateLimitError", message: `Too many streams open at once: ${streams} for ${who}.`, retryAfter: 5 };
    }
    if (budget !== undefined) {
      let reserved = 0;
      for (const c of this.open.values()) reserved += c.tokens;
      const left = budget - spent - reserved;
      if (claim.tokens > left) {
        return {
          type: "BudgetExceeded",
          message: `The day's token budget of ${who} is spent: ${budget} tokens a day (UTC), ${Math.max(0, left)} left, ` +
            `${claim.tokens} needed (the input estimate ${claim.input} plus max_tokens).`,
          retryAfter: (nextDayMs(now) - now) / 1000,
        };
      }
    }
    this.used++;
    this.open.set(claim.id, { tokens: claim.tokens, until: claim.until });
    return null;
  }

  /**
   * Frees a claim's place and its reserved tokens (the ledger then holds what it cost); whether it was
   * open. A settlement is recorded when its claim was open or it spent tokens: a claim settled twice
   * as refused (its stream's object and the Worker both saw the refusal) counts once.
   */
  release(id: string): boolean {
    return this.open.delete(id);
  }

  /** Whether the book holds an open claim (one not yet expired): its principal is not forgotten. */
  holds(now: number): boolean {
    for (const c of this.open.values()) if (c.until > now) return true;
    return false;
  }
}

/** Where the quotas and the ledger are held: one Durable Object per principal (quota-object.ts) or this process (ProcessQuotas). */
export interface QuotaStore {
  /** Checks and takes a claim: null when taken, else why not. */
  claim(claim: Claim): Promise<Refused | null>;
  /** Settles a claim: its cost to the ledger, its place and reservation freed. */
  settle(settlement: Settlement): Promise<void>;
  /** The ledger's rows of `principal` (null: every principal's). */
  usage(principal: string | null): Promise<LedgerRow[]>;
}

/** Whether a settlement is recorded: its claim was open, or it spent tokens (see QuotaBook `release`). */
export const recorded = (wasOpen: boolean, s: Settlement): boolean => wasOpen || s.input + s.output > 0;

/**
 * Principals one process keeps books for: past it the oldest book without an open claim is forgotten
 * (bounded memory); a principal holding a claim never is (its claim, and its ledger rows, would go
 * with it: the books are bounded by the streams open then).
 */
export const MAX_BOOKS = 10_000;

/** The quotas and the ledger of the stateless relay, in its process (see the top). */
export class ProcessQuotas implements QuotaStore {
  readonly #books = new Map<string, QuotaBook>();
  readonly #ledger: Ledger = new MemoryLedger((principal) => this.#books.get(principal)?.holds(Date.now()) ?? false);

  #book(principal: string): QuotaBook {
    let book = this.#books.get(principal);
    if (book !== undefined) this.#books.delete(principal); // (re-inserted last: the Map's order is the age)
    else book = new QuotaBook();
    this.#books.set(principal, book);
    if (this.#books.size > MAX_BOOKS) {
      const now = Date.now();
      for (const [name, old] of this.#books) {
        if (old === book) break;
        if (!old.holds(now)) {
          this.#books.delete(name);
          break;
        }
      }
    }
    return book;
  }

  claim(claim: Claim): Promise<Refused | null> {
    const now = Date.now();
    return Promise.resolve(this.#book(claim.principal).claim(claim, this.#ledger.spent(claim.principal, dayOf(now)), now));
  }

  settle(s: Settlement): Promise<void> {
    const wasOpen = this.#books.get(s.principal)?.release(s.id) ?? false;
    if (recorded(wasOpen, s)) this.#ledger.record(s, Date.now());
    return Promise.resolve();
  }

  usage(principal: string | null): Promise<LedgerRow[]> {
    return Promise.resolve(this.#ledger.rows(principal));
  }

  /** Principals with a book now (for tests of the bound). */
  get size(): number {
    return this.#books.size;
  }
}
