/**
 * MMSP's request → an Anthropic Messages streaming body, as MMSP's `ant_messages` client maps it (its
 * `transformUniConfigToModelConfig` / `transformUniMessageToModelInput`): thinking goes back with its
 * signature exactly as it came, `redacted_thinking` with its data; images by URL or inline; inline
 * bytes as image or PDF document blocks (MMSP refuses them).
 */
import type { DoneItem, UniMessage } from "../../schema.js";
import { historyFor, type HistoryOptions, type TargetRules } from "../history.js";
import {
  base64Of,
  dataUrl,
  offered,
  outputFormat,
  refuseConfig,
  thinkingLevel,
  type ToolsAllowed,
  toolsAllowed,
  type UniConfig,
  unsupported,
  unsupportedItem,
  withoutOutputSchema,
} from "../request.js";
import { budgetTokens, type ThinkingMode, thinkingModeOf } from "./models.js";
import { REDACTED_THINKING } from "./reader.js";

type Json = Record<string, unknown>;

/** The Messages API requires `max_tokens`: MMSP's default. */
const DEFAULT_MAX_TOKENS = 64000;

/** MMSP's `fast_mode` beta, sent as the `anthropic-beta` header (the SDK's `betas`). */
export const FAST_MODE_BETA = "fast-mode-2026-02-01";

/** An image (URL or data URL) → an image block. */
function image(url: string): Json {
  const inline = dataUrl(url);
  return inline
    ? { type: "image", source: { type: "base64", media_type: inline.mimeType, data: inline.base64 } }
    : { type: "image", source: { type: "url", url } };
}

/**
 * The Messages tool_choice of MMSP's: one name required is `tool` (that one); the Messages API has no
 * allowed list, so tools limited to several (or to some, `auto`) are offered alone (`limits`) with `any`
 * or `auto`. `parallel_tool_calls: false` is its `disable_parallel_tool_use` (on `auto` when no choice
 * is named; `none` calls nothing and takes none).
 */
function toolChoice(config: UniConfig, allowed: ToolsAllowed | undefined): Json | undefined {
  let out: Json;
  if (allowed?.mode === "required" && allowed.only?.length === 1) out = { type: "tool", name: allowed.only[0] };
  else if (allowed !== undefined) out = { type: allowed.mode === "required" ? "any" : allowed.mode };
  else if (config.parallel_tool_calls === false && config.tools !== undefined) out = { type: "auto" };
  else return undefined;
  if (config.parallel_tool_calls === false && out.type !== "none") out.disable_parallel_tool_use = true;
  return out;
}

/** The choice that limits the tools offered: all but one required name (`tool` names it among them all). */
const limits = (allowed: ToolsAllowed | undefined): ToolsAllowed | undefined =>
  allowed?.mode === "required" && allowed.only?.length === 1 ? undefined : allowed;

/** The body's settings from MMSP's config (thinking aside: `thinkingOf`). */
function settings(client: string, config: UniConfig): Json {
  refuseConfig(client, config);
  const body: Json = { stream: true, max_tokens: config.max_tokens ?? DEFAULT_MAX_TOKENS };
  if (config.system_prompt !== undefined) body.system = config.system_prompt;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.top_p !== undefined) body.top_p = config.top_p;
  const allowed = toolsAllowed(client, config);
  if (config.tools !== undefined) {
    body.tools = offered(config.tools, limits(allowed)).map((schema) => {
      const { parameters, ...tool } = withoutOutputSchema(schema);
      return parameters === undefined ? tool : { ...tool, input_schema: parameters };
    });
  }
  // (prompt_cache_key: the Messages API has no such key, its cache follows `cache_control`: no effect)
  const choice = toolChoice(config, allowed);
  if (choice !== undefined) body.tool_choice = choice;
  if (config.fast_mode) body.speed = "fast";
  if (config.verbosity !== undefined) throw unsupported(client, "verbosity", "the Messages API has no verbosity setting");
  if (config.output_format !== undefined) {
    const format = outputFormat(client, config.output_format);
    if (format.type !== "json_schema") {
      throw unsupported(client, "output_format", "Anthropic's structured output takes a JSON schema (json_schema), not json_object");
    }
    body.output_config = { format: { type: "json_schema", schema: format.schema } };
  }
  return body;
}

/**
 * Whether the history's last assistant turn calls tools without beginning with its own thinking block:
 * with thinking on, the Messages API refuses it (its thinking was another provider's, or dropped).
 */
function unthoughtToolTurn(messages: { role: string; content: Json[] }[]): boolean {
  for (let m = messages.length - 1; m >= 0; m--) {
    const { role, content } = messages[m]!;
    if (role !== "assistant") continue;
    const first = content[0]?.type;
    return content.some((b) => b.type === "tool_use") && first !== "thinking" && first !== "redacted_thinking";
  }
  return false;
}

/**
 * `thinking` (and `output_config.effort`) for the model (models.ts): `adaptive` at `thinking_level`'s
 * effort from Claude 4.6 on, `enabled` with the level's `budget_tokens` before (`mode` forces one).
 * Thinking goes `disabled` where it cannot be sent: `enabled` with `max_tokens` ≤ 1,024 (no budget
 * fits below it), and a history whose last assistant turn calls tools without its thinking block.
 */
function thinkingOf(
  client: string,
  model: string,
  config: UniConfig,
  body: Json,
  messages: { role: string; content: Json[] }[],
  mode: ThinkingMode | undefined,
): void {
  const level = config.thinking_level === undefined ? undefined : thinkingLevel(client, config.thinking_level);
  if (level === undefined && config.thinking_summary === undefined) return;
  let thinking: Json;
  if (level === "none") thinking = { type: "disabled" };
  else if ((mode ?? thinkingModeOf(model)) === "adaptive") {
    thinking = { type: "adaptive" };
    if (level !== undefined) body.output_config = { effort: level };
  } else {
    // (a summary asked for alone thinks at the medium level's budget)
    const budget = budgetTokens(level ?? "medium", body.max_tokens as number);
    thinking = budget === undefined ? { type: "disabled" } : { type: "enabled", budget_tokens: budget };
  }
  if (thinking.type !== "disabled" && unthoughtToolTurn(messages)) {
    thinking = { type: "disabled" };
    delete body.output_config;
  }
  // display lives on the thinking block; a disabled block takes none
  if (config.thinking_summary !== undefined && thinking.type !== "disabled") {
    thinking.display = config.thinking_summary ? "summarized" : "omitted";
  }
  body.thinking = thinking;
}

/** Inline bytes → an image or a PDF document block. */
function inlineBlock(client: string, item: DoneItem & { type: "inline_data.done" }): Json {
  const source = { type: "base64", media_type: item.mime_type, data: base64Of(item.data) };
  if (item.mime_type.startsWith("image/")) return { type: "image", source };
  if (item.mime_type === "application/pdf") return { type: "document", source };
  throw unsupportedItem(client, item, ` (${item.mime_type})`);
}

/** One done item → its content block (undefined: it has none). */
function block(client: string, item: DoneItem): Json | undefined {
  switch (item.type) {
    case "text.done":
      return { type: "text", text: item.text };
    case "image_url.done":
      return image(item.image_url);
    case "inline_data.done":
      return inlineBlock(client, item);
    case "thinking.done": {
      const signature = item.fidelity?.signature;
      if (item.thinking === REDACTED_THINKING) return { type: "redacted_thinking", data: signature };
      // (thinking without the signature the API sent is left out or made text before: history.ts)
      return { type: "thinking", thinking: item.thinking, signature };
    }
    case "tool_call.done":
      return { type: "tool_use", id: item.tool_call_id, name: item.name, input: item.arguments };
    case "tool_result.done":
      return {
        type: "tool_result",
        tool_use_id: item.tool_call_id,
        content: [{ type: "text", text: item.text }, ...(item.images ?? []).map(image)],
      };
    case "inline_thinking.done":
      return undefined; // a thought image has no place in a Messages turn
    default:
      throw unsupportedItem(client, item);
  }
}

/** What the Messages API takes back (SPEC §9): its own signed thinking only, ids of its pattern, text in assistant turns. */
const TARGET: TargetRules = {
  provider: "anthropic",
  thinkingNeeds: "signature",
  idInvalid: /[^a-zA-Z0-9_-]/g,
  idUnique: true,
  assistantMedia: false,
};

/** The Messages body for MMSP's request (`history`: what to do with another provider's items; `mode`: the thinking mode forced). */
export function messagesBody(
  client: string,
  model: string,
  input: UniMessage[],
  config: UniConfig,
  history: HistoryOptions = {},
  mode?: ThinkingMode,
): Json {
  const messages = historyFor(client, TARGET, model, input, history).map((m) => ({
    role: m.role,
    content: m.content_items.map((item) => block(client, item)).filter((b) => b !== undefined),
  }));
  const body = settings(client, config);
  thinkingOf(client, model, config, body, messages, mode);
  return { model, ...body, messages };
}
