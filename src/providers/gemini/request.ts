/**
 * MMSP's request → Gemini's (`POST {baseURL}/models/{model}:streamGenerateContent?alt=sse`, the key in
 * the `x-goog-api-key` header, never in the URL), as MMSP's `gemini_generate_content` client maps it:
 * the history as `contents` (assistant → `model`), each item's `fidelity.signature` back as its part's
 * `thoughtSignature` byte for byte, the first call of a turn nobody signed with the placeholder Google
 * documents, function responses named by the call they answer. Sampling parameters are refused: the
 * API deprecated them with the 3.6 generation (MMSP refuses them too).
 */
import { isRecord } from "../../internal/values.js";
import type { DoneItem, UniMessage } from "../../schema.js";
import { historyFor, type HistoryOptions, type TargetRules } from "../history.js";
import {
  base64Of,
  dataUrl,
  offered,
  outputFormat,
  refuseConfig,
  type ThinkingLevel,
  toolsAllowed,
  type ToolSchema,
  type UniConfig,
  unsupported,
  unsupportedItem,
} from "../request.js";
import { isMadeId } from "./reader.js";

type Json = Record<string, unknown>;
type Part = Json;

/** What generateContent accepts in place of a signature on a call it did not make (Google's thought-signatures guide). */
export const UNSIGNED_CALL = "skip_thought_signature_validator";

/** The streaming endpoint of `model` below the base URL (a `models/` prefix is the API's own name for it). */
export function geminiPath(model: string): string {
  return `/models/${encodeURIComponent(model.replace(/^models\//, ""))}:streamGenerateContent?alt=sse`;
}

/**
 * What Gemini takes back (SPEC §9): its signatures only from the model that made them (Google: a
 * signature is compatible with the model family and tier that produced it), its calls' ids as they
 * came (a call without one is matched by name and order), images and files in model turns too.
 */
const TARGET: TargetRules = { provider: "gemini", modelBound: true, idUnique: false, assistantMedia: true };

/** The body of MMSP's request for Gemini's streamGenerateContent (`client` names the provider in refusals; `history`: another provider's items). */
export function geminiBody(client: string, model: string, messages: UniMessage[], config: UniConfig, history: HistoryOptions = {}): Json {
  const contents = contentsOf(client, historyFor(client, TARGET, model, messages, history));
  return { contents, ...settings(client, model.replace(/^models\//, ""), config) };
}

/** The image type of a URL by its extension (MMSP's table; JPEG when it names none). */
function imageTypeOf(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase() ?? "";
  const types: Record<string, string> = {
    bmp: "image/bmp",
    gif: "image/gif",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    png: "image/png",
    svg: "image/svg+xml",
    tiff: "image/tiff",
    webp: "image/webp",
  };
  return Object.prototype.hasOwnProperty.call(types, ext) ? types[ext]! : "image/jpeg";
}

/** MMSP's thinking levels → Gemini 3's (it stops at HIGH). */
const LEVELS: Readonly<Record<ThinkingLevel, string>> = {
  none: "MINIMAL",
  low: "LOW",
  medium: "MEDIUM",
  high: "HIGH",
  xhigh: "HIGH",
  max: "HIGH",
};
const ORDER = ["MINIMAL", "LOW", "MEDIUM", "HIGH"];

/** The levels a model takes (MMSP's table): the nearest one is sent, ties rounding up. */
function supportedLevels(model: string): string[] {
  if (model.includes("-image")) return ["MINIMAL", "HIGH"];
  if (model.includes("gemini-3-pro")) return ["LOW", "HIGH"];
  if (model.includes("-pro") || model.includes("gemini-3.7") || model.includes("gemini-3.8")) return ["LOW", "MEDIUM", "HIGH"];
  return ORDER;
}

function levelOf(model: string, level: ThinkingLevel): string | undefined {
  const wanted = LEVELS[level];
  if (wanted === undefined) return undefined;
  const supported = supportedLevels(model);
  if (supported.includes(wanted)) return wanted;
  const at = ORDER.indexOf(wanted);
  const distance = (l: string): number => Math.abs(ORDER.indexOf(l) - at);
  return supported.reduce((
    best,
    l,
  ) => (distance(l) < distance(best) || (distance(l) === distance(best) && ORDER.indexOf(l) > ORDER.indexOf(best)) ? l : best));
}

/** Gemini 2.x thinks by a token budget, not a level: none off (Pro cannot: its least), high and above dynamic (-1). */
function budgetOf(model: string, level: ThinkingLevel): number {
  const budgets: Record<ThinkingLevel, number> = {
    none: model.includes("-pro") ? 128 : 0,
    low: 1024,
    medium: 8192,
    high: -1,
    xhigh: -1,
    max: -1,
  };
  return budgets[level];
}

/** A tool → its FunctionDeclaration: as it is, its output schema Gemini's `responseJsonSchema`. */
function declaration({ output_schema, ...tool }: ToolSchema): Json {
  return output_schema === undefined ? tool : { ...tool, responseJsonSchema: output_schema };
}

/** `config` → `systemInstruction`, `generationConfig`, `tools`, `toolConfig` (MMSP's `transformUniConfigToModelConfig`). */
function settings(client: string, model: string, config: UniConfig): Json {
  // (embedding settings, other caching and unknown keys are refused; Gemini has image and speech settings)
  refuseConfig(client, { ...config, image_config: undefined, tts_config: undefined });
  const sampling = "Gemini deprecated sampling parameters with the 3.6 generation";
  if (config.temperature !== undefined) throw unsupported(client, "temperature", sampling);
  if (config.top_p !== undefined) throw unsupported(client, "top_p", sampling);
  if (config.fast_mode) throw unsupported(client, "fast_mode", "Gemini has no fast mode");
  const generation: Json = {};
  const out: Json = {};
  if (config.max_tokens !== undefined) generation.maxOutputTokens = config.max_tokens;
  if (model.toLowerCase().includes("tts")) {
    // a speech model takes the voices and nothing else: a system prompt, thinking or tools are a 400
    generation.responseModalities = ["AUDIO"];
    generation.speechConfig = speechOf(client, (config.tts_config as Voice[] | undefined) ?? [{ voice: "Kore" }]);
    return { generationConfig: generation };
  }
  if (config.system_prompt !== undefined) out.systemInstruction = { parts: [{ text: config.system_prompt }] };
  if (config.thinking_summary !== undefined || config.thinking_level !== undefined) {
    const thinking: Json = {};
    if (config.thinking_summary !== undefined) thinking.includeThoughts = config.thinking_summary;
    if (config.thinking_level !== undefined) {
      if (!Object.prototype.hasOwnProperty.call(LEVELS, config.thinking_level)) {
        throw unsupported(
          client,
          "thinking_level",
          `it is one of ${Object.keys(LEVELS).join(", ")}, not ${JSON.stringify(config.thinking_level)}`,
        );
      }
      if (/gemini-[12]\b|gemini-[12]\./.test(model)) thinking.thinkingBudget = budgetOf(model, config.thinking_level);
      else {
        const level = levelOf(model, config.thinking_level);
        if (level !== undefined) thinking.thinkingLevel = level;
      }
    }
    generation.thinkingConfig = thinking;
  }
  if (config.image_config !== undefined) {
    const { aspect_ratio, image_size } = config.image_config as { aspect_ratio?: string; image_size?: string };
    generation.imageConfig = { ...(aspect_ratio ? { aspectRatio: aspect_ratio } : {}), ...(image_size ? { imageSize: image_size } : {}) };
  }
  if (config.tools !== undefined) {
    // (Gemini's allowedFunctionNames is read with mode ANY only: tools limited with `auto` are offered alone)
    const allowed = toolsAllowed(client, config);
    const auto = allowed?.mode === "auto" ? allowed : undefined;
    out.tools = [{ functionDeclarations: offered(config.tools, auto).map(declaration) }];
    if (allowed !== undefined) {
      out.toolConfig = {
        functionCallingConfig: allowed.mode === "required" && allowed.only !== undefined
          ? { mode: "ANY", allowedFunctionNames: allowed.only }
          : { mode: allowed.mode === "required" ? "ANY" : allowed.mode.toUpperCase() },
      };
    }
  }
  if (config.verbosity !== undefined) throw unsupported(client, "verbosity", "Gemini has no verbosity setting");
  // (prompt_cache_key: Gemini caches by prefix, or a cachedContent resource; it has no such key: no effect)
  if (config.parallel_tool_calls === false && config.tools !== undefined && config.tool_choice !== "none") {
    throw unsupported(
      client,
      "parallel_tool_calls",
      "Gemini has no control that keeps a turn to one function call (send true or leave it out)",
    );
  }
  if (config.output_format !== undefined) {
    const format = outputFormat(client, config.output_format);
    generation.responseMimeType = "application/json";
    if (format.type === "json_schema") generation.responseJsonSchema = format.schema;
  }
  if (Object.keys(generation).length > 0) out.generationConfig = generation;
  return out;
}

/** A voice of `tts_config` (MMSP's `SpeakerConfig`). */
type Voice = { voice: string; speaker?: string };

function speechOf(client: string, voices: Voice[]): Json {
  const voice = (v: { voice: string }): Json => ({ prebuiltVoiceConfig: { voiceName: v.voice } });
  if (voices.length === 1) return { voiceConfig: voice(voices[0]!) };
  if (voices.length !== 2 || voices.some((v) => !v.speaker)) {
    throw new TypeError(`${client}: config.tts_config must hold one voice, or two each with its speaker`);
  }
  return { multiSpeakerVoiceConfig: { speakerVoiceConfigs: voices.map((v) => ({ speaker: v.speaker, voiceConfig: voice(v) })) } };
}

/** An image by URL: its bytes when it is a data URL, else the URL itself for Gemini to fetch (`fileData`). */
function imagePart(url: string): Part {
  const inline = dataUrl(url);
  return inline
    ? { inlineData: { mimeType: inline.mimeType, data: inline.base64 } }
    : { fileData: { mimeType: imageTypeOf(url), fileUri: url } };
}

/**
 * The function responses of a user turn that answer calls sent without ids (Gemini pairs those by
 * order), put in the order of their calls: the places they hold in the turn stay theirs.
 */
function inCallOrder(parts: Part[], order: Map<string, number>): void {
  const at: number[] = [];
  parts.forEach((p, k) => {
    const r = p.functionResponse as Json | undefined;
    if (r !== undefined && r.id === undefined && order.has(r.callId as string)) at.push(k);
  });
  const sorted = at.map((k) => parts[k]!).sort((a, b) => order.get(callIdOf(a))! - order.get(callIdOf(b))!);
  at.forEach((k, n) => (parts[k] = sorted[n]!));
}
const callIdOf = (p: Part): string => (p.functionResponse as Json).callId as string;

/** The messages → `contents` (MMSP's `transformUniMessageToModelInput`). */
function contentsOf(client: string, messages: UniMessage[]): Json[] {
  // a functionResponse needs the function's name, which a tool result does not carry: the call's
  const names = new Map<string, string>();
  /** The calls of the last model turn sent without ids, by the id they were read with: their order. */
  let order = new Map<string, number>();
  return messages.map((message, m) => {
    const parts: Part[] = message.content_items.map((item: DoneItem, i) =>
      partOf(client, item, `messages[${m}].content_items[${i}]`, names)
    );
    if (message.role === "user") inCallOrder(parts, order);
    else {
      order = new Map();
      message.content_items.forEach((item) => {
        if (item.type === "tool_call.done" && isMadeId(item.tool_call_id, item.name)) order.set(item.tool_call_id, order.size);
      });
    }
    for (const p of parts) if (p.functionResponse) delete (p.functionResponse as Json).callId;
    if (message.role === "assistant") {
      const first = parts.find((p) => p.functionCall !== undefined);
      if (first !== undefined && first.thoughtSignature === undefined) first.thoughtSignature = UNSIGNED_CALL;
    }
    // a thought with no text and no signature carries nothing back
    const kept = parts.filter((p) => !(p.thought === true && p.text === "" && p.thoughtSignature === undefined));
    return { role: message.role === "assistant" ? "model" : "user", parts: kept };
  });
}

function partOf(client: string, item: DoneItem, where: string, names: Map<string, string>): Part {
  const fidelity = "fidelity" in item && isRecord(item.fidelity) ? item.fidelity : undefined;
  const signed: Part = typeof fidelity?.signature === "string" && fidelity.signature ? { thoughtSignature: fidelity.signature } : {};
  switch (item.type) {
    case "text.done":
      return { text: item.text, ...signed };
    case "thinking.done":
      return { text: item.thinking, thought: true, ...signed };
    case "image_url.done":
      return imagePart(item.image_url);
    case "inline_data.done":
      return { inlineData: { mimeType: item.mime_type, data: base64Of(item.data) }, ...signed };
    case "inline_thinking.done":
      return { inlineData: { mimeType: item.mime_type, data: base64Of(item.data) }, thought: true, ...signed };
    case "tool_call.done":
      names.set(item.tool_call_id, item.name);
      // a call Gemini sent without an id was given one made from its name (reader.ts): it goes back without one
      return {
        functionCall: {
          ...(isMadeId(item.tool_call_id, item.name) ? {} : { id: item.tool_call_id }),
          name: item.name,
          args: item.arguments,
        },
        ...signed,
      };
    case "tool_result.done": {
      if (!item.tool_call_id) throw new TypeError(`${client}: ${where}: a tool result needs its tool_call_id`);
      const name = names.get(item.tool_call_id) ?? item.tool_call_id;
      const images = (item.images ?? []).map(imagePart);
      const made = isMadeId(item.tool_call_id, name);
      return {
        functionResponse: {
          ...(made ? { callId: item.tool_call_id } : { id: item.tool_call_id }), // (callId: the ordering's only, removed before sending)
          name,
          response: { result: item.text },
          ...(images.length > 0 ? { parts: images } : {}),
        },
      };
    }
    default:
      throw unsupportedItem(client, item);
  }
}
