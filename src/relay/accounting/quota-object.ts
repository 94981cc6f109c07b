// Accounting: SPEC §10 "Principals and quotas" (held for the whole deployment in one Durable Object per principal).
//
// SPEC §10, "Principals and quotas": a quota is held for the whole deployment in one Durable Object
// per principal (binding QUOTAS, class `createRelay(...).QuotaObject`), so a limit holds whichever
// isolate or location a request comes through: every claim of a principal is decided by its one
// object, one at a time. The object named "principal:<name>" keeps that principal's book (the
// minute's window in memory, the open claims and the ledger in its SQLite storage); the object named
// "all" keeps every principal's ledger rows (for `GET /v1/usage?all=1`). DurableQuotas is the
// Worker's side: the QuotaStore of quota.ts over the namespace.
//
// Requests from the Worker (and from a stream's object, which settles its stream's claim):
//   POST https://quota/claim   a Claim          → {"refused": Refused | null}
//   POST https://quota/settle  a Settlement     → {"recorded": boolean} (once per claim: quota.ts `recorded`)
//   GET  https://quota/usage[?principal=<name>] → the ledger's rows
import { type Ledger, type LedgerRow, SqlLedger } from "./ledger.js";
import { dayOf } from "./ledger.js";
import type { RelayNamespace, RelaySqlStorage, RelayState } from "../platform.js";
import { type Claim, QuotaBook, type QuotaStore, recorded, type Refused, type Settlement } from "./quota.js";
import { refusal } from "../refusal.js";

/** The Durable Object class of the quotas (see the top): `export const QuotaObject = relay.QuotaObject`. */
export class RelayQuotaObject {
  readonly #sql: RelaySqlStorage;
  readonly #ledger: Ledger;
  readonly #book = new QuotaBook();

  /** workerd constructs it with `(state, env)`. */
  constructor(state: RelayState, _env?: unknown) {
    this.#sql = state.storage.sql;
    this.#ledger = new SqlLedger(this.#sql);
    this.#sql.exec("CREATE TABLE IF NOT EXISTS claims (id TEXT PRIMARY KEY, tokens INTEGER NOT NULL, until INTEGER NOT NULL)");
    for (const row of this.#sql.exec<{ id: string; tokens: number; until: number }>("SELECT id, tokens, until FROM claims")) {
      this.#book.open.set(row.id, { tokens: Number(row.tokens), until: Number(row.until) });
    }
  }

  /** The Worker's requests (see the top). */
  async fetch(request: Request): Promise<Response> {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname === "/claim" && request.method === "POST") {
      const claim = (await request.json()) as Claim;
      const now = Date.now();
      const refused = this.#book.claim(claim, this.#ledger.spent(claim.principal, dayOf(now)), now);
      this.#sql.exec("DELETE FROM claims WHERE until <= ?", now);
      if (refused === null) this.#sql.exec("INSERT OR REPLACE INTO claims VALUES (?, ?, ?)", claim.id, claim.tokens, claim.until);
      return Response.json({ refused });
    }
    if (pathname === "/settle" && request.method === "POST") {
      const s = (await request.json()) as Settlement;
      const wasOpen = this.#book.release(s.id);
      this.#sql.exec("DELETE FROM claims WHERE id = ?", s.id);
      // (the "all" object holds no claims: the Worker asks it only after the principal's recorded)
      const record = recorded(wasOpen, s) || searchParams.get("mirror") === "1";
      if (record) this.#ledger.record(s, Date.now());
      return Response.json({ recorded: record });
    }
    if (pathname === "/usage" && request.method === "GET") return Response.json(this.#ledger.rows(searchParams.get("principal")));
    return refusal(404, "NotFoundError", "No such route in the quota object.");
  }
}

/** The quotas held in the QUOTAS namespace (one object per principal, and "all"). */
export class DurableQuotas implements QuotaStore {
  constructor(readonly namespace: RelayNamespace) {}

  #stub(name: string) {
    return this.namespace.get(this.namespace.idFromName(name));
  }

  async #post(name: string, path: string, body: unknown): Promise<Response> {
    const answer = await this.#stub(name).fetch(`https://quota/${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!answer.ok) throw new Error(`the quota object answered ${answer.status} to ${path}`);
    return answer;
  }

  async claim(claim: Claim): Promise<Refused | null> {
    const answer = await this.#post(`principal:${claim.principal}`, "claim", claim);
    return ((await answer.json()) as { refused: Refused | null }).refused;
  }

  async settle(s: Settlement): Promise<void> {
    const answer = await this.#post(`principal:${s.principal}`, "settle", s);
    // (an object of an earlier version answers 204: recorded)
    const done = answer.status === 204 || ((await answer.json()) as { recorded?: boolean }).recorded === true;
    if (done) await this.#post("all", "settle?mirror=1", s);
  }

  async usage(principal: string | null): Promise<LedgerRow[]> {
    const stub = this.#stub(principal === null ? "all" : `principal:${principal}`);
    const query = principal === null ? "" : `?principal=${encodeURIComponent(principal)}`;
    const answer = await stub.fetch(`https://quota/usage${query}`);
    if (!answer.ok) throw new Error(`the quota object answered ${answer.status} to usage`);
    return (await answer.json()) as LedgerRow[];
  }
}
