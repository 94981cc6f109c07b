// diagnose(): one case per mistake a new user makes, from the first bytes of the body.
import { describe, expect, test } from "vitest";
import { bodyExplainer, diagnose, diagnosisText, foreignEventHint, previewBytes, type BodyInfo } from "../../src/diagnose.js";
import { BodyHead, HEAD_BYTES } from "../../src/framing/head.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
/** The diagnosis of a whole body given as text or bytes, as one sentence. */
function of(body: string | Uint8Array, info: Partial<BodyInfo> = {}): string {
  const bytes = typeof body === "string" ? enc(body) : body;
  const d = diagnose(bytes.subarray(0, 1024), { format: "sse", totalBytes: bytes.length, ...info });
  expect(d, "a diagnosis").toBeDefined();
  const text = diagnosisText(d!);
  // never the misleading sentence of issue #12
  expect(text).not.toMatch(/truncated|without a stop event|<empty input>/);
  return text;
}

const UNI = [
  '{"role":"assistant","event_type":"delta","content_items":[{"type":"text.delta","text":"Hi"}]}',
  '{"role":"assistant","event_type":"delta","content_items":[{"type":"text.done","text":"Hi"}]}',
  '{"role":"assistant","event_type":"stop","content_items":[],"finish_reason":"stop"}',
];

describe("diagnose: what a body that produced no event was", () => {
  test("an empty body", () => {
    expect(of("")).toMatch(/^an empty body: no bytes at all; .*check the URL/);
    expect(of("", { contentType: "text/event-stream" })).toMatch(/^an empty body \(Content-Type: text\/event-stream\)/);
  });

  test("a body of whitespace only", () => {
    expect(of("\r\n\n  \n")).toMatch(/^a body of nothing but whitespace \(6 bytes\)/);
  });

  test("an HTML page with a title: the title is named, and where it likely came from", () => {
    const page = '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>502 Bad\n Gateway &amp; co</title></head><body>nginx</body></html>';
    const text = of(page, { contentType: "text/html; charset=utf-8" });
    expect(text).toMatch(/^an HTML page titled "502 Bad Gateway & co" \(Content-Type: text\/html; charset=utf-8\), not an event stream; /);
    expect(text).toMatch(/proxy/);
    expect(text).toMatch(/login page/);
    expect(text).toMatch(/wrong URL/);
  });

  test("an HTML page without a title (and without a Content-Type)", () => {
    const text = of("<html><body><h1>Sign in</h1><form></form></body></html>");
    expect(text).toMatch(/^an HTML page, not an event stream; it likely came from a proxy/);
  });

  test("a JSON document rather than a stream, with its Content-Type", () => {
    const text = of('{\n  "id": 7,\n  "status": "queued"\n}\n', { contentType: "application/json" });
    expect(text).toMatch(/^a JSON document \(Content-Type: application\/json\), not a stream; a stream was expected/);
  });

  test("a JSON document that says something: its message is quoted", () => {
    expect(of('{"detail":"Not Found"}', { contentType: "application/json" })).toMatch(/a JSON document .*not a stream; it says "Not Found"/);
  });

  test("a JSON error object (MMSP wire shape, OpenAI style, Anthropic): named, with its type and message", () => {
    const mmsp = of('{"error":{"type":"OverloadedError","message":"try later"}}', { contentType: "application/json" });
    expect(mmsp).toMatch(/not a stream: an MMSP error object \(OverloadedError: "try later"\); the server answered with an error/);
    const openai = of('{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}');
    expect(openai).toMatch(/an OpenAI-style error object \(invalid_request_error: "Incorrect API key provided"\)/);
    const anthropic = of('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(anthropic).toMatch(/an Anthropic error object \(overloaded_error: "Overloaded"\)/);
  });

  test("NDJSON read as SSE: names the format option and \"auto\"", () => {
    const text = of(UNI.join("\n") + "\n");
    expect(text).toMatch(/^NDJSON \(one JSON object a line\) read as SSE \(format: "sse", the default\); read it with format: "ndjson" \(or "auto"/);
  });

  test("NDJSON read as SSE when its first line is longer than the head", () => {
    const long = `{"role":"assistant","event_type":"delta","content_items":[{"type":"text.delta","text":"${"x".repeat(3000)}"}]}\n`;
    expect(of(long)).toMatch(/^NDJSON .* read as SSE/);
  });

  test("NDJSON served as text/event-stream: the server's Content-Type is named as the fault", () => {
    const text = of(UNI.join("\n"), { contentType: "text/event-stream" });
    expect(text).toMatch(/^NDJSON \(one JSON object a line\) served as Content-Type: text\/event-stream/);
    expect(text).toMatch(/application\/x-ndjson/);
    expect(text).toMatch(/format: "ndjson" \(or "auto"/);
  });

  test("SSE read as NDJSON: names the format option and \"auto\"", () => {
    const text = of(UNI.map((l) => `data: ${l}\n\n`).join(""), { format: "ndjson", contentType: "application/x-ndjson" });
    expect(text).toMatch(/^Server-Sent Events \(lines such as "data: …"\) read as NDJSON \(format: "ndjson"; the response says Content-Type: application\/x-ndjson\); read it with format: "sse" \(or "auto"/);
  });

  test("gzip bytes without Content-Encoding", () => {
    const gz = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00]);
    const text = of(gz);
    expect(text).toMatch(/^gzip-compressed bytes \(the body starts 1f 8b 08 00\), not text; the response has no Content-Encoding header/);
    expect(text).toMatch(/DecompressionStream\("gzip"\)/);
  });

  test("gzip bytes that a Content-Encoding names but nothing decoded", () => {
    expect(of(new Uint8Array([0x1f, 0x8b, 0x08, 0, 1, 2]), { contentEncoding: "gzip" })).toMatch(/says Content-Encoding: gzip, yet the bytes reached the reader still compressed/);
  });

  test("zlib/deflate bytes (78 9c, 78 01, 78 da) without Content-Encoding", () => {
    for (const second of [0x9c, 0x01, 0xda]) {
      const text = of(new Uint8Array([0x78, second, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x06, 0x2c, 0x02, 0x15]));
      expect(text).toMatch(/^zlib\/deflate-compressed bytes .*no Content-Encoding header.*Content-Encoding: deflate/);
    }
  });

  test('text starting "x^" is not taken for zlib', () => {
    expect(of("x^2 + y^2\n")).toMatch(/^text that is neither SSE nor NDJSON, starting "x\^2 \+ y\^2"/);
  });

  test("zstd bytes without Content-Encoding", () => {
    const text = of(new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x05, 0x29, 0x00, 0x00, 0x68, 0x65]));
    expect(text).toMatch(/^zstd-compressed bytes \(the body starts 28 b5 2f fd\).*no Content-Encoding header/);
  });

  test("binary bytes with no signature (brotli has none): said to look compressed", () => {
    const br = new Uint8Array([0x8b, 0x02, 0x80, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x03, 0xff, 0xc3, 0x28]);
    const text = of(br);
    expect(text).toMatch(/^binary data, not UTF-8 text: perhaps brotli- or otherwise compressed.*no Content-Encoding header.*br for brotli/);
  });

  test("UTF-16 text", () => {
    expect(of(new Uint8Array([0xff, 0xfe, 0x64, 0x00, 0x61, 0x00]))).toMatch(/^UTF-16 text .*UTF-8 only/);
  });

  test("an OpenAI Chat Completions stream (the wrong endpoint)", () => {
    const chunk = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}';
    const text = of(`data: ${chunk}\n\ndata: [DONE]\n\n`, { format: "ndjson" });
    expect(text).toMatch(/^an OpenAI Chat Completions stream \(chat\.completion\.chunk events\), not MMSP UniEvents; this reader wants MMSP UniEvents/);
    expect(of(`${chunk}\n`)).toMatch(/^an OpenAI Chat Completions stream/);
  });

  test("an OpenAI Responses stream", () => {
    const body =
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response"}}\n\n' +
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","delta":"Hi"}\n\n';
    expect(of(body, { format: "ndjson" })).toMatch(/^an OpenAI Responses stream \(response\.created events\), not MMSP UniEvents; this reader wants MMSP UniEvents/);
    expect(of(body.replace(/^event: .*\n/gm, ""), { format: "ndjson" })).toMatch(/^an OpenAI Responses stream \(response\.created events\)/);
  });

  test("an Anthropic Messages stream", () => {
    const body =
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[]}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}\n\n';
    expect(of(body, { format: "ndjson" })).toMatch(/^an Anthropic Messages stream \(message_start events\), not MMSP UniEvents; this reader wants MMSP UniEvents/);
  });

  test("an AI SDK UI message stream", () => {
    const body = 'data: {"type":"start"}\n\ndata: {"type":"text-start","id":"t1"}\n\ndata: {"type":"text-delta","id":"t1","delta":"Hi"}\n\n';
    expect(of(body, { format: "ndjson" })).toMatch(/^an AI SDK UI message stream \("start" parts\), not MMSP UniEvents; this reader wants MMSP UniEvents/);
  });

  test("an AI SDK 4 data stream (0:\"text\" lines), read as SSE", () => {
    expect(of('f:{"messageId":"m1"}\n0:"Hel"\n0:"lo"\n')).toMatch(/^an AI SDK data stream .*, not MMSP UniEvents/);
  });

  test("a Google Gemini stream and an Ollama stream", () => {
    expect(of('data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}\n\n', { format: "ndjson" })).toMatch(/^a Google Gemini stream/);
    expect(of('{"model":"llama3","created_at":"x","message":{"role":"assistant","content":"Hi"},"done":false}\n')).toMatch(/^an Ollama stream/);
  });

  test("only SSE comments (keep-alives) and then the end", () => {
    expect(of(": keep-alive\n\n: keep-alive\n\n")).toMatch(/^only SSE comments \(keep-alives\), no event; the stream ended before its first event/);
  });

  test("plain text", () => {
    expect(of("Internal Server Error", { contentType: "text/plain" })).toMatch(/^text that is neither SSE nor NDJSON \(Content-Type: text\/plain\), starting "Internal Server Error"/);
  });

  test("the start of a real MMSP stream, cut: no diagnosis (the truncation error stands)", () => {
    const sse = enc(`data: ${UNI[0]!.slice(0, 40)}`);
    expect(diagnose(sse, { format: "sse", totalBytes: sse.length })).toBeUndefined();
    const nd = enc(UNI[0]!.slice(0, 40));
    expect(diagnose(nd, { format: "ndjson", totalBytes: nd.length })).toBeUndefined();
    expect(diagnose(nd, { format: "auto", totalBytes: nd.length })).toBeUndefined();
    // keep-alives, then more than the head holds: a stream that may have been cut later
    const alive = enc(": keep-alive\n\n".repeat(10));
    expect(diagnose(alive, { format: "sse", totalBytes: 100_000 })).toBeUndefined();
  });
});

describe("previewBytes: the first bytes actually received", () => {
  test("text: control characters escaped, cut at 120 characters", () => {
    expect(previewBytes(enc("<html>\r\n\t<title>x</title>\u001b"))).toBe("<html>\\r\\n\\t<title>x</title>\\u001b");
    const long = previewBytes(enc("é".repeat(300)));
    expect(long).toBe("é".repeat(120) + "…");
  });

  test("a character cut by the end of the head is not shown as U+FFFD", () => {
    expect(previewBytes(enc("ab€").subarray(0, 4))).toBe("ab");
  });

  test("binary: hex", () => {
    expect(previewBytes(new Uint8Array([0x1f, 0x8b, 0x08, 0x00]))).toBe("1f 8b 08 00");
    expect(previewBytes(new Uint8Array(100).fill(0xff), 30)).toBe("ff ".repeat(10).trim() + " …");
  });

  test("empty", () => {
    expect(previewBytes(new Uint8Array(0))).toBe("<empty body>");
  });
});

describe("foreignEventHint: a parsed record of another protocol", () => {
  const hint = (v: unknown): string | undefined => {
    const d = foreignEventHint(v);
    return d && diagnosisText(d);
  };

  test("an OpenAI chat.completion.chunk", () => {
    expect(hint({ id: "chatcmpl-1", object: "chat.completion.chunk", choices: [] })).toMatch(
      /^this is an OpenAI chat\.completion\.chunk, not an MMSP UniEvent; this reader wants MMSP UniEvents .*point it at the MMSP endpoint/,
    );
  });

  test("an OpenAI-compatible chunk without `object` (vLLM, llama.cpp, proxies), by its choices", () => {
    expect(hint({ choices: [{ delta: { content: "Hi" } }] })).toMatch(/^this is an OpenAI-compatible chat completion chunk, not an MMSP UniEvent/);
    expect(hint({ choices: [{ index: 0, message: { role: "assistant", content: "Hi" } }] })).toMatch(/^this is an OpenAI-compatible chat completion \(the non-streaming answer\)/);
    expect(foreignEventHint({ choices: [] })).toBeUndefined(); // nothing that says chat completion
    expect(foreignEventHint({ choices: [1, "x"] })).toBeUndefined();
  });

  test("OpenAI Responses, Anthropic, AI SDK, Gemini, Ollama", () => {
    expect(hint({ type: "response.output_text.delta", sequence_number: 3, delta: "Hi" })).toMatch(/^this is an OpenAI Responses event "response\.output_text\.delta"/);
    expect(hint({ type: "content_block_delta", index: 0, delta: {} })).toMatch(/^this is an Anthropic Messages event "content_block_delta"/);
    expect(hint({ type: "text-delta", id: "t1", delta: "Hi" })).toMatch(/^this is an AI SDK UI message stream part "text-delta"/);
    expect(hint({ candidates: [] })).toMatch(/^this is a Google Gemini/);
    expect(hint({ model: "llama3", done: true, response: "" })).toMatch(/^this is an Ollama/);
  });

  test("a UniEvent, however broken, and other values are not foreign", () => {
    expect(foreignEventHint({ event_type: "delta", type: "start" })).toBeUndefined();
    expect(foreignEventHint({ content_items: [], object: "chat.completion.chunk" })).toBeUndefined();
    expect(foreignEventHint({ type: "response.created" })).toBeUndefined(); // no Responses field beside it
    for (const v of [null, 1, "chat.completion.chunk", [], {}]) expect(foreignEventHint(v)).toBeUndefined();
  });
});

describe("BodyHead: the first bytes of a body, kept as its chunks pass", () => {
  test("keeps the first 1 KiB across chunks and counts every byte", () => {
    const head = new BodyHead();
    expect(head.bytes()).toEqual(new Uint8Array(0));
    head.push(enc("ab"));
    head.push(new Uint8Array(0));
    head.push(enc("cd"));
    expect(new TextDecoder().decode(head.bytes())).toBe("abcd");
    head.push(new Uint8Array(2000).fill(0x78));
    head.push(enc("zz"));
    expect(head.totalBytes).toBe(2006);
    const kept = head.bytes();
    expect(kept.length).toBe(HEAD_BYTES);
    expect(new TextDecoder().decode(kept.subarray(0, 6))).toBe("abcdxx");
    expect(kept.includes(0x7a)).toBe(false); // nothing after the first KiB
  });

  test("what a reader does at the end of a body that gave no event", () => {
    const head = new BodyHead();
    for (const part of ["<html><head><ti", "tle>Bad Gateway</title>", "</head></html>"]) head.push(enc(part));
    const d = diagnose(head.bytes(), { format: "sse", totalBytes: head.totalBytes, contentType: "text/html" });
    expect(d?.what).toBe('an HTML page titled "Bad Gateway" (Content-Type: text/html), not an event stream');
    expect(previewBytes(head.bytes())).toBe("<html><head><title>Bad Gateway</title></head></html>");
  });

  test("bodyExplainer: the framer's explainer, with the response's headers bound", () => {
    const explain = bodyExplainer({ contentType: "text/html" }, "sse");
    expect(explain(enc("<html><title>Bad Gateway</title></html>"), 38)).toEqual({
      detail: 'an HTML page titled "Bad Gateway" (Content-Type: text/html), not an event stream; it likely came from a proxy or gateway, a login page or a wrong URL rather than an MMSP server: check the URL, the credentials and anything in between',
      preview: "<html><title>Bad Gateway</title></html>",
    });
    expect(bodyExplainer({}, "sse")(enc("data: {"), 7)).toBeUndefined(); // the start of a stream, cut
  });
});
