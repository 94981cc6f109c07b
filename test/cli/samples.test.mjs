// The built-in samples (samples/*.sse) are valid MMSP streams with the content their names promise.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { inflateSync } from "node:zlib";
import { UniEventStream, UpstreamError } from "../../dist/index.js";
import { SAMPLES, SAMPLE_NAMES, run } from "./helpers.mjs";

/** Reads a sample with the package's checking reader, fed in 7-byte chunks (boundaries everywhere). */
async function read(name) {
  const bytes = readFileSync(`${SAMPLES}${name}.sse`);
  const body = new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 7) c.enqueue(bytes.subarray(i, i + 7));
      c.close();
    },
  });
  const stream = new UniEventStream({ format: "sse" });
  const events = [];
  let error;
  try {
    for await (const e of body.pipeThrough(stream)) events.push(e);
  } catch (e) {
    error = e;
  }
  const message = error ? undefined : await stream.message;
  return { events, message, error, items: events.flatMap((e) => e.content_items) };
}

const crc32 = (bytes) => {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
};
const concat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p)));

test("samples/ holds exactly the six documented samples, each an SSE file that names itself and ends with [DONE]", () => {
  const files = readdirSync(SAMPLES).filter((f) => f.endsWith(".sse")).sort();
  assert.deepEqual(files, SAMPLE_NAMES.map((n) => `${n}.sse`));
  for (const f of files) {
    const text = readFileSync(SAMPLES + f, "utf8");
    assert.match(text, new RegExp(`^: ${f.slice(0, -4)}: \\S`), `${f} starts with its description comment`);
    assert.ok(text.endsWith("data: [DONE]\n\n"), `${f} ends with data: [DONE]`);
  }
});

test("chat: thinking whose signature arrives in a fragment of its own, then the answer", async () => {
  const { message, items } = await read("chat");
  assert.deepEqual(message.content_items.map((i) => i.type), ["thinking.done", "text.done"]);
  const signatureOnly = items.filter((i) => i.type === "thinking.delta" && i.thinking === "" && i.fidelity?.signature);
  assert.equal(signatureOnly.length, 1);
  assert.deepEqual(message.content_items[0].fidelity, signatureOnly[0].fidelity);
  assert.match(message.content_items[1].text, /Rayleigh scattering/);
  assert.equal(message.finish_reason, "stop");
  assert.equal(message.usage_metadata.thoughts_tokens, 52);
});

test("tool-call: thinking, text, then get_weather streamed in fragments", async () => {
  const { message, items } = await read("tool-call");
  assert.deepEqual(message.content_items.map((i) => i.type), ["thinking.done", "text.done", "tool_call.done"]);
  const call = message.content_items[2];
  assert.equal(call.name, "get_weather");
  assert.deepEqual(call.arguments, { location: "Paris, France", unit: "celsius" });
  assert.ok(items.filter((i) => i.type === "tool_call.delta").length >= 3, "the arguments arrive in several fragments");
  assert.ok(items.some((i) => i.type === "thinking.delta" && i.thinking === "" && i.fidelity?.signature));
  assert.equal(message.finish_reason, "tool_call");
});

test("image: a real 8x8 PNG in two chunks", async () => {
  const { message, items } = await read("image");
  const deltas = items.filter((i) => i.type === "inline_data.delta");
  assert.equal(deltas.length, 2);
  const image = message.content_items.find((i) => i.type === "inline_data.done");
  assert.equal(image.mime_type, "image/png");
  const png = Buffer.from(image.data);
  assert.deepEqual(png, concat(deltas.map((d) => d.data)));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks = {};
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString("ascii", at + 4, at + 8);
    assert.equal(png.readUInt32BE(at + 8 + length), crc32(png.subarray(at + 4, at + 8 + length)), `CRC of ${type}`);
    chunks[type] = png.subarray(at + 8, at + 8 + length);
    at += 12 + length;
  }
  assert.deepEqual(Object.keys(chunks), ["IHDR", "IDAT", "IEND"]);
  assert.equal(chunks.IHDR.readUInt32BE(0), 8);
  assert.equal(chunks.IHDR.readUInt32BE(4), 8);
  assert.equal(inflateSync(chunks.IDAT).length, 8 * (1 + 8 * 3));
});

test("audio: a real WAV in four chunks of one item", async () => {
  const { message, items } = await read("audio");
  const deltas = items.filter((i) => i.type === "inline_data.delta");
  assert.equal(deltas.length, 4);
  assert.ok(deltas.every((d) => d.mime_type === "audio/wav"));
  const wav = Buffer.from(message.content_items.find((i) => i.type === "inline_data.done").data);
  assert.deepEqual(wav, concat(deltas.map((d) => d.data)));
  assert.equal(wav.toString("ascii", 0, 4), "RIFF");
  assert.equal(wav.readUInt32LE(4), wav.length - 8);
  assert.equal(wav.toString("ascii", 8, 16), "WAVEfmt ");
  assert.equal(wav.toString("ascii", 36, 40), "data");
  assert.equal(wav.readUInt32LE(40), wav.length - 44);
  assert.equal(wav.readUInt32LE(24), 8000);
});

test("embeddings: two 32-dimensional vectors, one delta + one done each", async () => {
  const { message, items } = await read("embeddings");
  assert.deepEqual(items.map((i) => i.type), ["embedding.delta", "embedding.done", "embedding.delta", "embedding.done"]);
  assert.deepEqual(message.content_items.map((i) => i.embedding.length), [32, 32]);
  assert.deepEqual(items[0].embedding, items[1].embedding);
  assert.notDeepEqual(items[1].embedding, items[3].embedding);
  assert.equal(message.finish_reason, "stop");
});

test("error: two text fragments, then the upstream error event (no stop)", async () => {
  const { events, error } = await read("error");
  assert.equal(events.length, 2);
  assert.ok(error instanceof UpstreamError, `got ${error}`);
  assert.equal(error.errorType, "OverloadedError");
  assert.equal(error.status, 529);
  assert.equal(error.eventIndex, 2);
});

test("--list-samples lists every sample with its description and marks the default", async () => {
  const { code, stdout } = await run(["--list-samples"]);
  assert.equal(code, 0);
  for (const name of SAMPLE_NAMES) assert.match(stdout, new RegExp(`^  ${name} +\\S.*$`, "m"), name);
  assert.match(stdout, /^ {2}tool-call .*\[default\]$/m);
  assert.match(stdout, /^ {2}image .*PNG/m);
});
