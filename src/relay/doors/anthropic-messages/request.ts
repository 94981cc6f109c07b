// The Anthropic Messages door: SPEC §10 "Doors: the APIs a client speaks" (its request onto the relay's one request).
//
// A Messages request (POST /v1/messages: `model`, `messages`, `system`, `max_tokens`, `thinking`,
// `tools`, `tool_choice`, `temperature`, `top_p`, `stream`…) → MMSP's `{model, messages, config}`, so
// the relay serves it through the same rows, ceilings, quotas and stream objects as /v1/stream. Each
// member is classified (issue #46's rule, the table in docs/guide/anthropic-messages.md): one that asks
// for nothing is accepted (`metadata`, `service_tier`, `cache_control`'s breakpoints as caching on,
// `stop_sequences: []`), one the relay can do is mapped, one it cannot do is refused by name before
// anything is asked: a 400 in Messages' error shape, its message naming the member. Signed thinking
// carried back is Anthropic's (fidelity `provider: "anthropic"`, SPEC §9): it reaches an Anthropic
// target intact and no other.
import { anthropicMessagesError } from "../../../encode.js";
import { UpstreamError } from "../../../errors.js";
import { isRecord } from "../../../internal/values.js";
import { BUDGET_TOKENS } from "../../../providers/anthropic/models.js";
import type { ThinkingLevel, ToolSchema, UniConfig } from "../../../providers/request.js";
import type { DoneItem, UniMessage } from "../../../schema.js";
import { REDACTED_THINKING, unsealed } from "./seal.js";
import { refuse, refusing } from "../refused.js";

type Json = Record<string, unknown>;

/** What the relay keeps of a Messages request besides the MMSP body: the answer's shape. */
export interface MessagesAsk {
  /** The MMSP request. */
  mmsp: { model: string; messages: UniMessage[]; config: UniConfig };
  /** Answer as SSE (true) or one message object. */
  stream: boolean;
}

/**
 * The members of a Messages request: mapped, or accepted as asking for nothing the relay must do.
 * Any other non-null member is refused by name (`top_k`, `container`, `mcp_servers`, `output_format`…).
 */
const KNOWN = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "stream",
  "temperature",
  "top_p",
  "stop_sequences",
  "thinking",
  "output_config",
  "tools",
  "tool_choice",
  "metadata",
  "service_tier",
  "cache_control",
  "speed",
]);

const EFFORTS: readonly ThinkingLevel[] = ["low", "medium", "high", "xhigh", "max"];

/** A refusal in Messages' error shape (`{type: "error", error: {type, message}}`), with `x-should-retry` as the SDK reads it. */
export function messagesError(status: number, type: string, message: string, headers?: HeadersInit): Response {
  const error = new UpstreamError({ client: "relay", status, errorType: type, error: { type, message, status }, message });
  const { body } = anthropicMessagesError(error);
  const out = new Headers(headers);
  // the SDK retries 408, 409, 429 and 5xx unless told; a refusal of the request itself is final
  if (!out.has("x-should-retry")) out.set("x-should-retry", String(status === 408 || status === 409 || status === 429 || status >= 500));
  return Response.json(body, { status, headers: out });
}

/**
 * The request body (parsed JSON) → what the relay asks, or the 400 naming what it cannot serve;
 * `count`: a count_tokens body (no max_tokens, no stream); `passed`: a body passed through to
 * Anthropic as written (routing/pass-through.ts), whose members the relay does not know go along unread.
 */
export function messagesAsk(body: unknown, count = false, passed = false): MessagesAsk | Response {
  return refusing(() => ask(body, count, passed), (r) => messagesError(r.status, "invalid_request_error", r.message));
}

function ask(body: unknown, count: boolean, passed: boolean): MessagesAsk {
  if (!isRecord(body)) return refuse("The request body must be a JSON object.");
  for (const key of passed ? [] : Object.keys(body)) {
    if (!KNOWN.has(key) && body[key] !== null && body[key] !== undefined) {
      refuse(`${key.slice(0, 64)}: not supported by this relay (see its guide's table of Messages members).`);
    }
  }
  const { model } = body;
  if (typeof model !== "string" || model === "") refuse("model: must be a non-empty string.");
  if (body.stream != null && typeof body.stream !== "boolean") refuse("stream: must be a boolean.");
  const config: UniConfig = {};
  const caching = { on: body.cache_control != null };
  if (!count) {
    if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) refuse("max_tokens: must be a positive integer.");
    config.max_tokens = body.max_tokens as number;
  } else config.max_tokens = 1; // (a count asks for no answer: its claim reserves no output, it counts as a request)
  if (body.system != null) config.system_prompt = systemOf(body.system, caching);
  for (const key of ["temperature", "top_p"] as const) {
    if (body[key] == null) continue;
    if (typeof body[key] !== "number") refuse(`${key}: must be a number.`);
    config[key] = body[key] as number;
  }
  if (body.stop_sequences != null && !(Array.isArray(body.stop_sequences) && body.stop_sequences.length === 0)) {
    refuse("stop_sequences: not supported by this relay (its providers' streams end where the model stops).");
  }
  if (body.metadata != null && !isRecord(body.metadata)) refuse("metadata: must be an object.");
  if (body.service_tier != null && body.service_tier !== "auto" && body.service_tier !== "standard_only") {
    refuse('service_tier: must be "auto" or "standard_only".');
  }
  if (body.speed != null) {
    if (body.speed !== "fast" && body.speed !== "standard") refuse('speed: must be "fast" or "standard".');
    config.fast_mode = body.speed === "fast";
  }
  thinkingOf(body, config);
  if (body.tools != null) config.tools = toolsOf(body.tools, caching, passed);
  if (body.tool_choice != null) {
    const choice = toolChoiceOf(body.tool_choice);
    if (choice !== undefined) config.tool_choice = choice;
    // (at most one tool use: the relay's `parallel_tool_calls: false`, which each provider's builder maps)
    if ((body.tool_choice as Json).disable_parallel_tool_use === true) config.parallel_tool_calls = false;
  }
  const messages = messagesOf(body.messages, caching);
  if (caching.on) config.prompt_caching = "enable";
  return { mmsp: { model: model as string, messages, config }, stream: body.stream === true };
}

/** `thinking` and `output_config.effort` → `thinking_level` (budget_tokens: the least level whose budget holds it); `display` → `thinking_summary`. */
function thinkingOf(body: Json, config: UniConfig): void {
  let effort: ThinkingLevel | undefined;
  if (body.output_config != null) {
    const o = body.output_config;
    if (!isRecord(o)) return refuse("output_config: must be an object.");
    for (const key of Object.keys(o)) {
      if (key !== "effort" && o[key] != null) refuse(`output_config.${key.slice(0, 64)}: not supported by this relay.`);
    }
    if (o.effort != null) {
      if (!EFFORTS.includes(o.effort as ThinkingLevel)) refuse(`output_config.effort: must be one of ${EFFORTS.join(", ")}.`);
      effort = o.effort as ThinkingLevel;
    }
  }
  const t = body.thinking;
  if (t == null) {
    if (effort !== undefined) config.thinking_level = effort;
    return;
  }
  if (!isRecord(t)) return refuse("thinking: must be an object.");
  if (t.type === "disabled") config.thinking_level = "none";
  else if (t.type === "adaptive") config.thinking_level = effort ?? "high"; // (the API's default effort)
  else if (t.type === "enabled") {
    if (!Number.isInteger(t.budget_tokens) || (t.budget_tokens as number) < 1024) {
      refuse("thinking.budget_tokens: must be an integer of at least 1024.");
    }
    const budget = t.budget_tokens as number;
    config.thinking_level = effort ?? EFFORTS.find((level) => BUDGET_TOKENS[level as Exclude<ThinkingLevel, "none">] >= budget) ?? "max";
  } else refuse('thinking.type: must be "enabled", "adaptive" or "disabled".');
  if (t.display != null && t.type !== "disabled") {
    if (t.display !== "summarized" && t.display !== "omitted") refuse('thinking.display: must be "summarized" or "omitted".');
    config.thinking_summary = t.display === "summarized";
  }
}

/** `system`: a string, or text blocks (their `cache_control` turns the provider's caching on). */
function systemOf(system: unknown, caching: { on: boolean }): string {
  if (typeof system === "string") return system;
  if (!Array.isArray(system)) return refuse("system: must be a string or an array of text blocks.");
  return system.map((b, i) => {
    if (!isRecord(b) || b.type !== "text" || typeof b.text !== "string") return refuse(`system[${i}]: only text blocks are supported.`);
    if (b.cache_control != null) caching.on = true;
    return b.text;
  }).join("\n\n");
}

/**
 * A custom tool's members beside name, description, input_schema and cache_control, each with what
 * asks for nothing (the API's reference): `eager_input_streaming` (how Anthropic streams the input);
 * `allowed_callers` `direct` (a caller other than the model is a server tool's); `defer_loading` false
 * (true needs the tool search server tool); `strict` false (no provider is asked for strict schemas);
 * `input_examples` none (the provider would not show them).
 */
const TOOL_MEMBERS: Readonly<Record<string, (v: unknown) => boolean>> = {
  name: () => true,
  description: () => true,
  input_schema: () => true,
  type: () => true,
  cache_control: () => true,
  eager_input_streaming: () => true,
  allowed_callers: (v) => Array.isArray(v) && v.every((c) => c === "direct"),
  defer_loading: (v) => v === false,
  strict: (v) => v === false,
  input_examples: (v) => Array.isArray(v) && v.length === 0,
};

/**
 * `tools`: custom tools (`type` absent or "custom", with `input_schema`), a server tool refused by name;
 * each member classified (`passed`: a body passed through to Anthropic, its tools' members go along unread).
 */
function toolsOf(tools: unknown, caching: { on: boolean }, passed: boolean): ToolSchema[] {
  if (!Array.isArray(tools)) return refuse("tools: must be an array.");
  return tools.map((t, i) => {
    if (!isRecord(t) || (t.type != null && t.type !== "custom")) {
      const type = isRecord(t) && typeof t.type === "string" ? ` (${t.type.slice(0, 64)})` : "";
      return refuse(`tools[${i}]: only custom tools (name, description, input_schema) are supported, not server tools${type}.`);
    }
    if (typeof t.name !== "string" || t.name === "") return refuse(`tools[${i}].name: must be a non-empty string.`);
    for (const key of passed ? [] : Object.keys(t)) {
      const accepts = Object.hasOwn(TOOL_MEMBERS, key) ? TOOL_MEMBERS[key]! : undefined;
      if (t[key] != null && !accepts?.(t[key])) refuse(`tools[${i}].${key.slice(0, 64)}: not supported by this relay on a custom tool.`);
    }
    if (t.cache_control != null) caching.on = true;
    const tool: ToolSchema = { name: t.name, description: typeof t.description === "string" ? t.description : "" };
    if (isRecord(t.input_schema)) tool.parameters = t.input_schema;
    return tool;
  });
}

/** `tool_choice` → MMSP's (`any` → required, `tool` → that one name); `disable_parallel_tool_use` a boolean (ask() maps it). */
function toolChoiceOf(choice: unknown): UniConfig["tool_choice"] | undefined {
  if (!isRecord(choice)) return refuse("tool_choice: must be an object.");
  const single = choice.disable_parallel_tool_use;
  if (single != null && typeof single !== "boolean") refuse("tool_choice.disable_parallel_tool_use: must be a boolean.");
  if (choice.type === "auto") return "auto";
  if (choice.type === "any") return "required";
  if (choice.type === "none") return "none";
  if (choice.type === "tool" && typeof choice.name === "string") return [choice.name];
  return refuse('tool_choice.type: must be "auto", "any", "none" or "tool" (with a name).');
}

/** `messages` → MMSP messages, in order; each block classified. */
function messagesOf(messages: unknown, caching: { on: boolean }): UniMessage[] {
  if (!Array.isArray(messages)) return refuse("messages: must be an array.");
  return messages.map((m, i): UniMessage => {
    const at = `messages[${i}]`;
    if (!isRecord(m) || (m.role !== "user" && m.role !== "assistant")) return refuse(`${at}.role: must be "user" or "assistant".`);
    const role = m.role;
    if (typeof m.content === "string") return { role, content_items: [{ type: "text.done", text: m.content }] };
    if (!Array.isArray(m.content)) return refuse(`${at}.content: must be a string or an array of blocks.`);
    const items = m.content.map((b, j) => {
      const where = `${at}.content[${j}]`;
      if (!isRecord(b)) return refuse(`${where}: must be a block object.`);
      if (b.cache_control != null) caching.on = true;
      return role === "user" ? userBlock(b, where) : assistantBlock(b, where);
    });
    return { role, content_items: items };
  });
}

function userBlock(b: Json, where: string): DoneItem {
  if (b.type === "text" && typeof b.text === "string") return { type: "text.done", text: b.text };
  if (b.type === "image") return { type: "image_url.done", image_url: imageUrl(b.source, `${where}.source`) };
  if (b.type === "tool_result") {
    if (typeof b.tool_use_id !== "string") return refuse(`${where}.tool_use_id: must be a string.`);
    const images: string[] = [];
    let text: string;
    if (b.content == null) text = "";
    else if (typeof b.content === "string") text = b.content;
    else if (Array.isArray(b.content)) {
      text = b.content.map((p, k) => {
        if (isRecord(p) && p.type === "text" && typeof p.text === "string") return p.text;
        if (isRecord(p) && p.type === "image") return images.push(imageUrl(p.source, `${where}.content[${k}].source`)), "";
        return refuse(`${where}.content[${k}]: only text and image blocks are supported in a tool_result.`);
      }).join("");
    } else return refuse(`${where}.content: must be a string or an array of blocks.`);
    // (is_error has no MMSP member: the result's text says what went wrong, as the tool wrote it)
    return { type: "tool_result.done", text, tool_call_id: b.tool_use_id, ...(images.length ? { images } : {}) };
  }
  return refuse(`${where}: blocks of type '${String(b.type).slice(0, 64)}' are not supported in a user turn (text, image, tool_result).`);
}

function assistantBlock(b: Json, where: string): DoneItem {
  if (b.type === "text" && typeof b.text === "string") return { type: "text.done", text: b.text };
  if (b.type === "tool_use") {
    if (typeof b.id !== "string" || typeof b.name !== "string" || !isRecord(b.input)) {
      return refuse(`${where}: a tool_use block needs id, name and an input object.`);
    }
    return { type: "tool_call.done", name: b.name, arguments: b.input, tool_call_id: b.id };
  }
  // (a signature is Anthropic's, or sealed with its maker's name: it goes back to that provider only, SPEC §9)
  if (b.type === "thinking") {
    if (typeof b.thinking !== "string") return refuse(`${where}.thinking: must be a string.`);
    const fidelity = typeof b.signature === "string" && b.signature !== "" ? unsealed(b.signature, `${where}.signature`) : undefined;
    return { type: "thinking.done", thinking: b.thinking, ...(fidelity ? { fidelity } : {}) };
  }
  if (b.type === "redacted_thinking") {
    if (typeof b.data !== "string") return refuse(`${where}.data: must be a string.`);
    return { type: "thinking.done", thinking: REDACTED_THINKING, fidelity: unsealed(b.data, `${where}.data`) };
  }
  return refuse(
    `${where}: blocks of type '${
      String(b.type).slice(0, 64)
    }' are not supported in an assistant turn (text, thinking, redacted_thinking, tool_use).`,
  );
}

/** An image block's source as a URL: `base64` → a data URL, `url` as it is (http or https only). */
function imageUrl(source: unknown, where: string): string {
  if (isRecord(source) && source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") {
    if (!/^image\/[a-z0-9.+-]+$/i.test(source.media_type)) return refuse(`${where}.media_type: must be an image type.`);
    return `data:${source.media_type};base64,${source.data}`;
  }
  if (isRecord(source) && source.type === "url" && typeof source.url === "string" && /^https?:\/\//i.test(source.url)) return source.url;
  return refuse(`${where}: an image needs a base64 source (media_type, data) or an http(s) url source.`);
}
