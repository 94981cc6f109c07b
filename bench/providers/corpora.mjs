// Seeded provider streams for the providers' benchmark (issue #27), each in its provider's own wire
// format (shapes as in test/cases/providers/captures-*.ts, from the providers' API references):
//
//   chat      one answer in many small text deltas (1–6 words each)
//   tools     a line of text, then parallel tool calls whose arguments arrive in small fragments
//             (OpenAI Chat interleaves them by `tool_calls[].index`; Anthropic and Responses send
//             one call after the other; Gemini sends each call's arguments whole, in one chunk: ten
//             times larger ones there)
//   thinking  a long reasoning part (thinking deltas, its signature / encrypted content), then the answer
//
// Web APIs only (the same module can run in any runtime). `providerCorpus(provider, kind)` → { name,
// format: "sse", bytes, events: the `data:` messages a floor parses ([DONE] not), expect: { text,
// thinking, calls, args } (characters of answer text, of thinking, the number of calls and the
// characters of their arguments) } that every contender's result is checked against.
import { rng } from "../core/harness.mjs";

export const PROVIDER_NAMES = ["openai-chat", "openai-responses", "anthropic", "gemini"];
export const KINDS = ["chat", "tools", "thinking"];

const WORDS = (
  "the a of to and in is that for it as with was on be by at this from or an are not have but which one all were " +
  "stream token model answer tool call weather city report value first second then because however result check " +
  'Paris Tokyo 42 3.14 “quoted” naïve émoji 🙂 über code\n line\ttab "quote" back\\slash'
).split(" ");

/** A seeded text piece of lo..hi words (a leading space, as models' deltas have). */
const words = (r, lo, hi) => {
  let s = "";
  for (let n = r.int(lo, hi); n > 0; n--) s += " " + r.pick(WORDS);
  return s;
};

/** A tool call's JSON arguments of about `size` characters, cut in fragments of 3–12 characters. */
function argFragments(r, size) {
  const o = { query: "", items: [] };
  for (let n = 0; n < size;) {
    const item = {
      id: r.int(1, 1e6),
      name: words(r, 1, 3).trim(),
      score: Math.round(r() * 1e4) / 100,
      tags: [r.pick(WORDS), r.pick(WORDS)],
    };
    o.items.push(item);
    n += JSON.stringify(item).length + 1;
  }
  o.query = words(r, 3, 8).trim();
  const json = JSON.stringify(o);
  const out = [];
  for (let i = 0; i < json.length;) {
    const n = r.int(3, 12);
    out.push(json.slice(i, i + n));
    i += n;
  }
  return { json, fragments: out, value: o };
}

/** The turn a corpus holds, provider-neutral: text pieces, thinking pieces + signature, calls. */
function turn(kind, seed, argSize) {
  const r = rng(seed);
  const t = { thinking: [], text: [], calls: [], signature: null };
  if (kind === "chat") { for (let i = 0; i < 3000; i++) t.text.push(words(r, 1, 6)); }
  if (kind === "tools") {
    for (let i = 0; i < 40; i++) t.text.push(words(r, 1, 6));
    for (let c = 0; c < 8; c++) t.calls.push({ id: `call_${c}_${r.int(1e5, 1e6)}`, name: `tool_${c}`, ...argFragments(r, argSize) });
  }
  if (kind === "thinking") {
    for (let i = 0; i < 2000; i++) t.thinking.push(words(r, 1, 6));
    t.signature = Array.from({ length: 400 }, () => r.pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")).join("") +
      "==";
    for (let i = 0; i < 800; i++) t.text.push(words(r, 1, 6));
  }
  return t;
}

// ---- OpenAI Chat Completions -------------------------------------------------------------------------
function openaiChat(t, r) {
  const chunk = (delta, finish_reason = null) => ({
    id: "chatcmpl-B9",
    object: "chat.completion.chunk",
    created: 1694268190,
    model: "gpt-4o-mini",
    system_fingerprint: "fp_44709d6fcb",
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    usage: null,
  });
  const out = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const p of t.thinking) out.push(chunk({ reasoning_content: p }));
  for (const p of t.text) out.push(chunk({ content: p }));
  if (t.calls.length) {
    t.calls.forEach((c, index) =>
      out.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] }))
    );
    // the fragments of all calls, interleaved at random (each call's own order kept)
    const next = t.calls.map(() => 0);
    for (let left = t.calls.reduce((n, c) => n + c.fragments.length, 0); left > 0; left--) {
      let index;
      do index = r.int(0, t.calls.length - 1); while (next[index] === t.calls[index].fragments.length);
      out.push(chunk({ tool_calls: [{ index, function: { arguments: t.calls[index].fragments[next[index]++] } }] }));
    }
  }
  out.push(chunk({}, t.calls.length ? "tool_calls" : "stop"));
  out.push({
    id: "chatcmpl-B9",
    object: "chat.completion.chunk",
    created: 1694268190,
    model: "gpt-4o-mini",
    choices: [],
    usage: {
      prompt_tokens: 1200,
      completion_tokens: out.length,
      total_tokens: 1200 + out.length,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: t.thinking.length },
    },
  });
  return { text: out.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + "data: [DONE]\n\n", events: out.length };
}

// ---- Anthropic Messages ------------------------------------------------------------------------------
function anthropic(t) {
  const out = [{
    type: "message_start",
    message: {
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-sonnet-4-5",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1200, cache_read_input_tokens: 1024, cache_creation_input_tokens: 0, output_tokens: 1 },
    },
  }];
  let index = 0;
  if (t.thinking.length) {
    out.push({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const p of t.thinking) out.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: p } });
    out.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: t.signature } }, {
      type: "content_block_stop",
      index,
    });
    index++;
  }
  out.push({ type: "content_block_start", index, content_block: { type: "text", text: "" } }, { type: "ping" });
  for (const p of t.text) out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text: p } });
  out.push({ type: "content_block_stop", index });
  for (const c of t.calls) {
    index++;
    out.push({ type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
    for (const f of c.fragments) out.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: f } });
    out.push({ type: "content_block_stop", index });
  }
  out.push({
    type: "message_delta",
    delta: { stop_reason: t.calls.length ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: out.length },
  }, { type: "message_stop" });
  return { text: out.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""), events: out.length };
}

// ---- OpenAI Responses --------------------------------------------------------------------------------
function openaiResponses(t) {
  const response = (status, extra = {}) => ({
    id: "resp_67ccd2bed1ec8190b14f964abc054267",
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
  const out = [{ type: "response.created", response: response("in_progress") }, {
    type: "response.in_progress",
    response: response("in_progress"),
  }];
  let oi = 0;
  if (t.thinking.length) {
    const id = "rs_1";
    const summary = t.thinking.join("");
    out.push({ type: "response.output_item.added", output_index: oi, item: { id, type: "reasoning", summary: [] } });
    out.push({
      type: "response.reasoning_summary_part.added",
      item_id: id,
      output_index: oi,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
    for (const delta of t.thinking) {
      out.push({ type: "response.reasoning_summary_text.delta", item_id: id, output_index: oi, summary_index: 0, delta });
    }
    out.push({ type: "response.reasoning_summary_text.done", item_id: id, output_index: oi, summary_index: 0, text: summary });
    out.push({
      type: "response.reasoning_summary_part.done",
      item_id: id,
      output_index: oi,
      summary_index: 0,
      part: { type: "summary_text", text: summary },
    });
    out.push({
      type: "response.output_item.done",
      output_index: oi,
      item: { id, type: "reasoning", encrypted_content: t.signature, summary: [{ type: "summary_text", text: summary }] },
    });
    oi++;
  }
  const id = "msg_1";
  const text = t.text.join("");
  out.push({
    type: "response.output_item.added",
    output_index: oi,
    item: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
  });
  out.push({
    type: "response.content_part.added",
    item_id: id,
    output_index: oi,
    content_index: 0,
    part: { type: "output_text", annotations: [], text: "" },
  });
  for (const delta of t.text) {
    out.push({ type: "response.output_text.delta", item_id: id, output_index: oi, content_index: 0, delta, logprobs: [] });
  }
  out.push({ type: "response.output_text.done", item_id: id, output_index: oi, content_index: 0, text, logprobs: [] });
  out.push({
    type: "response.content_part.done",
    item_id: id,
    output_index: oi,
    content_index: 0,
    part: { type: "output_text", annotations: [], text },
  });
  out.push({
    type: "response.output_item.done",
    output_index: oi,
    item: { id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", annotations: [], text }] },
  });
  for (const c of t.calls) {
    oi++;
    const fc = `fc_${oi}`;
    out.push({
      type: "response.output_item.added",
      output_index: oi,
      item: { id: fc, type: "function_call", status: "in_progress", arguments: "", call_id: c.id, name: c.name },
    });
    for (const delta of c.fragments) out.push({ type: "response.function_call_arguments.delta", item_id: fc, output_index: oi, delta });
    out.push({ type: "response.function_call_arguments.done", item_id: fc, output_index: oi, arguments: c.json });
    out.push({
      type: "response.output_item.done",
      output_index: oi,
      item: { id: fc, type: "function_call", status: "completed", arguments: c.json, call_id: c.id, name: c.name },
    });
  }
  const usage = {
    input_tokens: 1200,
    input_tokens_details: { cached_tokens: 1024 },
    output_tokens: out.length,
    output_tokens_details: { reasoning_tokens: t.thinking.length },
    total_tokens: 1200 + out.length,
  };
  // the completed response carries every output item, as the API sends it
  const output = out.filter((e) => e.type === "response.output_item.done").map((e) => e.item);
  out.push({ type: "response.completed", response: response("completed", { usage, output }) });
  return {
    text: out.map((e, i) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join(""),
    events: out.length,
  };
}

// ---- Gemini (streamGenerateContent?alt=sse) -----------------------------------------------------------
function gemini(t) {
  const usage = (n) => ({
    usageMetadata: {
      promptTokenCount: 1200,
      candidatesTokenCount: n,
      totalTokenCount: 1200 + n,
      ...(t.thinking.length ? { thoughtsTokenCount: t.thinking.length } : {}),
      cachedContentTokenCount: 1024,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: 1200 }],
    },
  });
  const chunk = (parts, n, finishReason) => ({
    candidates: [{ content: { parts, role: "model" }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    ...usage(n),
    modelVersion: "gemini-3-pro-preview",
    responseId: "mAitaLmkHPPlz7IPvtfUqQ4",
  });
  const out = [];
  for (const p of t.thinking) out.push(chunk([{ text: p, thought: true }], out.length));
  for (const p of t.text) out.push(chunk([{ text: p }], out.length));
  if (t.calls.length) {
    out.push(
      chunk(
        t.calls.map((c, i) => ({
          functionCall: { name: c.name, args: c.value },
          ...(i === 0 ? { thoughtSignature: "CiQB0e2Kb3dRh+BYdbZvmulSN2Pwu2gFx5ke6rtvxBHlV1LTw4QSZQ==" } : {}),
        })),
        out.length,
      ),
    );
  }
  out.push(chunk(t.signature ? [{ text: "", thoughtSignature: t.signature }] : [{ text: "" }], out.length, "STOP"));
  return { text: out.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(""), events: out.length };
}

const WRITERS = { "openai-chat": openaiChat, anthropic, "openai-responses": openaiResponses, gemini };

/** The corpus `kind` (`KINDS`) of `provider` (`PROVIDER_NAMES`), the same bytes on every call and in every runtime. */
export function providerCorpus(provider, kind) {
  const seed = 27_000 + KINDS.indexOf(kind);
  // Gemini sends each call's arguments whole: larger ones, so that its corpus is not a few chunks only
  const t = turn(kind, seed, provider === "gemini" ? 60_000 : 6_000);
  const { text, events } = WRITERS[provider](t, rng(seed + 1));
  const bytes = new TextEncoder().encode(text);
  const args = t.calls.reduce((n, c) => n + c.json.length, 0);
  return {
    name: `${provider}/${kind}`,
    format: "sse",
    bytes,
    events,
    expect: { text: t.text.join("").length, thinking: t.thinking.join("").length, calls: t.calls.length, args },
  };
}
