/**
 * MMSP's request → the Responses API's (`POST {baseURL}/responses`, `stream: true`), as MMSP's
 * `openai_responses` client maps it: `store: false` (the history goes back whole), the system prompt as
 * `instructions`, text and images of a turn as one message item, every other item an input item of
 * its own in order, thinking back as a reasoning item with its `encrypted_content` and its summaries
 * exactly as they came (the reader's `part_lengths` split the joined thinking again).
 */
import { isRecord } from "../../internal/values.js";
import type { DoneItem, UniMessage } from "../../schema.js";
import { historyFor, type HistoryOptions, type TargetRules } from "../history.js";
import {
  base64Of,
  outputFormat,
  refuseConfig,
  toolsAllowed,
  type UniConfig,
  unsupported,
  unsupportedItem,
  withoutOutputSchema,
} from "../request.js";
import { PART_SEPARATOR } from "./reader.js";

type Json = Record<string, unknown>;

/** MMSP's thinking levels, each sent as the reasoning effort of the same name (MMSP's mapping). */
const EFFORTS: readonly string[] = ["none", "low", "medium", "high", "xhigh", "max"];

/**
 * What the Responses API takes back (SPEC §9): with `store: false` a reasoning item only with its
 * `encrypted_content`; call ids of at most 40 characters (OpenAI's limit); text in assistant turns.
 */
const TARGET: TargetRules = {
  provider: "openai-responses",
  thinkingNeeds: "encrypted_content",
  idMax: 40,
  idUnique: true,
  assistantMedia: false,
};

/** The streaming body of MMSP's request for the Responses API (`client` names the provider in refusals; `history`: another provider's items). */
export function responsesBody(
  client: string,
  model: string,
  messages: UniMessage[],
  config: UniConfig,
  history: HistoryOptions = {},
): Json {
  return { model, ...settings(client, config), input: inputOf(client, historyFor(client, TARGET, model, messages, history)), stream: true };
}

/** `config` → the request's members (MMSP's `transformUniConfigToModelConfig`, plus `top_p`). */
function settings(client: string, config: UniConfig): Json {
  // (image, speech and embedding settings, other caching and unknown keys are refused)
  refuseConfig(client, config);
  const out: Json = { store: false };
  if (config.system_prompt !== undefined) out.instructions = config.system_prompt;
  if (config.max_tokens !== undefined) out.max_output_tokens = config.max_tokens;
  if (config.temperature !== undefined) out.temperature = config.temperature;
  if (config.top_p !== undefined) out.top_p = config.top_p;
  if (config.thinking_level !== undefined) {
    if (!EFFORTS.includes(config.thinking_level)) {
      throw unsupported(client, "thinking_level", `it is one of ${EFFORTS.join(", ")}, not ${JSON.stringify(config.thinking_level)}`);
    }
    // (the summary only with an effort: a reasoning object without one reads as "disabled" to some servers)
    out.reasoning = { effort: config.thinking_level, ...(config.thinking_summary ? { summary: "concise" } : {}) };
    // with store: false the reasoning goes back encrypted, and only when asked for
    out.include = ["reasoning.encrypted_content"];
  }
  if (config.tools !== undefined) out.tools = config.tools.map((tool) => ({ type: "function", ...withoutOutputSchema(tool) }));
  // (the tools the choice limits the model to: Responses' own `allowed_tools`, in the choice's mode)
  const allowed = toolsAllowed(client, config);
  if (allowed !== undefined) {
    const { mode, only } = allowed;
    out.tool_choice = only === undefined ? mode : { type: "allowed_tools", mode, tools: only.map((name) => ({ type: "function", name })) };
  }
  if (config.parallel_tool_calls === false && config.tools !== undefined) out.parallel_tool_calls = false;
  if (config.prompt_cache_key !== undefined) out.prompt_cache_key = config.prompt_cache_key;
  if (config.fast_mode) out.service_tier = "priority";
  if (config.output_format !== undefined || config.verbosity !== undefined) {
    const text: Json = {};
    if (config.output_format !== undefined) {
      const format = outputFormat(client, config.output_format);
      text.format = format.type === "json_object" ? format : { name: "output", ...format };
    }
    if (config.verbosity !== undefined) text.verbosity = config.verbosity;
    out.text = text;
  }
  return out;
}

/** The messages → input items, in order (MMSP's `transformUniMessageToModelInput`). */
function inputOf(client: string, messages: UniMessage[]): Json[] {
  const input: Json[] = [];
  messages.forEach((message, m) => {
    let content: Json[] = [];
    let phase: string | null = null;
    const flush = (): void => {
      if (content.length === 0) return;
      input.push({ type: "message", role: message.role, content, ...(phase !== null ? { phase } : {}) });
      content = [];
    };
    message.content_items.forEach((item: DoneItem, i) => {
      const where = `messages[${m}].content_items[${i}]`;
      if (item.type !== "text.done" && item.type !== "image_url.done" && item.type !== "inline_data.done") flush();
      switch (item.type) {
        case "text.done": {
          const p = isRecord(item.fidelity) && typeof item.fidelity.phase === "string" ? item.fidelity.phase : undefined;
          if (message.role === "assistant" && p) {
            if (phase !== null && phase !== p) flush(); // a message per phase
            phase = p;
          }
          content.push({ type: message.role === "user" ? "input_text" : "output_text", text: item.text });
          return;
        }
        case "image_url.done":
          content.push({ type: "input_image", image_url: item.image_url });
          return;
        case "inline_data.done":
          if (message.role !== "user") throw unsupported(client, where, "an assistant's inline data cannot be sent back as input");
          content.push(inlineInput(client, item));
          return;
        case "thinking.done":
          input.push(reasoningOf(item.thinking, isRecord(item.fidelity) ? item.fidelity : {}));
          return;
        case "tool_call.done":
          input.push({ type: "function_call", call_id: item.tool_call_id, name: item.name, arguments: JSON.stringify(item.arguments) });
          return;
        case "tool_result.done": {
          if (!item.tool_call_id) throw new TypeError(`${client}: ${where}: a tool result needs its tool_call_id`);
          const images = (item.images ?? []).map((url) => ({ type: "input_image", image_url: url }));
          // a plain string is the output every server takes; the part list only when images come along
          const output = images.length > 0 ? [{ type: "input_text", text: item.text }, ...images] : item.text;
          input.push({ type: "function_call_output", call_id: item.tool_call_id, output });
          return;
        }
        default:
          throw unsupportedItem(client, item);
      }
    });
    flush();
  });
  return input;
}

/** A user's inline bytes: an image as a data URL, any other file (a PDF…) as an input file. */
function inlineInput(client: string, item: DoneItem & { type: "inline_data.done" }): Json {
  const mime = item.mime_type;
  const url = `data:${mime};base64,${base64Of(item.data)}`;
  if (mime.toLowerCase().startsWith("image/")) return { type: "input_image", image_url: url };
  if (mime.toLowerCase().startsWith("audio/")) throw unsupportedItem(client, item, ` (${mime}: the Responses API takes no audio input)`);
  return { type: "input_file", filename: `file.${mime.split("/")[1]?.split(/[;+]/)[0] || "bin"}`, file_data: url };
}

/** A thinking item → the reasoning item it was: summaries (or reasoning text), encrypted content, signature. */
function reasoningOf(thinking: string, fidelity: Record<string, unknown>): Json {
  const reasoning: Json = { type: "reasoning", summary: [] };
  const parts = splitParts(thinking, fidelity.part_lengths);
  if (fidelity.channel === "summary") {
    if (thinking) reasoning.summary = parts.map((text) => ({ type: "summary_text", text }));
  } else if (thinking) reasoning.content = parts.map((text) => ({ type: "reasoning_text", text }));
  for (const key of ["encrypted_content", "signature", "format"]) if (fidelity[key] != null) reasoning[key] = fidelity[key];
  return reasoning;
}

/** The thinking's parts as they streamed, when `lengths` describe it exactly; else the whole. */
function splitParts(thinking: string, lengths: unknown): string[] {
  if (!Array.isArray(lengths) || !lengths.every((n) => Number.isInteger(n) && n >= 0)) return [thinking];
  const sum = (lengths as number[]).reduce((a, n) => a + n, 0) + PART_SEPARATOR.length * (lengths.length - 1);
  if (sum !== thinking.length) return [thinking];
  const parts: string[] = [];
  let at = 0;
  for (const n of lengths as number[]) {
    parts.push(thinking.slice(at, at + n));
    at += n;
    if (at < thinking.length && !thinking.startsWith(PART_SEPARATOR, at)) return [thinking];
    at += PART_SEPARATOR.length;
  }
  return parts;
}
