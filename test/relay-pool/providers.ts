// Scripted provider APIs of the relay-pool project (Node, behind observer.js like the scripted MMSP
// upstream): the relay Worker's provider-backed models (worker/models.ts) have their base URLs here
// (vitest.config.ts: ANTHROPIC_BASE_URL, OPENAI_BASE_URL), so every provider request the relay makes
// lands in these functions, key and all.
//
//   POST /anthropic/v1/messages          Anthropic Messages' SSE (`event:` + `data:`), paced
//   POST /openai/v1/chat/completions     OpenAI Chat Completions' SSE chunks, usage, `[DONE]`, paced
//   POST /anthropic/v1/messages/count_tokens  `{"input_tokens": 4242}` (SCRIPTED_COUNT); a generation's member
//                                        (`max_tokens`, `stream`) or no key a 400 / 401 in Anthropic's shape
//
// The request names its tag and its script in its text (the first user message), since a provider's
// body has no place of its own for them: `tag:<uuid>` and `script:<name>` —
//   text (default)   a short answer: five text deltas, finish and usage, each event in two chunks 1 ms apart
//   endless          text deltas every 5 ms for 8 s, never a finish (the relay stops it first)
//   refuse           a 429 in the provider's error shape whose message repeats the key it was sent
//   echo-error       (Anthropic) an `event: error` inside the stream whose message repeats the key
//   thinking         (Anthropic) a thinking block with its signature (THINKING_SIGNATURE), then the text
//   held             (OpenAI) call 0 open, then 24 MiB of call 1's arguments, which wait for it; no finish_reason
//   unterminated     (OpenAI) one 24 MiB event with no line end
//   refuse-text-key  a plain-text 502 with the key from its 186th character (a preview's cut lands inside it)
//   refuse-401       a 401 about the key (OpenAI's words: its first 8 and last 4 characters), which also repeats it
//   refuse-403       a 403 about the key, which repeats it
//   redirect         a 307 to another host
// and the scripts of the "fast" row's failures (issue #38: SPEC §10 "Fallbacks"), each about the
// tag's n-th provider request (the first is the row's first target, Claude):
//   refuse-first     the first a 429, the others the text answer
//   silent-first     the first sends nothing for 8 s (past FIRST_EVENT_S), the others the text answer
//   silent-then-refuse  the first sends nothing for 8 s, the others a 429
//   refuse-two-first the first two a 429 (Claude, GPT), the third (the row's other Claude) the text answer
//   unreachable-first  (observer.js) the first never reaches a server: its fetch rejects (a TypeError)
//   lost-first       (observer.js) the same with workerd's own words: a plain Error "Network connection lost."
//   cut-first        (Anthropic) the first's body ends after 3 text deltas (no message_stop: a cut)
//   cut-then-silent  the same, then the second (the continuing target) sends nothing for 8 s
//   cut-then-stall   (Anthropic) the first as cut-first; the second (the continuing target) its first text
//                    delta after the prefill, then nothing for 8 s; the others the text answer
//   cut-tool-first   (Anthropic) the first's body ends inside a tool call's arguments
//   tool             (Anthropic) a get_weather call until the conversation holds a tool result, then the text
//   stall / stall-first  (Anthropic) 2 text deltas, then nothing for 8 s (past STALL_S): every one / the first
//   stall-two        (Anthropic) the first as stall-first; the second (a continuation) only its message_start
//                    (its input reported), then nothing for 8 s; the others the text answer
// Asked with a final assistant message (Anthropic's prefill: a continuation), the text answer goes on
// from it: the five words' text less that prefix, as a model that honours it would.
// `GET /__provider?tag=` → {count, key, body}: how many provider requests carried that tag, and the
// key header and body of the last (the key reaches the provider; the tests check it goes no further).
import { type Request, Response } from "miniflare";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Json = Record<string, unknown>;
const seen = new Map<string, { count: number; key: string | null; body: string }>();

/** The marker `name:<value>` in a body's text, or undefined. */
const marker = (text: string, name: string): string | undefined => new RegExp(`${name}:([\\w-]+)`).exec(text)?.[1];

const WORDS = ["Hello", ", ", "provider", " world", "!"];

const anthropicEvents = (): Json[] => [
  {
    type: "message_start",
    message: { id: "msg_1", type: "message", role: "assistant", content: [], usage: { input_tokens: 12, output_tokens: 1 } },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  ...WORDS.map((text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 6 } },
  { type: "message_stop" },
];
/** The signature the scripted Anthropic API gives its thinking (a chat that changes provider never sends it elsewhere). */
export const THINKING_SIGNATURE = "EqQBCgIYAhIMscripted+anthropic/signature==";
const thinkingEvents = (): Json[] => {
  const [start, ...rest] = anthropicEvents();
  const message = { ...(start!.message as Json), model: "claude-haiku-4-5-20251001" };
  const text = rest.map((e) => ("index" in e ? { ...e, index: 1 } : e));
  return [
    { ...start, message },
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "A greeting is due." } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: THINKING_SIGNATURE } },
    { type: "content_block_stop", index: 0 },
    ...text,
  ];
};
/** The text answer going on from `prefix` (the final assistant message's text; "": from the start). */
const continuedEvents = (prefix: string): Json[] => {
  if (prefix === "") return anthropicEvents();
  const whole = WORDS.join("");
  const left = whole.startsWith(prefix) ? whole.slice(prefix.length) : whole;
  const half = Math.ceil(left.length / 2);
  const [start, block, ...rest] = anthropicEvents();
  const tail = rest.slice(WORDS.length); // (content_block_stop, message_delta, message_stop)
  const deltas = [left.slice(0, half), left.slice(half)].filter((t) => t !== "");
  return [
    start!,
    block!,
    ...deltas.map((text) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
    ...tail,
  ];
};
/** The final assistant message's text of an Anthropic request (its prefill), or "". */
function prefillOf(body: string): string {
  try {
    const last = (JSON.parse(body) as { messages?: { role: string; content: string | { text?: string }[] }[] }).messages?.at(-1);
    if (last?.role !== "assistant") return "";
    return typeof last.content === "string" ? last.content : last.content.map((p) => p.text ?? "").join("");
  } catch {
    return "";
  }
}
/** A tool call whose arguments are cut off (the body ends inside them). */
const cutToolEvents = (): Json[] => [
  anthropicEvents()[0]!,
  { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city": "Pa' } },
];
/** A whole tool_use turn calling get_weather for Paris (script `tool`, while the conversation holds no tool result). */
const toolEvents = (): Json[] => [
  anthropicEvents()[0]!,
  { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_scripted", name: "get_weather", input: {} } },
  { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city": "Paris"}' } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9 } },
  { type: "message_stop" },
];
const anthropicRecord = (e: Json): string => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

const openaiChunk = (delta: Json, finish: string | null = null): Json => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const openaiRecords = (): string[] =>
  [
    ...[{ role: "assistant", content: "" }, ...WORDS.map((content) => ({ content }))].map((d) => openaiChunk(d)),
    openaiChunk({}, "stop"),
    {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 },
    },
  ].map((c) => `data: ${JSON.stringify(c)}\n\n`).concat("data: [DONE]\n\n");

/** Records as a paced body: each in two chunks (the cut inside the event), 1 ms apart. */
function paced(records: string[]): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  const chunks = records.flatMap((r) => [r.slice(0, Math.ceil(r.length / 2)), r.slice(Math.ceil(r.length / 2))]);
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next >= chunks.length) return controller.close();
      await sleep(1);
      controller.enqueue(utf8.encode(chunks[next++]!));
    },
  }, { highWaterMark: 0 });
}

/** `records`, then nothing for 8 s (a model gone quiet; Miniflare reads a Node body to its end), then the end. */
function quiet(records: string[]): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  let sent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent) return sleep(8000).then(() => controller.close());
      sent = true;
      controller.enqueue(utf8.encode(records.join("")));
    },
  }, { highWaterMark: 0 });
}

/** `head`, then `delta(n)` every 5 ms for 8 s (Miniflare reads a Node body to its end: not forever). */
function endless(head: string[], delta: (n: number) => string): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  const until = Date.now() + 8000;
  let n = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (n === 0) controller.enqueue(utf8.encode(head.join("")));
      if (Date.now() > until) return controller.close();
      await sleep(5);
      controller.enqueue(utf8.encode(delta(n++)));
    },
  }, { highWaterMark: 0 });
}

const SSE = { "content-type": "text/event-stream; charset=utf-8" };

/** A hostile provider's 24 MiB in 256 KiB chunks: tool-call arguments that must wait, or one event that never ends. */
function hostile(script: "held" | "unterminated"): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  const piece = "x".repeat(256 * 1024);
  const call = (index: number, fn: Json, header: Json = {}): string =>
    `data: ${JSON.stringify(openaiChunk({ tool_calls: [{ index, ...header, function: fn }] }))}\n\n`;
  let n = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (n === 96) return controller.close();
      const head = n++ === 0;
      const text = script === "unterminated"
        ? (head ? 'data: {"choices": [{"index": 0, "delta": {"content": "' : "") + piece
        : head
        ? call(0, { name: "a", arguments: '{"q": "' }, { id: "call_0", type: "function" }) +
          call(1, { name: "b", arguments: '{"big": "' }, { id: "call_1", type: "function" })
        : call(1, { arguments: piece });
      controller.enqueue(utf8.encode(text));
    },
  }, { highWaterMark: 0 });
}

/** A 429 in the provider's error shape (some APIs echo what they were sent: the relay must not pass the key on). */
function rateLimited(isAnthropic: boolean, key: string | null): Response {
  const message = `Rate limit reached for the key ${key}: slow down`;
  const body = isAnthropic
    ? { type: "error", error: { type: "rate_limit_error", message } }
    : { error: { message, type: "requests", code: "rate_limit_exceeded" } };
  return new Response(JSON.stringify(body), { status: 429, headers: { "content-type": "application/json" } });
}

/** What the scripted Anthropic counter answers (a figure no estimate of the relay's would give). */
export const SCRIPTED_COUNT = 4242;

/** The scripted Anthropic count_tokens: its figure, or the refusal of a member the real counter does not take. */
async function scriptedCount(request: Request): Promise<Response> {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  if (!request.headers.get("x-api-key")) {
    return json(401, { type: "error", error: { type: "authentication_error", message: "x-api-key required" } });
  }
  const body = JSON.parse(await request.text()) as Json;
  const extra = ["max_tokens", "stream", "temperature", "metadata"].find((k) => k in body);
  if (extra) {
    return json(400, { type: "error", error: { type: "invalid_request_error", message: `${extra}: Extra inputs are not permitted` } });
  }
  return json(200, { input_tokens: SCRIPTED_COUNT });
}

/** The scripted provider answering `request` at `path`, or null when the path is no provider's. */
export async function providerApi(request: Request, path: string): Promise<Response | null> {
  if (path === "/anthropic/v1/messages/count_tokens") return scriptedCount(request);
  const isAnthropic = path === "/anthropic/v1/messages";
  if (!isAnthropic && path !== "/openai/v1/chat/completions") return null;
  const text = await request.text();
  const tag = marker(text, "tag") ?? "";
  const key = isAnthropic ? request.headers.get("x-api-key") : request.headers.get("authorization");
  const entry = seen.get(tag) ?? { count: 0, key: null, body: "" };
  seen.set(tag, { count: entry.count + 1, key, body: text });
  const script = marker(text, "script") ?? "text";
  const token = key?.replace(/^Bearer /, "") ?? "";
  if (script === "refuse-text-key") {
    // a gateway's plain-text 502 whose key starts at character 186: a 200-character preview ends inside it
    return new Response(`${"x".repeat(184)} ${token} and more text after the key`, {
      status: 502,
      headers: { "content-type": "text/plain" },
    });
  }
  if (script === "refuse-401") {
    // the provider's refusal of the operator's key, part of it shown (OpenAI's words), and whole (an echo)
    const message = `Incorrect API key provided: ${token.slice(0, 8)}****${token.slice(-4)}. You sent ${token}.`;
    return new Response(JSON.stringify({ error: { message, type: "invalid_request_error", code: "invalid_api_key" } }), {
      status: 401,
      headers: { "content-type": "application/json" },
    });
  }
  if (script === "refuse-403") {
    return new Response(
      JSON.stringify({ type: "error", error: { type: "permission_error", message: `key ${token} may not use this model` } }),
      {
        status: 403,
        headers: { "content-type": "application/json" },
      },
    );
  }
  if (script === "refuse-two-first" && entry.count < 2) return rateLimited(isAnthropic, key);
  const first = entry.count === 0; // (the tag's first provider request: the row's first target)
  if (script === "silent-then-refuse" && !first) return rateLimited(isAnthropic, key);
  const anthropicOnly = isAnthropic || !/^(cut|stall)/.test(script);
  if (anthropicOnly && (first || script === "stall" || script === "cut-then-silent")) {
    if (script === "refuse-first") return rateLimited(isAnthropic, key);
    const silent = script === "silent-first" || script === "silent-then-refuse" || (script === "cut-then-silent" && entry.count === 1);
    if (silent) return sleep(8000).then(() => new Response(paced(anthropicEvents().map(anthropicRecord)), { headers: SSE }));
    // a cut: the body ends before message_stop (as Miniflare ends a Node body that breaks)
    const cut = script === "cut-first" || ((script === "cut-then-silent" || script === "cut-then-stall") && first)
      ? anthropicEvents().slice(0, 5)
      : script === "cut-tool-first"
      ? cutToolEvents()
      : null;
    if (cut) return new Response(paced(cut.map(anthropicRecord)), { headers: SSE });
    if (script === "stall" || script === "stall-first" || script === "stall-two") {
      return new Response(quiet(anthropicEvents().slice(0, 4).map(anthropicRecord)), { headers: SSE });
    }
  }
  if (isAnthropic && script === "cut-then-stall" && entry.count === 1) {
    return new Response(quiet(continuedEvents(prefillOf(text)).slice(0, 3).map(anthropicRecord)), { headers: SSE });
  }
  if (isAnthropic && script === "stall-two" && entry.count === 1) {
    return new Response(quiet(anthropicEvents().slice(0, 1).map(anthropicRecord)), { headers: SSE });
  }
  if (script === "redirect") return new Response(null, { status: 307, headers: { location: "http://elsewhere.test/v1/messages" } });
  if (script === "refuse") return rateLimited(isAnthropic, key);
  if (isAnthropic && script === "echo-error") {
    // an error inside the 200 stream whose message repeats the key (a provider that echoes what it got)
    const records = [anthropicEvents()[0]!, { type: "error", error: { type: "overloaded_error", message: `Overloaded (key ${key})` } }];
    return new Response(paced(records.map(anthropicRecord)), { headers: SSE });
  }
  if (isAnthropic) {
    if (script === "endless") {
      const head = anthropicEvents().slice(0, 2).map(anthropicRecord);
      return new Response(
        endless(head, (n) => anthropicRecord({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `${n} ` } })),
        { headers: SSE },
      );
    }
    const events = script === "thinking"
      ? thinkingEvents()
      : script === "tool" && !text.includes('"tool_result"')
      ? toolEvents()
      : continuedEvents(prefillOf(text));
    return new Response(paced(events.map(anthropicRecord)), { headers: SSE });
  }
  if (script === "endless") {
    return new Response(endless([], (n) => `data: ${JSON.stringify(openaiChunk({ content: `${n} ` }))}\n\n`), { headers: SSE });
  }
  if (script === "held" || script === "unterminated") return new Response(hostile(script), { headers: SSE });
  return new Response(paced(openaiRecords()), { headers: SSE });
}

/** GET /__provider?tag=: what the scripted providers saw of that tag. */
export function providerSeen(tag: string): Response {
  return new Response(JSON.stringify(seen.get(tag) ?? { count: 0, key: null, body: "" }), {
    headers: { "content-type": "application/json" },
  });
}
