// The Chat dialects of compatible servers (SPEC §9, issue #35), each written from the vendor's API
// reference, not from a recording: OpenRouter ("Reasoning Tokens": `reasoning` beside
// `reasoning_details` entries `reasoning.text` / `reasoning.summary` / `reasoning.encrypted` with
// `format` and `index`), Mistral (Magistral streams `content` as an array of `text` and `thinking`
// chunks), Groq (usage in `x_groq.usage`, a member of the last chunk beside `choices`). The texts,
// ids and signatures are made up.
import { sse } from "./captures-openai-chat.ts";

type Json = Record<string, unknown>;

/** An OpenRouter chunk: its generation id, the upstream provider's name, one choice. */
const routed = (model: string, delta: Json, finish_reason: string | null = null): Json => ({
  id: "gen-1767225600-abcdefghij",
  provider: model.startsWith("anthropic/") ? "Anthropic" : "OpenAI",
  model,
  object: "chat.completion.chunk",
  created: 1767225600,
  choices: [{ index: 0, delta, finish_reason, native_finish_reason: finish_reason }],
});
const routedUsage = (model: string, u: Json): Json => ({ ...routed(model, { role: "assistant", content: "" }), choices: [], usage: u });

const CLAUDE = "anthropic/claude-sonnet-4.5";
/** A Claude thinking block through OpenRouter: one `reasoning.text` entry (index 0) streamed in pieces, its signature on the last. */
const claudeText = (text: string, signature?: string): Json => ({ type: "reasoning.text", text, ...(signature ? { signature } : {}), format: "anthropic-claude-v1", index: 0 });
export const CLAUDE_SIGNATURE = "EqQBCkgIBxABGAIiQKq3q0X2bMadeUpSignatureForTheTestOnly";

/** Claude's reasoning with a tool call (OpenRouter: the entries must go back with the assistant message that called). */
export const OPENROUTER_CLAUDE_TOOL = sse([
  routed(CLAUDE, { role: "assistant", content: "", reasoning: "The user wants", reasoning_details: [claudeText("The user wants")] }),
  routed(CLAUDE, { role: "assistant", content: "", reasoning: " the weather.", reasoning_details: [claudeText(" the weather.")] }),
  routed(CLAUDE, { role: "assistant", content: "", reasoning: null, reasoning_details: [claudeText("", CLAUDE_SIGNATURE)] }),
  routed(CLAUDE, {
    role: "assistant",
    content: "",
    tool_calls: [{ index: 0, id: "toolu_01A", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
  }),
  routed(CLAUDE, { role: "assistant", content: "" }, "tool_calls"),
  routedUsage(CLAUDE, { prompt_tokens: 40, completion_tokens: 30, total_tokens: 70, completion_tokens_details: { reasoning_tokens: 12 } }),
]);

const GPT = "openai/gpt-5";
const summary = (text: string): Json => ({ type: "reasoning.summary", summary: text, format: "openai-responses-v1", index: 0 });
export const ENCRYPTED_DATA = "gAAAAABmadeUpEncryptedReasoningForTheTestOnly==";
const encrypted: Json = { type: "reasoning.encrypted", data: ENCRYPTED_DATA, id: "rs_0123456789abcdef", format: "openai-responses-v1", index: 0 };

/** An OpenAI reasoning model through OpenRouter: a summary streamed in pieces, then its encrypted reasoning, then the answer. */
export const OPENROUTER_SUMMARY_ENCRYPTED = sse([
  routed(GPT, { role: "assistant", content: "", reasoning: "**Adding**", reasoning_details: [summary("**Adding**")] }),
  routed(GPT, { role: "assistant", content: "", reasoning: "\n\n2 + 2 is 4.", reasoning_details: [summary("\n\n2 + 2 is 4.")] }),
  routed(GPT, { role: "assistant", content: "", reasoning: null, reasoning_details: [encrypted] }),
  routed(GPT, { role: "assistant", content: "4" }),
  routed(GPT, { role: "assistant", content: "" }, "stop"),
  routedUsage(GPT, { prompt_tokens: 20, completion_tokens: 140, total_tokens: 160, completion_tokens_details: { reasoning_tokens: 128 } }),
]);

/** Reasoning the provider keeps to itself: an encrypted entry alone, no text. */
export const OPENROUTER_ENCRYPTED_ONLY = sse([
  routed(GPT, { role: "assistant", content: "", reasoning: null, reasoning_details: [encrypted] }),
  routed(GPT, { role: "assistant", content: "Done." }),
  routed(GPT, { role: "assistant", content: "" }, "stop"),
  routedUsage(GPT, { prompt_tokens: 20, completion_tokens: 70, total_tokens: 90 }),
]);

/** Hostile entries: a `__proto__` member (JSON.parse makes it an own member) in the first piece and in its continuation. */
export const DETAILS_PROTO = [
  "data: " + JSON.stringify(routed(CLAUDE, { reasoning_details: [claudeText("a")] })).replace('"type":', '"__proto__":{"polluted":true},"type":'),
  "data: " + JSON.stringify(routed(CLAUDE, { reasoning_details: [claudeText("b", "sig")] })).replace('"type":', '"__proto__":{"again":1},"type":'),
  "data: " + JSON.stringify(routed(CLAUDE, { content: "ok" }, "stop")),
  "data: " + JSON.stringify(routedUsage(CLAUDE, { prompt_tokens: 1, completion_tokens: 1 })),
  "data: [DONE]",
].join("\n\n") + "\n\n";

/** A Mistral chunk (chat.completion.chunk; usage rides on the finishing chunk). */
const mistral = (delta: Json, finish_reason: string | null = null, usage?: Json): Json => ({
  id: "cmpl-0123456789abcdef",
  object: "chat.completion.chunk",
  created: 1767225600,
  model: "magistral-medium-latest",
  choices: [{ index: 0, delta, finish_reason, logprobs: null }],
  ...(usage ? { usage } : {}),
});
const think = (...texts: string[]): Json => ({ type: "thinking", thinking: texts.map((text) => ({ type: "text", text })) });

/** Magistral: `content` as chunks, thinking (its own text chunks) then the answer's text chunks, then plain strings. */
export const MISTRAL_THINKING = sse([
  mistral({ role: "assistant", content: "" }),
  mistral({ content: [think("Two plus ")] }),
  mistral({ content: [think("two", " is four.")] }),
  mistral({ content: [{ type: "text", text: "The answer" }] }),
  mistral({ content: [{ type: "reference", reference_ids: [1] }, { type: "text", text: " is 4" }] }),
  mistral({ content: "." }, "stop", { prompt_tokens: 10, completion_tokens: 22, total_tokens: 32 }),
]);

/** A Groq chunk: `x_groq` beside `choices` (its request id on the first chunk, with the usage on the last). */
const groq = (delta: Json, finish_reason: string | null = null, x_groq?: Json): Json => ({
  id: "chatcmpl-0123abcd",
  object: "chat.completion.chunk",
  created: 1767225600,
  model: "llama-3.3-70b-versatile",
  system_fingerprint: "fp_0123456789",
  choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  ...(x_groq ? { x_groq } : {}),
});

/** Groq: usage only in `x_groq.usage` of the finishing chunk (no `stream_options` usage chunk). */
export const GROQ_X_GROQ = sse([
  groq({ role: "assistant", content: "" }, null, { id: "req_01abc" }),
  groq({ content: "Hello" }),
  groq({}, "stop", {
    id: "req_01abc",
    usage: { queue_time: 0.02, prompt_tokens: 12, prompt_time: 0.001, completion_tokens: 2, completion_time: 0.004, total_tokens: 14, total_time: 0.005 },
  }),
]);

/** A request with `n: 2`: both choices' deltas interleave; only choice 0 is the answer. */
export const N_TWO_CHOICES = sse([
  groq({ role: "assistant", content: "" }),
  { ...groq({ content: "Red" }), choices: [{ index: 0, delta: { content: "Red" }, finish_reason: null }, { index: 1, delta: { content: "Blue" }, finish_reason: null }] },
  { ...groq({}), choices: [{ index: 1, delta: { content: " sky" }, finish_reason: null }] },
  { ...groq({}), choices: [{ index: 1, delta: {}, finish_reason: "length" }] },
  groq({ content: " rose" }, "stop"),
  { ...groq({}), choices: [], usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 } },
]);
