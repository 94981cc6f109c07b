// The Worker's provider-backed models (createRelay's `models`, src/relay/routing/models.ts): one model per
// provider whose key is set as a secret (`npx wrangler secret put ANTHROPIC_API_KEY`, or `.dev.vars`
// under `npm run dev`). A model whose key is unset is not in the table (its name goes on to the
// upstream or the samples like any other). `*_BASE_URL` points a provider at a compatible server or
// gateway (`npm run dev` points them at the test kit's scripted providers when no key is set).
import { anthropic, gemini, openaiChat, openaiResponses } from "../src/providers/index.ts";
import type { RelayModel, RelayModels, RelayRow } from "../src/relay/index.ts";
import type { Env } from "./env.ts";
import { ownMembers } from "../src/internal/values.ts";

/**
 * The models table for `env`: "claude-fast" (Anthropic), "gpt-fast" (OpenAI Chat), "gemini-fast"
 * (Gemini), each when its key is set, and "gpt-responses" (OpenAI Responses, OpenAI's key) when
 * OPENAI_RESPONSES_MODEL names its model too; "fast" when
 * Anthropic's and OpenAI's are (a row of targets, SPEC §10 "Fallbacks").
 */
export function providerModels(env: Env): RelayModels {
  env = ownMembers(env); // (keys and base URLs from env's own members only: issue #34)
  const table: Record<string, RelayRow> = {};
  const base = (url: string | undefined): { baseURL?: string } => (url ? { baseURL: url } : {});
  // (the rows' ceiling: MODEL_MAX_TOKENS, "none" for none, else 2048)
  const ceiling = env.MODEL_MAX_TOKENS === "none"
    ? {}
    : { max_tokens: Number(env.MODEL_MAX_TOKENS) > 0 ? Number(env.MODEL_MAX_TOKENS) : 2048 };
  // (MODEL_ALLOW_THINKING "1": a client may ask the rows for thinking, which costs more; else not)
  const allow = env.MODEL_ALLOW_THINKING === "1" ? { allow: { thinking_level: true } } : {};
  if (env.ANTHROPIC_API_KEY) {
    table["claude-fast"] = {
      provider: anthropic({ apiKey: env.ANTHROPIC_API_KEY, ...base(env.ANTHROPIC_BASE_URL) }),
      model: env.ANTHROPIC_MODEL || "claude-haiku-4-5",
      config: { ...ceiling },
      ...allow,
    };
  }
  if (env.OPENAI_API_KEY) {
    table["gpt-fast"] = {
      provider: openaiChat({ apiKey: env.OPENAI_API_KEY, ...base(env.OPENAI_BASE_URL) }),
      model: env.OPENAI_MODEL || "gpt-4.1-mini",
      config: { ...ceiling },
      ...allow,
    };
  }
  if (env.OPENAI_API_KEY && env.OPENAI_RESPONSES_MODEL) {
    table["gpt-responses"] = {
      provider: openaiResponses({ apiKey: env.OPENAI_API_KEY, ...base(env.OPENAI_BASE_URL) }),
      model: env.OPENAI_RESPONSES_MODEL,
      config: { ...ceiling },
      ...allow,
    };
  }
  if (env.GEMINI_API_KEY) {
    table["gemini-fast"] = {
      provider: gemini({ apiKey: env.GEMINI_API_KEY, ...base(env.GEMINI_BASE_URL) }),
      model: env.GEMINI_MODEL || "gemini-2.5-flash",
      config: { ...ceiling },
      ...allow,
    };
  }
  if (env.ANTHROPIC_API_KEY && env.OPENAI_API_KEY) {
    // "fast": Claude; GPT when Claude refuses (429, 5xx, 529), cannot be reached or is silent past
    // FIRST_EVENT_S; an answer Claude cuts mid-text is continued by another Claude model (an
    // Anthropic prefill: OpenAI's own API cannot continue a prefix), one text, never two spliced
    const claude = table["claude-fast"] as RelayModel;
    table["fast"] = [
      { ...claude, continueOnFailure: true },
      table["gpt-fast"] as RelayModel,
      { ...claude, model: env.ANTHROPIC_FALLBACK_MODEL || "claude-sonnet-4-5" },
    ];
  }
  return table;
}
