/**
 * MMSP's request shape (`{ model, messages, config }`, as MMSP's clients take it) and the HTTP request a
 * provider's builder makes of it. The builders (`<provider>/request.ts`) map every UniMessage item and
 * every `config` member the provider has, and refuse the others with `UnsupportedParameterError`.
 */
import { UnsupportedParameterError } from "../errors.js";
import type { UniMessage } from "../schema.js";

/** How hard a model thinks (MMSP's `ThinkingLevel`). */
export type ThinkingLevel = "none" | "low" | "medium" | "high" | "xhigh" | "max";

/** A function the model may call: its JSON Schema `parameters`. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

/** Which tools the model may or must call: a mode, or the names it must choose among. */
export type ToolChoice = "auto" | "required" | "none" | string[];

/** MMSP's `UniConfig`, plus `top_p`. Every member is optional; a provider without one refuses it. */
export interface UniConfig {
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  tools?: ToolSchema[];
  /** Ask for the model's thinking summaries. */
  thinking_summary?: boolean;
  thinking_level?: ThinkingLevel;
  tool_choice?: ToolChoice;
  system_prompt?: string;
  /** Anthropic's cache control; the other providers cache by themselves (only `"enable"`). */
  prompt_caching?: "enable" | "disable" | "enhance";
  /** The provider's priority tier (OpenAI `service_tier: "priority"`). */
  fast_mode?: boolean;
  image_config?: { aspect_ratio?: string; image_size?: string };
  /** Voices for a text-to-speech model: one, or two with their speakers. */
  tts_config?: { voice: string; speaker?: string }[];
  embedding_config?: { dimensions?: number };
}

/** What a provider's `request()` takes (MMSP's request). */
export interface ProviderRequest {
  model: string;
  messages: UniMessage[];
  config?: UniConfig;
}

/** The HTTP request a builder makes: `fetch(url, { method, headers, body })`. */
export interface HttpRequest {
  url: string;
  method: "POST";
  headers: Record<string, string>;
  body: string;
}

/** A `data:<mime>;base64,<data>` URL's parts, or undefined for any other URL. */
export function dataUrl(url: string): { mime: string; base64: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mime: m[1]!, base64: m[2]! } : undefined;
}

/** The image type of a URL by its extension (MMSP's table; JPEG when it names none). */
export function imageTypeOf(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
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
  return (ext !== undefined && types[ext]) || "image/jpeg";
}

/** The error of a request member the provider has no such thing for. */
export function unsupported(client: string, parameter: string, why: string): UnsupportedParameterError {
  return new UnsupportedParameterError({ client, parameter, message: `${client} does not support ${parameter}: ${why}` });
}

/** The base URL without its trailing slashes (`https://api.openai.com/v1/` → `…/v1`), checked. */
export function baseUrlOf(client: string, given: string | undefined, fallback: string): string {
  const url = given ?? fallback;
  if (!/^https?:\/\//i.test(url)) throw new TypeError(`${client}: baseURL must be an http(s) URL, not ${JSON.stringify(url)}`);
  return url.replace(/\/+$/, "");
}

/** Checks the request's shape at the boundary (model and messages), naming what is wrong. */
export function checkRequest(client: string, request: ProviderRequest): void {
  if (typeof request !== "object" || request === null) throw new TypeError(`${client}: the request must be { model, messages, config? }`);
  if (typeof request.model !== "string" || request.model === "") throw new TypeError(`${client}: request.model must be a non-empty string`);
  if (!Array.isArray(request.messages)) throw new TypeError(`${client}: request.messages must be an array of UniMessages`);
  for (const [i, m] of request.messages.entries()) {
    if (typeof m !== "object" || m === null || !Array.isArray(m.content_items) || (m.role !== "user" && m.role !== "assistant")) {
      throw new TypeError(`${client}: request.messages[${i}] must be a UniMessage ({ role: "user" | "assistant", content_items })`);
    }
  }
  if (request.config !== undefined && (typeof request.config !== "object" || request.config === null)) {
    throw new TypeError(`${client}: request.config must be an object`);
  }
}
