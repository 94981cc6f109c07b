// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (Gemini's request onto the relay's one request).
//
// A `GenerateContentRequest` (`contents`, `systemInstruction`, `tools`, `toolConfig`,
// `generationConfig`, `safetySettings`, `cachedContent`, `labels`) → MMSP's `{model, messages,
// config}` for the model the path names. Every member is classified (docs/guide/gemini.md has the
// table): one that asks for nothing is accepted, one the relay can do is done, one it cannot do is
// refused by name (a 400 in Google's shape) before anything is asked — never dropped.
import { isRecord } from "../../../internal/values.js";
import type { ThinkingLevel, ToolSchema, UniConfig } from "../../../providers/request.js";
import type { UniMessage } from "../../../schema.js";
import { messagesOf, systemOf } from "./contents.js";
import { googleError, refuse, refusing } from "./refused.js";

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

/**
 * A FunctionDeclaration's members (Gemini's API reference) the relay reads or accepts: its output
 * schema (`response`, `responseJsonSchema`) describes what the client's function returns, for the
 * model to read; it asks nothing of the relay (the function runs on the client), so it is accepted —
 * sent to Gemini when the body is passed through as written, left out for any other provider.
 */
const DECLARATION_MEMBERS = new Set([
  "name",
  "description",
  "parameters",
  "parametersJsonSchema",
  "response",
  "responseJsonSchema",
  "behavior",
]);

/** A member of `at` the relay does not know: refused by name, unless the body is passed through to Gemini as written (which judges it). */
function unknownMembers(object: Json, known: ReadonlySet<string>, at: string, passed: boolean, what: string): void {
  if (passed) return;
  for (const key of Object.keys(object)) {
    if (!known.has(key) && given(object[key])) refuse(`${at}.${key.slice(0, 64)} is not supported by this relay${what}.`);
  }
}

/**
 * `tools`: each Tool's `functionDeclarations`; any other tool (Google Search, code execution, URL
 * context, Maps, file search, computer use…: Google runs them, at fees outside token quotas) refused
 * by name, passed through or not; a declaration's unknown member refused by name (`passed`: it goes along).
 */
function toolsOf(tools: unknown, passed: boolean): ToolSchema[] {
  if (!Array.isArray(tools)) return refuse("tools must be an array of Tool objects.");
  const out: ToolSchema[] = [];
  tools.forEach((tool, i) => {
    if (!isRecord(tool)) return refuse(`tools[${i}] must be a Tool object.`);
    for (const key of Object.keys(tool)) {
      if (key === "functionDeclarations" || !given(tool[key])) continue;
      refuse(
        `tools[${i}].${key.slice(0, 64)} is not supported by this relay: only functionDeclarations (the client's own functions; ` +
          "Google's own tools are billed outside token quotas).",
      );
    }
    const declared = tool.functionDeclarations ?? [];
    if (!Array.isArray(declared)) return refuse(`tools[${i}].functionDeclarations must be an array.`);
    declared.forEach((f, j) => {
      const at = `tools[${i}].functionDeclarations[${j}]`;
      if (!isRecord(f) || typeof f.name !== "string" || f.name === "") return refuse(`${at}.name must be a non-empty string.`);
      unknownMembers(f, DECLARATION_MEMBERS, at, passed, " (a FunctionDeclaration has name, description, parameters, response, behavior)");
      if (given(f.behavior) && f.behavior !== "BLOCKING") refuse(`${at}.behavior: only BLOCKING functions are supported.`);
      for (const key of ["response", "responseJsonSchema"]) {
        if (given(f[key]) && !isRecord(f[key])) refuse(`${at}.${key} must be a schema object.`);
      }
      const parameters = f.parametersJsonSchema ?? f.parameters;
      if (given(parameters) && !isRecord(parameters)) refuse(`${at}.parameters must be a schema object.`);
      out.push({
        name: f.name,
        description: typeof f.description === "string" ? f.description : "",
        ...(isRecord(parameters) ? { parameters: jsonSchemaOf(parameters) } : {}),
      });
    });
  });
  return out;
}

/** A Gemini `Schema` (OpenAPI's subset, types in capitals: `OBJECT`) as JSON Schema (lower case); a JSON Schema is itself. */
function jsonSchemaOf(schema: unknown): Json {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isRecord(v)) return v;
    // (fromEntries defines own members: a `__proto__` key of the client's schema stays a key, never a prototype)
    return Object.fromEntries(
      Object.keys(v).map((key) => {
        const value = v[key];
        return [
          key,
          key === "type" && typeof value === "string"
            ? value.toLowerCase()
            : key === "properties" && isRecord(value)
            ? Object.fromEntries(Object.keys(value).map((k) => [k, walk(value[k])]))
            : walk(value),
        ];
      }),
    );
  };
  return walk(schema) as Json;
}

/** A FunctionCallingConfig's members (Gemini's API reference) the relay reads. */
const CALLING_MEMBERS = new Set(["mode", "allowedFunctionNames", "streamFunctionCallArguments"]);

/**
 * `toolConfig.functionCallingConfig` → `tool_choice` (AUTO, ANY with or without names, NONE);
 * `VALIDATED` (calls checked by constrained decoding: no other provider can be held to it) only
 * passed through to Gemini as written, as AUTO for the relay; `allowedFunctionNames` only with ANY (or
 * VALIDATED), as the reference says; `streamFunctionCallArguments` (Vertex AI's partial arguments) only
 * false. `includeServerSideToolInvocations` asks nothing (the relay offers no server-side tool);
 * `retrievalConfig` is refused; any other member refused by name (`passed`: it goes along).
 */
function toolConfigOf(toolConfig: unknown, config: UniConfig, passed: boolean): void {
  if (!isRecord(toolConfig)) return refuse("toolConfig must be an object.");
  if (given(toolConfig.retrievalConfig)) refuse("toolConfig.retrievalConfig is not supported (this relay offers no retrieval tools).");
  const invocations = toolConfig.includeServerSideToolInvocations;
  if (given(invocations) && typeof invocations !== "boolean") refuse("toolConfig.includeServerSideToolInvocations must be a boolean.");
  unknownMembers(
    toolConfig,
    new Set(["functionCallingConfig", "retrievalConfig", "includeServerSideToolInvocations"]),
    "toolConfig",
    passed,
    "",
  );
  const calling = toolConfig.functionCallingConfig;
  if (!given(calling)) return;
  const at = "toolConfig.functionCallingConfig";
  if (!isRecord(calling)) return refuse(`${at} must be an object.`);
  unknownMembers(calling, CALLING_MEMBERS, at, passed, " (mode, allowedFunctionNames)");
  if (given(calling.streamFunctionCallArguments) && calling.streamFunctionCallArguments !== false) {
    refuse(`${at}.streamFunctionCallArguments is not supported (a function call's arguments come whole).`);
  }
  const names = calling.allowedFunctionNames;
  if (given(names) && (!Array.isArray(names) || !names.every((n) => typeof n === "string"))) {
    refuse(`${at}.allowedFunctionNames must be an array of names.`);
  }
  const mode = calling.mode ?? "AUTO";
  const named = Array.isArray(names) && names.length > 0;
  if (mode === "VALIDATED" && !passed) {
    refuse(`${at}.mode VALIDATED is not supported (only Gemini checks calls by constrained decoding): AUTO, ANY or NONE.`);
  }
  if (named && mode !== "ANY" && mode !== "VALIDATED") {
    refuse(`${at}.allowedFunctionNames is only read with mode ANY (the model then calls one of them).`);
  }
  if (mode === "AUTO" || mode === "MODE_UNSPECIFIED" || mode === "VALIDATED") config.tool_choice = "auto";
  else if (mode === "NONE") config.tool_choice = "none";
  else if (mode === "ANY") config.tool_choice = named ? names as string[] : "required";
  else refuse(`${at}.mode ${String(mode).slice(0, 32)} is not supported (AUTO, ANY or NONE).`);
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
