// OpenAI Responses streams (`POST /v1/responses`, `stream: true`), written from the API reference's
// streaming events and openai-node's own ResponseStream test events (tests/lib/ResponseStream.test.ts):
// one `event:` + `data:` SSE message per event, as the API sends them. Ids, texts and counts are ours.

type Event = { type: string; [member: string]: unknown };

/** The SSE body of `events`, as the Responses API frames them. */
const sse = (...events: Event[]): string => events.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join("");

const response = (status: string, extra: Record<string, unknown> = {}) => ({
  id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
  object: "response",
  created_at: 1741476542,
  status,
  error: null,
  incomplete_details: null,
  model: "gpt-5.1-2025-11-13",
  output: [],
  parallel_tool_calls: true,
  tools: [],
  usage: null,
  ...extra,
});

const usage = (input: number, cached: number, output: number, reasoning: number) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: reasoning },
  total_tokens: input + output,
});

const created = { type: "response.created", response: response("in_progress") };
const inProgress = { type: "response.in_progress", response: response("in_progress") };
const completed = (u = usage(36, 4, 87, 0)) => ({ type: "response.completed", response: response("completed", { usage: u }) });

const message = (id: string, index: number, deltas: string[], extra: Record<string, unknown> = {}): Event[] => [
  { type: "response.output_item.added", output_index: index, item: { id, type: "message", status: "in_progress", role: "assistant", content: [], ...extra } },
  { type: "response.content_part.added", item_id: id, output_index: index, content_index: 0, part: { type: "output_text", annotations: [], text: "" } },
  ...deltas.map((delta) => ({ type: "response.output_text.delta", item_id: id, output_index: index, content_index: 0, delta, logprobs: [] })),
  { type: "response.output_text.done", item_id: id, output_index: index, content_index: 0, text: deltas.join(""), logprobs: [] },
  { type: "response.content_part.done", item_id: id, output_index: index, content_index: 0, part: { type: "output_text", annotations: [], text: deltas.join("") } },
  {
    type: "response.output_item.done",
    output_index: index,
    item: { id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", annotations: [], text: deltas.join("") }], ...extra },
  },
];

const call = (id: string, callId: string, name: string, index: number, deltas: string[]): Event[] => [
  { type: "response.output_item.added", output_index: index, item: { id, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name } },
  ...deltas.map((delta) => ({ type: "response.function_call_arguments.delta", item_id: id, output_index: index, delta })),
  { type: "response.function_call_arguments.done", item_id: id, output_index: index, arguments: deltas.join("") },
  { type: "response.output_item.done", output_index: index, item: { id, type: "function_call", status: "completed", arguments: deltas.join(""), call_id: callId, name } },
];

/** A plain text answer: usage with cached input. */
export const TEXT = sse(created, inProgress, ...message("msg_1", 0, ["Hi", " there", "!"]), completed());

/** The encrypted reasoning of a reasoning item with two summaries (vercel/ai #14843 lost it). */
export const ENCRYPTED = "gAAAAABoISQ24OyVRYbkYfukuA2Zv0EyLKhjmYJ0ao3BaU+lTsEkcFbA/6jKpTBO/D7Ymdp1mObTdZ+Pzhno4pQ==";

/** A reasoning item with two summaries and its encrypted content, then the answer. */
export const REASONING_SUMMARIES = sse(
  created,
  { type: "response.output_item.added", output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } },
  { type: "response.reasoning_summary_part.added", item_id: "rs_1", output_index: 0, summary_index: 0, part: { type: "summary_text", text: "" } },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_1", output_index: 0, summary_index: 0, delta: "**Reading the question**" },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_1", output_index: 0, summary_index: 0, delta: "\n\nThe user asks for a sum." },
  { type: "response.reasoning_summary_text.done", item_id: "rs_1", output_index: 0, summary_index: 0, text: "**Reading the question**\n\nThe user asks for a sum." },
  { type: "response.reasoning_summary_part.done", item_id: "rs_1", output_index: 0, summary_index: 0, part: { type: "summary_text", text: "…" } },
  { type: "response.reasoning_summary_part.added", item_id: "rs_1", output_index: 0, summary_index: 1, part: { type: "summary_text", text: "" } },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_1", output_index: 0, summary_index: 1, delta: "**Adding**\n\n2 + 2 is 4." },
  { type: "response.reasoning_summary_text.done", item_id: "rs_1", output_index: 0, summary_index: 1, text: "**Adding**\n\n2 + 2 is 4." },
  {
    type: "response.output_item.done",
    output_index: 0,
    item: {
      id: "rs_1",
      type: "reasoning",
      encrypted_content: ENCRYPTED,
      summary: [
        { type: "summary_text", text: "**Reading the question**\n\nThe user asks for a sum." },
        { type: "summary_text", text: "**Adding**\n\n2 + 2 is 4." },
      ],
    },
  },
  ...message("msg_2", 1, ["4"]),
  completed(usage(20, 0, 140, 128)),
);

/** Two function calls one after the other: the turn finishes `tool_call` (MMSP writes stop). */
export const FUNCTION_CALLS = sse(
  created,
  ...call("fc_1", "call_a", "get_weather", 0, ['{"lo', 'cation":', '"Paris"}']),
  ...call("fc_2", "call_b", "get_time", 1, ['{"tz":"CET"}']),
  completed(usage(80, 0, 30, 0)),
);

/** A call with no arguments at all. */
export const CALL_NO_ARGUMENTS = sse(created, ...call("fc_1", "call_a", "now", 0, []), completed(usage(10, 0, 5, 0)));

/** A refusal part: the answer's text (SPEC §9). */
export const REFUSAL = sse(
  created,
  { type: "response.output_item.added", output_index: 0, item: { id: "msg_r", type: "message", status: "in_progress", role: "assistant", content: [] } },
  { type: "response.content_part.added", item_id: "msg_r", output_index: 0, content_index: 0, part: { type: "refusal", refusal: "" } },
  { type: "response.refusal.delta", item_id: "msg_r", output_index: 0, content_index: 0, delta: "I can't help" },
  { type: "response.refusal.delta", item_id: "msg_r", output_index: 0, content_index: 0, delta: " with that." },
  { type: "response.refusal.done", item_id: "msg_r", output_index: 0, content_index: 0, refusal: "I can't help with that." },
  completed(usage(12, 0, 6, 0)),
);

/** `error` then `response.failed`, after some text. */
export const ERROR_THEN_FAILED = sse(
  created,
  { type: "response.output_item.added", output_index: 0, item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] } },
  { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "Partial", logprobs: [] },
  { type: "error", code: "server_error", message: "The server had an error while processing your request.", param: null },
  {
    type: "response.failed",
    response: response("failed", { error: { code: "server_error", message: "The server had an error while processing your request." } }),
  },
);

/** `response.failed` alone. */
export const FAILED_ALONE = sse(
  created,
  { type: "response.failed", response: response("failed", { error: { code: "rate_limit_exceeded", message: "Rate limit reached for gpt-5.1." } }) },
);

/** Cut by `max_output_tokens`: `response.incomplete` → length. */
export const INCOMPLETE = sse(
  created,
  ...message("msg_1", 0, ["The first", " ten words"]),
  { type: "response.incomplete", response: response("incomplete", { incomplete_details: { reason: "max_output_tokens" }, usage: usage(15, 0, 10, 0) }) },
);

/** A 1×1 PNG. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The image generation tool: two images, one in the tool's format (webp), one with its own. */
export const IMAGE_GENERATION = sse(
  { type: "response.created", response: response("in_progress", { tools: [{ type: "image_generation", output_format: "webp", quality: "low" }] }) },
  { type: "response.output_item.added", output_index: 0, item: { id: "ig_1", type: "image_generation_call", status: "in_progress", result: null } },
  { type: "response.image_generation_call.in_progress", item_id: "ig_1", output_index: 0 },
  { type: "response.image_generation_call.generating", item_id: "ig_1", output_index: 0 },
  { type: "response.image_generation_call.partial_image", item_id: "ig_1", output_index: 0, partial_image_index: 0, partial_image_b64: PNG_BASE64 },
  { type: "response.image_generation_call.completed", item_id: "ig_1", output_index: 0 },
  { type: "response.output_item.done", output_index: 0, item: { id: "ig_1", type: "image_generation_call", status: "completed", result: PNG_BASE64 } },
  { type: "response.output_item.added", output_index: 1, item: { id: "ig_2", type: "image_generation_call", status: "in_progress", result: null } },
  {
    type: "response.output_item.done",
    output_index: 1,
    item: { id: "ig_2", type: "image_generation_call", status: "completed", output_format: "png", result: PNG_BASE64 },
  },
  ...message("msg_1", 2, ["Here they are."]),
  completed(usage(50, 0, 4200, 0)),
);

/** A web search call and a custom tool call, skipped and said; the answer is kept. */
export const BUILTIN_AND_CUSTOM = sse(
  created,
  { type: "response.output_item.added", output_index: 0, item: { id: "ws_1", type: "web_search_call", status: "in_progress" } },
  { type: "response.web_search_call.in_progress", item_id: "ws_1", output_index: 0 },
  { type: "response.web_search_call.searching", item_id: "ws_1", output_index: 0 },
  { type: "response.web_search_call.completed", item_id: "ws_1", output_index: 0 },
  { type: "response.output_item.done", output_index: 0, item: { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "weather" } } },
  { type: "response.output_item.added", output_index: 1, item: { id: "ctc_1", type: "custom_tool_call", call_id: "call_c", name: "code_exec", input: "" } },
  { type: "response.custom_tool_call_input.delta", item_id: "ctc_1", output_index: 1, delta: "print(1)" },
  { type: "response.custom_tool_call_input.done", item_id: "ctc_1", output_index: 1, input: "print(1)" },
  { type: "response.output_item.done", output_index: 1, item: { id: "ctc_1", type: "custom_tool_call", call_id: "call_c", name: "code_exec", input: "print(1)" } },
  ...message("msg_1", 2, ["Sunny."]),
  completed(usage(300, 256, 20, 0)),
);

/** A message with gpt-5's phase, keep-alives and an event type this reader does not know. */
export const PHASE_KEEPALIVE = sse(
  created,
  { type: "keepalive" },
  ...message("msg_1", 0, ["Let me check."], { phase: "commentary" }),
  { type: "response.some_future_event", payload: { x: 1 } },
  { type: "keepalive" },
  completed(usage(9, 0, 3, 0)),
) + ": a comment line\n\n";

/** The body ends in the middle of the answer: no response.completed. */
export const TRUNCATED = sse(created, ...message("msg_1", 0, ["Hello", " wor"]).slice(0, 3));
