// The kit's fake providers (src/testing's fakeProvider: each refuses what its real API refuses, a
// signature it never issued, a tool result without its call…) behind the relay's four provider rows,
// for the client matrix (issues #46 and #47: each client × each provider, in workerd through the
// stream object, test/relay-pool/matrix.test.ts, and in Node through the stateless relay,
// test/unit/relay/doors/matrix.test.ts). One source of truth for both: web-standard (the fetch API's
// Request and Response only); the relay-pool's upstream (test/relay-pool/fakes.ts) hands a request
// here when its text names a `script:m-…`, and the Node matrix's providers fetch `matrixFetch`. Paths:
//   POST /anthropic/v1/messages                               Anthropic Messages ("claude-fast")
//   POST /openai/v1/chat/completions                          OpenAI Chat Completions ("gpt-fast")
//   POST /openai/v1/responses                                 OpenAI Responses ("gpt-responses")
//   POST /gemini/v1beta/models/<m>:streamGenerateContent      Gemini ("gemini-fast")
// Scripts (the answer a fake gives depends on the conversation, as a model's does):
//   m-text     the text TEXT
//   m-tool     get_weather({city: "Paris"}) until the conversation holds a tool result, then the text
//   m-tools    get_weather({city: "Paris"}) until the conversation holds a tool result, then
//              get_time({city: "Paris"}) until it holds two, then the text (tools over three steps)
//   m-object   the structured output member checked (the provider's own: Chat `response_format`,
//              Responses `text.format`, Anthropic `output_config.format`, Gemini `responseMimeType` +
//              `responseJsonSchema`, each a JSON Schema with `city`), else a 400 in its shape; then OBJECT's JSON
//   m-think    thinking (Anthropic: signed; Responses: a reasoning item with encrypted content; Gemini:
//              a thought with its signature; Chat has none) then get_weather, until a tool result; then
//              thinking and the text. The fake knows the signatures it issued: sent back, they must be its own.
// `fakeSeen(tag)` (the relay-pool: `GET /__fake?tag=`) → the bodies of that tag's provider requests, in order (what the relay sent).
import { fakeProvider, parseCapture, type ProviderName } from "../../../src/testing/index.ts";

type Json = Record<string, unknown>;

/** The matrix's text answer and structured answer (test/relay-pool/matrix.test.ts expects them). */
export const TEXT = "Hello, provider world!";
export const OBJECT = { city: "Paris", sunny: true };
/** The keys of the provider rows (the relay-pool's: vitest.config.ts, the Worker's secrets). */
export const KEYS: Record<ProviderName, string> = {
  anthropic: "sk-ant-test-KEY-must-not-leak-0001",
  "openai-chat": "sk-test-KEY-must-not-leak-0002",
  "openai-responses": "sk-test-KEY-must-not-leak-0002",
  gemini: "gemini-test-KEY-must-not-leak-0003",
};
const ROUTES: [prefix: string, path: RegExp, provider: ProviderName][] = [
  ["/anthropic", /^\/anthropic\/v1\/messages$/, "anthropic"],
  ["/openai", /^\/openai\/v1\/chat\/completions$/, "openai-chat"],
  ["/openai", /^\/openai\/v1\/responses$/, "openai-responses"],
  ["/gemini", /^\/gemini\/v1beta\/models\/[^/]+:streamGenerateContent$/, "gemini"],
];

const asked = new Map<string, string[]>();

/** The bodies the fakes got with that tag, in order. */
export const fakeSeen = (tag: string): string[] => asked.get(tag) ?? [];

/** The provider's own proofs its answers carry (matrix.test.ts checks each comes back to it). */
export const SIGNED = "EqQBCgIYAhIMmatrix+anthropic/signature==";
export const ENCRYPTED = "gAAAAABmatrix-encrypted-reasoning-of-the-fake==";
export const THOUGHT_SIGNATURE = "CiQBmatrixGeminiThoughtSignature0123456789==";

/** The relay's four provider rows (worker/models.ts; the Node matrix builds the same). */
export const ROWS = ["claude-fast", "gpt-fast", "gpt-responses", "gemini-fast"];
/** Each row's provider's proof (OpenAI Chat gives none): the clients must carry it back to its maker. */
export const PROOFS: Record<string, string> = { "claude-fast": SIGNED, "gpt-responses": ENCRYPTED, "gemini-fast": THOUGHT_SIGNATURE };

type Call = { id: string; name: string; args: Json };
type Answer = { thinking?: string; call?: Call; text?: string };

// ---- each provider's stream of an Answer (from the APIs' references: the event shapes of providers.ts and test/cases/providers/captures-*.ts)

function anthropicSse(a: Answer, model: string): string {
  const events: Json[] = [{
    type: "message_start",
    message: { id: "msg_matrix", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
  }];
  let index = 0;
  if (a.thinking !== undefined) {
    events.push(
      { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: a.thinking } },
      { type: "content_block_delta", index, delta: { type: "signature_delta", signature: SIGNED } },
      { type: "content_block_stop", index: index++ },
    );
  }
  if (a.text !== undefined) {
    events.push(
      { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      ...halves(a.text).map((text) => ({ type: "content_block_delta", index, delta: { type: "text_delta", text } })),
      { type: "content_block_stop", index: index++ },
    );
  }
  if (a.call) {
    events.push(
      { type: "content_block_start", index, content_block: { type: "tool_use", id: a.call.id, name: a.call.name, input: {} } },
      ...halves(JSON.stringify(a.call.args)).map((partial_json) => ({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })),
      { type: "content_block_stop", index: index++ },
    );
  }
  events.push(
    { type: "message_delta", delta: { stop_reason: a.call ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 6 } },
    { type: "message_stop" },
  );
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

function chatSse(a: Answer, model: string): string {
  const chunk = (delta: Json, finish: string | null = null): Json => ({
    id: "chatcmpl-matrix",
    object: "chat.completion.chunk",
    created: 1741476542,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: Json[] = [chunk({ role: "assistant", content: "" })];
  if (a.text !== undefined) chunks.push(...halves(a.text).map((content) => chunk({ content })));
  if (a.call) {
    chunks.push(chunk({ tool_calls: [{ index: 0, id: a.call.id, type: "function", function: { name: a.call.name, arguments: "" } }] }));
    chunks.push(...halves(JSON.stringify(a.call.args)).map((args) => chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] })));
  }
  chunks.push(chunk({}, a.call ? "tool_calls" : "stop"));
  chunks.push({ id: "chatcmpl-matrix", object: "chat.completion.chunk", created: 1741476542, model, choices: [], usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 } });
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n";
}

function responsesSse(a: Answer, model: string): string {
  const response = (status: string, output: Json[] = [], usage: Json | null = null): Json => ({
    id: "resp_matrix",
    object: "response",
    created_at: 1741476542,
    status,
    error: null,
    incomplete_details: null,
    model,
    output,
    parallel_tool_calls: true,
    tools: [],
    usage,
  });
  const events: Json[] = [{ type: "response.created", response: response("in_progress") }, { type: "response.in_progress", response: response("in_progress") }];
  const output: Json[] = [];
  if (a.thinking !== undefined) {
    const i = output.length;
    const item = { id: "rs_matrix", type: "reasoning", summary: [] };
    const done = { ...item, encrypted_content: ENCRYPTED, summary: [{ type: "summary_text", text: a.thinking }] };
    const at = { item_id: "rs_matrix", output_index: i, summary_index: 0 };
    events.push(
      { type: "response.output_item.added", output_index: i, item },
      { type: "response.reasoning_summary_part.added", ...at, part: { type: "summary_text", text: "" } },
      { type: "response.reasoning_summary_text.delta", ...at, delta: a.thinking },
      { type: "response.reasoning_summary_text.done", ...at, text: a.thinking },
      { type: "response.reasoning_summary_part.done", ...at, part: { type: "summary_text", text: a.thinking } },
      { type: "response.output_item.done", output_index: i, item: done },
    );
    output.push(done);
  }
  if (a.text !== undefined) {
    const i = output.length;
    const at = { item_id: "msg_matrix", output_index: i, content_index: 0 };
    const part = { type: "output_text", text: a.text, annotations: [] };
    const item = { id: "msg_matrix", type: "message", status: "completed", role: "assistant", content: [part] };
    events.push(
      { type: "response.output_item.added", output_index: i, item: { ...item, status: "in_progress", content: [] } },
      { type: "response.content_part.added", ...at, part: { ...part, text: "" } },
      ...halves(a.text).map((delta) => ({ type: "response.output_text.delta", ...at, delta, logprobs: [] })),
      { type: "response.output_text.done", ...at, text: a.text, logprobs: [] },
      { type: "response.content_part.done", ...at, part },
      { type: "response.output_item.done", output_index: i, item },
    );
    output.push(item);
  }
  if (a.call) {
    const i = output.length;
    const args = JSON.stringify(a.call.args);
    const item = { id: "fc_matrix", type: "function_call", status: "completed", call_id: a.call.id, name: a.call.name, arguments: args };
    events.push(
      { type: "response.output_item.added", output_index: i, item: { ...item, status: "in_progress", arguments: "" } },
      ...halves(args).map((delta) => ({ type: "response.function_call_arguments.delta", item_id: "fc_matrix", output_index: i, delta })),
      { type: "response.function_call_arguments.done", item_id: "fc_matrix", output_index: i, arguments: args },
      { type: "response.output_item.done", output_index: i, item },
    );
    output.push(item);
  }
  const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 };
  events.push({ type: "response.completed", response: response("completed", output, usage) });
  return events.map((e, n) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: n })}\n\n`).join("");
}

function geminiSse(a: Answer, model: string): string {
  const chunk = (parts: Json[], finishReason?: string): Json => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
    modelVersion: model,
    responseId: "matrix",
  });
  const chunks: Json[] = [];
  if (a.thinking !== undefined) chunks.push(chunk([{ text: a.thinking, thought: true }]));
  // (a Gemini 3 model signs its first function call, and its text's last part after thinking)
  const signed = a.thinking !== undefined || a.call ? { thoughtSignature: THOUGHT_SIGNATURE } : {};
  if (a.text !== undefined) {
    const [first, second] = halves(a.text);
    chunks.push(chunk([{ text: first }]));
    chunks.push(chunk([{ text: second, ...(a.call ? {} : signed) }], a.call ? undefined : "STOP"));
  }
  if (a.call) chunks.push(chunk([{ functionCall: { name: a.call.name, args: a.call.args }, ...signed }], "STOP"));
  return chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join("");
}

const STREAMS: Record<ProviderName, (a: Answer, model: string) => string> = {
  anthropic: anthropicSse,
  "openai-chat": chatSse,
  "openai-responses": responsesSse,
  gemini: geminiSse,
};

/** `text` in two pieces (a delta boundary inside it). */
const halves = (text: string): [string, string] => [text.slice(0, Math.ceil(text.length / 2)), text.slice(Math.ceil(text.length / 2))];

/** How many tool results a provider request's conversation holds (each API its own member). */
function toolResults(provider: ProviderName, body: Json): number {
  const json = JSON.stringify(body);
  const member = {
    anthropic: /"type":"tool_result"/g,
    "openai-chat": /"role":"tool"/g,
    "openai-responses": /"type":"function_call_output"/g,
    gemini: /"functionResponse":/g,
  }[provider];
  return json.match(member)?.length ?? 0;
}

/** The JSON Schema of a structured output request in the provider's own member, or undefined. */
function outputSchema(provider: ProviderName, body: Json): unknown {
  const at = (value: unknown, ...path: string[]): unknown =>
    path.reduce<unknown>((v, k) => (v !== null && typeof v === "object" ? (v as Json)[k] : undefined), value);
  switch (provider) {
    case "openai-chat":
      return at(body, "response_format", "type") === "json_schema" ? at(body, "response_format", "json_schema", "schema") : undefined;
    case "openai-responses":
      return at(body, "text", "format", "type") === "json_schema" ? at(body, "text", "format", "schema") : undefined;
    case "anthropic":
      return at(body, "output_config", "format", "type") === "json_schema" ? at(body, "output_config", "format", "schema") : undefined;
    case "gemini":
      return at(body, "generationConfig", "responseMimeType") === "application/json" ? at(body, "generationConfig", "responseJsonSchema") : undefined;
  }
}

/** A 400 in the provider's own error shape. */
function invalid(provider: ProviderName, message: string): Response {
  const body = provider === "anthropic"
    ? { type: "error", error: { type: "invalid_request_error", message } }
    : provider === "gemini"
    ? { error: { code: 400, message, status: "INVALID_ARGUMENT" } }
    : { error: { message, type: "invalid_request_error", param: null, code: null } };
  return new Response(JSON.stringify(body), { status: 400, headers: { "content-type": "application/json" } });
}

/** The answer of `script` to a conversation holding `results` tool results. */
function answerOf(script: string, results: number): Answer {
  if (script === "m-tool") return results === 0 ? { call: { id: "call_weather", name: "get_weather", args: { city: "Paris" } } } : { text: TEXT };
  if (script === "m-tools") {
    if (results === 0) return { call: { id: "call_weather", name: "get_weather", args: { city: "Paris" } } };
    if (results === 1) return { call: { id: "call_time", name: "get_time", args: { city: "Paris" } } };
    return { text: TEXT };
  }
  if (script === "m-object") return { text: JSON.stringify(OBJECT) };
  if (script === "m-think") {
    return results === 0
      ? { thinking: "The weather is needed.", call: { id: "call_weather", name: "get_weather", args: { city: "Paris" } } }
      : { thinking: "It is sunny.", text: TEXT };
  }
  return { text: TEXT };
}

/** The fake provider answering a matrix request at `path`, or null when the request is none of the matrix's. */
export async function matrixApi(request: Request, path: string): Promise<Response | null> {
  const route = ROUTES.find(([, pattern]) => pattern.test(path));
  if (!route) return null;
  const text = await request.clone().text();
  const script = /script:(m-[\w-]+)/.exec(text)?.[1];
  if (script === undefined) return null;
  const [prefix, , provider] = route;
  const tag = /tag:([\w-]+)/.exec(text)?.[1] ?? "";
  asked.set(tag, [...(asked.get(tag) ?? []), text]);
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    return invalid(provider, "The request body is not JSON.");
  }
  if (script === "m-object") {
    const schema = outputSchema(provider, body) as { properties?: Json } | undefined;
    if (!schema || typeof schema.properties?.city !== "object") {
      return invalid(provider, `structured output: no JSON Schema with "city" in the provider's member (got ${JSON.stringify(body).slice(0, 400)})`);
    }
  }
  const url = new URL(request.url);
  const model = provider === "gemini" ? /models\/([^:]+):/.exec(path)![1]! : String(body.model);
  const results = toolResults(provider, body);
  // every answer this script gives, so the fake knows each signature it issued (a history sends them back)
  const streams: Json = { "m-think-0": parseCapture(STREAMS[provider](answerOf("m-think", 0), model)) };
  streams[model] = parseCapture(STREAMS[provider](answerOf(script, results), model));
  const fake = fakeProvider(provider, { streams: streams as never, key: KEYS[provider] });
  const headers = new Headers(request.headers);
  const forwarded = new Request(`https://provider.test${path.slice(prefix.length)}${url.search}`, { method: "POST", headers, body: text });
  return await fake(forwarded);
}

/** The provider models behind the rows (the relay-pool's Worker: vitest.config.ts and worker/models.ts's defaults). */
export const MODELS: Record<ProviderName, string> = {
  anthropic: "claude-haiku-4-5",
  "openai-chat": "gpt-4.1-mini",
  "openai-responses": "gpt-5.1",
  gemini: "gemini-3-flash-preview",
};

/** The fakes as a provider's `fetch` (base URLs `<origin>/anthropic`, `<origin>/openai/v1`, `<origin>/gemini/v1beta`); a 404 off the matrix. */
export async function matrixFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  return (await matrixApi(request, new URL(request.url).pathname)) ?? new Response("not a matrix request", { status: 404 });
}
