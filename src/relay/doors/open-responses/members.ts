// The Open Responses door: SPEC §10 "Doors: the APIs a client speaks" — every member of a request, classified.
//
// Real clients send their defaults on every call (the Agents SDK `include: []`, LangChain `text: {}`,
// Codex `prompt_cache_key` and `client_metadata`…). The rule, member by member of the spec's
// `CreateResponseBody` (OpenAPI 2026-04-24) and of the clients' requests beyond it: a member that
// asks for nothing is accepted; one that asks for what the relay can do is done (request.ts maps
// it); only one it cannot do is refused, by name (`param`), saying what to send instead. The Open
// Responses guide's member table is this one (docs/guide/open-responses.md).
import { isRecord } from "../../../internal/values.js";

/** A member's value → the refusal's message, or undefined when it asks for nothing the relay cannot do. */
type Check = (value: unknown) => string | undefined;

const either = (member: string, ok: readonly unknown[], say: string): Check => (value) =>
  ok.includes(value) ? undefined : `${member}: ${JSON.stringify(value)?.slice(0, 64)} is not supported; ${say}.`;

const kind = (member: string, test: (v: unknown) => boolean, what: string): Check => (value) =>
  test(value) ? undefined : `${member} must be ${what}.`;

const text = (v: unknown): boolean => typeof v === "string";

/**
 * The members the relay accepts without asking anything of the provider (their value checked: a
 * value that would ask for something is refused by name). A null value of any member is absent.
 */
export const ACCEPTED: Readonly<Record<string, Check>> = {
  // (the resource echoes it; the relay attaches nothing to anything)
  metadata: kind("metadata", isRecord, "an object of strings"),
  // (the relay pads no event: there is nothing to obfuscate)
  stream_options: kind("stream_options", isRecord, "an object"),
  // (end-user identifiers for OpenAI's abuse monitoring; the relay's principal is its own)
  safety_identifier: kind("safety_identifier", text, "a string"),
  user: kind("user", text, "a string"),
  // (Codex's: about the client, not the model)
  client_metadata: kind("client_metadata", isRecord, "an object"),
  truncation: either("truncation", ["disabled"], 'send "disabled" (the relay never drops input: a request too long is refused)'),
  service_tier: either("service_tier", ["auto", "default"], 'send "auto" or "default" (a faster tier is the models row\'s `fast_mode`)'),
  top_logprobs: either("top_logprobs", [0], "log probabilities are not offered (send 0 or leave it out)"),
  background: either("background", [false], "the relay answers in the foreground (stream: true, then GET /v1/responses/<id> resumes)"),
  presence_penalty: either("presence_penalty", [0], "penalties are not offered by every provider (send 0 or leave it out)"),
  frequency_penalty: either("frequency_penalty", [0], "penalties are not offered by every provider (send 0 or leave it out)"),
  max_tool_calls: () =>
    "max_tool_calls is not supported: a response is one model turn (its tool calls come back to the client, which decides).",
};

/**
 * The members request.ts maps onto MMSP's request (each checked and refused by name there); `include`,
 * `store` and `previous_response_id` are the door's state (state.ts takes them out first).
 */
export const MAPPED: ReadonlySet<string> = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "max_output_tokens",
  "reasoning",
  "stream",
  "temperature",
  "top_p",
  "text",
  "include",
  "store",
  "previous_response_id",
  "prompt_cache_key",
  "parallel_tool_calls",
]);

/** The refusal's message of member `key` of the request (undefined: accepted or mapped). */
export function memberRefusal(key: string, value: unknown): string | undefined {
  if (value === null || value === undefined || MAPPED.has(key)) return undefined;
  const check = Object.prototype.hasOwnProperty.call(ACCEPTED, key) ? ACCEPTED[key] : undefined;
  if (check) return check(value);
  return `'${key.slice(0, 64)}' is not supported by this relay (the Open Responses guide lists every member it serves).`;
}

/**
 * The `include` values the relay serves (the one list: state.ts takes `include` out of a request):
 * `reasoning.encrypted_content` asks that reasoning items carry their provider's data, sealed (SPEC §9);
 * the hosted tools' outputs are accepted and never occur (the relay runs no hosted tool).
 */
const INCLUDE: readonly string[] = [
  "reasoning.encrypted_content",
  "web_search_call.action.sources",
  "web_search_call.results",
  "file_search_call.results",
  "code_interpreter_call.outputs",
  "computer_call_output.output.image_url",
  "message.input_image.image_url",
];

/** What `include` asks, or its refusal (`param` naming the member or the entry). */
export type Included = { encryptedReasoning: boolean } | { param: string; message: string };

/** `include` (absent, or an array of INCLUDE's values) → what it asks, or the refusal naming the entry. */
export function includeOf(value: unknown): Included {
  if (value === null || value === undefined) return { encryptedReasoning: false };
  if (!Array.isArray(value)) return { param: "include", message: "include must be an array of strings." };
  const at = value.findIndex((entry) => typeof entry !== "string" || !INCLUDE.includes(entry));
  if (at >= 0) {
    const shown = String(value[at]).slice(0, 64);
    return {
      param: `include[${at}]`,
      message: `include[${at}]: '${shown}' is not supported by this relay (it includes ${INCLUDE.join(", ")}).`,
    };
  }
  return { encryptedReasoning: value.includes("reasoning.encrypted_content") };
}
