// The stream: SPEC §8 and §10 "A stream outlives its object" (what a stream's object keeps in its
// SQLite storage: the stream's state, its events, its door's settings; read again after a restart).
//
// The part of a stream's object that stores (stream-object.ts is the shell): the `stream` table (live
// or ended, the creator's binding, when it expires), the `meta` table (an Open Responses stream's
// settings), and the events (event-log.ts: a turn's events stored in one statement at its end).
import type { RelaySqlStorage } from "../platform.js";
import { EventLog } from "./event-log.js";

/** A stream's storage, and what this instance knows of it. */
export class StreamStore {
  /** The stream exists (created, not expired). */
  exists = false;
  ended = false;
  authHash: string | null = null;
  /** When an ended stream is deleted (ms since the epoch). */
  expiresAt = 0;
  /** The events (event-log.ts: stored a batch per turn, the last ones held to serve), and their JSON's size (UTF-16 units, ~bytes). */
  readonly log: EventLog;
  bytes = 0;
  /** The end of the turn that took events not yet stored (their flush), while one is due. */
  private flushing: ReturnType<typeof setTimeout> | null = null;

  /**
   * @param sql the object's storage
   * @param stored called once events are stored (the viewers are woken)
   * @param failed called when a deferred store fails (the stream cannot go on)
   */
  constructor(private readonly sql: RelaySqlStorage, private readonly stored: () => void, private readonly failed: (e: unknown) => void) {
    this.log = new EventLog(sql);
  }

  /** Events stored (the next stored event's index): what the answers may send. */
  get count(): number {
    return this.log.count;
  }

  /** The state from storage, after a restart (or nothing: a new or unknown stream). True: stored as live. */
  load(): boolean {
    const tables = this.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'stream'").toArray();
    if (tables.length === 0) return false;
    const row = this.sql.exec<{ state: string; auth_hash: string | null; expires_at: number | null }>(
      "SELECT state, auth_hash, expires_at FROM stream WHERE id = 0",
    ).toArray()[0];
    if (!row) return false;
    this.exists = true;
    this.authHash = row.auth_hash;
    this.log.count = Number(this.sql.exec<{ n: number | null }>("SELECT MAX(seq) + 1 AS n FROM events").one().n ?? 0);
    this.log.forget(this.log.count);
    this.ended = row.state === "ended";
    this.expiresAt = row.expires_at ?? 0;
    return !this.ended;
  }

  /** A new live stream's tables and state: its creator's binding, its door's settings if any. */
  create(binding: string | null, meta: string | null): void {
    this.authHash = binding;
    this.sql.exec("CREATE TABLE IF NOT EXISTS stream (id INTEGER PRIMARY KEY, state TEXT NOT NULL, auth_hash TEXT, expires_at INTEGER)");
    if (meta !== null) {
      this.sql.exec("CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
      this.sql.exec("INSERT OR REPLACE INTO meta (id, value) VALUES (0, ?)", meta);
    }
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS events (seq INTEGER NOT NULL, part INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (seq, part))",
    );
    this.sql.exec("INSERT OR REPLACE INTO stream (id, state, auth_hash, expires_at) VALUES (0, 'live', ?, NULL)", this.authHash);
    this.exists = true;
  }

  /**
   * Takes one event (counted now) to be stored at the end of this turn with the others it brought
   * (or now, when they weigh enough); the answers waiting for it are woken once it is stored.
   */
  append(json: string): void {
    this.bytes += json.length;
    if (this.log.add(json)) this.flush();
    else {
      this.flushing ??= setTimeout(() => {
        this.flushing = null;
        try {
          this.flush();
        } catch (e) {
          this.failed(e); // (storage failed: the stream cannot go on)
        }
      }, 0);
    }
  }

  /** Stores the events taken and not yet stored (one statement per batch), then wakes the answers. */
  flush(): void {
    if (this.flushing !== null) clearTimeout(this.flushing);
    this.flushing = null;
    this.log.flush();
    this.stored();
  }

  /** Marks the stream ended in storage, deleted at `expiresAt` (ms since the epoch). */
  markEnded(expiresAt: number): void {
    this.ended = true;
    this.expiresAt = expiresAt;
    this.sql.exec("UPDATE stream SET state = 'ended', expires_at = ? WHERE id = 0", this.expiresAt);
  }

  /** The stream's door settings (an Open Responses stream's: doors/open-responses/), or null for an MMSP stream. */
  meta(): string | null {
    const tables = this.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'").toArray();
    if (tables.length === 0) return null;
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE id = 0").toArray()[0]?.value ?? null;
  }

  /** What this instance knows, once the storage was deleted (the stream expired). */
  forget(): void {
    this.exists = false;
    this.log.count = 0;
    this.log.forget(0);
    this.ended = false;
    this.authHash = null;
  }
}
