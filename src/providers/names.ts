/**
 * The providers by name, for `new ProviderEventStream("anthropic")` and `fromProviderResponse`. Naming
 * a provider by a string can only be resolved here, so these two carry every provider's reader; a
 * provider's factory (`anthropic({ apiKey })`…) carries its own only. A new provider adds its line.
 */
import { OPENAI_CHAT } from "./openai-chat/spec.js";
import { ANTHROPIC } from "./anthropic/spec.js";
import { OPENAI_RESPONSES } from "./openai-responses/spec.js";
import { GEMINI } from "./gemini/spec.js";
import type { ProviderSpec } from "./spec.js";

/** The providers' names, as `ProviderEventStream` takes them. */
export type ProviderName = "openai-chat" | "openai-responses" | "anthropic" | "gemini";

/** Each provider's reading spec by its name. */
export const PROVIDERS: Readonly<Record<ProviderName, ProviderSpec>> = {
  "openai-chat": OPENAI_CHAT,
  "openai-responses": OPENAI_RESPONSES,
  anthropic: ANTHROPIC,
  gemini: GEMINI,
};
