// `mmsp-streams inspect`: the stream shown as it arrives, the message summary, errors and exit codes.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, SAMPLES, messageSummary, run, sseRecords } from "./helpers.mjs";

const tmp = mkdtempSync(join(tmpdir(), "mmsp-cli-"));
const sample = (name) => readFileSync(`${SAMPLES}${name}.sse`, "utf8");
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[/;

/** Lines of the live part, before the summary. */
const livePart = (stdout) => stdout.slice(0, stdout.indexOf("\nmessage: "));

test("no argument: inspects the default sample (thinking, text, tool call) and exits 0", async () => {
  const { code, stdout, stderr } = await run([], { env: { NO_COLOR: undefined } });
  assert.equal(code, 0, stderr);
  const live = livePart(stdout);
  assert.match(live, /^▸ thinking\n {2}The user wants the current weather in Paris\. I have a get_weather tool; I'll call it with the city and metric units\.\n {2}· fidelity: signature \(98 chars\)$/m);
  assert.match(live, /^▸ text\n {2}Let me check the current weather in Paris for you\.$/m);
  assert.match(live, /^▸ tool_call get_weather {2}id=toolu_01A09q90qw90lq917835lq9\n {2}\{"location": "Paris, France", "unit": "celsius"\}$/m);
  assert.match(live, /^▸ stop$/m);
  const summary = messageSummary(stdout);
  assert.match(summary, /^message: 3 items$/m);
  assert.match(summary, /^ +1\. thinking\.done +116 chars {2}fidelity: signature/m);
  assert.match(summary, /^ +2\. text\.done +50 chars$/m);
  assert.match(summary, /^ +3\. tool_call\.done +get_weather {2}id=toolu_01A09q90qw90lq917835lq9 {2}arguments \{"location":"Paris, France","unit":"celsius"\}$/m);
  assert.match(summary, /^usage: +cached 0 · prompt 412 · thoughts 38 · response 61 {2}\(input 412, output 99\)$/m);
  assert.match(summary, /^finish: +tool_call$/m);
  assert.match(stdout, /^read: +16 events · 4,147 bytes · sse · /m);
  assert.doesNotMatch(stdout, ANSI, "no colours when stdout is not a terminal");
  assert.equal(stderr, "");
});

test("inspect --sample chat: thinking and the multi-line answer, finish stop", async () => {
  const { code, stdout } = await run(["inspect", "--sample", "chat"]);
  assert.equal(code, 0);
  assert.match(stdout, /^▸ thinking\n {2}The user asks why the sky is blue\./m);
  assert.match(stdout, /from every direction\.\n\n {2}Violet scatters even more/, "each line of the text is indented");
  assert.match(stdout, /so the sky looks blue\. 🌤️\n▸ stop/);
  assert.match(stdout, /^ +2\. text\.done +403 chars$/m);
  assert.match(stdout, /^finish: +stop$/m);
});

test("inspect --sample image: the PNG's byte count, chunks and mime type", async () => {
  const { code, stdout } = await run(["inspect", "--sample", "image"]);
  assert.equal(code, 0);
  assert.match(stdout, /^▸ inline_data image\/png\n {2}186 bytes in 2 chunks$/m);
  assert.match(stdout, /^ +2\. inline_data\.done +image\/png {2}186 bytes$/m);
  assert.match(stdout, /^usage: .*thoughts — · response 1,290/m);
});

test("inspect --sample audio: the WAV's byte count over four chunks", async () => {
  const { code, stdout } = await run(["inspect", "--sample", "audio"]);
  assert.equal(code, 0);
  assert.match(stdout, /^▸ inline_data audio\/wav\n {2}844 bytes in 4 chunks$/m);
  assert.match(stdout, /^ +2\. inline_data\.done +audio\/wav {2}844 bytes$/m);
});

test("inspect --sample embeddings: dimension and first values of each vector", async () => {
  const { code, stdout } = await run(["inspect", "--sample", "embeddings"]);
  assert.equal(code, 0);
  const first = JSON.parse(sseRecords(sample("embeddings"))[0]).content_items[0].embedding;
  assert.match(stdout, new RegExp(`^▸ embedding\\n {2}32 dims {2}\\[${first.slice(0, 4).join(", ")}, …\\]$`, "m"));
  assert.equal(stdout.match(/^▸ embedding$/gm).length, 2);
  assert.match(stdout, /^ +1\. embedding\.done +32 dims$/m);
  assert.match(stdout, /^usage: .*response — {2}\(input 17, output —\)$/m);
});

test("inspect --sample error: the text so far, then the UpstreamError's type, status and message; exit 1", async () => {
  const { code, stdout, stderr } = await run(["inspect", "--sample", "error"]);
  assert.equal(code, 1);
  assert.match(stdout, /^▸ text\n {2}The three largest moons of Jupiter are Ganymede, Callisto and\n/m);
  assert.doesNotMatch(stdout, /^message: /m, "no summary: there is no message");
  assert.match(stderr, /^error: UpstreamError OverloadedError \(status 529\)$/m);
  assert.match(stderr, /^ {2}message: +The upstream provider is overloaded \(HTTP 529\); retry the request later\.$/m);
  assert.match(stderr, /^ {2}event: +2 \(0-based\)$/m);
  assert.match(stderr, /^ {2}after 2 events and 683 bytes$/m);
});

test("a grammar violation: class, rule, event index, byte offset and preview on stderr; exit 1", async () => {
  const records = sseRecords(sample("tool-call"));
  // drop the thinking.done (event 4): the text.delta that follows arrives while the thinking group is open
  const bad = records.filter((_, i) => i !== 4).map((r) => `data: ${r}\n\n`).join("");
  const file = join(tmp, "interleaved.sse");
  writeFileSync(file, bad);
  const offset = Buffer.byteLength(records.slice(0, 4).map((r) => `data: ${r}\n\n`).join(""));
  const { code, stdout, stderr } = await run(["inspect", file]);
  assert.equal(code, 1);
  assert.match(stdout, /I'll call it with the city and metric units\./, "what came before the violation is shown");
  assert.doesNotMatch(stdout, /^message: /m);
  assert.match(stderr, /^error: StreamProtocolError \(rule NO-INTERLEAVE\)$/m);
  assert.match(stderr, /^ {2}rule: +NO-INTERLEAVE$/m);
  assert.match(stderr, /^ {2}event: +4 \(0-based\)$/m);
  assert.match(stderr, new RegExp(`^ {2}byte: +${offset}$`, "m"));
  assert.match(stderr, /^ {2}preview: +\{"role": "assistant", "event_type": "delta", "content_items": \[\{"type": "text\.delta", "text": "Let me check"/m);
  assert.match(stderr, /^ {2}message: +interleaved\.sse broke the streaming protocol: /m);
});

test("a tool call whose arguments are not JSON: ToolCallArgumentParseError with the tool and raw arguments; exit 1", async () => {
  const records = sseRecords(sample("tool-call")).map((r) => r.replace('\\"celsius\\"}"', '\\"celsius\\""'));
  const file = join(tmp, "cut-args.sse");
  writeFileSync(file, records.map((r) => `data: ${r}\n\n`).join(""));
  const { code, stderr } = await run(["inspect", file]);
  assert.equal(code, 1);
  assert.match(stderr, /^error: ToolCallArgumentParseError \(rule DONE-CONTENT\)$/m);
  assert.match(stderr, /^ {2}tool: +get_weather {2}id=toolu_01A09q90qw90lq917835lq9$/m);
  assert.match(stderr, /^ {2}args: +47 chars: /m);
});

test("NDJSON is detected from the first bytes (and a BOM and blank lines before them are fine)", async () => {
  const lines = sseRecords(sample("tool-call")).filter((r) => r !== "[DONE]");
  const file = join(tmp, "capture.log");
  writeFileSync(file, "\ufeff\n  \n" + lines.join("\n") + "\n");
  const { code, stdout, stderr } = await run(["inspect", file]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^\S*capture\.log: ndjson$/m);
  assert.match(stdout, /^read: +16 events · .* · ndjson · /m);
  assert.equal(messageSummary(stdout), messageSummary((await run([])).stdout));
});

test("a truncated NDJSON capture (no stop event): STOP-LAST at the end of the input", async () => {
  const lines = sseRecords(sample("chat")).filter((r) => r !== "[DONE]").slice(0, -1);
  const file = join(tmp, "truncated.ndjson");
  writeFileSync(file, lines.join("\n") + "\n");
  const { code, stderr } = await run(["inspect", file]);
  assert.equal(code, 1);
  assert.match(stderr, /^error: StreamProtocolError \(rule STOP-LAST\)$/m);
  assert.match(stderr, new RegExp(`^ {2}event: +${lines.length} \\(0-based\\)$`, "m"));
  assert.match(stderr, /^ {2}preview: +<end of input after> /m);
});

test("stdin (-): SSE and NDJSON", async () => {
  const sse = await run(["inspect", "-"], { input: sample("image") });
  assert.equal(sse.code, 0, sse.stderr);
  assert.match(sse.stdout, /^stdin: sse$/m);
  assert.match(sse.stdout, /186 bytes in 2 chunks/);
  const ndjson = sseRecords(sample("image")).filter((r) => r !== "[DONE]").join("\r\n");
  const nd = await run(["inspect", "-"], { input: ndjson });
  assert.equal(nd.code, 0, nd.stderr);
  assert.match(nd.stdout, /^stdin: ndjson$/m);
  assert.equal(messageSummary(nd.stdout), messageSummary(sse.stdout));
});

test("--format overrides the detection", async () => {
  const { code, stderr } = await run(["inspect", "--format", "ndjson", "-"], { input: sample("chat") });
  assert.equal(code, 1);
  assert.match(stderr, /^error: StreamProtocolError \(rule NOT-A-STREAM\)$/m);
});

test("input that is neither SSE nor NDJSON: the reader says what it is (an HTML page), exit 1", async () => {
  const { code, stderr } = await run(["inspect", "-"], { input: "<html>502 Bad Gateway</html>" });
  assert.equal(code, 1);
  assert.match(stderr, /stdin broke the streaming protocol: an HTML page, not an event stream/);
  assert.match(stderr, /^error: StreamProtocolError \(rule NOT-A-STREAM\)$/m);
  assert.match(stderr, /^ {2}preview: +<html>502 Bad Gateway<\/html>$/m);
});

test("model output cannot drive the terminal: control characters are shown escaped", async () => {
  const records = sseRecords(sample("chat")).map((r) => r.replaceAll("Sunlight is a mix", "\\u001b[2J\\u001b]0;pwned\\u0007Sunlight is a mix"));
  const { code, stdout } = await run(["inspect", "-"], { input: records.map((r) => `data: ${r}\n\n`).join("") });
  assert.equal(code, 0);
  assert.doesNotMatch(stdout, /[\x07\x1b]/);
  assert.match(stdout, /\\u001b\[2J\\u001b\]0;pwned\\u0007Sunlight is a mix/);
});

test("--delay paces a capture event by event without changing what is read", async () => {
  const started = performance.now();
  const paced = await run(["inspect", "--delay", "40", "samples/tool-call.sse"]);
  const elapsed = performance.now() - started;
  assert.equal(paced.code, 0, paced.stderr);
  assert.ok(elapsed >= 15 * 40, `16 events 40 ms apart took ${Math.round(elapsed)} ms`);
  const plain = await run(["inspect", "samples/tool-call.sse"]);
  // the elapsed time and the timings differ; everything before them is the same
  const steady = (out) => out.replace(/ · [\d.]+ s\ntimings: .*\n$/, "");
  assert.equal(steady(paced.stdout), steady(plain.stdout));
  const timings = paced.stdout.match(/^timings: first event ([\d,]+) ms · first content ([\d,]+) ms · stop ([\d,]+) ms \(after the first byte\) · 214 characters at [\d,]+\/s$/m);
  assert.ok(timings, paced.stdout);
  assert.ok(Number(timings[3].replace(/,/g, "")) >= 14 * 40, `paced: the stop came about 15 x 40 ms after the first byte: ${timings[0]}`);
});

test("usage errors exit 2 with a hint", async () => {
  for (const args of [["frobnicate"], ["--sample", "nope"], ["inspect", "no/such/file.sse"], ["inspect", "--bogus"], ["convert", "--sample", "chat"], ["convert", "--to", "xml", "--sample", "chat"], ["inspect", "--model", "m", "--sample", "chat"], ["inspect", "http://127.0.0.1:9/v1"], ["inspect", "a", "b"]]) {
    const { code, stdout, stderr } = await run(args);
    assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
    assert.equal(stdout, "");
    assert.match(stderr, /^mmsp-streams: .+\n\(mmsp-streams --help for usage\)\n$/, args.join(" "));
  }
});

test("--help describes the commands and options", async () => {
  const { code, stdout } = await run(["--help"]);
  assert.equal(code, 0);
  for (const word of ["inspect [FILE|URL|-]", "convert --to ndjson|sse", "--sample NAME", "--list-samples", "--model", "--prompt", "--key", "NO_COLOR", "Exit status"]) assert.ok(stdout.includes(word), word);
});

test("colours on a terminal, none when NO_COLOR is set (a pseudo-terminal made by script(1))", async (t) => {
  const { spawnSync } = await import("node:child_process");
  if (spawnSync("script", ["--version"]).status !== 0) return t.skip("script(1) is not installed");
  const onTty = (env) => {
    const childEnv = { ...process.env, ...env };
    for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
    const r = spawnSync("script", ["-qec", `${JSON.stringify(process.execPath)} cli/mmsp-streams.mjs --sample image --delay 0`, "/dev/null"], { cwd: ROOT, env: childEnv, encoding: "utf8", timeout: 15000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const colored = onTty({ NO_COLOR: undefined });
  assert.match(colored, /\x1b\[33m▸ inline_data\x1b\[39m image\/png/);
  assert.match(colored, /\r\x1b\[2K {2}93 bytes .*\(1 chunk…\)/, "a live byte counter, rewritten in place");
  const noColor = onTty({ NO_COLOR: "1" });
  assert.doesNotMatch(noColor, /\x1b\[\d+m/);
  assert.match(noColor, /186 bytes in 2 chunks/);
});

test("inspect --json: read.timings holds the reader's timings (paced: the stop after the first byte)", async () => {
  const { code, stdout, stderr } = await run(["inspect", "--json", "--delay", "20", "samples/tool-call.sse"]);
  assert.equal(code, 0, stderr);
  const t = JSON.parse(stdout).read.timings;
  assert.deepEqual(Object.keys(t), ["firstByteAt", "firstEventAt", "firstContentAt", "stopAt", "characters", "charactersPerSecond"]);
  assert.ok(t.firstByteAt <= t.firstEventAt && t.firstEventAt <= t.firstContentAt && t.firstContentAt <= t.stopAt, JSON.stringify(t));
  assert.ok(t.stopAt - t.firstByteAt >= 14 * 20, JSON.stringify(t));
  assert.equal(t.characters, 214);
  assert.ok(t.charactersPerSecond > 0, JSON.stringify(t));
});
