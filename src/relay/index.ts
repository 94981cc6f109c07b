/**
 * mmsp-streams/relay: the resumable relay as a Cloudflare Worker of one's own. {@link createRelay}
 * makes the Worker's fetch handler and the Durable Object class that keeps each stream (one object
 * per stream, SQLite storage): `POST /v1/stream` creates a stream, `GET /v1/streams/<id>` resumes it
 * after a cut (`Last-Event-ID`), `DELETE /v1/streams/<id>` cancels it (the upstream request aborted).
 *
 * Web standards only (no `node:*`, no `cloudflare:workers` import): the module loads, and
 * type-checks, outside workerd too.
 *
 * @example A whole Worker
 * ```ts ignore
 * import { createRelay } from "mmsp-streams/relay";
 *
 * const relay = createRelay({ upstream: "https://mmsp.internal/v1" });
 * export const RelayStream = relay.StreamObject; // wrangler.toml: binding STREAMS, class_name RelayStream
 * export default relay;
 * ```
 *
 * @module
 */
export { createRelay } from "./create-relay.js";
export type {
  Relay,
  RelayAction,
  RelayConnection,
  RelayContext,
  RelayEnv,
  RelayOptions,
  RelayStreamObjectClass,
  RelayVerdict,
} from "./options.js";
export type { UpstreamFunction } from "./routing/upstream.js";
export type { RelayLimits } from "./admission/limits.js";
export { RelayStreamObject } from "./stream/stream-object.js";
export type { BindEnv } from "./admission/bind.js";
export type { CorsEnv } from "./admission/cors.js";
export type { LimitsEnv } from "./admission/limits.js";
export type { HostedTools, RelayModel, RelayModels, RelayModelsOption, RelayRow } from "./routing/models.js";
export type { TraceSpan, TraceTracer, TraceValue } from "./routing/tracing.js";
export type { WatchdogEnv } from "./routing/watchdog.js";
export type { AllowedSetting, RelayAllow } from "./routing/ceilings.js";
export type { AnonymousOption, GateEnv } from "./admission/gate.js";
export { type PrincipalEnv, RelayConfigError, type RelayPrincipal } from "./admission/principal.js";
export { type AddressEnv, addressKey, type ClientAddressFunction } from "./admission/address.js";
export type { Quota, RelayQuotas } from "./accounting/quota.js";
export { RelayQuotaObject } from "./accounting/quota-object.js";
export type { LedgerRow } from "./accounting/ledger.js";
export type { RelayNamespace, RelayObjectId, RelaySqlCursor, RelaySqlStorage, RelayState, RelayStorage, RelayStub } from "./platform.js";
