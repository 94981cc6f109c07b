// OpenAI Chat Completions streams, written from the API reference ("The chat completion chunk
// object", streaming with `stream_options.include_usage`) and the chunk shapes of openai-node's
// ChatCompletionStream tests (tool_calls deltas keyed by `index`). Each is the body a `stream: true`
// request answers: `data: <chunk>` messages, then `data: [DONE]`.

type Json = Record<string, unknown>;

/** The API's SSE framing: `data: <json>` and a blank line; `[DONE]` at the end unless `done` is false. */
export const sse = (chunks: Json[], done = true): string => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");

const chunk = (delta: Json, finish_reason: string | null = null): Json => ({
  id: "chatcmpl-123",
  object: "chat.completion.chunk",
  created: 1694268190,
  model: "gpt-4o-mini",
  system_fingerprint: "fp_44709d6fcb",
  choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  usage: null,
});
const usage = (u: Json): Json => ({ id: "chatcmpl-123", object: "chat.completion.chunk", created: 1694268190, model: "gpt-4o-mini", choices: [], usage: u });
const call = (index: number, fields: Json): Json => chunk({ tool_calls: [{ index, ...fields }] });

const USAGE = {
  prompt_tokens: 19,
  completion_tokens: 10,
  total_tokens: 29,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
};

/** The reference's streaming example: the role, two pieces of content, the finish, the usage chunk. */
export const TEXT = sse([
  chunk({ role: "assistant", content: "", refusal: null }),
  chunk({ content: "Hello" }),
  chunk({ content: " there!" }),
  chunk({}, "stop"),
  usage(USAGE),
]);

/** Two parallel calls whose argument deltas interleave by `tool_calls[].index` (maximhq/bifrost #1829, MMSP ignores the index). */
export const PARALLEL_TOOLS_INTERLEAVED = sse([
  chunk({ role: "assistant", content: null }),
  call(0, { id: "call_aaa", type: "function", function: { name: "get_weather", arguments: "" } }),
  call(1, { id: "call_bbb", type: "function", function: { name: "get_time", arguments: "" } }),
  call(0, { function: { arguments: '{"city": ' } }),
  call(1, { function: { arguments: '{"tz": ' } }),
  call(1, { function: { arguments: '"Europe/Paris"}' } }),
  call(0, { function: { arguments: '"Paris"}' } }),
  chunk({}, "tool_calls"),
  usage({ ...USAGE, completion_tokens: 40 }),
]);

/** The calls sent in the opposite index order, several in one chunk: still written 0 then 1. */
export const PARALLEL_TOOLS_ONE_CHUNK = sse([
  chunk({
    tool_calls: [
      { index: 1, id: "call_2", type: "function", function: { name: "b", arguments: '{"y":' } },
      { index: 0, id: "call_1", type: "function", function: { name: "a", arguments: '{"x":' } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }, { index: 1, function: { arguments: "2}" } }] }),
  chunk({}, "tool_calls"),
  usage(USAGE),
]);

/** A compatible server that sends no `index` (each call's first fragment names it; the rest continue the last) and repeats the header. */
export const TOOLS_WITHOUT_INDEX = sse([
  chunk({ tool_calls: [{ id: "call_x", type: "function", function: { name: "first", arguments: '{"a":' } }] }),
  chunk({ tool_calls: [{ function: { arguments: "1}" } }] }),
  chunk({ tool_calls: [{ id: "call_y", type: "function", function: { name: "second", arguments: "" } }] }),
  chunk({ tool_calls: [{ id: "call_y", function: { name: "second", arguments: '{"b":2}' } }] }),
  chunk({}, "tool_calls"),
  usage(USAGE),
]);

/** Both reasoning spellings in one delta (a server that sends both): the thinking is kept, no field recorded, as MMSP does. */
export const REASONING_BOTH_FIELDS = sse([
  chunk({ role: "assistant", reasoning_content: "Same thought.", reasoning: "Same thought." }),
  chunk({ content: "Ok." }),
  chunk({}, "stop"),
  usage(USAGE),
]);

/** vLLM / DeepSeek reasoning (`reasoning_content`) then the answer; cached and reasoning tokens counted. */
export const REASONING_CONTENT = sse([
  chunk({ role: "assistant", content: "", reasoning_content: "The user greets" }),
  chunk({ reasoning_content: " me." }),
  chunk({ reasoning_content: null, content: "Hi!" }),
  chunk({}, "stop"),
  usage({
    prompt_tokens: 1200,
    completion_tokens: 30,
    prompt_tokens_details: { cached_tokens: 1024 },
    completion_tokens_details: { reasoning_tokens: 25 },
  }),
]);

/** OpenRouter's spelling (`reasoning`). */
export const REASONING = sse([
  chunk({ role: "assistant", content: "", reasoning: "Short thought." }),
  chunk({ content: "Answer." }),
  chunk({}, "stop"),
  usage(USAGE),
]);

/** A refusal streamed in `delta.refusal` (structured outputs): it is the answer's text. */
export const REFUSAL = sse([
  chunk({ role: "assistant", content: null, refusal: "" }),
  chunk({ refusal: "I'm sorry, " }),
  chunk({ refusal: "I cannot help with that." }),
  chunk({}, "stop"),
  usage(USAGE),
]);

/** An error chunk in a 200 stream after some content (what the API and gateways send on a failure mid-stream). */
export const ERROR_MID_STREAM = sse([
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Partial" }),
  { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } },
], false);

/** A connection cut inside the tool calls: neither finish_reason nor [DONE]. */
export const TRUNCATED = sse([
  chunk({ role: "assistant", content: "Let me look." }),
  call(0, { id: "call_c", type: "function", function: { name: "lookup", arguments: '{"q": "a' } }),
], false);

/** The finish and the usage came, but not [DONE]. */
export const NO_DONE = sse([chunk({ content: "Hi" }), chunk({}, "stop"), usage(USAGE)], false);

/** Arguments cut by max tokens (`finish_reason: "length"`). */
export const TOOL_CUT_BY_LENGTH = sse([
  call(0, { id: "call_d", type: "function", function: { name: "write_file", arguments: '{"path": "a.txt", "content": "lor' } }),
  chunk({}, "length"),
  usage(USAGE),
]);

/** A call of a tool without parameters: its arguments are the empty string. */
export const TOOL_NO_ARGS = sse([
  call(0, { id: "call_e", type: "function", function: { name: "get_time", arguments: "" } }),
  chunk({}, "tool_calls"),
  usage(USAGE),
]);

/** A request made without `stream_options.include_usage`: no usage chunk. */
export const NO_USAGE = sse([chunk({ content: "Hi" }), chunk({}, "stop")]);

/** A content filter stop (mapped to stop, as MMSP does). */
export const CONTENT_FILTER = sse([chunk({ content: "Once upon" }), chunk({}, "content_filter"), usage(USAGE)]);

/** A refused request's bodies (the API's error shape), by status. */
export const REFUSALS = {
  400: { error: { message: "Unrecognized request argument supplied: top_k", type: "invalid_request_error", param: null, code: null } },
  401: { error: { message: "Incorrect API key provided: sk-proj-secret. You can find your API key at https://platform.openai.com/account/api-keys.", type: "invalid_request_error", param: null, code: "invalid_api_key" } },
  404: { error: { message: "The model `gpt-nope` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" } },
  429: { error: { message: "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.", type: "requests", param: null, code: "rate_limit_exceeded" } },
};
