// The Open Responses door: SPEC §10 "Doors: the APIs a client speaks" (its request onto the relay's one request).
//
// An Open Responses request (POST /v1/responses: `model`, `input`, `instructions`, `tools`,
// `tool_choice`, `max_output_tokens`, `reasoning`, `stream`…) → MMSP's `{model, messages, config}`,
// so the relay serves it through the same rows, ceilings, quotas and stream objects as /v1/stream.
// Every member is classified (members.ts: accepted, mapped here, or refused by name); tools are
// tools.ts's. What has no MMSP meaning is refused by name before anything is asked (the spec's error
// shape, `param` naming it), never dropped. Errors in the spec's shape: `{"error": {message, type, param, code}}`.
import { OPENAI_EFFORT as EFFORT } from "../openai-effort.js";
import { jsonSchemaFormat, openaiHints, openaiVerbosity } from "../openai-members.js";
import { openResponsesErrorType } from "../../../encode.js";
import { isRecord, ownValue } from "../../../internal/values.js";
import type { UniConfig } from "../../../providers/request.js";
import type { DoneItem, UniMessage } from "../../../schema.js";
import { parseJsonText } from "../../../internal/json.js";
import { memberRefusal } from "./members.js";
import { CUSTOM_INPUT, refuse, toolChoiceOf, toolsOf } from "./tools.js";
import { refusing } from "../refused.js";

type Json = Record<string, unknown>;

/** What the relay keeps of an Open Responses request besides the MMSP body: its answer's shape and what the resource echoes. */
export interface OpenResponsesAsk {
  /** The MMSP request. */
  mmsp: { model: string; messages: UniMessage[]; config: UniConfig };
  /** Answer as SSE (true) or one response resource. */
  stream: boolean;
  /** The settings the response resource echoes (OpenResponsesEncoderOptions.request). */
  echo: Json;
  /** `store` as sent (absent: OpenAI's default, true); the stateless relay keeps nothing (the stored-response hook reads it). */
  store: boolean;
}

/** A refusal in the spec's error shape; `type` from the MMSP type (the spec's table), `code` the MMSP type. */
export function openResponsesError(
  status: number,
  code: string,
  message: string,
  param: string | null = null,
  headers?: HeadersInit,
): Response {
  return Response.json({ error: { message, type: openResponsesErrorType(code), param, code } }, { status, headers });
}

/** An MMSP refusal (`{"error": {type, message, parameter?}}`) re-shaped as the spec's, status and headers kept. */
export async function openResponsesRefusal(answer: Response): Promise<Response> {
  let body: unknown;
  try {
    body = await answer.json();
  } catch {
    body = undefined;
  }
  const e = isRecord(body) && isRecord(body.error) ? body.error : {};
  const code = typeof e.type === "string" ? e.type : "HTTPError";
  const message = typeof e.message === "string" ? e.message : `HTTP ${answer.status}`;
  const param = typeof e.parameter === "string" ? e.parameter : null;
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  headers.delete("content-type");
  return openResponsesError(answer.status, code, message, param, headers);
}

/** The request body (parsed JSON) → what the relay asks, or the 400 naming what it cannot serve. */
export function openResponsesAsk(body: unknown): OpenResponsesAsk | Response {
  return refusing(() => ask(body), (r) => openResponsesError(r.status, r.type, r.message, r.param));
}

/** The request's settings its response resource echoes (the encoder's `request` option). */
const ECHOED = [
  "instructions",
  "tools",
  "tool_choice",
  "max_output_tokens",
  "reasoning",
  "temperature",
  "top_p",
  "metadata",
  "text",
  "parallel_tool_calls",
  "prompt_cache_key",
] as const;

function ask(body: unknown): OpenResponsesAsk {
  if (!isRecord(body)) return refuse("body", "The request body must be a JSON object.");
  for (const key of Object.keys(body)) {
    const refusal = memberRefusal(key, body[key]);
    if (refusal !== undefined) refuse(key, refusal);
  }
  const { model } = body;
  if (typeof model !== "string" || model === "") refuse("model", "model must be a non-empty string.");
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") refuse("stream", "stream must be a boolean.");
  if (body.store !== undefined && body.store !== null && typeof body.store !== "boolean") refuse("store", "store must be a boolean.");
  if (body.previous_response_id != null) {
    // (the stored-response hook: a relay that keeps responses resolves it before this point)
    refuse(
      "previous_response_id",
      "previous_response_id is not supported: this relay keeps no responses. Send the whole conversation in input " +
        '(with store: false and include: ["reasoning.encrypted_content"] to keep reasoning across turns).',
    );
  }
  const config: UniConfig = {};
  const system: string[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== "string") refuse("instructions", "instructions must be a string.");
    system.push(body.instructions as string);
  }
  const messages = inputMessages(body.input, system);
  if (system.length > 0) config.system_prompt = system.join("\n\n");
  if (body.tools != null) config.tools = toolsOf(body.tools);
  if (body.tool_choice != null) config.tool_choice = toolChoiceOf(body.tool_choice);
  if (body.max_output_tokens != null) {
    if (!Number.isInteger(body.max_output_tokens) || (body.max_output_tokens as number) < 1) {
      refuse("max_output_tokens", "max_output_tokens must be a positive integer.");
    }
    config.max_tokens = body.max_output_tokens as number;
  }
  for (const key of ["temperature", "top_p"] as const) {
    if (body[key] == null) continue;
    if (typeof body[key] !== "number") refuse(key, `${key} must be a number.`);
    config[key] = body[key] as number;
  }
  textSettings(body.text, config);
  const wrong = openaiHints(body, config);
  if (wrong) refuse(...wrong);
  if (body.reasoning != null) {
    const r = body.reasoning;
    if (!isRecord(r)) return refuse("reasoning", "reasoning must be an object.");
    if (r.effort != null) {
      const level = typeof r.effort === "string" ? ownValue(EFFORT, r.effort) : undefined;
      if (level === undefined) {
        refuse("reasoning.effort", `reasoning.effort must be one of ${Object.keys(EFFORT).join(", ")}.`);
      }
      config.thinking_level = level;
    }
    if (r.summary != null && r.summary !== "auto" && r.summary !== "concise" && r.summary !== "detailed") {
      refuse("reasoning.summary", "reasoning.summary must be auto, concise or detailed.");
    }
  }
  const echo: Json = {};
  for (const key of ECHOED) if (body[key] != null) echo[key] = body[key];
  return {
    mmsp: { model: model as string, messages, config },
    stream: body.stream === true,
    echo,
    store: body.store !== false,
  };
}

/** `text` → structured output (`format`: `json_schema`, `json_object`; `text` asks nothing) and `verbosity`. */
function textSettings(text: unknown, config: UniConfig): void {
  if (text === undefined || text === null) return;
  if (!isRecord(text)) return refuse("text", "text must be an object.");
  const format = text.format;
  if (isRecord(format) && format.type === "json_schema") {
    config.output_format = jsonSchemaFormat(format, "text.format.schema");
  } else if (isRecord(format) && format.type === "json_object") {
    config.output_format = { type: "json_object" };
  } else if (format !== undefined && format !== null && !(isRecord(format) && format.type === "text")) {
    refuse("text.format", 'text.format must be {type: "text"}, {type: "json_object"} or {type: "json_schema", name, schema}.');
  }
  openaiVerbosity(text.verbosity, "text.verbosity", config);
}

/** `input` → MMSP messages (consecutive items of one role join one message); system and developer text goes to `system`. */
function inputMessages(input: unknown, system: string[]): UniMessage[] {
  if (input === undefined || input === null) return [];
  if (typeof input === "string") return [{ role: "user", content_items: [{ type: "text.done", text: input }] }];
  if (!Array.isArray(input)) return refuse("input", "input must be a string or an array of items.");
  const messages: UniMessage[] = [];
  const push = (role: "user" | "assistant", items: DoneItem[]): void => {
    const last = messages.at(-1);
    if (last && last.role === role) last.content_items.push(...items);
    else messages.push({ role, content_items: items });
  };
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isRecord(item)) return refuse(at, `${at} must be an item object.`);
    const type = item.type ?? "message";
    if (type === "message") {
      const role = item.role;
      if (role === "system" || role === "developer") return system.push(textOf(item.content, at, ["input_text"]));
      if (role === "user") return push("user", userContent(item.content, at));
      if (role === "assistant") {
        return push("assistant", [{ type: "text.done", text: textOf(item.content, at, ["output_text", "refusal"]) }]);
      }
      return refuse(`${at}.role`, `${at}.role must be user, assistant, system or developer.`);
    }
    if (type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.arguments !== "string") {
        return refuse(at, `${at}: a function_call needs call_id, name and arguments (a JSON string).`);
      }
      let args: unknown;
      try {
        args = item.arguments === "" ? {} : parseJsonText(item.arguments);
      } catch {
        args = undefined;
      }
      if (!isRecord(args)) return refuse(`${at}.arguments`, `${at}.arguments must be a JSON object's text.`);
      return push("assistant", [{ type: "tool_call.done", name: item.name, arguments: args, tool_call_id: item.call_id }]);
    }
    if (type === "custom_tool_call") {
      // (a custom tool's call: the provider made it as a function taking one string, tools.ts)
      if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.input !== "string") {
        return refuse(at, `${at}: a custom_tool_call needs call_id, name and input (a string).`);
      }
      return push("assistant", [{
        type: "tool_call.done",
        name: item.name,
        arguments: { [CUSTOM_INPUT]: item.input },
        tool_call_id: item.call_id,
      }]);
    }
    if (type === "function_call_output" || type === "custom_tool_call_output") {
      if (typeof item.call_id !== "string") return refuse(`${at}.call_id`, `${at}.call_id must be a string.`);
      const text = typeof item.output === "string" ? item.output : textOf(item.output, `${at}.output`, ["input_text"]);
      return push("user", [{ type: "tool_result.done", text, tool_call_id: item.call_id }]);
    }
    if (type === "reasoning") {
      const parts = [...(Array.isArray(item.content) ? item.content : []), ...(Array.isArray(item.summary) ? item.summary : [])];
      const thinking = parts.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("\n\n");
      // (encrypted reasoning is the Responses API's: it goes back only to that provider, SPEC §9)
      const fidelity = typeof item.encrypted_content === "string"
        ? { encrypted_content: item.encrypted_content, provider: "openai-responses" }
        : undefined;
      return push("assistant", [{ type: "thinking.done", thinking, ...(fidelity ? { fidelity } : {}) }]);
    }
    if (type === "item_reference") {
      // (the stored-response hook: a relay that keeps responses resolves references before this point)
      return refuse(
        `${at}.type`,
        `${at}: an item_reference needs stored responses, which this relay does not keep: send the item itself ` +
          "(clients do so with store: false).",
      );
    }
    return refuse(`${at}.type`, `${at}: items of type '${String(type).slice(0, 64)}' are not supported.`);
  });
  return messages;
}

/** A message's content as text: a string, or its text parts of `types` joined (any other part refused by name). */
function textOf(content: unknown, at: string, types: string[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return refuse(`${at}.content`, `${at}.content must be a string or an array of parts.`);
  return content.map((p, j) => {
    if (isRecord(p) && typeof p.type === "string" && types.includes(p.type)) {
      const text = p.type === "refusal" ? p.refusal : p.text;
      if (typeof text === "string") return text;
    }
    return refuse(`${at}.content[${j}]`, `${at}.content[${j}]: only ${types.join(", ")} parts are supported here.`);
  }).join("");
}

/** A user message's content: text and images (`input_image` with an `image_url`: an http(s) or data URL). */
function userContent(content: unknown, at: string): DoneItem[] {
  if (typeof content === "string") return [{ type: "text.done", text: content }];
  if (!Array.isArray(content)) return refuse(`${at}.content`, `${at}.content must be a string or an array of parts.`);
  return content.map((p, j): DoneItem => {
    const where = `${at}.content[${j}]`;
    if (isRecord(p) && p.type === "input_text" && typeof p.text === "string") return { type: "text.done", text: p.text };
    if (isRecord(p) && p.type === "input_image" && typeof p.image_url === "string") {
      return { type: "image_url.done", image_url: p.image_url };
    }
    return refuse(where, `${where}: only input_text and input_image (with image_url) parts are supported.`);
  });
}
