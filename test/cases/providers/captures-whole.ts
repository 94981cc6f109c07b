// Whole answers that lack usage or a finish reason, and 2xx bodies that are no stream of the provider
// read (issue #35, SPEC §9). Each stream is written from its provider's API reference, in the shapes
// the other capture files use (the Chat chunk, the Messages events, the Responses events, Gemini's
// GenerateContentResponse), with the member the case is about left out, as the servers named leave it.

type Json = Record<string, unknown>;

const chatSse = (chunks: Json[], done = true): string =>
  chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");
const chatChunk = (delta: Json, finish_reason: string | null = null, extra: Json = {}): Json => ({
  id: "chatcmpl-9",
  object: "chat.completion.chunk",
  created: 1694268190,
  model: "some-compatible-model",
  choices: [{ index: 0, delta, finish_reason }],
  ...extra,
});
const CHAT_USAGE = { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 };

/** A compatible Chat server that sends content, usage and `[DONE]`, never a `finish_reason`. */
export const CHAT_NO_FINISH = chatSse([
  chatChunk({ role: "assistant", content: "" }),
  chatChunk({ content: "Hi" }),
  { id: "chatcmpl-9", object: "chat.completion.chunk", created: 1694268190, model: "some-compatible-model", choices: [], usage: CHAT_USAGE },
]);

/** A Chat server without stream_options support: a finish reason, no usage, no `[DONE]` (the body just ends). */
export const CHAT_NO_USAGE_NO_DONE = chatSse([chatChunk({ role: "assistant", content: "" }), chatChunk({ content: "Hi" }), chatChunk({}, "stop")], false);

const antSse = (events: Json[]): string => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
const antStart = (usage?: Json): Json => ({
  type: "message_start",
  message: { id: "msg_01", type: "message", role: "assistant", content: [], model: "claude-sonnet-4-5", stop_reason: null, ...(usage ? { usage } : {}) },
});
const antText = (t: string): Json[] => [
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: t } },
  { type: "content_block_stop", index: 0 },
];

/** A Messages-compatible gateway that reports no usage at all (message_start and message_delta without it). */
export const ANT_NO_USAGE = antSse([
  antStart(),
  ...antText("Hi"),
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null } },
  { type: "message_stop" },
]);

/** A Messages stream whose message_delta never came: message_stop ends it with usage but no stop_reason. */
export const ANT_NO_FINISH = antSse([antStart({ input_tokens: 9, output_tokens: 1 }), ...antText("Hi"), { type: "message_stop" }]);

const respSse = (events: Json[]): string =>
  events.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join("");
const respResponse = (status: string, usage: Json | null): Json => ({
  id: "resp_9",
  object: "response",
  created_at: 1741476542,
  status,
  error: null,
  incomplete_details: null,
  model: "gpt-5.1",
  output: [],
  usage,
});

/** A Responses-compatible server whose response.completed carries `usage: null`. */
export const RESP_NO_USAGE = respSse([
  { type: "response.created", response: respResponse("in_progress", null) },
  { type: "response.output_item.added", output_index: 0, item: { id: "msg_9", type: "message", status: "in_progress", role: "assistant", content: [] } },
  { type: "response.output_text.delta", item_id: "msg_9", output_index: 0, content_index: 0, delta: "Hi" },
  { type: "response.completed", response: respResponse("completed", null) },
]);

const gemSse = (...chunks: Json[]): string => chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join("");
const gemChunk = (parts: Json[], candidate: Json = {}): Json => ({
  candidates: [{ content: { parts, role: "model" }, index: 0, ...candidate }],
  modelVersion: "gemini-1.5-flash",
});

/** A Gemini answer of the 2024 API: no usageMetadata on any chunk, a finishReason on the last. */
export const GEM_NO_USAGE = gemSse(gemChunk([{ text: "The sky" }]), gemChunk([{ text: " is blue." }], { finishReason: "STOP" }));

/** A blocked prompt with no candidates and no usage: the block reason is all there is. */
export const GEM_BLOCKED_NO_USAGE = gemSse({ promptFeedback: { blockReason: "SAFETY" }, modelVersion: "gemini-1.5-flash" });

/** The same answers as each provider writes it (a whole, ordinary stream), to read as another provider's. */
export const STREAMS = {
  "openai-chat": CHAT_NO_FINISH,
  anthropic: ANT_NO_FINISH,
  "openai-responses": RESP_NO_USAGE,
  gemini: GEM_NO_USAGE,
} as const;

/** MMSP's own stream (SSE UniEvents). */
export const MMSP_STREAM = [
  { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
  { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
  {
    role: "assistant",
    event_type: "stop",
    content_items: [],
    usage_metadata: { cached_tokens: null, prompt_tokens: 1, thoughts_tokens: null, response_tokens: 1 },
    finish_reason: "stop",
  },
].map((e) => `data: ${JSON.stringify(e)}\n\n`).join("") + "data: [DONE]\n\n";

/** A proxy's HTML page answered with 200. */
export const HTML_PAGE = '<!DOCTYPE html>\n<html><head><title>Sign in &amp; Corporate Proxy</title></head><body><form action="/login"></form></body></html>\n';

/** Each provider's own error document (the shape its refusals have), sent whole with a 200. */
export const ERROR_DOCUMENTS = {
  "openai-chat": { error: { message: "You exceeded your current quota.", type: "insufficient_quota", param: null, code: "insufficient_quota" } },
  "openai-responses": { error: { message: "The model `gpt-9` does not exist.", type: "invalid_request_error", param: "model", code: "model_not_found" } },
  anthropic: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  gemini: { error: { code: 429, message: "Resource has been exhausted (e.g. check quota).", status: "RESOURCE_EXHAUSTED" } },
} as const;

/** A whole JSON document that is no error (a non-streaming answer, the request lacked `stream: true`). */
export const CHAT_COMPLETION_DOCUMENT = JSON.stringify({
  id: "chatcmpl-9",
  object: "chat.completion",
  created: 1694268190,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
  usage: CHAT_USAGE,
});
