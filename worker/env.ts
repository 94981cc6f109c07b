// The relay Worker's bindings and variables (wrangler.toml; `--var` or the dashboard override them).
import type { BindEnv } from "./bind.ts";
import type { CorsEnv } from "./cors.ts";
import type { LimitsEnv } from "./limits.ts";

/** Also: RELAY_KEY and BIND_SECRET (bind.ts), the MAX_* bounds (limits.ts), CORS_ORIGINS (cors.ts). */
export interface Env extends CorsEnv, BindEnv, LimitsEnv {
  /** The MMSP server to relay to (e.g. http://127.0.0.1:25752/v1); unset: replay the built-in samples. */
  MMSP_UPSTREAM?: string;
  /** Replay pacing: N or A-B ms per event (default 20-40); `?pace=` overrides it per request. */
  SAMPLE_PACE_MS?: string;
  /** Seconds an ended stream stays resumable (default 300). */
  STREAM_TTL_S?: string;
  /** Seconds without a client reading (pulling its answer) after which a stream stops its upstream (default 60). */
  ABANDON_S?: string;
  /** One Durable Object per stream (stream-object.ts). Without it the relay is stateless: no resume. */
  STREAMS?: DurableObjectNamespace;
}
