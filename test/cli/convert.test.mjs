// `mmsp-streams convert --to ndjson|sse`: re-encoding, checked on the way.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { SAMPLES, messageSummary, run, sseRecords } from "./helpers.mjs";

const sample = (name) => readFileSync(`${SAMPLES}${name}.sse`, "utf8");
/** The live part of inspect's output, without its first line (which names the input). */
const shown = (stdout) => stdout.slice(stdout.indexOf("\n") + 1, stdout.indexOf("\nmessage: "));

for (const name of ["tool-call", "chat", "image", "audio", "embeddings"]) {
  test(`round trip ${name}: sse → ndjson → sse, then inspect shows the same stream and message`, async () => {
    const toNdjson = await run(["convert", "--to", "ndjson", `samples/${name}.sse`]);
    assert.equal(toNdjson.code, 0, toNdjson.stderr);
    assert.equal(toNdjson.stderr, "");
    const lines = toNdjson.stdout.split("\n");
    assert.equal(lines.pop(), "", "every line ends with \\n");
    const original = sseRecords(sample(name)).filter((r) => r !== "[DONE]").map((r) => JSON.parse(r));
    assert.deepEqual(lines.map((l) => JSON.parse(l)), original, "one JSON event per line, the same events (base64 bytes re-encoded identically)");

    const toSse = await run(["convert", "--to", "sse", "-"], { input: toNdjson.stdout });
    assert.equal(toSse.code, 0, toSse.stderr);
    assert.ok(toSse.stdout.endsWith("data: [DONE]\n\n"));
    assert.deepEqual(sseRecords(toSse.stdout).slice(0, -1).map((r) => JSON.parse(r)), original);

    const before = await run(["inspect", "--sample", name]);
    const afterTrip = await run(["inspect", "-"], { input: toSse.stdout });
    assert.equal(afterTrip.code, 0, afterTrip.stderr);
    assert.equal(messageSummary(afterTrip.stdout), messageSummary(before.stdout));
    assert.equal(shown(afterTrip.stdout), shown(before.stdout));
  });
}

test("convert a failing stream: the events, then the error as the last record; UpstreamError on stderr; exit 1", async () => {
  const nd = await run(["convert", "--to", "ndjson", "--sample", "error"]);
  assert.equal(nd.code, 1);
  const lines = nd.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, 3);
  assert.deepEqual(lines[2], { error: { type: "OverloadedError", message: "The upstream provider is overloaded (HTTP 529); retry the request later.", status: 529 } });
  assert.match(nd.stderr, /^error: UpstreamError OverloadedError \(status 529\)$/m);

  const sse = await run(["convert", "--to", "sse", "-"], { input: nd.stdout });
  assert.equal(sse.code, 1);
  assert.match(sse.stdout, /^data: \{"error":\{"type":"OverloadedError".*\n\ndata: \[DONE\]\n\n$/m);
  assert.ok(sse.stdout.endsWith("data: [DONE]\n\n"));
});

test("convert a broken capture: written up to the violation, then a StreamProtocolError record; the rule on stderr; exit 1", async () => {
  const records = sseRecords(sample("chat"));
  const bad = records.filter((r) => !r.includes('"event_type": "stop"')).map((r) => `data: ${r}\n\n`).join(""); // no stop before [DONE]
  const { code, stdout, stderr } = await run(["convert", "--to", "ndjson", "-"], { input: bad });
  assert.equal(code, 1);
  const lines = stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, records.length - 1, "every event before [DONE], then the error");
  assert.equal(lines.at(-1).error.type, "StreamProtocolError");
  assert.equal(lines.at(-1).error.rule, "STOP-LAST");
  assert.match(stderr, /^error: StreamProtocolError \(rule STOP-LAST\)$/m);
  assert.match(stderr, /^ {2}preview: +<end of input after> \{"role": "assistant"/m); // the last event, as it arrived
});

test("convert --assemble: bare fragments (several per event, stop in pieces) → the public stream", async () => {
  const fragments = [
    { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hel" }, { type: "text.delta", text: "lo!" }], usage_metadata: null, finish_reason: null },
    {
      role: "assistant",
      event_type: "delta",
      content_items: [
        { type: "tool_call.delta", name: "wave", tool_call_id: "call_1", arguments: '{"times":' },
        { type: "tool_call.delta", name: "", tool_call_id: "", arguments: " 2}" },
      ],
      usage_metadata: null,
      finish_reason: null,
    },
    { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: 0, prompt_tokens: 5, thoughts_tokens: null, response_tokens: null }, finish_reason: null },
    { role: "assistant", event_type: "stop", content_items: [], usage_metadata: { cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: 7 }, finish_reason: "tool_call" },
  ];
  const input = fragments.map((f) => JSON.stringify(f)).join("\n");
  const plain = await run(["convert", "--to", "sse", "-"], { input });
  assert.equal(plain.code, 1, "without --assemble the fragments break the grammar");
  assert.match(plain.stderr, /rule DELTA-SHAPE/);

  const { code, stdout, stderr } = await run(["convert", "--assemble", "--to", "sse", "-"], { input });
  assert.equal(code, 0, stderr);
  const events = sseRecords(stdout).slice(0, -1).map((r) => JSON.parse(r));
  assert.deepEqual(events.map((e) => e.content_items[0]?.type ?? e.event_type), ["text.delta", "text.delta", "text.done", "tool_call.delta", "tool_call.delta", "tool_call.done", "stop"]);
  assert.deepEqual(events.at(-1).usage_metadata, { cached_tokens: 0, prompt_tokens: 5, thoughts_tokens: null, response_tokens: 7 });
  const check = await run(["inspect", "-"], { input: stdout });
  assert.equal(check.code, 0, check.stderr);
  assert.match(check.stdout, /^ +2\. tool_call\.done +wave {2}id=call_1 {2}arguments \{"times":2\}$/m);
});
