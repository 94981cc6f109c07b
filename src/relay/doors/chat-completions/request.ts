// The Chat Completions door: SPEC §10 "Doors: the APIs a client speaks" (its request onto the relay's one request).
//
// An OpenAI Chat Completions request (POST /v1/chat/completions: `model`, `messages`, `tools`,
// `tool_choice`, `max_completion_tokens`, `reasoning_effort`, `stream`…) → MMSP's `{model, messages,
// config}`, so it is served through the same rows, ceilings, quotas and stream objects as /v1/stream.
// Every member of the API is classified (issue #46's rule, the table in docs/guide/chat-completions.md):
// one that asks for nothing is accepted, one the relay can do is done, one it cannot do is refused by
// name before anything is asked (OpenAI's error shape, `param` naming it), never dropped.
import { OPENAI_EFFORT as EFFORT } from "../openai-effort.js";
import { allowedTools, jsonSchemaFormat, openaiHints, openaiVerbosity } from "../openai-members.js";
import { openaiType } from "../../../encode/chat-completions.js";
import { isRecord, ownValue } from "../../../internal/values.js";
import type { ToolSchema, UniConfig } from "../../../providers/request.js";
import type { UniMessage } from "../../../schema.js";
import { messagesOf, refuse } from "./messages.js";
import { refusing, unknownMember } from "../refused.js";

type Json = Record<string, unknown>;

/** What the relay keeps of a Chat Completions request besides the MMSP body: its answer's shape. */
export interface ChatAsk {
  /** The MMSP request. */
  mmsp: { model: string; messages: UniMessage[]; config: UniConfig };
  /** Answer as `chat.completion.chunk` SSE (true) or one `chat.completion`. */
  stream: boolean;
  /** The usage chunk before `[DONE]` (`stream_options.include_usage`). */
  includeUsage: boolean;
}

/** A refusal in OpenAI's error shape `{"error": {message, type, param, code}}`; `code` the MMSP type. */
export function chatError(status: number, code: string, message: string, param: string | null = null, headers?: HeadersInit): Response {
  return Response.json({ error: { message, type: openaiType(status), param, code } }, { status, headers });
}

/** The members that ask for nothing the relay must do (accepted whatever their value; none reaches a provider). */
const NOTHING = new Set(["user", "metadata", "safety_identifier"]);

/**
 * The members accepted when they ask for the default only (their value here, or null): each asks for
 * something the relay's providers are not asked for, so any other value is refused by name.
 */
const DEFAULT_ONLY: Readonly<Record<string, (v: unknown) => boolean>> = {
  n: (v) => v === 1,
  store: (v) => v === false,
  logprobs: (v) => v === false,
  frequency_penalty: (v) => v === 0,
  presence_penalty: (v) => v === 0,
  logit_bias: (v) => isRecord(v) && Object.keys(v).length === 0,
  modalities: (v) => Array.isArray(v) && v.length === 1 && v[0] === "text",
  prompt_cache_retention: (v) => v === "in_memory",
};

/** What each default-only member's refusal says. */
const WHY: Readonly<Record<string, string>> = {
  n: "only n: 1 is supported (one choice).",
  store: "store: true is not supported: this relay stores no completions.",
  logprobs: "logprobs are not supported by this relay.",
  frequency_penalty: "frequency_penalty is not supported (only 0).",
  presence_penalty: "presence_penalty is not supported (only 0).",
  logit_bias: "logit_bias is not supported.",
  modalities: 'only modalities: ["text"] is supported.',
  prompt_cache_retention: 'only prompt_cache_retention: "in_memory" is supported.',
};

/** The members the relay maps (below). */
const MAPPED = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "tool_choice",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "reasoning_effort",
  "service_tier",
  "prompt_cache_key",
  "parallel_tool_calls",
  "response_format",
  "verbosity",
]);

/**
 * The members a body passed through (pass-through.ts) still has checked, though the provider would take
 * others: `n` (the relay reads one choice) and `store` (the operator's account keeps no client's completions).
 */
const CHECKED_PASSED = new Set(["n", "store"]);

/**
 * The request body (parsed JSON) → what the relay asks, or the 400 naming what it cannot serve;
 * `passed`: a body passed through to an OpenAI Chat target as written (pass-through.ts), whose members
 * the relay does not map go along unread (but `n` and `store`), as does a tool's `strict`.
 */
export function chatAsk(body: unknown, passed = false): ChatAsk | Response {
  return refusing(() => ask(body, passed), (r) => chatError(r.status, r.type, r.message, r.param));
}

function ask(body: unknown, passed: boolean): ChatAsk {
  if (!isRecord(body)) return refuse("body", "The request body must be a JSON object.");
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === null || value === undefined || MAPPED.has(key) || NOTHING.has(key)) continue;
    if (passed && !CHECKED_PASSED.has(key)) continue;
    const check = ownValue(DEFAULT_ONLY, key);
    if (check) {
      if (!check(value)) refuse(key, WHY[key]!);
      continue;
    }
    refuse(
      key,
      `'${key.slice(0, 64)}' is not supported by this relay (see the Chat Completions door's table of members in its guide).`,
    );
  }
  const { model } = body;
  if (typeof model !== "string" || model === "") refuse("model", "model must be a non-empty string.");
  if (body.stream != null && typeof body.stream !== "boolean") refuse("stream", "stream must be a boolean.");
  const config: UniConfig = {};
  const system: string[] = [];
  const messages = messagesOf(body.messages, system);
  if (system.length > 0) config.system_prompt = system.join("\n\n");
  if (body.tools != null) config.tools = toolsOf(body.tools, passed);
  if (body.tool_choice != null) config.tool_choice = toolChoiceOf(body.tool_choice);
  const limit = outputLimit(body);
  if (limit !== undefined) config.max_tokens = limit;
  for (const key of ["temperature", "top_p"] as const) {
    if (body[key] == null) continue;
    if (typeof body[key] !== "number") refuse(key, `${key} must be a number.`);
    config[key] = body[key] as number;
  }
  if (body.reasoning_effort != null) {
    const level = typeof body.reasoning_effort === "string" ? ownValue(EFFORT, body.reasoning_effort) : undefined;
    if (level === undefined) refuse("reasoning_effort", `reasoning_effort must be one of ${Object.keys(EFFORT).join(", ")}.`);
    config.thinking_level = level;
  }
  if (body.service_tier != null) {
    const tier = body.service_tier;
    if (tier === "priority") config.fast_mode = true;
    else if (tier !== "auto" && tier !== "default") {
      refuse("service_tier", "service_tier must be auto, default or priority (the provider's fast tier).");
    }
  }
  const wrong = openaiHints(body, config);
  if (wrong) refuse(...wrong);
  outputOf(body, config);
  let includeUsage = false;
  if (body.stream_options != null) {
    const o = body.stream_options;
    if (!isRecord(o)) return refuse("stream_options", "stream_options must be an object.");
    if (o.include_usage != null && typeof o.include_usage !== "boolean") {
      refuse("stream_options.include_usage", "include_usage must be a boolean.");
    }
    includeUsage = o.include_usage === true;
  }
  return { mmsp: { model: model as string, messages, config }, stream: body.stream === true, includeUsage };
}

/**
 * `response_format` → structured output (`json_schema`: its `json_schema`'s schema, name, description and
 * strict; `json_object`; `text` asks nothing), each provider's own (SPEC §10: the row's provider builds it);
 * `verbosity` `low`/`high` → the config's (`medium`, the default, asks nothing; a provider without it refuses it by name).
 */
function outputOf(body: Json, config: UniConfig): void {
  const format = body.response_format;
  if (format != null) {
    if (isRecord(format) && format.type === "json_schema") {
      config.output_format = jsonSchemaFormat(format.json_schema, "response_format.json_schema.schema");
    } else if (isRecord(format) && format.type === "json_object") {
      config.output_format = { type: "json_object" };
    } else if (!(isRecord(format) && format.type === "text")) {
      refuse(
        "response_format",
        'response_format must be {type: "text"}, {type: "json_object"} or {type: "json_schema", json_schema: {name, schema}}.',
      );
    }
  }
  openaiVerbosity(body.verbosity, "verbosity", config);
}

/** `max_completion_tokens` (or the older `max_tokens`; both must agree) → the output limit the relay reserves. */
function outputLimit(body: Json): number | undefined {
  let limit: number | undefined;
  for (const key of ["max_completion_tokens", "max_tokens"] as const) {
    const v = body[key];
    if (v == null) continue;
    if (!Number.isInteger(v) || (v as number) < 1) refuse(key, `${key} must be a positive integer.`);
    if (limit !== undefined && limit !== v) refuse(key, "max_tokens and max_completion_tokens differ: send one.");
    limit = v as number;
  }
  return limit;
}

/** A function tool's members (OpenAI's reference: `{type, function: {name, description, parameters, strict}}`). */
const TOOL_MEMBERS = new Set(["type", "function"]);
const FUNCTION_MEMBERS = new Set(["name", "description", "parameters", "strict"]);

/** A member of a tool object the relay does not know: refused by name, unless the body is passed through as written (the provider judges it). */
function unknownMembers(object: Json, known: ReadonlySet<string>, at: string, passed: boolean): void {
  const key = passed ? undefined : unknownMember(object, known);
  if (key !== undefined) refuse(`${at}.${key.slice(0, 64)}`, `${at}.${key.slice(0, 64)} is not supported on a function tool.`);
}

/** `tools`: function tools (a member the relay does not know refused by name; `passed`: it goes along, as does `strict: true`). */
function toolsOf(tools: unknown, passed: boolean): ToolSchema[] {
  if (!Array.isArray(tools)) return refuse("tools", "tools must be an array.");
  return tools.map((t, i) => {
    const at = `tools[${i}]`;
    if (!isRecord(t) || t.type !== "function" || !isRecord(t.function)) {
      return refuse(at, `${at}: only function tools are supported ({type: "function", function: {name, …}}).`);
    }
    const f = t.function;
    if (typeof f.name !== "string" || f.name === "") {
      return refuse(`${at}.function.name`, `${at}.function.name must be a non-empty string.`);
    }
    unknownMembers(t, TOOL_MEMBERS, at, passed);
    unknownMembers(f, FUNCTION_MEMBERS, `${at}.function`, passed);
    if (f.strict === true && !passed) {
      refuse(`${at}.function.strict`, `${at}.function.strict: true is not supported (no provider is asked for strict schemas).`);
    }
    const tool: ToolSchema = { name: f.name, description: typeof f.description === "string" ? f.description : "" };
    if (isRecord(f.parameters)) tool.parameters = f.parameters;
    return tool;
  });
}

function toolChoiceOf(choice: unknown): UniConfig["tool_choice"] {
  if (choice === "auto" || choice === "required" || choice === "none") return choice;
  if (isRecord(choice) && choice.type === "function" && isRecord(choice.function) && typeof choice.function.name === "string") {
    return [choice.function.name];
  }
  const allowed = isRecord(choice) && choice.type === "allowed_tools" && isRecord(choice.allowed_tools) ? choice.allowed_tools : undefined;
  if (allowed && Array.isArray(allowed.tools) && (allowed.mode === "auto" || allowed.mode === "required")) {
    const names = allowed.tools.map((t) => (isRecord(t) && t.type === "function" && isRecord(t.function) ? t.function.name : undefined));
    if (names.length > 0 && names.every((n): n is string => typeof n === "string")) return allowedTools(allowed.mode, names);
  }
  return refuse("tool_choice", 'tool_choice must be auto, required, none, {type: "function", function: {name}} or allowed function tools.');
}
