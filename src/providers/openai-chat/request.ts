/**
 * MMSP's request → an OpenAI Chat Completions streaming body, as MMSP's `openai_chat` client maps it
 * (its `transformUniConfigToModelConfig` / `transformUniMessageToModelInput`), where it differs said
 * beside it: images by URL are passed as URLs (the API fetches them; MMSP fetches and inlines them
 * itself), inline bytes become data URLs / `input_audio` / `file` parts, and `thinking_level` is
 * `reasoning_effort` (MMSP sends nothing for it).
 */
import type { DoneItem, UniMessage } from "../../schema.js";
import { ownValue } from "../../internal/values.js";
import { historyFor, type HistoryOptions, type TargetRules } from "../history.js";
import {
  base64Of,
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

type Json = Record<string, unknown>;

/** `thinking_level` → `reasoning_effort` (`max` has no Chat equivalent). */
const EFFORT: Readonly<Record<string, string>> = { none: "none", low: "low", medium: "medium", high: "high", xhigh: "xhigh" };

/** The audio formats Chat's `input_audio` takes, by media type. */
const AUDIO: Readonly<Record<string, string>> = { "audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3" };

/** The Chat tool_choice of MMSP's: the tools it limits the model to are Chat's `allowed_tools`, in its mode. */
function toolChoice(allowed: ToolsAllowed): unknown {
  if (allowed.only === undefined) return allowed.mode;
  return {
    type: "allowed_tools",
    allowed_tools: { mode: allowed.mode, tools: allowed.only.map((name) => ({ type: "function", function: { name } })) },
  };
}

/** The body's settings from MMSP's config. */
function settings(client: string, config: UniConfig): Json {
  refuseConfig(client, config);
  const body: Json = { stream: true, stream_options: { include_usage: true } };
  if (config.max_tokens !== undefined) body.max_completion_tokens = config.max_tokens;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.top_p !== undefined) body.top_p = config.top_p;
  if (config.tools !== undefined) body.tools = config.tools.map((tool) => ({ type: "function", function: withoutOutputSchema(tool) }));
  // (a plain list of names is allowed_tools in mode auto, as MMSP's own openai_chat client sends it)
  const allowed = toolsAllowed(client, config, "auto");
  if (allowed !== undefined) body.tool_choice = toolChoice(allowed);
  // (OpenAI refuses parallel_tool_calls without tools: only with them, and only `false`, the default's opposite)
  if (config.parallel_tool_calls === false && config.tools !== undefined) body.parallel_tool_calls = false;
  if (config.prompt_cache_key !== undefined) body.prompt_cache_key = config.prompt_cache_key;
  if (config.thinking_level !== undefined) {
    const effort = ownValue(EFFORT, thinkingLevel(client, config.thinking_level));
    if (effort === undefined) {
      throw unsupported(client, "thinking_level", `reasoning_effort has no ${JSON.stringify(config.thinking_level)}`);
    }
    body.reasoning_effort = effort;
  }
  if (config.thinking_summary !== undefined) throw unsupported(client, "thinking_summary", "Chat Completions streams no reasoning summary");
  if (config.fast_mode) body.service_tier = "priority";
  if (config.verbosity !== undefined) body.verbosity = config.verbosity;
  if (config.output_format !== undefined) {
    const { type, ...rest } = outputFormat(client, config.output_format) as { type: string } & Json;
    body.response_format = type === "json_object" ? { type } : { type, json_schema: { name: "output", ...rest } };
  }
  return body;
}

/** An image or other inline bytes → the Chat content part that carries them. */
function inlinePart(client: string, item: DoneItem & { type: "inline_data.done" }): Json {
  const base64 = base64Of(item.data);
  if (item.mime_type.startsWith("image/")) return { type: "image_url", image_url: { url: `data:${item.mime_type};base64,${base64}` } };
  const format = ownValue(AUDIO, item.mime_type);
  if (format !== undefined) return { type: "input_audio", input_audio: { data: base64, format } };
  if (item.mime_type === "application/pdf") {
    return { type: "file", file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${base64}` } };
  }
  throw unsupportedItem(client, item, ` (${item.mime_type})`);
}

/** The conversation as Chat messages (the system prompt first). */
function messages(client: string, input: UniMessage[], system: string | undefined): Json[] {
  const out: Json[] = system ? [{ role: "system", content: system }] : [];
  // The reasoning field the upstream has produced so far: a turn with tool calls and no thinking
  // still carries it, empty, as MMSP sends it (DeepSeek refuses a tool-call turn's replay without it).
  const replayFields = new Set<unknown>();
  for (const message of input) {
    const parts: Json[] = [];
    const calls: Json[] = [];
    let thinking = "";
    const details: unknown[] = [];
    const fields = new Set<unknown>();
    for (const item of message.content_items) {
      switch (item.type) {
        case "text.done":
          parts.push({ type: "text", text: item.text });
          break;
        case "image_url.done":
          parts.push({ type: "image_url", image_url: { url: item.image_url } });
          break;
        case "inline_data.done":
          parts.push(inlinePart(client, item));
          break;
        case "thinking.done":
          // entries read from `reasoning_details` go back whole, as the message's (OpenRouter's way to keep reasoning across tool calls)
          if (Array.isArray(item.fidelity?.reasoning_details)) {
            for (const entry of item.fidelity.reasoning_details) details.push(entry);
            break;
          }
          // thinking read from `content` chunks goes back as one, in its place (Mistral)
          if (item.fidelity?.reasoning_field === "content") {
            parts.push({ type: "thinking", thinking: [{ type: "text", text: item.thinking }] });
            break;
          }
          thinking += item.thinking;
          fields.add(item.fidelity?.reasoning_field);
          if (item.thinking) replayFields.add(item.fidelity?.reasoning_field);
          break;
        case "tool_call.done":
          calls.push({ id: item.tool_call_id, type: "function", function: { name: item.name, arguments: JSON.stringify(item.arguments) } });
          break;
        case "tool_result.done":
          // a tool message carries text only: its images ride in this turn's user message (as MMSP sends them)
          for (const url of item.images ?? []) parts.push({ type: "image_url", image_url: { url } });
          out.push({ role: "tool", tool_call_id: item.tool_call_id, content: item.text });
          break;
        case "inline_thinking.done":
          break; // a thought image has no place in a Chat message
        default:
          throw unsupportedItem(client, item);
      }
    }
    const chat: Json = { role: message.role };
    if (parts.length > 0) chat.content = parts;
    if (calls.length > 0) chat.tool_calls = calls;
    const through = thinking ? fields : replayFields;
    if (thinking || (calls.length > 0 && replayFields.size > 0)) {
      // back through the field the upstream produced; both when it is not known (vLLM and OpenRouter spell it differently)
      if (through.size === 1 && through.has("reasoning")) chat.reasoning = thinking;
      else {
        chat.reasoning_content = thinking;
        if (!(through.size === 1 && through.has("reasoning_content"))) chat.reasoning = thinking;
      }
    }
    if (details.length > 0) chat.reasoning_details = details;
    if (Object.keys(chat).length > 1) out.push(chat);
  }
  return out;
}

/** What Chat Completions takes back (SPEC §9): tool-call ids of at most 40 characters (OpenAI's limit), text in assistant turns. */
const TARGET: TargetRules = { provider: "openai-chat", idMax: 40, idUnique: true, assistantMedia: false };

/** The Chat Completions body for MMSP's request (`history`: what to do with another provider's items). */
export function chatBody(client: string, model: string, input: UniMessage[], config: UniConfig, history: HistoryOptions = {}): Json {
  const turns = historyFor(client, TARGET, model, input, history);
  return { model, ...settings(client, config), messages: messages(client, turns, config.system_prompt) };
}
