// The Durable Object APIs the relay Worker and its tests use (the full types are in
// @cloudflare/workers-types, which this package does not need; the library, src/relay/, declares its
// own in src/relay/platform.ts and imports nothing from "cloudflare:workers").

interface SqlCursor<T> extends Iterable<T> {
  toArray(): T[];
  one(): T;
}

interface SqlStorage {
  exec<T = Record<string, string | number | null | ArrayBuffer>>(query: string, ...bindings: unknown[]): SqlCursor<T>;
}

interface DurableObjectStorage {
  readonly sql: SqlStorage;
  setAlarm(scheduledTime: number | Date): Promise<void>;
  getAlarm(): Promise<number | null>;
  deleteAlarm(): Promise<void>;
  deleteAll(): Promise<void>;
}

interface DurableObjectState {
  readonly storage: DurableObjectStorage;
  waitUntil(promise: Promise<unknown>): void;
  blockConcurrencyWhile<T>(fn: () => Promise<T>): Promise<T>;
}

interface DurableObjectId {
  toString(): string;
}

interface DurableObjectStub {
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
}

interface DurableObjectNamespace {
  idFromName(name: string): DurableObjectId;
  get(id: DurableObjectId): DurableObjectStub;
}
