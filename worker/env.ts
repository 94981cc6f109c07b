// The relay Worker's bindings and variables (wrangler.toml; `--var` or the dashboard override them).
import type { RelayEnv } from "../src/relay/index.ts";

/**
 * The library's (mmsp-streams/relay: MMSP_UPSTREAM, RELAY_KEY, BIND_SECRET, CORS_ORIGINS, the MAX_*
 * bounds, STREAM_TTL_S, ABANDON_S) and the repository Worker's own (the samples' replay).
 */
export interface Env extends RelayEnv {
  /** Replay pacing: N or A-B ms per event (default 20-40); `?pace=` overrides it per request. */
  SAMPLE_PACE_MS?: string;
  /** One Durable Object per stream (StreamObject). Without it the relay is stateless: no resume. */
  STREAMS?: DurableObjectNamespace;
}
