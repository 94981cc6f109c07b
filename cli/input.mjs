// Where the bytes come from: a file, stdin, a built-in sample or a live server; the format sniffed
// from the first non-blank bytes; optional pacing (to replay a capture at a readable speed).
import { createReadStream, readdirSync, readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

/** A problem with the command line or what it names (exit status 2). */
export class UsageError extends Error {}

export const SAMPLES_DIR = fileURLToPath(new URL("../samples/", import.meta.url));
export const DEFAULT_SAMPLE = "tool-call";

/**
 * The built-in samples: every `samples/*.sse`, with the description from its leading comment line.
 * @returns {{ name: string, path: string, description: string, size: number }[]}
 */
export function listSamples() {
  return readdirSync(SAMPLES_DIR)
    .filter((f) => f.endsWith(".sse"))
    .sort()
    .map((f) => {
      const path = SAMPLES_DIR + f;
      const first = readFileSync(path, "utf8").split(/\r?\n/, 1)[0];
      const description = first.startsWith(":") ? first.slice(1).trim().replace(/^[\w-]+:\s*/, "") : "";
      return { name: f.slice(0, -".sse".length), path, description, size: statSync(path).size };
    });
}

/** @param {string} name */
export function samplePath(name) {
  const sample = listSamples().find((s) => s.name === name || `${s.name}.sse` === name);
  if (!sample) throw new UsageError(`no sample named "${name}" (try --list-samples)`);
  return sample.path;
}

export const isUrl = (s) => /^https?:\/\//i.test(s);

/**
 * Opens a local source as a byte stream.
 * @param {string} source a path, or "-" for stdin
 * @returns {Promise<ReadableStream<Uint8Array>>}
 */
// deno-lint-ignore require-await -- async so that a failure is a rejection, as the callers await it
export async function openLocal(source) {
  if (source === "-") return Readable.toWeb(process.stdin);
  let st;
  try {
    st = statSync(source);
  } catch (e) {
    throw new UsageError(`cannot read ${source}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
  }
  if (st.isDirectory()) throw new UsageError(`cannot read ${source}: it is a directory`);
  return Readable.toWeb(createReadStream(source));
}

/** A short name for the source, used as the reader's `client` in error messages. */
export function sourceLabel(source) {
  if (source === "-") return "stdin";
  if (isUrl(source)) return new URL(source).host;
  return basename(source);
}

/** The URL to POST to: a URL whose path ends in `/v1` gets `/stream` appended (the MMSP endpoint). */
export function endpoint(url) {
  const target = new URL(url);
  if (/\/v1\/?$/.test(target.pathname)) target.pathname = target.pathname.replace(/\/?$/, "/stream");
  return target;
}

/**
 * POSTs the MMSP request body to a server and returns its Response.
 * @param {string} url
 * @param {{ model: string, prompt: string, key?: string, signal?: AbortSignal }} options
 */
export async function request(url, { model, prompt, key, signal }) {
  const target = endpoint(url);
  const headers = { "content-type": "application/json", accept: "text/event-stream, application/x-ndjson" };
  if (key) headers.authorization = `Bearer ${key}`;
  const body = JSON.stringify({ model, messages: [{ role: "user", content_items: [{ type: "text.done", text: prompt }] }], config: {} });
  try {
    return await fetch(target, { method: "POST", headers, body, signal });
  } catch (e) {
    const reason = e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(e);
    throw new ConnectError(`cannot reach ${target.href}: ${reason}${CONNECT_HINTS[reason] ? `: ${CONNECT_HINTS[reason](target)}` : ""}`);
  }
}

/** What a failed connection most likely means, by its error code. */
const CONNECT_HINTS = {
  ECONNREFUSED: (t) => `nothing listens on ${t.host}: is the MMSP server running, and on this port?`,
  ENOTFOUND: (t) => `no such host ${t.hostname}: check the URL`,
  EAI_AGAIN: (t) => `the name ${t.hostname} could not be resolved now (DNS): check the network`,
  ECONNRESET: () => "the server closed the connection: check the server's logs (a TLS URL given as http://, or the reverse?)",
  ETIMEDOUT: (t) => `${t.host} did not answer: check the URL, the port and any firewall`,
};

/** The server could not be reached (exit status 1: the stream failed, the command line was fine). */
export class ConnectError extends Error {}

/** The input is neither SSE nor NDJSON (exit status 1). */
export class InputError extends Error {}

const BLANK = new Set([0x20, 0x09, 0x0d, 0x0a]);
const enc = (s) => new TextEncoder().encode(s);
const SSE_STARTS = ["data:", ":", "event:", "id:", "retry:"].map(enc);
const LONGEST = Math.max(...SSE_STARTS.map((s) => s.length));

/**
 * Reads just enough of `stream` to tell SSE from NDJSON, and returns the format with a stream that
 * still yields every byte (the sniffed ones included).
 * SSE when the first non-blank bytes (after an optional BOM) start a field or a comment
 * (`data:`, `:`, `event:`, `id:`, `retry:`), NDJSON when they are `{`.
 * @param {ReadableStream<Uint8Array>} stream
 * @returns {Promise<{ format: "sse" | "ndjson" | undefined, stream: ReadableStream<Uint8Array>, head: string }>}
 */
export async function sniff(stream) {
  const reader = stream.getReader();
  const chunks = [];
  let head = new Uint8Array(0);
  let format;
  let ended = false;
  for (;;) {
    let start = 0;
    if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) start = 3;
    while (start < head.length && BLANK.has(head[start])) start++;
    const rest = head.subarray(start);
    if (rest.length > 0) {
      if (rest[0] === 0x7b) format = "ndjson";
      else if (SSE_STARTS.some((p) => startsWith(rest, p))) format = "sse";
      const decided = format !== undefined || rest.length >= LONGEST || ended;
      if (decided) {
        const text = new TextDecoder().decode(rest.subarray(0, 40));
        return { format, stream: replay(chunks, reader, ended), head: text };
      }
    } else if (ended) {
      return { format: undefined, stream: replay(chunks, reader, ended), head: "" };
    }
    const { done, value } = await reader.read();
    if (done) ended = true;
    else {
      chunks.push(value);
      const joined = new Uint8Array(head.length + value.length);
      joined.set(head);
      joined.set(value, head.length);
      head = joined;
    }
  }
}

function startsWith(bytes, prefix) {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** The chunks already read, then the rest of the reader. */
function replay(chunks, reader, ended) {
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      if (i < chunks.length) return controller.enqueue(chunks[i++]);
      if (ended) return controller.close();
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/**
 * Counts the bytes that pass (the summary's "after N events and M bytes").
 * @returns {TransformStream<Uint8Array, Uint8Array> & { bytes: number }}
 */
export function byteCounter() {
  const counter = new TransformStream({
    transform(chunk, controller) {
      counter.bytes += chunk.length;
      controller.enqueue(chunk);
    },
  });
  counter.bytes = 0;
  return counter;
}

/**
 * Replays bytes at a readable speed: splits them after each record end (a blank line for SSE, a
 * line end for NDJSON) and waits `ms` before each record's end but the first one's.
 * @param {number} ms
 * @param {"sse" | "ndjson"} format
 */
export function pacer(ms, format) {
  const sleep = () => new Promise((resolve) => setTimeout(resolve, ms));
  let first = true;
  let pendingLf = false; // an SSE chunk ended in "\n": is the next byte the blank line?
  return new TransformStream({
    async transform(chunk, controller) {
      let from = 0;
      for (let i = 0; i < chunk.length; i++) {
        if (chunk[i] !== 0x0a) {
          if (chunk[i] !== 0x0d) pendingLf = false;
          continue;
        }
        const recordEnd = format === "ndjson" || pendingLf;
        pendingLf = format === "sse" && !recordEnd;
        if (!recordEnd) continue;
        if (!first) await sleep();
        first = false;
        controller.enqueue(chunk.subarray(from, i + 1));
        from = i + 1;
      }
      if (from < chunk.length) controller.enqueue(chunk.subarray(from)); // the start of the next record
    },
  });
}
