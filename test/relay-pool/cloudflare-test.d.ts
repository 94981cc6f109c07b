// The members of vitest-pool-workers' "cloudflare:test" module the relay-pool tests use, typed
// against the relay's own Durable Object declarations (worker/cloudflare.d.ts; the package's full
// types need @cloudflare/workers-types, which this package does not use).
declare module "cloudflare:test" {
  /** The relay Worker's bindings (top-level wrangler.toml, plus the project's MMSP_UPSTREAM). */
  export const env: { STREAMS: DurableObjectNamespace; QUOTAS: DurableObjectNamespace; MMSP_UPSTREAM: string };
  /** The relay Worker's default export (worker/index.ts), called as a service binding. */
  export const SELF: { fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> };
  /** Runs `callback` inside the object behind `stub`, with its instance and state. */
  export function runInDurableObject<R>(
    stub: DurableObjectStub,
    callback: (instance: unknown, state: DurableObjectState) => R | Promise<R>,
  ): Promise<R>;
  /** Runs the object's scheduled alarm now, if it has one; resolves whether one ran. */
  export function runDurableObjectAlarm(stub: DurableObjectStub): Promise<boolean>;
  /** The ids of the namespace's objects that exist (created in this test file). */
  export function listDurableObjectIds(namespace: DurableObjectNamespace): Promise<DurableObjectId[]>;
}
