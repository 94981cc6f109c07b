// Accounting: SPEC §10 "Principals and quotas" (GET /v1/usage: what each principal spent, per model and day).
//
// SPEC §10, "Principals and quotas", the ledger: `GET /v1/usage` lists the caller's principal,
// `GET /v1/usage?all=1` with `ADMIN_KEY` every principal's, as
//   {"object": "list", "data": [{principal, model, day, requests, input_tokens, output_tokens, estimated_tokens, stopped}]}
// one row per principal, model and UTC day (`YYYY-MM-DD`), the last KEEP_DAYS days kept.
// `estimated_tokens`: the tokens of the row counted by the relay's estimate (usage-estimate.ts), not
// the provider; `stopped`: the streams that ended otherwise than with their stop event.
//
// Two homes, one row shape: SqlLedger in a Durable Object's SQLite storage (quota-object.ts: each
// principal's object, and one object for all), MemoryLedger in the stateless relay's process
// (bounded: MAX_ROWS, the oldest row forgotten first, never one of a principal holding an open claim).
import type { RelaySqlStorage } from "../platform.js";

/** What a claim is settled with: what the stream cost (usage-estimate.ts `Spent`). */
export interface Settlement {
  id: string;
  principal: string;
  model: string;
  input: number;
  output: number;
  /** Of `input` + `output`, the tokens the relay's estimate counted. */
  estimated: number;
  stopped: boolean;
}

/** One row of the ledger. */
export interface LedgerRow {
  /** Who spent (principal.ts). */
  principal: string;
  /** The model name the client asked for. */
  model: string;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** Streams settled (each admitted request, refused by the provider or not). */
  requests: number;
  /** Input tokens (cached + prompt). */
  input_tokens: number;
  /** Output tokens (thoughts + response). */
  output_tokens: number;
  /** The row's tokens that are the relay's estimate (streams that ended early). */
  estimated_tokens: number;
  /** Streams that ended otherwise than with their stop event. */
  stopped: number;
}

/** Days kept (today and the 30 before it). */
export const KEEP_DAYS = 31;
const DAY_MS = 86_400_000;

/** The UTC day of `ms`. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
/** The start of the UTC day after `ms`: when a day's budget resets. */
export const nextDayMs = (ms: number): number => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;
/** The first day kept at `ms`. */
const firstKept = (ms: number): string => dayOf(ms - (KEEP_DAYS - 1) * DAY_MS);

/** A ledger: settlements in, rows out. */
export interface Ledger {
  /** Adds a settled stream to its row (principal, model, today), forgetting days past KEEP_DAYS. */
  record(s: Settlement, now: number): void;
  /** The rows of `principal` (null: all), by principal, day, model. */
  rows(principal: string | null): LedgerRow[];
  /** The tokens (input + output) a principal's rows count on `day`. */
  spent(principal: string, day: string): number;
}

/** Rows one process keeps (~200 bytes each). */
export const MAX_ROWS = 50_000;

const byKey = (a: LedgerRow, b: LedgerRow): number =>
  a.principal < b.principal
    ? -1
    : a.principal > b.principal
    ? 1
    : a.day < b.day
    ? -1
    : a.day > b.day
    ? 1
    : a.model < b.model
    ? -1
    : a.model > b.model
    ? 1
    : 0;

/** A row with a settlement added. */
function added(row: LedgerRow, s: Settlement): void {
  row.requests++;
  row.input_tokens += s.input;
  row.output_tokens += s.output;
  row.estimated_tokens += s.estimated;
  if (s.stopped) row.stopped++;
}

/** The ledger in a process (the stateless relay). */
export class MemoryLedger implements Ledger {
  readonly #rows = new Map<string, LedgerRow>();
  /** The first day kept at the last purge of older rows. */
  #purged = "";
  /** Tokens per principal and day (JSON [principal, day]): `spent` without a walk of every row. */
  readonly #totals = new Map<string, number>();

  #forget(key: string, r: LedgerRow): void {
    this.#rows.delete(key);
    const total = JSON.stringify([r.principal, r.day]);
    const left = (this.#totals.get(total) ?? 0) - r.input_tokens - r.output_tokens;
    if (left > 0) this.#totals.set(total, left);
    else this.#totals.delete(total);
  }

  /** @param held whether a principal holds an open claim now: its rows are never the ones forgotten past MAX_ROWS (its day's spend stays). */
  constructor(readonly held: (principal: string) => boolean = () => false) {}

  record(s: Settlement, now: number): void {
    const day = dayOf(now);
    const key = JSON.stringify([s.principal, s.model, day]);
    let row = this.#rows.get(key);
    if (row === undefined) {
      const first = firstKept(now);
      if (first !== this.#purged) {
        // (once a day: a walk of every row per new row would make a full ledger quadratic)
        for (const [k, r] of this.#rows) if (r.day < first) this.#forget(k, r);
        this.#purged = first;
      }
      if (this.#rows.size >= MAX_ROWS) {
        // the oldest row of a principal without an open claim (none: the ledger grows past the bound
        // by the principals that hold one, as many as the streams open now)
        for (const [k, r] of this.#rows) {
          if (!this.held(r.principal)) {
            this.#forget(k, r);
            break;
          }
        }
      }
      row = {
        principal: s.principal,
        model: s.model,
        day,
        requests: 0,
        input_tokens: 0,
        output_tokens: 0,
        estimated_tokens: 0,
        stopped: 0,
      };
      this.#rows.set(key, row);
    }
    added(row, s);
    const total = JSON.stringify([s.principal, day]);
    this.#totals.set(total, (this.#totals.get(total) ?? 0) + s.input + s.output);
  }

  rows(principal: string | null): LedgerRow[] {
    const first = firstKept(Date.now());
    return [...this.#rows.values()].filter((r) => r.day >= first && (principal === null || r.principal === principal)).map((r) => ({
      ...r,
    }))
      .sort(byKey);
  }

  spent(principal: string, day: string): number {
    return this.#totals.get(JSON.stringify([principal, day])) ?? 0;
  }
}

/** The ledger in a Durable Object's SQLite storage (its table `usage`, made on first use). */
export class SqlLedger implements Ledger {
  readonly #sql: RelaySqlStorage;

  constructor(sql: RelaySqlStorage) {
    this.#sql = sql;
    sql.exec(
      "CREATE TABLE IF NOT EXISTS usage (principal TEXT NOT NULL, model TEXT NOT NULL, day TEXT NOT NULL, requests INTEGER NOT NULL, " +
        "input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, estimated_tokens INTEGER NOT NULL, stopped INTEGER NOT NULL, " +
        "PRIMARY KEY (principal, model, day))",
    );
  }

  record(s: Settlement, now: number): void {
    this.#sql.exec(
      "INSERT INTO usage VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7) ON CONFLICT (principal, model, day) DO UPDATE SET " +
        "requests = requests + 1, input_tokens = input_tokens + ?4, output_tokens = output_tokens + ?5, " +
        "estimated_tokens = estimated_tokens + ?6, stopped = stopped + ?7",
      s.principal,
      s.model,
      dayOf(now),
      s.input,
      s.output,
      s.estimated,
      s.stopped ? 1 : 0,
    );
    this.#sql.exec("DELETE FROM usage WHERE day < ?", firstKept(now));
  }

  rows(principal: string | null): LedgerRow[] {
    const first = firstKept(Date.now());
    const order = " ORDER BY principal, day, model";
    return principal === null
      ? this.#sql.exec<LedgerRow>("SELECT * FROM usage WHERE day >= ?" + order, first).toArray()
      : this.#sql.exec<LedgerRow>("SELECT * FROM usage WHERE day >= ? AND principal = ?" + order, first, principal).toArray();
  }

  spent(principal: string, day: string): number {
    const row = this.#sql.exec<{ n: number | null }>(
      "SELECT SUM(input_tokens + output_tokens) AS n FROM usage WHERE principal = ? AND day = ?",
      principal,
      day,
    ).one();
    return Number(row.n ?? 0);
  }
}

/** The answer of `GET /v1/usage`: the rows as an MMSP list. */
export function usageList(rows: LedgerRow[]): Response {
  const data = rows.map((r) => ({
    principal: r.principal,
    model: r.model,
    day: r.day,
    requests: Number(r.requests),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    estimated_tokens: Number(r.estimated_tokens),
    stopped: Number(r.stopped),
  }));
  return Response.json({ object: "list", data }, { headers: { "cache-control": "no-store" } });
}
