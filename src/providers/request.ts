/**
 * MMSP's request shape (`POST /v1/stream`'s body: `{ model, messages, config }`, SPEC §1) as the
 * providers' request builders take it, and what they share: the config keys MMSP defines (its
 * `UniConfig`, plus `top_p`), the one refusal for a parameter a provider has no such thing for
 * (`UnsupportedParameterError`), and the parts of an item every provider reads the same way (an
 * image's data URL, inline bytes as base64).
 */
import { encodeBase64 } from "../decode/base64.js";
import { UnsupportedParameterError } from "../errors.js";
import { fail } from "../internal/describe.js";
import { isRecord } from "../internal/values.js";
import type { DoneItem, UniMessage } from "../schema.js";

/** A tool the model may call: its name, description and JSON Schema parameters (MMSP's `ToolSchema`). */
export interface ToolSchema {
  /** The name the model calls it by. */
  name: string;
  /** What it does, for the model. */
  description: string;
  /** Its arguments' JSON Schema. */
  parameters?: Record<string, unknown>;
  /**
   * The package's: the JSON Schema of what the function returns, for the model to read (Gemini's
   * `responseJsonSchema`). It asks nothing of the provider: the others have no such member and are sent
   * the tool without it.
   */
  output_schema?: Record<string, unknown>;
}

/**
 * MMSP's `tool_choice`: `"auto"`, `"required"`, `"none"`, or a list of names (one of them must be
 * called; to OpenAI Chat, as MMSP's openai_chat client sends it, the names allowed in mode auto); the package's `{ mode, tools }` names the tools the model may call, and whether it must call
 * one (`required`, as a list) or may also answer without (`auto`).
 */
export type ToolChoice = "auto" | "required" | "none" | string[] | { mode: "auto" | "required"; tools: string[] };

/** `tool_choice` read once for every builder: how the model may call, and the only names it may call (none: any tool). */
export interface ToolsAllowed {
  /** `auto`: it may answer without a call; `required`: it calls a tool; `none`: it calls none. */
  mode: "auto" | "required" | "none";
  /** The names it may call, when the choice limits them (every one among the tools). */
  only?: string[];
}

/**
 * `config.tool_choice` → what every builder sends in its own terms (one reading: a plain list is `{ mode:
 * listMode, tools }` — "required" unless the builder's MMSP client sends a list otherwise, as openai_chat's
 * does in mode auto — and a name that is no tool's is refused here, never sent on);
 * undefined when none is given. A provider with its own allowed list sends `only` in it (OpenAI's
 * `allowed_tools`, Gemini's `allowedFunctionNames` with mode ANY); else, and for Gemini's `auto`, the
 * tools offered are `only`'s (`offered`).
 */
export function toolsAllowed(client: string, config: UniConfig, listMode: "auto" | "required" = "required"): ToolsAllowed | undefined {
  const choice: unknown = config.tool_choice;
  if (choice === undefined) return undefined;
  if (choice === "auto" || choice === "required" || choice === "none") return { mode: choice };
  const list = Array.isArray(choice) ? choice : isRecord(choice) && Array.isArray(choice.tools) ? choice.tools : undefined;
  const mode = Array.isArray(choice) ? listMode : isRecord(choice) ? choice.mode : undefined;
  if (list === undefined || list.length === 0 || !list.every((n) => typeof n === "string") || (mode !== "auto" && mode !== "required")) {
    throw unsupported(
      client,
      "tool_choice",
      'it is "auto", "required", "none", a list of tool names or { mode: "auto" | "required", tools: [names] }',
    );
  }
  const names = new Set((config.tools ?? []).map((tool) => tool.name));
  const unknown = list.find((name) => !names.has(name));
  if (unknown !== undefined) {
    throw unsupported(client, "tool_choice", `it names ${JSON.stringify(unknown.slice(0, 64))}, which is none of the tools`);
  }
  return { mode, only: list as string[] };
}

/** The tools a provider is offered when it has no allowed list of its own: those `only` names, else all. */
export function offered(tools: ToolSchema[], allowed: ToolsAllowed | undefined): ToolSchema[] {
  const only = allowed?.only;
  return only === undefined ? tools : tools.filter((tool) => only.includes(tool.name));
}

/** A tool for a provider that has no output schema: the tool without it. */
export function withoutOutputSchema({ output_schema: _, ...tool }: ToolSchema): Omit<ToolSchema, "output_schema"> {
  return tool;
}

/** How much the model thinks (MMSP's `ThinkingLevel`). */
export type ThinkingLevel = "none" | "low" | "medium" | "high" | "xhigh" | "max";

/** MMSP's request `config` (its `UniConfig`), plus `top_p`; a provider refuses what it has no such thing for. */
export interface UniConfig {
  /** The most tokens of the answer (OpenAI Chat: `max_completion_tokens`; Anthropic: `max_tokens`, default 64000 as MMSP sends). */
  max_tokens?: number;
  /** Sampling temperature. */
  temperature?: number;
  /** Nucleus sampling (not in MMSP's config; each provider's own `top_p`). */
  top_p?: number;
  /** The tools the model may call. */
  tools?: ToolSchema[];
  /** `"auto"`, `"required"`, `"none"`, the names of which one must be called, or the tools allowed with a mode (`ToolChoice`). */
  tool_choice?: ToolChoice;
  /** OpenAI Chat: `reasoning_effort`; Anthropic: adaptive thinking at that effort (`none`: thinking disabled). */
  thinking_level?: ThinkingLevel;
  /** Anthropic: show the thinking summarized (`true`) or omit it. */
  thinking_summary?: boolean;
  /** The system prompt. */
  system_prompt?: string;
  /** Only `"enable"` (the providers' own caching) is supported here. */
  prompt_caching?: "enable" | "disable" | "enhance";
  /** The provider's fast tier at premium pricing (OpenAI: `service_tier: "priority"`; Anthropic: `speed: "fast"`). */
  fast_mode?: boolean;
  /** MMSP's tracing id: read by MMSP's own server, never sent to a provider. */
  trace_id?: string;
  /** Image generation, speech and embedding settings: not offered by these providers' streaming endpoints. */
  image_config?: Record<string, unknown>;
  /** Speech settings: refused (see `image_config`). */
  tts_config?: unknown[];
  /** Embedding settings: refused (see `image_config`). */
  embedding_config?: Record<string, unknown>;
  /**
   * Structured output: the answer's text is JSON (`json_object`) or JSON of a schema (`json_schema`).
   * OpenAI Chat: `response_format`; Responses: `text.format`; Anthropic: `output_config.format`
   * (a schema only); Gemini: `responseMimeType` + `responseJsonSchema`.
   */
  output_format?: OutputFormat;
  /** How much the answer says (OpenAI's `verbosity`: Chat's member, Responses' `text.verbosity`); other providers refuse it. */
  verbosity?: "low" | "medium" | "high";
  /**
   * A hint of which requests share a prefix, for the provider's prompt cache (OpenAI Chat and Responses:
   * `prompt_cache_key`). Anthropic and Gemini have no such key (they cache by `cache_control` breakpoints
   * and by prefix): it has no effect there.
   */
  prompt_cache_key?: string;
  /**
   * `false`: at most one tool call in a turn (OpenAI Chat and Responses: `parallel_tool_calls: false`;
   * Anthropic: `tool_choice.disable_parallel_tool_use`). Sent only with tools, which it is about; Gemini
   * has no such control and refuses `false` when tools may be called. `true` is every provider's default.
   */
  parallel_tool_calls?: boolean;
}

/** Structured output's form (UniConfig's `output_format`). */
export type OutputFormat =
  | { type: "json_schema"; schema: Record<string, unknown>; name?: string; description?: string; strict?: boolean }
  | { type: "json_object" };

/** `output_format` checked: a `json_schema` with its schema object, or `json_object`; else `UnsupportedParameterError`. */
export function outputFormat(client: string, format: unknown): OutputFormat {
  if (isRecord(format) && format.type === "json_object") return { type: "json_object" };
  if (isRecord(format) && format.type === "json_schema" && isRecord(format.schema)) return format as OutputFormat;
  throw unsupported(client, "output_format", 'it is { type: "json_schema", schema, name?, strict? } or { type: "json_object" }');
}

/** MMSP's request: the model, the conversation, the settings. */
export interface MmspRequest {
  /** The provider's model name. */
  model: string;
  /** The conversation so far (user and assistant messages of done items). */
  messages: UniMessage[];
  /** The settings; none by default. */
  config?: UniConfig;
}

/** The refusal of a parameter `client` has no such thing for (MMSP's error; `why` says what instead). */
export function unsupported(client: string, parameter: string, why: string): UnsupportedParameterError {
  return new UnsupportedParameterError({ client, parameter, message: `${client} does not support ${parameter}: ${why}` });
}

/** Checks MMSP's request shape (a `TypeError` naming what is wrong) and returns its config (or `{}`). */
export function checkRequest(name: string, request: unknown): UniConfig {
  if (!isRecord(request)) fail(TypeError, `${name}: the request`, "an object { model, messages, config }", request);
  const { model, messages, config } = request as Record<string, unknown>;
  if (typeof model !== "string" || model === "") fail(TypeError, `${name}: request.model`, "a non-empty string", model);
  if (!Array.isArray(messages)) fail(TypeError, `${name}: request.messages`, "an array of UniMessages", messages);
  (messages as unknown[]).forEach((m, i) => {
    if (!isRecord(m) || (m.role !== "user" && m.role !== "assistant") || !Array.isArray(m.content_items)) {
      fail(TypeError, `${name}: request.messages[${i}]`, 'a UniMessage { role: "user" | "assistant", content_items: [...] }', m);
    }
  });
  if (config !== undefined && !isRecord(config)) fail(TypeError, `${name}: request.config`, "an object (or left out)", config);
  return (config ?? {}) as UniConfig;
}

/** The config keys a provider reads (each provider refuses the rest by name). */
const CONFIG_KEYS = new Set([
  "max_tokens",
  "temperature",
  "top_p",
  "tools",
  "tool_choice",
  "thinking_level",
  "thinking_summary",
  "system_prompt",
  "prompt_caching",
  "fast_mode",
  "trace_id",
  "image_config",
  "tts_config",
  "embedding_config",
  "output_format",
  "verbosity",
  "prompt_cache_key",
  "parallel_tool_calls",
]);

/**
 * The config's keys a builder must not pass over: an unknown one (a typo, a newer MMSP's) and the
 * settings no streaming chat endpoint has are refused, `prompt_caching` other than `"enable"` too.
 */
export function refuseConfig(client: string, config: UniConfig): void {
  for (const key of Object.keys(config)) {
    if ((config as Record<string, unknown>)[key] === undefined) continue;
    if (!CONFIG_KEYS.has(key)) throw unsupported(client, key, "it is not a key of MMSP's config");
    if (key === "image_config" || key === "tts_config" || key === "embedding_config") {
      throw unsupported(client, key, "this provider's chat stream has no such setting");
    }
  }
  if (config.prompt_cache_key !== undefined && typeof config.prompt_cache_key !== "string") {
    throw unsupported(client, "prompt_cache_key", "it is a string");
  }
  if (config.parallel_tool_calls !== undefined && typeof config.parallel_tool_calls !== "boolean") {
    throw unsupported(client, "parallel_tool_calls", "it is true or false");
  }
  if (config.prompt_caching !== undefined && config.prompt_caching !== "enable") {
    throw unsupported(client, "prompt_caching", `only "enable" (the provider's own caching), not ${JSON.stringify(config.prompt_caching)}`);
  }
}

/** MMSP's thinking levels, least to most (the relay's ceilings compare them in this order). */
export const THINKING_LEVELS: readonly ThinkingLevel[] = ["none", "low", "medium", "high", "xhigh", "max"];

/** `thinking_level` when it is one of MMSP's levels, else `UnsupportedParameterError`. */
export function thinkingLevel(client: string, level: string): ThinkingLevel {
  if (!(THINKING_LEVELS as readonly string[]).includes(level)) {
    throw unsupported(client, "thinking_level", `MMSP's levels are ${THINKING_LEVELS.join(", ")}, not ${JSON.stringify(level)}`);
  }
  return level as ThinkingLevel;
}

/** A `data:` URL's media type and base64 text, or undefined for any other URL. */
export function dataUrl(url: string): { mimeType: string; base64: string } | undefined {
  const m = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,(.*)$/s.exec(url);
  return m ? { mimeType: m[1]!, base64: m[2]! } : undefined;
}

/** Inline bytes as the base64 text every provider's JSON carries. */
export const base64Of = (data: Uint8Array): string => encodeBase64(data);

/** An item the provider's request has no place for: refused by its type (and media type). */
export function unsupportedItem(client: string, item: DoneItem, detail = ""): UnsupportedParameterError {
  return unsupported(client, `content item ${item.type}${detail}`, "this provider's messages have no such content");
}
