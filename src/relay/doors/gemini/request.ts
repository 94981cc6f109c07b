// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (Gemini's request onto the relay's one request).
//
// A `GenerateContentRequest` (`contents`, `systemInstruction`, `tools`, `toolConfig`,
// `generationConfig`, `safetySettings`, `cachedContent`, `labels`) → MMSP's `{model, messages,
// config}` for the model the path names. Every member is classified (docs/guide/gemini.md has the
// table): one that asks for nothing is accepted, one the relay can do is done, one it cannot do is
// refused by name (a 400 in Google's shape) before anything is asked — never dropped.
import { isRecord } from "../../../internal/values.js";
import type { ThinkingLevel, UniConfig } from "../../../providers/request.js";
import type { UniMessage } from "../../../schema.js";
import { messagesOf, systemOf } from "./contents.js";
import { googleError, refuse, refusing } from "./refused.js";
import { jsonSchemaOf, toolConfigOf, toolsOf } from "./tools.js";

type Json = Record<string, unknown>;

/** MMSP's request of a Gemini request. */
export interface GeminiAsk {
  model: string;
  messages: UniMessage[];
  config: UniConfig;
}

/** The request's members: mapped, or accepted as asking for nothing the relay must do. */
const KNOWN = new Set(["model", "contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings", "labels"]);

/** Gemini 3's thinking levels → MMSP's. */
const LEVELS: Readonly<Record<string, ThinkingLevel>> = { MINIMAL: "none", LOW: "low", MEDIUM: "medium", HIGH: "high" };

/** Safety thresholds that ask for no filtering beyond a provider's own. */
const NO_FILTER = new Set(["OFF", "BLOCK_NONE", "HARM_BLOCK_THRESHOLD_UNSPECIFIED"]);

const given = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * The request body (parsed JSON) for `model` → MMSP's request, or the 400 naming what the relay cannot
 * serve; `passed`: a body passed through to a Gemini target as written (pass-through.ts), whose
 * top-level members the relay does not map go along unread — but `cachedContent`, a named cache of the
 * operator's project, never a client's to name.
 */
export function geminiAsk(body: unknown, model: string, passed = false): GeminiAsk | Response {
  return refusing(() => ask(body, model, passed), (r) => googleError(r.status, r.message));
}

function ask(body: unknown, model: string, passed: boolean): GeminiAsk {
  if (!isRecord(body)) return refuse("The request body must be a JSON object (a GenerateContentRequest).");
  for (const key of Object.keys(body)) {
    if (!KNOWN.has(key) && given(body[key]) && !(passed && key !== "cachedContent")) {
      refuse(
        `'${
          key.slice(0, 64)
        }' is not supported by this relay (it serves contents, systemInstruction, tools, toolConfig, generationConfig, ` +
          "safetySettings without thresholds, labels).",
      );
    }
  }
  const config: UniConfig = {};
  const system = systemOf(body.systemInstruction);
  if (system !== undefined) config.system_prompt = system;
  if (given(body.tools)) {
    const tools = toolsOf(body.tools, passed);
    if (tools.length > 0) config.tools = tools;
  }
  if (given(body.toolConfig)) toolConfigOf(body.toolConfig, config, passed);
  if (given(body.generationConfig)) generationOf(body.generationConfig, config);
  if (given(body.safetySettings)) safetyOf(body.safetySettings);
  if (given(body.labels) && !isRecord(body.labels)) refuse("labels must be an object of strings.");
  return { model, messages: messagesOf(body.contents), config };
}

/** `safetySettings`: thresholds that turn filtering off ask for nothing; any other asks for filtering the relay cannot do. */
function safetyOf(settings: unknown): void {
  if (!Array.isArray(settings)) return refuse("safetySettings must be an array.");
  settings.forEach((s, i) => {
    if (!isRecord(s) || (given(s.threshold) && !NO_FILTER.has(s.threshold as string))) {
      refuse(`safetySettings[${i}].threshold: only OFF or BLOCK_NONE (no filtering) is supported: this relay does not filter answers.`);
    }
  });
}

/** `generationConfig` → the config's limit, sampling and thinking; what asks for more is refused by name. */
function generationOf(generation: unknown, config: UniConfig): void {
  if (!isRecord(generation)) return refuse("generationConfig must be an object.");
  const g = generation;
  const at = (k: string): string => `generationConfig.${k}`;
  for (const key of Object.keys(g)) {
    if (!given(g[key])) continue;
    switch (key) {
      case "maxOutputTokens":
        if (!Number.isInteger(g[key]) || (g[key] as number) < 1) refuse(`${at(key)} must be a positive integer.`);
        config.max_tokens = g[key] as number;
        break;
      case "temperature":
      case "topP":
        if (typeof g[key] !== "number") refuse(`${at(key)} must be a number.`);
        config[key === "topP" ? "top_p" : "temperature"] = g[key] as number;
        break;
      case "candidateCount":
        if (g[key] !== 1) refuse(`${at(key)}: only 1 candidate is supported.`);
        break;
      case "stopSequences":
        if (!Array.isArray(g[key]) || (g[key] as unknown[]).length > 0) refuse(`${at(key)} is not supported (no stop sequences).`);
        break;
      case "responseMimeType":
        if (g[key] !== "text/plain" && g[key] !== "application/json") {
          refuse(`${at(key)} ${String(g[key]).slice(0, 64)} is not supported: text/plain or application/json.`);
        }
        break;
      case "responseJsonSchema":
      case "responseSchema":
        if (!isRecord(g[key])) refuse(`${at(key)} must be a schema object.`);
        break;
      case "responseModalities":
        if (!Array.isArray(g[key]) || (g[key] as unknown[]).some((m) => m !== "TEXT")) refuse(`${at(key)}: only TEXT is supported.`);
        break;
      case "responseLogprobs":
      case "enableEnhancedCivicAnswers":
      case "audioTimestamp":
        if (g[key] !== false) refuse(`${at(key)} is not supported.`);
        break;
      case "thinkingConfig":
        thinkingOf(g[key], config);
        break;
      default:
        // topK, seed, penalties, logprobs, speech, image and media settings
        refuse(`${at(key.slice(0, 64))} is not supported by this relay.`);
    }
  }
  outputOf(g, config);
}

/**
 * Structured output (issue #47's rule: what the relay can do is done): `responseMimeType:
 * "application/json"` with `responseJsonSchema` (or `responseSchema`, Gemini's own, as JSON Schema) →
 * each provider's structured output (the config's `json_schema`); without a schema → `json_object`.
 */
function outputOf(g: Json, config: UniConfig): void {
  const schema = given(g.responseJsonSchema) ? g.responseJsonSchema : g.responseSchema;
  if (given(schema) && g.responseMimeType !== "application/json") {
    refuse('generationConfig.responseMimeType must be "application/json" with a response schema.');
  }
  if (g.responseMimeType !== "application/json") return;
  config.output_format = given(schema) ? { type: "json_schema", schema: jsonSchemaOf(schema) } : { type: "json_object" };
}

/** `thinkingConfig`: `includeThoughts` accepted; `thinkingLevel`, or `thinkingBudget` by its size, → the thinking level. */
function thinkingOf(thinking: unknown, config: UniConfig): void {
  if (!isRecord(thinking)) return refuse("generationConfig.thinkingConfig must be an object.");
  for (const key of Object.keys(thinking)) {
    if (given(thinking[key]) && !["includeThoughts", "thinkingLevel", "thinkingBudget"].includes(key)) {
      refuse(`generationConfig.thinkingConfig.${key.slice(0, 64)} is not supported.`);
    }
  }
  // (includeThoughts asks for nothing the relay must do: the thoughts a provider streams are written as
  // thought parts either way; whether a provider is asked to summarize them is its row's thinking_summary)
  if (given(thinking.includeThoughts) && typeof thinking.includeThoughts !== "boolean") {
    refuse("generationConfig.thinkingConfig.includeThoughts must be a boolean.");
  }
  if (given(thinking.thinkingLevel)) {
    const level = typeof thinking.thinkingLevel === "string" && Object.hasOwn(LEVELS, thinking.thinkingLevel)
      ? LEVELS[thinking.thinkingLevel]
      : undefined;
    if (level === undefined) refuse(`generationConfig.thinkingConfig.thinkingLevel must be one of ${Object.keys(LEVELS).join(", ")}.`);
    config.thinking_level = level;
  } else if (given(thinking.thinkingBudget)) {
    const budget = thinking.thinkingBudget;
    if (!Number.isInteger(budget) || (budget as number) < -1) {
      refuse("generationConfig.thinkingConfig.thinkingBudget must be -1, 0 or a token count.");
    }
    const b = budget as number;
    config.thinking_level = b === 0 ? "none" : b === -1 || b > 8192 ? "high" : b > 1024 ? "medium" : "low";
  }
}
