// The fake provider of the gateway bench (bench/gateway.mjs, issue #49): one node:http server on
// 127.0.0.1 answering each provider's streamed route with a stream of `--deltas` deltas, written whole
// at once (no pacing: the gateways' cost, not the provider's, is what is measured). Routed by the
// path's end, so either gateway's base URL for it works:
//   …/messages                           Anthropic Messages: text, or (model "bench-tools") a line of
//                                        text then one tool call whose arguments come in fragments
//   …/chat/completions                   OpenAI Chat Completions (a usage chunk, then [DONE])
//   …/models/<m>:streamGenerateContent   Gemini (alt=sse; CRLF line ends, as the API sends them)
// Run as a child: prints one JSON line { port, events: { "anthropic-text": n, … } } (the `data:`
// messages of each stream, [DONE] not counted), then serves until killed (or its parent goes).
import http from "node:http";

const deltas = Number(process.argv.find((a) => a.startsWith("--deltas="))?.split("=")[1] ?? 200);
if (!(Number.isInteger(deltas) && deltas >= 4 && deltas <= 100_000)) throw new Error(`--deltas: an integer 4..100000, got ${deltas}`);

const word = (i) => ` w${i}`;
const sse = (messages, eol = "\n") =>
  messages.map(([event, data]) => (event ? `event: ${event}${eol}` : "") + `data: ${typeof data === "string" ? data : JSON.stringify(data)}${eol}${eol}`).join("");

/** `json` cut into exactly `n` non-empty fragments. */
const cut = (json, n) => Array.from({ length: n }, (_, i) => json.slice(Math.floor((i * json.length) / n), Math.floor(((i + 1) * json.length) / n)));

function anthropic(tools) {
  const texts = tools ? Math.floor(deltas / 4) : deltas;
  const m = [
    ["message_start", {
      type: "message_start",
      message: { id: "msg_bench", type: "message", role: "assistant", model: "claude-bench", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
    }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
  ];
  for (let i = 0; i < texts; i++) m.push(["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: word(i) } }]);
  m.push(["content_block_stop", { type: "content_block_stop", index: 0 }]);
  if (tools) {
    const items = Array.from({ length: 40 }, (_, i) => ({ id: i, name: `item ${i}`, score: i * 1.25, tags: ["a", "b"] }));
    const args = JSON.stringify({ query: "weather in Paris", items });
    m.push(["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_bench01", name: "lookup", input: {} } }]);
    for (const f of cut(args, deltas - texts)) m.push(["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: f } }]);
    m.push(["content_block_stop", { type: "content_block_stop", index: 1 }]);
  }
  m.push(["message_delta", { type: "message_delta", delta: { stop_reason: tools ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: deltas } }]);
  m.push(["message_stop", { type: "message_stop" }]);
  return { bytes: sse(m), events: m.length };
}

function openaiChat() {
  const chunk = (delta, finish_reason = null) => ({
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1767225600,
    model: "gpt-bench",
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
  });
  const m = [[null, chunk({ role: "assistant", content: "" })]];
  for (let i = 0; i < deltas; i++) m.push([null, chunk({ content: word(i) })]);
  m.push([null, chunk({}, "stop")]);
  m.push([null, { ...chunk({}), choices: [], usage: { prompt_tokens: 12, completion_tokens: deltas, total_tokens: 12 + deltas } }]);
  const events = m.length;
  m.push([null, "[DONE]"]);
  return { bytes: sse(m), events };
}

function gemini() {
  const m = [];
  for (let i = 0; i < deltas; i++) {
    const last = i === deltas - 1;
    m.push([null, {
      candidates: [{ content: { role: "model", parts: [{ text: word(i) }] }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
      ...(last ? { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: deltas, totalTokenCount: 12 + deltas } } : {}),
      modelVersion: "gemini-bench",
    }]);
  }
  // (the Gemini API ends its lines with CRLF, and Portkey's reader splits its stream on "\r\n\r\n")
  return { bytes: sse(m, "\r\n"), events: m.length };
}

const STREAMS = { "anthropic-text": anthropic(false), "anthropic-tools": anthropic(true), "openai-chat": openaiChat(), gemini: gemini() };
const bytes = Object.fromEntries(Object.entries(STREAMS).map(([k, v]) => [k, Buffer.from(v.bytes)]));

const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on("data", (c) => {
    size += c.length;
    if (size <= 1 << 20) chunks.push(c);
  });
  req.on("end", () => {
    const path = new URL(req.url, "http://127.0.0.1").pathname;
    let which = null;
    if (req.method === "POST" && path.endsWith("/messages")) {
      let model = "";
      try {
        model = JSON.parse(Buffer.concat(chunks).toString()).model;
      } catch { /* a body that is no JSON: a 400 below */ }
      which = model === "bench-tools" ? "anthropic-tools" : model ? "anthropic-text" : null;
    } else if (req.method === "POST" && path.endsWith("/chat/completions")) which = "openai-chat";
    else if (req.method === "POST" && path.includes(":streamGenerateContent")) which = "gemini";
    if (!which) {
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `fake upstream: no stream for ${req.method} ${path}` } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.end(bytes[which]);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(JSON.stringify({ port: server.address().port, events: Object.fromEntries(Object.entries(STREAMS).map(([k, v]) => [k, v.events])) }) + "\n");
});
// the parent's end is ours too (a bench killed mid-run leaves no server behind)
process.on("disconnect", () => process.exit(0));
