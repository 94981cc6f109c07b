// The stream: SPEC §8 and §10 "A stream outlives its object" (what a stream's object keeps in its
// SQLite storage: the stream's state, its events, its door's settings; read again after a restart).
//
// The part of a stream's object that stores (stream-object.ts is the shell): the `stream` table (live
// or ended, the creator's binding, when it expires), the `meta` table (an Open Responses stream's
// settings), and the events (event-log.ts: a turn's events stored as one row, in one statement, at its end).
// The stream's duty is in storage, not in memory (SPEC §10 "A stream outlives its object"): the `duty`
// row (the target that serves it, its claim, the request's URL and headers, and the running usage,
// written with each stored batch) and the request's body in `request` rows (BODY_PART_BYTES each: a
// SQLite value holds 2 MB, a body may be 16 MiB), so a new instance knows what the dead one did.
import { parseJsonText } from "../../internal/json.js";
import type { RelaySqlStorage } from "../platform.js";
import { EventLog } from "./event-log.js";
import type { ServedStream } from "./viewers.js";

/** A request body is stored in parts of this many bytes (storage keeps a value of at most 2 MB). */
export const BODY_PART_BYTES = 1024 * 1024;

/** Headers never kept in storage (a client's credentials; the stream's binding is their HMAC: bind.ts). */
const UNKEPT = /^(authorization|proxy-authorization|cookie|x-api-key|x-relay-key|x-goog-api-key|cf-access-.*)$/i;

/** What a stream's object must do for it, as stored with it (what a new instance reads after a restart). */
export interface Duty {
  /** The target that serves it (a models row's, x-mmsp-target), or null. */
  target: string | null;
  /** Its claim (stream-cost.ts, CLAIM_HEADER's value), or null without quotas. */
  ticket: string | null;
  /** What it cost so far (stream-cost.ts `snapshot`, JSON), written with each stored batch and when a request is sent or answers; null before. */
  usage: string | null;
}

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
  /** The running usage to store with each batch (stream-cost.ts `snapshot`, JSON), while the stream has a claim. */
  usage: (() => string) | null = null;
  /** The end of the turn that took events not yet stored (their flush), while one is due. */
  private flushing: ReturnType<typeof setTimeout> | null = null;

  /**
   * @param sql the object's storage
   * @param stored called once events are stored (the viewers are woken)
   * @param failed called when a deferred store fails (the stream cannot go on)
   * @param needed the first event a connected client still needs (event-log.ts: the window keeps it)
   */
  constructor(
    private readonly sql: RelaySqlStorage,
    private readonly stored: () => void,
    private readonly failed: (e: unknown) => void,
    needed: () => number = () => Infinity,
  ) {
    this.log = new EventLog(sql, needed);
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
    this.log.open(); // (the events stored: a table of an older object brought to the batch form)
    this.ended = row.state === "ended";
    this.expiresAt = row.expires_at ?? 0;
    return !this.ended;
  }

  /** A new live stream's tables and state: its creator's binding, its door's settings if any, its duty and request. */
  create(
    binding: string | null,
    meta: string | null,
    duty?: { target: string | null; ticket: string | null; request: Request; body: ArrayBuffer },
  ): void {
    this.authHash = binding;
    this.sql.exec("CREATE TABLE IF NOT EXISTS stream (id INTEGER PRIMARY KEY, state TEXT NOT NULL, auth_hash TEXT, expires_at INTEGER)");
    if (meta !== null) {
      this.sql.exec("CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY, value TEXT NOT NULL)");
      this.sql.exec("INSERT OR REPLACE INTO meta (id, value) VALUES (0, ?)", meta);
    }
    this.log.open();
    if (duty) this.keep(duty);
    this.sql.exec("INSERT OR REPLACE INTO stream (id, state, auth_hash, expires_at) VALUES (0, 'live', ?, NULL)", this.authHash);
    this.exists = true;
  }

  /** Stores the stream's duty: its target, its claim, and its request (the body in parts). */
  private keep(
    { target, ticket, request, body }: { target: string | null; ticket: string | null; request: Request; body: ArrayBuffer },
  ): void {
    this.sql.exec(
      "CREATE TABLE IF NOT EXISTS duty (id INTEGER PRIMARY KEY, target TEXT, ticket TEXT, usage TEXT, url TEXT NOT NULL, headers TEXT NOT NULL)",
    );
    this.sql.exec("CREATE TABLE IF NOT EXISTS request (part INTEGER PRIMARY KEY, data BLOB NOT NULL)");
    const headers = [...request.headers].filter(([name]) => !UNKEPT.test(name));
    this.sql.exec(
      "INSERT OR REPLACE INTO duty (id, target, ticket, usage, url, headers) VALUES (0, ?, ?, NULL, ?, ?)",
      target,
      ticket,
      request.url,
      JSON.stringify(headers),
    );
    for (let part = 0, at = 0; part === 0 || at < body.byteLength; part++, at += BODY_PART_BYTES) {
      this.sql.exec("INSERT OR REPLACE INTO request (part, data) VALUES (?, ?)", part, body.slice(at, at + BODY_PART_BYTES));
    }
  }

  /** The stream's duty as stored, or null (none stored: a stream created before duties were kept). */
  duty(): Duty | null {
    if (!this.hasTable("duty")) return null;
    return this.sql.exec<Duty>("SELECT target, ticket, usage FROM duty WHERE id = 0").toArray()[0] ?? null;
  }

  /** The stream's request as stored (its body put together again), or null. */
  request(): Request | null {
    if (!this.hasTable("duty")) return null;
    const row = this.sql.exec<{ url: string; headers: string }>("SELECT url, headers FROM duty WHERE id = 0").toArray()[0];
    if (!row) return null;
    const parts = this.sql.exec<{ data: ArrayBuffer }>("SELECT data FROM request ORDER BY part").toArray().map((r) =>
      new Uint8Array(r.data)
    );
    const body = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const p of parts) {
      body.set(p, at);
      at += p.byteLength;
    }
    return new Request(row.url, { method: "POST", headers: parseJsonText(row.headers) as [string, string][], body });
  }

  /** The events stored, each its JSON, in order: what a restarted object takes up (event-log.ts). */
  events(): string[] {
    return this.log.events();
  }

  /**
   * Batches of events this instance has stored: one written since an answer last asked `reachable()`
   * proves the storage was reachable then, without a statement (stream-object.ts `orphaned`).
   */
  writes = 0;

  /** Whether this instance can still use its storage (false once its object was reset under it). */
  reachable(): boolean {
    try {
      this.sql.exec("SELECT 1").toArray();
      return true;
    } catch {
      return false;
    }
  }

  private hasTable(name: string): boolean {
    return this.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
  }

  /**
   * Takes one event (counted now) to be stored at the end of this turn with the others it brought
   * (or now, when they weigh enough: then true); the answers waiting for it are woken once it is stored.
   */
  append(json: string): boolean {
    this.bytes += json.length;
    if (this.log.add(json)) {
      this.flush();
      return true;
    } else {
      this.flushing ??= setTimeout(() => {
        this.flushing = null;
        try {
          this.flush();
        } catch (e) {
          this.failed(e); // (storage failed: the stream cannot go on)
        }
      }, 0);
    }
    return false;
  }

  /** Stores the events taken and not yet stored (one statement per batch), then wakes the answers. */
  flush(): void {
    if (this.flushing !== null) clearTimeout(this.flushing);
    this.flushing = null;
    const before = this.log.count;
    this.log.flush();
    if (this.log.count !== before) this.writes++; // (written: the storage was reachable then, see `writes`)
    // (the running usage with each stored batch: what the stored events cost, for a restarted object)
    if (this.log.count !== before) this.saveUsage();
    this.stored();
  }

  /**
   * Stores the running usage in the duty now (`json`, else `usage()`'s; nothing without either): with
   * each batch, and at once when a provider request is sent or answers (stream/run.ts), so that a
   * request's input is in storage before the object can die with it unsaved (SPEC §10 "A stream
   * outlives its object": charged once, never a request short).
   */
  saveUsage(json: string | null = this.usage?.() ?? null): void {
    if (json !== null) this.sql.exec("UPDATE duty SET usage = ? WHERE id = 0", json);
  }

  /** Stores the target that serves the stream now (a continuation moved it on: routing/continuation.ts), for a take-up after a restart. */
  saveTarget(target: string): void {
    this.sql.exec("UPDATE duty SET target = ? WHERE id = 0", target);
  }

  /** Marks the stream ended in storage, deleted at `expiresAt` (ms since the epoch). */
  markEnded(expiresAt: number): void {
    this.ended = true;
    this.expiresAt = expiresAt;
    this.sql.exec("UPDATE stream SET state = 'ended', expires_at = ? WHERE id = 0", this.expiresAt);
  }

  /** The stream's door settings (an Open Responses stream's: doors/open-responses/), or null for an MMSP stream. */
  meta(): string | null {
    if (!this.hasTable("meta")) return null;
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE id = 0").toArray()[0]?.value ?? null;
  }

  /** What this instance knows, once the storage was deleted (the stream expired). */
  forget(): void {
    this.exists = false;
    this.log.count = 0;
    this.log.forget(0);
    this.ended = false;
    this.authHash = null;
    this.usage = null;
  }
}

/**
 * The stream as one answer reads it (viewers.ts): its events, whether it ended, and whether it is
 * orphaned — live in storage, but no upstream read by this instance (`upstream()` null), or its
 * storage gone (reset under it: run.ts). The storage is asked only when no batch was stored since
 * this answer last looked: a wait per upstream chunk costs no statement (issue #49), a wait with
 * nothing stored one, as before a keep-alive.
 */
export function served(store: StreamStore, upstream: () => unknown): ServedStream {
  let proven = store.writes;
  return {
    log: store.log,
    get ended() {
      return store.ended;
    },
    get orphaned() {
      if (store.ended) return false;
      if (upstream() === null) return true;
      if (store.writes !== proven) return (proven = store.writes), false;
      return !store.reachable();
    },
  };
}
