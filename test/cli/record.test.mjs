// `mmsp-streams record URL`: the answer of the kit's fake MMSP server (scripts/upstream.mjs's serve)
// written as a capture file that reads back to the same bytes, status and message.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { fromResponse } from "../../dist/index.js";
import { fakeMmspServer, parseCapture, replay } from "../../dist/testing/index.js";
import { sampleStreams, serve } from "../../scripts/upstream.mjs";
import { run, SAMPLES } from "./helpers.mjs";

let upstream;
before(async () => {
  upstream = await serve(fakeMmspServer({ streams: await sampleStreams(), key: "sk-rec" }));
});
after(() => upstream.close());

test("record URL -d BODY: the answer as a capture file (status, headers, a time per event, the body byte for byte); it replays to the same message", async () => {
  const body = JSON.stringify({ model: "sample-chat", messages: [] });
  const { code, stdout, stderr } = await run(["record", `${upstream.url}/v1/stream`, "-d", body, "--key", "sk-rec"]);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^mmsp-capture 1\nstatus: 200\ntiming: (\d+ ){13}\d+\n/);
  const capture = parseCapture(stdout);
  const sample = readFileSync(`${SAMPLES}chat.sse`);
  assert.deepEqual(Buffer.from(capture.body), sample);
  assert.ok(capture.headers.some(([name, value]) => name === "content-location" && value.startsWith("/v1/streams/")));
  assert.ok(!capture.headers.some(([name]) => name === "connection" || name === "transfer-encoding"), "no hop-by-hop headers");
  const message = await fromResponse(replay(capture, { chunking: "random" })).message;
  const want = await fromResponse(new Response(sample, { headers: { "content-type": "text/event-stream" } })).message;
  assert.deepEqual(message, want);
  assert.match(stderr, /recorded HTTP 200, \d+ bytes, 14 events/);
});

test("record: a refusal is recorded too (its status and JSON body); no URL is a usage error (exit 2)", async () => {
  const refused = await run(["record", `${upstream.url}/v1/stream`, "--model", "sample-chat"]);
  assert.equal(refused.code, 0, refused.stderr);
  const capture = parseCapture(refused.stdout);
  assert.equal(capture.status, 401);
  assert.equal(JSON.parse(new TextDecoder().decode(capture.body)).error.type, "AuthenticationError");
  const usage = await run(["record"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /record needs one URL/);
});
