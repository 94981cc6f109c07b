// The CLI when something goes wrong (issue #12): what the bytes were when a file or a URL yields no
// event, `inspect --json` for scripts, `—` for unknown counts, FORCE_COLOR.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { after, before, test } from "node:test";
import { SAMPLES, run, sseRecords } from "./helpers.mjs";
import { describeError, errorJson, wantsColor } from "../../cli/render.mjs";

const tmp = mkdtempSync(join(tmpdir(), "mmsp-cli-diag-"));
const sample = (name) => readFileSync(`${SAMPLES}${name}.sse`, "utf8");
const file = (name, content) => {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
};
const LOGIN = "<!DOCTYPE html>\n<html><head><title>Sign in · Corp SSO</title></head><body><form></form></body></html>\n";

let http;
let base;

before(async () => {
  http = createServer(async (req, res) => {
    for await (const _ of req);
    if (req.url.startsWith("/html/")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      return res.end(LOGIN);
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(sseRecords(sample("chat")).filter((r) => r !== "[DONE]").join("\n") + "\n"); // NDJSON served as SSE
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${http.address().port}`;
});

after(() => http?.close());

/** What the reader said the bytes were: the detail of the `message:` line of a human report. */
const hintOf = (stderr) => /^ {2}message: +.*? broke the streaming protocol: (.*)$/m.exec(stderr)?.[1];

test("an HTML page: a file and a URL answered with it get the same diagnosis", async () => {
  const fromFile = await run(["inspect", file("login.html", LOGIN)]);
  assert.equal(fromFile.code, 1);
  assert.doesNotMatch(fromFile.stderr, /cannot tell the format|<empty input>/);
  assert.match(hintOf(fromFile.stderr) ?? "", /^an HTML page titled "Sign in · Corp SSO", not an event stream; it likely came from a proxy/);
  assert.match(fromFile.stderr, /^ {2}preview: +<!DOCTYPE html>\\n<html><head><title>Sign in/m);

  const fromUrl = await run(["inspect", `${base}/html/v1`, "--model", "m"]);
  assert.equal(fromUrl.code, 1);
  assert.match(hintOf(fromUrl.stderr) ?? "", /^an HTML page titled "Sign in · Corp SSO" \(Content-Type: text\/html; charset=utf-8\), not an event stream; it likely came from a proxy/);
});

test("NDJSON served as text/event-stream: the hint names the Content-Type and the format option", async () => {
  const { code, stderr } = await run(["inspect", `${base}/v1`, "--model", "m"]);
  assert.equal(code, 1);
  assert.match(hintOf(stderr) ?? "", /^NDJSON \(one JSON object a line\) served as Content-Type: text\/event-stream.*format: "ndjson"/);
});

test("an empty body on stdin, NDJSON read with --format sse, gzip bytes, an OpenAI stream", async () => {
  const empty = await run(["inspect", "-"], { input: "" });
  assert.equal(empty.code, 1);
  assert.match(hintOf(empty.stderr) ?? "", /^an empty body: no bytes at all/);

  const ndjson = sseRecords(sample("chat")).filter((r) => r !== "[DONE]").join("\n");
  const asSse = await run(["inspect", "--format", "sse", "-"], { input: ndjson });
  assert.match(hintOf(asSse.stderr) ?? "", /^NDJSON \(one JSON object a line\) read as SSE \(format: "sse", the default\)/);

  const gz = await run(["inspect", file("capture.sse.gz", gzipSync(sample("chat")))]);
  assert.equal(gz.code, 1);
  assert.match(hintOf(gz.stderr) ?? "", /^gzip-compressed bytes \(the body starts 1f 8b 08 00\), not text; the response has no Content-Encoding header/);
  assert.match(gz.stderr, /^ {2}preview: +1f 8b 08 00 /m);
  // a local file: the command that reads it decompressed, not the HTTP header the reader speaks of
  const gzPath = join(tmp, "capture.sse.gz");
  assert.match(gz.stderr, new RegExp(`^ {2}hint: +the file is gzip-compressed: decompress it first, zcat ${gzPath.replace(/[.]/g, "\\.")} \\| mmsp-streams inspect -$`, "m"));

  const chunk = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"}}]}';
  const openai = await run(["inspect", "-"], { input: `data: ${chunk}\n\ndata: [DONE]\n\n` });
  assert.equal(openai.code, 1);
  assert.match(hintOf(openai.stderr) ?? "", /this is an OpenAI chat\.completion\.chunk, not an MMSP UniEvent/);
});

test("convert: the same diagnosis on stderr", async () => {
  const { code, stdout, stderr } = await run(["convert", "--to", "ndjson", file("convert.html", LOGIN)]);
  assert.equal(code, 1);
  assert.match(hintOf(stderr) ?? "", /^an HTML page titled "Sign in · Corp SSO"/);
  assert.equal(stdout.trim().split("\n").length, 1, "only the error line is written");
  assert.equal(JSON.parse(stdout).error.type, "StreamProtocolError");
});

test("a stream that produced events and then stopped gets no diagnosis: the truncation error stands", async () => {
  const cut = sseRecords(sample("chat")).slice(0, 3).map((r) => `data: ${r}\n\n`).join("");
  const { code, stderr } = await run(["inspect", "-"], { input: cut });
  assert.equal(code, 1);
  assert.match(stderr, /^error: StreamProtocolError \(rule STOP-LAST\)$/m);
  assert.match(hintOf(stderr) ?? "", /^the stream ended without a stop event/);
});

test("inspect --json: one JSON document with the events, the message and no error; exit 0", async () => {
  const { code, stdout, stderr } = await run(["inspect", "--json", "--sample", "image"]);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, "");
  const doc = JSON.parse(stdout); // the whole output is one document
  assert.deepEqual(Object.keys(doc), ["events", "message", "error", "read"]);
  assert.equal(doc.error, null);
  assert.equal(doc.events.length, sseRecords(sample("image")).length - 1);
  assert.equal(doc.read.events, doc.events.length);
  assert.equal(doc.read.format, "sse");
  const image = doc.message.content_items.find((i) => i.type === "inline_data.done");
  assert.equal(image.mime_type, "image/png");
  assert.equal(Buffer.from(image.data, "base64").length, 186, "bytes as base64");
  assert.equal(doc.message.finish_reason, "stop");
});

test("inspect --json: a violation's error with its class and every locating field; exit 1", async () => {
  const records = sseRecords(sample("tool-call"));
  const bad = file("interleaved.sse", records.filter((_, i) => i !== 4).map((r) => `data: ${r}\n\n`).join(""));
  const { code, stdout, stderr } = await run(["inspect", "--json", bad]);
  assert.equal(code, 1);
  assert.equal(stderr, "");
  const { events, message, error } = JSON.parse(stdout);
  assert.equal(events.length, 4);
  assert.equal(message, null);
  assert.equal(error.name, "StreamProtocolError");
  assert.equal(error.rule, "NO-INTERLEAVE");
  assert.equal(error.eventIndex, 4);
  assert.equal(error.byteOffset, Buffer.byteLength(records.slice(0, 4).map((r) => `data: ${r}\n\n`).join("")));
  assert.match(error.preview, /^\{"role": "assistant", "event_type": "delta", "content_items": \[\{"type": "text\.delta"/);
  assert.match(error.message, /^interleaved\.sse broke the streaming protocol: /);
  assert.equal(error.client, "interleaved.sse");
});

test("inspect --json: an upstream error with its status, type and wire object; a diagnosis as error.hint", async () => {
  const upstream = JSON.parse((await run(["inspect", "--json", "--sample", "error"])).stdout).error;
  assert.equal(upstream.name, "UpstreamError");
  assert.equal(upstream.status, 529);
  assert.equal(upstream.errorType, "OverloadedError");
  assert.equal(upstream.eventIndex, 2);
  assert.deepEqual(upstream.error, { type: "OverloadedError", message: "The upstream provider is overloaded (HTTP 529); retry the request later.", status: 529 });

  const { code, stdout } = await run(["inspect", "--json", file("page.html", LOGIN)]);
  assert.equal(code, 1);
  const { error } = JSON.parse(stdout);
  assert.match(error.message, /broke the streaming protocol: an HTML page titled "Sign in · Corp SSO"/);
  assert.match(error.preview, /^<!DOCTYPE html>/);
});

test("inspect --json: a server that cannot be reached is an error document too", async () => {
  const { code, stdout, stderr } = await run(["inspect", "--json", "http://127.0.0.1:9/v1", "--model", "m"]);
  assert.equal(code, 1);
  assert.equal(stderr, "");
  const doc = JSON.parse(stdout);
  assert.deepEqual(doc.events, []);
  assert.equal(doc.message, null);
  assert.equal(doc.error.name, "ConnectError");
  assert.match(doc.error.message, /^cannot reach http:\/\/127\.0\.0\.1:9\/v1\/stream: /);
});

test("--json is for inspect", async () => {
  const { code, stderr } = await run(["convert", "--to", "sse", "--json", "--sample", "chat"]);
  assert.equal(code, 2);
  assert.match(stderr, /--json is for inspect/);
});

test("the summary shows — for a count that is null, never the word null", async () => {
  const { code, stdout } = await run(["inspect", "--sample", "embeddings"]);
  assert.equal(code, 0);
  assert.match(stdout, /^usage: +cached 0 · prompt 17 · thoughts — · response — {2}\(input 17, output —\)$/m);
  assert.doesNotMatch(stdout, /\bnull\b/);
});

test("FORCE_COLOR=1 colours output into a pipe, even with NO_COLOR; FORCE_COLOR=0 does not", async () => {
  const forced = await run(["--sample", "image"], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } });
  assert.equal(forced.code, 0);
  assert.match(forced.stdout, /\x1b\[33m▸ inline_data\x1b\[39m image\/png/);
  const off = await run(["--sample", "image"], { env: { FORCE_COLOR: "0", NO_COLOR: undefined } });
  assert.doesNotMatch(off.stdout, /\x1b\[/);
  const error = await run(["inspect", "--sample", "error"], { env: { FORCE_COLOR: "", NO_COLOR: undefined } });
  assert.match(error.stderr, /\x1b\[31m\x1b\[1merror:/, "an empty FORCE_COLOR forces colours too (stderr)");
});

test("wantsColor: FORCE_COLOR first, then a terminal without NO_COLOR", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  assert.equal(wantsColor(tty, {}), true);
  assert.equal(wantsColor(tty, { NO_COLOR: "1" }), false);
  assert.equal(wantsColor(tty, { NO_COLOR: "" }), true);
  assert.equal(wantsColor(pipe, {}), false);
  assert.equal(wantsColor(pipe, { FORCE_COLOR: "1" }), true);
  assert.equal(wantsColor(pipe, { FORCE_COLOR: "3", NO_COLOR: "1" }), true);
  assert.equal(wantsColor(tty, { FORCE_COLOR: "0" }), false);
  assert.equal(wantsColor(tty, { FORCE_COLOR: "false" }), false);
});

test("a hint the reader puts on its error is shown as its own line, and in --json", async () => {
  const lib = await import("../../dist/index.js");
  const e = new lib.StreamProtocolError({ client: "upstream", detail: "no event (rule STOP-LAST, event 0, byte 96): <html>", rule: "STOP-LAST", eventIndex: 0, byteOffset: 96, preview: "<html>" });
  e.hint = "an HTML page, not an event stream; check the URL";
  const text = describeError(e, false, lib);
  assert.match(text, /^ {2}message: +upstream broke the streaming protocol: no event$/m);
  assert.match(text, /^ {2}hint: +an HTML page, not an event stream; check the URL$/m);
  const json = errorJson(e, lib);
  assert.equal(json.name, "StreamProtocolError");
  assert.equal(json.hint, e.hint);
  assert.equal(json.byteOffset, 96);
});

test("every error gets a hint line saying whether a retry can help (NOT-A-STREAM: no; STOP-LAST: yes)", async () => {
  const lib = await import("../../dist/index.js");
  const notAStream = new lib.StreamProtocolError({ client: "upstream", detail: "an HTML page", rule: "NOT-A-STREAM", eventIndex: 0, byteOffset: 0 });
  assert.match(describeError(notAStream, false, lib), /^ {2}hint: +the body is no event stream at all: a retry will not help/m);
  assert.match(errorJson(notAStream, lib).hint, /a retry will not help/);
  const cut = new lib.StreamProtocolError({ client: "upstream", detail: "ended", rule: "STOP-LAST", eventIndex: 3 });
  assert.match(errorJson(cut, lib).hint, /worth a retry/);
  const busy = new lib.UpstreamError({ client: "x", status: 503, errorType: "HTTPError", error: {}, message: "HTTP 503" });
  assert.match(errorJson(busy, lib).hint, /worth a retry after a pause/);
  // a 200 whose body is one JSON error document (status 200): refused, not failed mid-stream
  const model = new lib.UpstreamError({ client: "x", status: 200, errorType: "invalid_request_error", error: {}, message: 'model "gpt-5" not found' });
  assert.match(errorJson(model, lib).hint, /instead of a stream[\s\S]*a retry helps only if/);
  assert.doesNotMatch(errorJson(model, lib).hint, /mid-stream|worth a retry/);
  // the same document read from a file (no HTTP status): the first record, so no mid-stream failure either
  const file = new lib.UpstreamError({ client: "x", status: null, errorType: "invalid_request_error", error: {}, message: "m", eventIndex: 0 });
  assert.match(errorJson(file, lib).hint, /instead of a stream/);
  const later = new lib.UpstreamError({ client: "x", status: null, errorType: "RateLimitError", error: {}, message: "m", eventIndex: 7 });
  assert.match(errorJson(later, lib).hint, /mid-stream: worth a retry/);
});
