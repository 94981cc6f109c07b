// Anthropic Messages streams, written from the Messages streaming reference (docs.anthropic.com,
// "Streaming Messages": the basic, tool-use, extended-thinking and error examples) and the event
// shapes of anthropic-sdk-typescript's MessageStream tests. Each is the body a `stream: true`
// request answers; `sse()` writes them as the API does (`event: <type>` then `data: <json>`).

type Json = Record<string, unknown>;

/** The API's SSE framing: an `event:` line naming the type, the JSON on one `data:` line, a blank line. */
export const sse = (events: Json[], tail = ""): string => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("") + tail;

const start = (usage: Json): Json => ({
  type: "message_start",
  message: {
    id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
    type: "message",
    role: "assistant",
    content: [],
    model: "claude-sonnet-4-5",
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});
const blockStart = (index: number, content_block: Json): Json => ({ type: "content_block_start", index, content_block });
const delta = (index: number, d: Json): Json => ({ type: "content_block_delta", index, delta: d });
const blockStop = (index: number): Json => ({ type: "content_block_stop", index });
const messageDelta = (stop_reason: string | null, usage: Json): Json => ({ type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage });
const STOP: Json = { type: "message_stop" };
const PING: Json = { type: "ping" };
const text = (index: number, t: string): Json => delta(index, { type: "text_delta", text: t });
const json = (index: number, partial_json: string): Json => delta(index, { type: "input_json_delta", partial_json });

/** The reference's basic example: a ping among the events, usage in message_start and message_delta. */
export const TEXT = sse([
  start({ input_tokens: 25, output_tokens: 1 }),
  blockStart(0, { type: "text", text: "" }),
  PING,
  text(0, "Hello"),
  text(0, "!"),
  blockStop(0),
  messageDelta("end_turn", { output_tokens: 15 }),
  STOP,
]);

/** The reference's tool-use example: text, then a tool_use block whose input streams as partial JSON. */
export const TOOL_USE = sse([
  start({ input_tokens: 472, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }),
  blockStart(0, { type: "text", text: "" }),
  text(0, "Okay, let's check the weather for San Francisco, CA:"),
  blockStop(0),
  blockStart(1, { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} }),
  json(1, ""),
  json(1, '{"location":'),
  json(1, ' "San Francisc'),
  json(1, 'o, CA", "unit": "fah'),
  json(1, 'renheit"}'),
  blockStop(1),
  messageDelta("tool_use", { output_tokens: 89 }),
  STOP,
]);

/** A thinking signature as the API sends it (base64, `+`, `/` and `=` included): passed byte for byte. */
export const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+/=A1b/C2d==";

/** The reference's extended-thinking example: thinking deltas, the signature, then the answer; cache counts and thinking tokens. */
export const THINKING = sse([
  start({ input_tokens: 85, cache_creation_input_tokens: 10, cache_read_input_tokens: 1200, output_tokens: 1 }),
  blockStart(0, { type: "thinking", thinking: "", signature: "" }),
  delta(0, { type: "thinking_delta", thinking: "Let me solve this step by step:\n\n1. First break down 27 * 453" }),
  delta(0, { type: "thinking_delta", thinking: "\n2. 453 = 400 + 50 + 3" }),
  delta(0, { type: "signature_delta", signature: SIGNATURE }),
  blockStop(0),
  blockStart(1, { type: "text", text: "" }),
  text(1, "27 * 453 = 12,231"),
  blockStop(1),
  messageDelta("end_turn", { output_tokens: 310, output_tokens_details: { thinking_tokens: 250 } }),
  STOP,
]);

/** Redacted thinking: the block carries its encrypted `data` whole in its start. */
/**
 * Thinking signed by Anthropic, then one call of get_weather whose arguments arrive as `argumentParts`
 * (the Messages streaming reference's events): the answer of a thinking model that calls a tool, which
 * the doors' seal tests carry from one provider to another.
 */
export const thinkThenCall = (...argumentParts: string[]): string =>
  sse([
    {
      type: "message_start",
      message: {
        id: "msg_01ThinkTool",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude-sonnet-4-5",
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 120, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants the weather; call the tool." } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIGNATURE } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_01WeatherCall", name: "get_weather", input: {} } },
    ...argumentParts.map((part) => ({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: part } })),
    { type: "content_block_stop", index: 1 },
    { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 60 } },
    { type: "message_stop" },
  ]);

export const REDACTED = sse([
  start({ input_tokens: 40, output_tokens: 1 }),
  blockStart(0, { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" }),
  blockStop(0),
  blockStart(1, { type: "text", text: "" }),
  text(1, "Done."),
  blockStop(1),
  messageDelta("end_turn", { output_tokens: 60 }),
  STOP,
]);

/** The reference's error example: `event: error` (overloaded) after some text. */
export const ERROR_MID_STREAM = sse([
  start({ input_tokens: 10, output_tokens: 1 }),
  blockStart(0, { type: "text", text: "" }),
  text(0, "Partial"),
  { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
]);

/** A connection cut after a text delta: no message_stop. */
export const TRUNCATED = sse([
  start({ input_tokens: 10, output_tokens: 1 }),
  blockStart(0, { type: "text", text: "" }),
  text(0, "Half an ans"),
]);

/** A tool call whose input max_tokens cut: the arguments are no JSON object. */
export const TOOL_CUT_BY_MAX_TOKENS = sse([
  start({ input_tokens: 30, output_tokens: 1 }),
  blockStart(0, { type: "tool_use", id: "toolu_01A", name: "write_file", input: {} }),
  json(0, '{"path": "a.txt", "content": "lorem ip'),
  blockStop(0),
  messageDelta("max_tokens", { output_tokens: 16 }),
  STOP,
]);

/** A tool that takes no arguments: its input never streams. */
export const TOOL_NO_ARGS = sse([
  start({ input_tokens: 30, output_tokens: 1 }),
  blockStart(0, { type: "tool_use", id: "toolu_01B", name: "get_time", input: {} }),
  blockStop(0),
  messageDelta("tool_use", { output_tokens: 9 }),
  STOP,
]);

/** A refusal with no content at all (`stop_reason: "refusal"`). */
export const REFUSAL_ALONE = sse([
  start({ input_tokens: 12, output_tokens: 1 }),
  messageDelta("refusal", { output_tokens: 0 }),
  STOP,
]);

/** A server-side tool (web search) before the turn pauses: its blocks have no UniEvent kind and are skipped. */
export const SERVER_TOOL_PAUSE = sse([
  start({ input_tokens: 2679, output_tokens: 3 }),
  blockStart(0, { type: "text", text: "" }),
  text(0, "Let me search for that."),
  blockStop(0),
  blockStart(1, { type: "server_tool_use", id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB", name: "web_search", input: {} }),
  json(1, '{"query": "weather NYC today"}'),
  blockStop(1),
  blockStart(2, { type: "web_search_tool_result", tool_use_id: "srvtoolu_014hJH82Qum7Td6UV8gDXThB", content: [] }),
  blockStop(2),
  messageDelta("pause_turn", { output_tokens: 55, server_tool_use: { web_search_requests: 1 } }),
  STOP,
]);

/** The same, with nothing but the server tool's blocks: a paused turn with no content. */
export const PAUSE_TURN_ALONE = sse([
  start({ input_tokens: 100, output_tokens: 3 }),
  blockStart(0, { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: {} }),
  json(0, '{"query": "x"}'),
  blockStop(0),
  messageDelta("pause_turn", { output_tokens: 20 }),
  STOP,
]);

/** A gateway that repeats message_start (with zero usage) and injects its own event and a comment (vercel/ai #18331). */
export const DUPLICATE_MESSAGE_START = sse([
  start({ input_tokens: 50, output_tokens: 1 }),
  start({ input_tokens: 0, output_tokens: 0 }),
  { type: "gateway_cost", usd: 0.0001 },
  blockStart(0, { type: "text", text: "" }),
  text(0, "Hi"),
  blockStop(0),
  messageDelta("end_turn", { output_tokens: 2 }),
  STOP,
]).replace("event: gateway_cost", ": keep-alive\n\nevent: gateway_cost");

/** A text block with citations (search results): the citations have no UniEvent kind, the text is kept. */
export const CITATIONS = sse([
  start({ input_tokens: 400, output_tokens: 1 }),
  blockStart(0, { type: "text", text: "", citations: [] }),
  delta(0, { type: "citations_delta", citation: { type: "search_result_location", source: "https://example.com", title: "Example", cited_text: "x", search_result_index: 0, start_block_index: 0, end_block_index: 0 } }),
  text(0, "The answer is x."),
  blockStop(0),
  messageDelta("end_turn", { output_tokens: 12 }),
  STOP,
]);

/** A refused request's bodies (the API's error shape), by status. */
export const REFUSALS = {
  401: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" },
  404: { type: "error", error: { type: "not_found_error", message: "model: claude-nope" } },
  429: { type: "error", error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" } },
  529: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
};
