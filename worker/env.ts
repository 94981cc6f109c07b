// The relay Worker's bindings and variables (wrangler.toml; `--var` or the dashboard override them).
import type { RelayEnv } from "../src/relay/index.ts";

/**
 * The library's (mmsp-streams/relay: MMSP_UPSTREAM, RELAY_KEY, BIND_SECRET, CORS_ORIGINS, the MAX_*
 * bounds, STREAM_TTL_S, ABANDON_S, ALLOW_ANONYMOUS, ANONYMOUS_PER_MINUTE) and the repository
 * Worker's own (the samples' replay, the provider-backed models of models.ts).
 */
export interface Env extends RelayEnv {
  /** Replay pacing: N or A-B ms per event (default 20-40); `?pace=` overrides it per request. */
  SAMPLE_PACE_MS?: string;
  /** One Durable Object per stream (StreamObject). Without it the relay is stateless: no resume. */
  STREAMS?: DurableObjectNamespace;
  /** One Durable Object per principal (QuotaObject): quotas and the ledger for the whole deployment. */
  QUOTAS?: DurableObjectNamespace;
  /** A secret: set, the model "claude-fast" is answered by Anthropic with it. */
  ANTHROPIC_API_KEY?: string;
  /** Anthropic's base URL (a compatible server or gateway); default https://api.anthropic.com. */
  ANTHROPIC_BASE_URL?: string;
  /** The Anthropic model behind "claude-fast" (default claude-haiku-4-5). */
  ANTHROPIC_MODEL?: string;
  /** The Anthropic model that continues an answer of "fast" cut mid-text (default claude-sonnet-4-5). */
  ANTHROPIC_FALLBACK_MODEL?: string;
  /** A secret: set, the model "gpt-fast" is answered by OpenAI Chat Completions with it (and "gpt-responses": OPENAI_RESPONSES_MODEL). */
  OPENAI_API_KEY?: string;
  /** OpenAI's base URL (a compatible server or gateway); default https://api.openai.com/v1. */
  OPENAI_BASE_URL?: string;
  /** The OpenAI model behind "gpt-fast" (default gpt-4.1-mini). */
  OPENAI_MODEL?: string;
  /** Set (with OPENAI_API_KEY): the model "gpt-responses" is answered by OpenAI's Responses API with this model. */
  OPENAI_RESPONSES_MODEL?: string;
  /** A secret: set, the model "gemini-fast" is answered by Gemini with it. */
  GEMINI_API_KEY?: string;
  /** Gemini's base URL (a compatible server or gateway); default https://generativelanguage.googleapis.com/v1beta. */
  GEMINI_BASE_URL?: string;
  /** The Gemini model behind "gemini-fast" (default gemini-2.5-flash). */
  GEMINI_MODEL?: string;
  /**
   * The rows' `max_tokens` ceiling (default 2048); `"none"`: the rows set none, and a request that
   * sets none reserves and asks for the relay's DEFAULT_MAX_TOKENS (the load run's budget phase).
   */
  MODEL_MAX_TOKENS?: string;
  /** `"1"`: a client may ask the rows for thinking (`allow: { thinking_level: true }`, costlier); by default not. */
  MODEL_ALLOW_THINKING?: string;
}
