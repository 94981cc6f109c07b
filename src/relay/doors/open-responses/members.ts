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
  // (a hint; providers cache by prefix on their own)
  prompt_cache_key: kind("prompt_cache_key", text, "a string"),
  parallel_tool_calls: either(
    "parallel_tool_calls",
    [true],
    "the providers may call several tools at once (leave it out or send true; tool_choice limits which)",
  ),
  truncation: either("truncation", ["disabled"], 'send "disabled" (the relay never drops input: a request too long is refused)'),
  service_tier: either("service_tier", ["auto", "default"], 'send "auto" or "default" (a faster tier is the models row\'s `fast_mode`)'),
  top_logprobs: either("top_logprobs", [0], "log probabilities are not offered (send 0 or leave it out)"),
  background: either("background", [false], "the relay answers in the foreground (stream: true, then GET /v1/responses/<id> resumes)"),
  presence_penalty: either("presence_penalty", [0], "penalties are not offered by every provider (send 0 or leave it out)"),
  frequency_penalty: either("frequency_penalty", [0], "penalties are not offered by every provider (send 0 or leave it out)"),
  max_tool_calls: () =>
    "max_tool_calls is not supported: a response is one model turn (its tool calls come back to the client, which decides).",
};

/** The members request.ts maps onto MMSP's request (each checked and refused by name there). */
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
]);

/** The refusal's message of member `key` of the request (undefined: accepted or mapped). */
export function memberRefusal(key: string, value: unknown): string | undefined {
  if (value === null || value === undefined || MAPPED.has(key)) return undefined;
  const check = Object.prototype.hasOwnProperty.call(ACCEPTED, key) ? ACCEPTED[key] : undefined;
  if (check) return check(value);
  return `'${key.slice(0, 64)}' is not supported by this relay (the Open Responses guide lists every member it serves).`;
}

/** The `include` values a request may carry, what each asks (the stored-response and sealing hooks read it). */
export interface Included {
  /** `reasoning.encrypted_content`: reasoning items carry what their provider needs back, sealed (SPEC §9). */
  encryptedReasoning: boolean;
}

/** `include` → what it asks, or the refusal's message. */
export function includeOf(value: unknown): Included | string {
  const included: Included = { encryptedReasoning: false };
  if (value === null || value === undefined) return included;
  if (!Array.isArray(value)) return "include must be an array.";
  for (const entry of value) {
    if (entry === "reasoning.encrypted_content") included.encryptedReasoning = true;
    else {return `include: ${
        JSON.stringify(entry)?.slice(0, 64)
      } is not supported (the relay can include reasoning.encrypted_content only).`;}
  }
  return included;
}
