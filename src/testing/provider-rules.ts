/**
 * What each provider's API refuses in a request's history (SPEC §9 "Where each item came from"), so
 * that a fake provider refuses it too, with the 400 the real API answers: a thinking block whose
 * signature the provider never issued (or none where it requires one), a tool result without its
 * call, duplicate or malformed tool ids, a Responses reasoning item without `encrypted_content` under
 * `store: false`, a Gemini `functionResponse` without a name or a current-turn call without its
 * signature, a Chat `reasoning_details` entry whose `signature` or `data` a compatible server never
 * issued (OpenRouter hands them to the model's own API, which refuses another's). "Issued" means:
 * found in one of the fake's own captures (what it would have sent). And Anthropic's thinking rules
 * (its extended- and adaptive-thinking guides, by the model's name: providers/anthropic/models.ts):
 * `adaptive` on a Claude before 4.6, `enabled` on Claude 4.7 and later, a `budget_tokens` missing,
 * below 1,024 or not below `max_tokens`, and with thinking on, a last assistant turn that calls tools
 * without beginning with its thinking block; Gemini's: a current-turn call without its signature
 * (Gemini 3 and later: 2.x takes it).
 */
import { isRecord } from "../internal/values.js";
import { claudeVersion, MIN_BUDGET_TOKENS, refusesEnabled } from "../providers/anthropic/models.js";
import type { Capture } from "./capture.js";
import type { ProviderName } from "./routes.js";
import { formatRules } from "./format-rules.js";
import { memberRules } from "./member-rules.js";

/** A request refused: the message the provider's 400 carries (`model`: the one the request names, in its URL or body). */
export type RuleCheck = (body: Record<string, unknown>, model?: string) => string | undefined;

type Json = Record<string, unknown>;

/** Google's placeholder for a call it did not make (its thought-signatures guide). */
const GEMINI_PLACEHOLDER = "skip_thought_signature_validator";
/** Anthropic's tool id pattern (its 400 quotes it). */
const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
/** OpenAI's longest tool-call id. */
const OPENAI_ID_MAX = 40;

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const records = (v: unknown): Json[] => list(v).filter(isRecord);

/** Whether `value` is something the fake issued: a non-empty string found in its captures' text. */
function issuedBy(texts: string[]): (value: unknown) => boolean {
  return (value) => {
    if (typeof value !== "string" || value === "") return false;
    const escaped = JSON.stringify(value).slice(1, -1);
    return texts.some((t) => t.includes(value) || t.includes(escaped));
  };
}

/** The check of `provider`'s history rules, knowing what its captures issued. */
export function providerRules(provider: ProviderName, captures: Capture[]): RuleCheck {
  const decoder = new TextDecoder();
  const issued = issuedBy(captures.map((c) => decoder.decode(c.body)));
  const history = ((): RuleCheck => {
    switch (provider) {
      case "anthropic":
        return (body) => thinkingRules(body) ?? anthropicRules(body, issued);
      case "openai-chat":
        return (body) => chatRules(body, issued);
      case "openai-responses":
        return (body) => responsesRules(body, issued);
      case "gemini":
        return (body, model) => geminiRules(body, issued, model);
    }
  })();
  // (structured output's settings: format-rules.ts; tool and cache settings: member-rules.ts)
  return (body, model) => formatRules(provider, body) ?? memberRules(provider, body) ?? history(body, model);
}

/** Anthropic's extended-thinking guide, where its 400s send a reader. */
const THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/** Anthropic's thinking settings for the model the body names, and the tool-use turn thinking needs (its 400s' messages). */
function thinkingRules(body: Json): string | undefined {
  const thinking = body.thinking;
  if (!isRecord(thinking) || (thinking.type !== "adaptive" && thinking.type !== "enabled")) return undefined;
  const model = typeof body.model === "string" ? body.model : "";
  const version = claudeVersion(model);
  if (thinking.type === "adaptive" && version && (version[0] < 4 || (version[0] === 4 && version[1] < 6))) {
    return "adaptive thinking is not supported on this model";
  }
  if (thinking.type === "enabled") {
    if (refusesEnabled(model)) {
      return '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.';
    }
    const budget = thinking.budget_tokens;
    if (budget === undefined) return "thinking.enabled.budget_tokens: Field required";
    if (typeof budget !== "number" || !Number.isInteger(budget)) return "thinking.enabled.budget_tokens: Input should be a valid integer";
    if (budget < MIN_BUDGET_TOKENS) return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_BUDGET_TOKENS}`;
    if (typeof body.max_tokens === "number" && body.max_tokens <= budget) {
      return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}#max-tokens-and-context-window-size`;
    }
  }
  const messages = list(body.messages);
  for (let n = messages.length - 1; n >= 0; n--) {
    const message = messages[n];
    if (!isRecord(message) || message.role !== "assistant") continue;
    const blocks = records(message.content);
    const first = blocks[0]?.type;
    if (blocks.some((b) => b.type === "tool_use") && first !== "thinking" && first !== "redacted_thinking") {
      return `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${
        String(first)
      }\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`;
    }
    break;
  }
  return undefined;
}

function anthropicRules(body: Json, issued: (v: unknown) => boolean): string | undefined {
  const seen = new Set<string>();
  let previous = new Set<string>();
  const messages = list(body.messages);
  for (let n = 0; n < messages.length; n++) {
    const message = messages[n];
    const blocks = isRecord(message) ? list(message.content) : [];
    const calls = new Set<string>();
    for (let m = 0; m < blocks.length; m++) {
      const b = blocks[m];
      if (!isRecord(b)) continue;
      const at = `messages.${n}.content.${m}`;
      if (b.type === "tool_use") {
        const id = b.id;
        if (typeof id !== "string" || !ANTHROPIC_ID.test(id)) return `${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        if (seen.has(id)) return `${at}: \`tool_use\` ids must be unique`;
        seen.add(id);
        calls.add(id);
      } else if (b.type === "tool_result") {
        if (typeof b.tool_use_id !== "string" || !previous.has(b.tool_use_id)) {
          return `${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${
            String(b.tool_use_id)
          }. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      } else if (b.type === "thinking") {
        if (b.signature === undefined) return `${at}.thinking.signature: Field required`;
        if (!issued(b.signature)) return `${at}: Invalid \`signature\` in \`thinking\` block`;
      } else if (b.type === "redacted_thinking") {
        if (!issued(b.data)) return `${at}: Invalid \`data\` in \`redacted_thinking\` block`;
      }
    }
    previous = calls;
  }
  return undefined;
}

/** The members of a `reasoning_details` entry only its maker can verify (OpenRouter's `reasoning.text` / `reasoning.encrypted`). */
const DETAIL_BOUND = ["signature", "data"] as const;

function chatRules(body: Json, issued: (v: unknown) => boolean): string | undefined {
  const calls = new Set<string>();
  const messages = list(body.messages);
  for (let n = 0; n < messages.length; n++) {
    const message = messages[n];
    if (!isRecord(message)) continue;
    const toolCalls = list(message.tool_calls);
    for (let m = 0; m < toolCalls.length; m++) {
      const id = isRecord(toolCalls[m]) ? (toolCalls[m] as Json).id : undefined;
      if (typeof id === "string" && id.length > OPENAI_ID_MAX) {
        return `Invalid 'messages[${n}].tool_calls[${m}].id': string too long. Expected a string with maximum length ${OPENAI_ID_MAX}, but got a string with length ${id.length} instead.`;
      }
      if (typeof id === "string") calls.add(id);
    }
    const details = list(message.reasoning_details);
    for (let m = 0; m < details.length; m++) {
      const entry = details[m];
      const key = isRecord(entry) ? DETAIL_BOUND.find((k) => entry[k] != null && !issued(entry[k])) : undefined;
      if (key !== undefined) {
        return `Invalid 'messages[${n}].reasoning_details[${m}].${key}': it was not issued for this conversation's model.`;
      }
    }
    if (message.role === "tool" && (typeof message.tool_call_id !== "string" || !calls.has(message.tool_call_id))) {
      return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
    }
    if (message.role === "assistant") {
      const part = records(message.content).find((p) => p.type !== "text" && p.type !== "refusal");
      if (part) return `Invalid value: '${String(part.type)}'. Supported values are: 'text' and 'refusal'.`;
    }
  }
  return undefined;
}

function responsesRules(body: Json, issued: (v: unknown) => boolean): string | undefined {
  const calls = new Set<string>();
  const input = list(body.input);
  for (let n = 0; n < input.length; n++) {
    const item = input[n];
    if (!isRecord(item)) continue;
    if (item.type === "function_call") {
      if (typeof item.call_id === "string" && item.call_id.length > OPENAI_ID_MAX) {
        return `Invalid 'input[${n}].call_id': string too long. Expected a string with maximum length ${OPENAI_ID_MAX}, but got a string with length ${item.call_id.length} instead.`;
      }
      calls.add(String(item.call_id));
    } else if (item.type === "function_call_output") {
      if (!calls.has(String(item.call_id))) return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
    } else if (item.type === "reasoning" && body.store !== true) {
      if (item.encrypted_content == null) {
        return `Invalid 'input[${n}]': a reasoning item sent with store: false must carry its encrypted_content (include 'reasoning.encrypted_content').`;
      }
      if (!issued(item.encrypted_content)) return `The encrypted content of 'input[${n}]' could not be verified.`;
    }
  }
  return undefined;
}

/** Whether a Gemini model is one of the 1.x or 2.x generations, which take a call without its signature. */
const signatureOptional = (model: string | undefined): boolean => /gemini-[12](?:\b|\.)/.test(model ?? "");

function geminiRules(body: Json, issued: (v: unknown) => boolean, model?: string): string | undefined {
  const contents = list(body.contents);
  // the current turn begins after the last user content that is not only function responses
  let turn = 0;
  contents.forEach((c, n) => {
    if (isRecord(c) && c.role === "user" && records(c.parts).some((p) => p.functionResponse === undefined)) turn = n + 1;
  });
  for (let n = 0; n < contents.length; n++) {
    const content = contents[n];
    if (!isRecord(content)) continue;
    const parts = records(content.parts);
    let firstCall = true;
    for (let m = 0; m < parts.length; m++) {
      const p = parts[m]!;
      const at = `GenerateContentRequest.contents[${n}].parts[${m}]`;
      const signature = p.thoughtSignature;
      if (signature !== undefined && signature !== GEMINI_PLACEHOLDER && !issued(signature)) {
        return `* ${at}.thought_signature: Thought signature is not valid.`;
      }
      if (isRecord(p.functionResponse) && (typeof p.functionResponse.name !== "string" || p.functionResponse.name === "")) {
        return `* ${at}.function_response.name: Name cannot be empty.`;
      }
      if (isRecord(p.functionCall)) {
        if (firstCall && n >= turn && signature === undefined && !signatureOptional(model)) {
          return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${
            String(p.functionCall.name)
          }\` , position ${m + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
        }
        firstCall = false;
      }
    }
  }
  return undefined;
}
