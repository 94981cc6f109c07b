// The parts of the Durable Object platform the relay uses, declared here (structurally: workerd's
// own objects, and @cloudflare/workers-types' declarations of them, fit), so the relay needs neither
// `cloudflare:workers` nor @cloudflare/workers-types, and loads (and type-checks) outside workerd too.

/** A SQL query's rows (`state.storage.sql.exec(...)`). */
export interface RelaySqlCursor<T> extends Iterable<T> {
  /** Every row. */
  toArray(): T[];
  /** The one row (throws when there is not exactly one). */
  one(): T;
}

/** A Durable Object's SQLite storage (`state.storage.sql`). */
export interface RelaySqlStorage {
  /** Runs one SQL statement with its bindings. */
  exec<T = Record<string, string | number | null | ArrayBuffer>>(query: string, ...bindings: unknown[]): RelaySqlCursor<T>;
}

/** A Durable Object's storage: SQLite, the alarm, and deleting everything. */
export interface RelayStorage {
  /** The SQLite storage (the class must be a `new_sqlite_classes` one in wrangler.toml's migrations). */
  readonly sql: RelaySqlStorage;
  /** Sets the object's one alarm. */
  setAlarm(scheduledTime: number | Date): Promise<void>;
  /** Deletes the object's storage. */
  deleteAll(): Promise<void>;
}

/** The state workerd hands a Durable Object's constructor. */
export interface RelayState {
  /** Its storage. */
  readonly storage: RelayStorage;
  /** Keeps the object alive until `promise` settles. */
  waitUntil(promise: Promise<unknown>): void;
}

/** A Durable Object's id. */
export interface RelayObjectId {
  /** The id as hex. */
  toString(): string;
}

/** A Durable Object's stub: requests to the object. */
export interface RelayStub {
  /** A request to the object's `fetch`. */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
}

/** A Durable Object namespace binding (wrangler.toml `[[durable_objects.bindings]]`). */
export interface RelayNamespace {
  /** The id of the object named `name`. */
  idFromName(name: string): RelayObjectId;
  /** The stub of the object `id`. */
  get(id: RelayObjectId): RelayStub;
}
