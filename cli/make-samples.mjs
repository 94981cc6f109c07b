#!/usr/bin/env node
// Writes the built-in sample streams in samples/ (run: `node cli/make-samples.mjs`).
//
// The samples are plain SSE files, exactly as an MMSP server sends them (`data: <UniEvent JSON>`,
// a blank line, `data: [DONE]` at the end), with one leading SSE comment that names the sample;
// readers skip comments. The JSON is spaced like Python's json.dumps, as MMSP's server writes it.
// The media are real: a PNG and a WAV built here, base64-encoded chunk by chunk.
// This script is only how the files were made: the files themselves are the samples, checked by
// test/cli/samples.test.mjs.
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

const dir = new URL("../samples/", import.meta.url);

/** JSON as Python's json.dumps(ensure_ascii=False) writes it: ", " and ": " separators. */
function py(value) {
  if (Array.isArray(value)) return `[${value.map(py).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${py(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}

const b64 = (bytes) => Buffer.from(bytes).toString("base64");

/** A stream writer: the clock starts at `t0` and each event comes `step` ms after the previous one. */
function stream(description, t0) {
  let t = t0;
  const parts = [`: ${description}\n\n`];
  const event = (item, dt = 40) => {
    t += dt;
    const e = { role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null, created_at: t };
    parts.push(`data: ${py(e)}\n\n`);
  };
  return {
    event,
    comment: (text) => parts.push(`: ${text}\n\n`),
    raw: (line) => parts.push(`data: ${line}\n\n`),
    /** A text or thinking group: its deltas, then the .done with the joined text. */
    textGroup(kind, fragments, fidelity) {
      for (const f of fragments) event(f === null ? { type: `${kind}.delta`, [kind]: "", fidelity } : { type: `${kind}.delta`, [kind]: f });
      event({ type: `${kind}.done`, [kind]: fragments.filter((f) => f !== null).join(""), ...(fidelity ? { fidelity } : {}) });
    },
    stop(usage, finish_reason) {
      t += 25;
      parts.push(
        `data: ${
          py({ role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason, created_at: t })
        }\n\n`,
      );
      parts.push("data: [DONE]\n\n");
    },
    text: () => parts.join(""),
  };
}

const usage = (cached_tokens, prompt_tokens, thoughts_tokens, response_tokens) => ({
  cached_tokens,
  prompt_tokens,
  thoughts_tokens,
  response_tokens,
});

const write = (name, s) => {
  writeFileSync(new URL(name, dir), s.text());
  console.log(`wrote samples/${name}`);
};

// ---- chat: thinking (its signature arrives alone, after the text), then the answer ----------------
{
  const s = stream("chat: thinking (signature-only fidelity fragment), then a text answer", 1767225600000);
  const signature = "EqMCCkYIBhgCKkC3mQx7uYl0cJvN2o1kZyP4s8eR6tHwLqA9fVbD0gKjUu5iN3mXoS7pYzE1rT2cWvB4nH6aQ8dFlG0kJ9yM5xPw";
  s.textGroup(
    "thinking",
    [
      "The user asks why the sky is blue.",
      " The short answer is Rayleigh scattering:",
      " shorter wavelengths scatter much more (∝ 1/λ⁴).",
      " I should also say why it is not violet.",
      null, // the signature, alone
    ],
    { signature },
  );
  s.comment("keep-alive");
  s.textGroup("text", [
    "Sunlight is a mix of every colour. ",
    "As it crosses the atmosphere, air molecules scatter short wavelengths far more than long ones ",
    "(Rayleigh scattering, roughly ∝ 1/λ⁴), so blue light is bounced all over the sky ",
    "and reaches your eyes from every direction.\n\n",
    "Violet scatters even more, but the Sun emits less of it, ",
    "some is absorbed high up, and our eyes are less sensitive to it — so the sky looks blue. 🌤️",
  ]);
  s.stop(usage(0, 14, 52, 96), "stop");
  write("chat.sse", s);
}

// ---- tool-call (the default sample): thinking, a short text, then a streamed tool call ------------
{
  const s = stream("tool-call: thinking, a short text, then a get_weather tool call (the default sample)", 1767225700000);
  s.textGroup(
    "thinking",
    [
      "The user wants the current weather in Paris.",
      " I have a get_weather tool;",
      " I'll call it with the city and metric units.",
      null,
    ],
    { signature: "ErUBCkYIBhgCIkDk3vJ8qPz1mXcW0aTnR5yHbL2oF9sKe4uG7iVdQ6jN1tZrM8wC3xYpA0hSgE5lBfO2uT9cD7vK4nI6mJ1qW3" },
  );
  s.textGroup("text", ["Let me check", " the current weather", " in Paris for you."]);
  const id = "toolu_01A09q90qw90lq917835lq9";
  s.event({ type: "tool_call.delta", name: "get_weather", tool_call_id: id, arguments: "" });
  for (const a of ['{"location": ', '"Paris, France"', ', "unit": ', '"celsius"}']) {
    s.event({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: a });
  }
  s.event({ type: "tool_call.done", name: "get_weather", arguments: { location: "Paris, France", unit: "celsius" }, tool_call_id: id });
  s.stop(usage(0, 412, 38, 61), "tool_call");
  write("tool-call.sse", s);
}

// ---- image: a short text, then an 8×8 PNG in two chunks --------------------------------------------
function crc32(bytes) {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}
function png(width, height, pixel) {
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "ascii");
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    raw[y * (1 + width * 3)] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set(pixel(x, y), y * (1 + width * 3) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
{
  const s = stream("image: a short text, then an 8x8 PNG (image/png) in two chunks", 1767225800000);
  s.textGroup("text", ["Here is a small", " sky-blue gradient:"]);
  const image = png(8, 8, (x, y) => [40 + x * 20, 120 + y * 12, 235]);
  const half = Math.ceil(image.length / 2);
  for (const part of [image.subarray(0, half), image.subarray(half)]) {
    s.event({ type: "inline_data.delta", data: b64(part), mime_type: "image/png" }, 120);
  }
  s.event({ type: "inline_data.done", data: b64(image), mime_type: "image/png" });
  s.stop(usage(0, 21, null, 1290), "stop");
  write("image.sse", s);
}

// ---- audio: a short text, then a 0.1 s 440 Hz WAV (8 kHz, 8-bit mono) in four chunks ----------------
{
  const s = stream("audio: a short text, then a 0.1 s 440 Hz tone (audio/wav) in four chunks", 1767225900000);
  s.textGroup("text", ["Here is a", " short A4 tone (440 Hz)."]);
  const rate = 8000;
  const samples = 800;
  const wav = Buffer.alloc(44 + samples);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + samples, 4);
  wav.write("WAVEfmt ", 8, "ascii");
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate, 28); // byte rate
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits per sample
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(samples, 40);
  for (let i = 0; i < samples; i++) wav[44 + i] = Math.round(128 + 100 * Math.sin((2 * Math.PI * 440 * i) / rate));
  const size = Math.ceil(wav.length / 4);
  for (let i = 0; i < wav.length; i += size) {
    s.event({ type: "inline_data.delta", data: b64(wav.subarray(i, i + size)), mime_type: "audio/wav" }, 100);
  }
  s.event({ type: "inline_data.done", data: b64(wav), mime_type: "audio/wav" });
  s.stop(usage(0, 18, null, 240), "stop");
  write("audio.sse", s);
}

// ---- embeddings: two input messages → two 32-dimensional vectors ------------------------------------
{
  const s = stream("embeddings: two input messages embedded as two 32-dimensional vectors", 1767226000000);
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  for (let m = 0; m < 2; m++) {
    const v = Array.from({ length: 32 }, rand);
    const norm = Math.hypot(...v);
    const vector = v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
    s.event({ type: "embedding.delta", embedding: vector });
    s.event({ type: "embedding.done", embedding: vector }, 1);
  }
  s.stop(usage(0, 17, null, null), "stop");
  write("embeddings.sse", s);
}

// ---- error: the answer starts, then the upstream fails mid-stream ------------------------------------
{
  const s = stream("error: the answer starts, then the upstream fails mid-stream (an error event, then [DONE])", 1767226100000);
  s.event({ type: "text.delta", text: "The three largest moons of Jupiter are" });
  s.event({ type: "text.delta", text: " Ganymede, Callisto and" });
  s.raw(
    py({
      error: { type: "OverloadedError", message: "The upstream provider is overloaded (HTTP 529); retry the request later.", status: 529 },
    }),
  );
  s.raw("[DONE]");
  write("error.sse", s);
}
