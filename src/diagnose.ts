/**
 * What the bytes were, when a stream ended without a single event (issue #12).
 *
 * "The stream ended without a stop event" is true of an empty body, an HTML page from a proxy, a
 * JSON document, NDJSON read as SSE, gzip bytes and an OpenAI stream alike, and helps nobody. These
 * pure functions look at the first bytes of the body (and what the response said about them) and
 * name the mistake, with what to do about it. They never throw and hold no state.
 */

import type { BodyContext, Explainer, WireFormat } from "./framing/framer.js";
import { hexBytes } from "./framing/head.js";
import { findInvalidUtf8 } from "./framing/utf8.js";
import { isJsonDocumentType, mediaType } from "./internal/media-type.js";
import { isRecord, PREVIEW_CHARS } from "./internal/values.js";
import { parseJsonText } from "./internal/json.js";

/** Bytes that break UTF-8 this early are a binary body (compressed, a file), not a stream with a bad byte. */
const BINARY_WITHIN = 64;

/** What a diagnosis says: what the bytes were, and what to do. */
export interface Diagnosis {
  /** What the body was, e.g. `an HTML page titled "502 Bad Gateway" (Content-Type: text/html)`. */
  what: string;
  /** What to do about it, e.g. `check the URL: …`. */
  advice: string;
}

/** What is known about the body besides its first bytes. */
export interface BodyInfo {
  /** The response's `Content-Type`, when there was a response. */
  contentType?: string | null;
  /** The response's `Content-Encoding`, when there was a response. */
  contentEncoding?: string | null;
  /** The format the reader was told to read. */
  format: WireFormat | "auto";
  /** How many bytes the body had in all (the head is at most its first `HEAD_BYTES`, framing/head.ts). */
  totalBytes: number;
  /** The stream the reader wants: `"mmsp"` (default) or a provider's name; any other is named with its reader. */
  expect?: string;
}

const STREAM_EXPECTED = "check the URL and the request: an MMSP server streams from POST …/v1/stream";
const WANTS_UNIEVENTS =
  `this reader wants MMSP UniEvents ({"event_type", "role", "content_items"}): point it at the MMSP endpoint (POST …/v1/stream), or convert the stream to UniEvents first`;

/** Each provider's stream in words, and the factory of mmsp-streams/providers that reads it. */
const READERS: Readonly<Record<string, readonly [string, string]>> = {
  "openai-chat": ["an OpenAI Chat Completions stream", "openaiChat"],
  "openai-responses": ["an OpenAI Responses stream", "openaiResponses"],
  anthropic: ["an Anthropic Messages stream", "anthropic"],
  gemini: ["a Google Gemini stream", "gemini"],
};
const wantsMmsp = (info: BodyInfo): boolean => (info.expect ?? "mmsp") === "mmsp";
const wanted = (info: BodyInfo): string => (wantsMmsp(info) ? "MMSP UniEvents" : READERS[info.expect!]?.[0] ?? `a ${info.expect} stream`);
const readAs = (provider: string): string =>
  `use \`${READERS[provider]![1]}\` (mmsp-streams/providers), or new ProviderEventStream("${provider}")`;
const streamExpected = (info: BodyInfo): string =>
  wantsMmsp(info)
    ? STREAM_EXPECTED
    : `check the URL and the request: it must ask for a stream ("stream": true; Gemini: :streamGenerateContent?alt=sse)`;

// ---- foreign events -----------------------------------------------------------------------------

const ANTHROPIC_TYPES = /*#__PURE__*/ new Set([
  "message_start",
  "message_delta",
  "message_stop",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "ping",
]);

// AI SDK UI message stream parts (`x-vercel-ai-ui-message-stream: v1`); `data-*` parts are open-ended.
const AI_SDK_TYPES = /*#__PURE__*/ new Set([
  "start",
  "finish",
  "abort",
  "start-step",
  "finish-step",
  "text-start",
  "text-delta",
  "text-end",
  "reasoning-start",
  "reasoning-delta",
  "reasoning-end",
  "tool-input-start",
  "tool-input-delta",
  "tool-input-available",
  "tool-input-error",
  "tool-output-available",
  "tool-output-error",
  "source-url",
  "source-document",
  "file",
  "message-metadata",
]);

/** A recognizable event of another protocol: its name and what it is called there. */
interface Foreign {
  /** The protocol, e.g. `an OpenAI Chat Completions stream`. */
  stream: string;
  /** The record itself, e.g. `an OpenAI chat.completion.chunk`. */
  record: string;
  /** The provider whose stream it is, when the package reads it (`"openai-chat"`…). */
  provider?: string;
}

const foreign = (stream: string, record: string, provider?: string): Foreign => ({ stream, record, provider });

function recognize(value: unknown): Foreign | undefined {
  if (!isRecord(value) || "event_type" in value || "content_items" in value) return undefined;
  const { object, type } = value;
  if (object === "chat.completion.chunk") {
    return foreign("an OpenAI Chat Completions stream (chat.completion.chunk events)", "an OpenAI chat.completion.chunk", "openai-chat");
  }
  if (object === "chat.completion") {
    return { stream: "a whole OpenAI chat.completion (the non-streaming answer)", record: "an OpenAI chat.completion" };
  }
  if (object === "text_completion") {
    return { stream: "an OpenAI Completions stream (text_completion events)", record: "an OpenAI text_completion" };
  }
  if (typeof type === "string") {
    if (
      /^response\.[a-z_.]+$/.test(type) && ("sequence_number" in value || "response" in value || "delta" in value || "item_id" in value)
    ) {
      return foreign(`an OpenAI Responses stream (${type} events)`, `an OpenAI Responses event "${type}"`, "openai-responses");
    }
    if (ANTHROPIC_TYPES.has(type)) {
      return foreign(`an Anthropic Messages stream (${type} events)`, `an Anthropic Messages event "${type}"`, "anthropic");
    }
    if (AI_SDK_TYPES.has(type) || /^data-[\w-]+$/.test(type) || (type === "error" && typeof value.errorText === "string")) {
      return { stream: `an AI SDK UI message stream ("${type}" parts)`, record: `an AI SDK UI message stream part "${type}"` };
    }
  }
  // OpenAI-compatible servers (vLLM, llama.cpp, proxies…) do not all send `object`: their choices tell
  if (Array.isArray(value.choices)) {
    if (value.choices.some((c) => isRecord(c) && isRecord(c.delta))) {
      const stream = "an OpenAI-compatible Chat Completions stream (chunks with choices[].delta)";
      return foreign(stream, "an OpenAI-compatible chat completion chunk", "openai-chat");
    }
    if (value.choices.some((c) => isRecord(c) && isRecord(c.message))) {
      return {
        stream: "a whole OpenAI-compatible chat completion (the non-streaming answer)",
        record: "an OpenAI-compatible chat completion (the non-streaming answer)",
      };
    }
  }
  if (Array.isArray(value.candidates) || isRecord(value.promptFeedback)) {
    return foreign("a Google Gemini stream (GenerateContentResponse chunks)", "a Google Gemini GenerateContentResponse", "gemini");
  }
  if (typeof value.model === "string" && typeof value.done === "boolean" && ("message" in value || "response" in value)) {
    return { stream: "an Ollama stream", record: "an Ollama chat/generate chunk" };
  }
  return undefined;
}

/**
 * For a parsed record that fails the schema: whether it is an event of another protocol (an OpenAI
 * `chat.completion.chunk`, an Anthropic `message_start`, …), and what to do. Undefined otherwise.
 */
export function foreignEventHint(value: unknown): Diagnosis | undefined {
  const found = recognize(value);
  return found && { what: `this is ${found.record}, not an MMSP UniEvent`, advice: mmspAdvice(found) };
}

/** The MMSP reader's advice for another protocol's stream: UniEvents wanted, and the package's reader of it when it has one. */
const mmspAdvice = (f: Foreign): string => (f.provider ? `${WANTS_UNIEVENTS} (this one: ${readAs(f.provider)})` : WANTS_UNIEVENTS);
const MMSP_STREAM = foreign("an MMSP UniEvent stream", "");

/** Another stream than the reader wants, named, with the reader that reads it. */
function named(f: Foreign, info: BodyInfo, suffix = ""): Diagnosis {
  const what = `${f.stream}${suffix}, not ${wanted(info)}`;
  if (f === MMSP_STREAM) return { what, advice: "read it with UniEventStream (or fromResponse, fromFetch): it is UniEvents already" };
  if (wantsMmsp(info)) return { what, advice: mmspAdvice(f) };
  return { what, advice: f.provider ? readAs(f.provider) : `this reader wants ${wanted(info)}: ${streamExpected(info)}` };
}

// ---- bytes --------------------------------------------------------------------------------------

/**
 * Binary: not UTF-8 from its first bytes, or a NUL, or more control characters than text has. (Text
 * with one bad byte further in is a corrupted stream, `UTF8`, not a binary body: compressed or random
 * bytes break UTF-8 within a few bytes.)
 */
function looksBinary(bytes: Uint8Array): boolean {
  const bad = findInvalidUtf8(bytes);
  if (bad >= 0 && bad < BINARY_WITHIN) return true;
  let controls = 0;
  for (const b of bytes) {
    if (b === 0) return true;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) controls++;
  }
  return controls > bytes.length / 20;
}

/** Control characters escaped (`\n`, `\u001b`), so a preview is one printable line. */
function escapeText(text: string): string {
  // deno-lint-ignore no-control-regex -- control characters are what it escapes
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/**
 * A short, printable preview of the first bytes received: the text with control characters
 * escaped, cut at about 120 characters, or the bytes in hex when they are not text. An empty head
 * is `<empty body>`.
 */
export function previewBytes(head: Uint8Array, max = PREVIEW_CHARS): string {
  if (head.length === 0) return "<empty body>";
  if (looksBinary(head)) {
    const shown = Math.max(1, Math.floor(max / 3));
    return hexBytes(head.subarray(0, shown)) + (head.length > shown ? " …" : "");
  }
  const text = new TextDecoder().decode(head.subarray(0, max * 4)).replace(/\ufffd$/, ""); // a character cut by the head
  const chars = Array.from(escapeText(text));
  return chars.length <= max ? chars.join("") : chars.slice(0, max).join("") + "…";
}

// ---- the diagnosis ------------------------------------------------------------------------------

const num = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const quoted = (s: string, max = 80): string => JSON.stringify(s.length <= max ? s : s.slice(0, max) + "…");

const saidType = (info: BodyInfo): string => (info.contentType ? ` (Content-Type: ${info.contentType})` : "");
const FORMAT_NDJSON = 'read it with format: "ndjson" (or "auto", which tells SSE from NDJSON by the first line)';
const FORMAT_SSE = 'read it with format: "sse" (or "auto", which tells SSE from NDJSON by the first line)';

const COMPRESSED: { name: string; encoding: string; web: boolean; test: (b: Uint8Array) => boolean }[] = [
  { name: "gzip", encoding: "gzip", web: true, test: (b) => b[0] === 0x1f && b[1] === 0x8b },
  { name: "zstd", encoding: "zstd", web: false, test: (b) => b[0] === 0x28 && b[1] === 0xb5 && b[2] === 0x2f && b[3] === 0xfd },
  {
    // zlib: CMF 0x78 (deflate, 32 KiB window), a check byte that makes the pair a multiple of 31
    name: "zlib/deflate",
    encoding: "deflate",
    web: true,
    test: (b) => b[0] === 0x78 && [0x01, 0x5e, 0x9c, 0xda].includes(b[1]!) && looksBinary(b),
  },
];

function compressed(head: Uint8Array, info: BodyInfo): Diagnosis | undefined {
  const said = info.contentEncoding
    ? `the response says Content-Encoding: ${info.contentEncoding}, yet the bytes reached the reader still compressed`
    : "the response has no Content-Encoding header, so nothing decompressed it";
  for (const c of COMPRESSED) {
    if (!c.test(head)) continue;
    const fix = c.web
      ? `have the server send Content-Encoding: ${c.encoding}, or pipe the body through new DecompressionStream("${c.encoding}") before the reader`
      : `have the server send Content-Encoding: ${c.encoding} (to a client that decodes it), or decompress the body before the reader`;
    return { what: `${c.name}-compressed bytes (the body starts ${hexBytes(head.subarray(0, 4))}), not text`, advice: `${said}: ${fix}` };
  }
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    const what = `UTF-16 text (a ${head[0] === 0xff ? "little" : "big"}-endian byte order mark)`;
    return { what, advice: "the reader reads UTF-8 only: have the producer write UTF-8" };
  }
  if (!looksBinary(head)) return undefined;
  // brotli has no signature: binary that is no known format may well be it
  return {
    what: `binary data, not UTF-8 text${saidType(info)}: perhaps brotli- or otherwise compressed (brotli has no signature)`,
    advice:
      `if the server compresses it, ${said}: have the server send the right Content-Encoding (br for brotli), or decompress the body before the reader; otherwise the URL serves a file, not an event stream`,
  };
}

/** The records at the start of the text: SSE `data:` payloads and `event:` names, or JSON lines. */
interface Lines {
  /** The whole non-blank lines (a line the head cut is not one). */
  lines: string[];
  /** The first non-blank line, whole or cut by the head. */
  first: string | undefined;
  /** Whether the text holds the whole body. */
  complete: boolean;
}

function splitLines(text: string, complete: boolean): Lines {
  const all = text.split(/\r\n|\r|\n/);
  const first = all.find((l) => l.trim() !== "");
  if (!complete) all.pop(); // cut by the head: not a whole line
  return { lines: all.filter((l) => l.trim() !== ""), first, complete };
}

function tryParse(text: string): { value: unknown } | undefined {
  try {
    return { value: parseJsonText(text) };
  } catch {
    return undefined;
  }
}

const SSE_FIELD = /^(data|event|id|retry)(:|$)/;
const isSseLine = (line: string): boolean => line.startsWith(":") || SSE_FIELD.test(line);

/** A foreign protocol's records among the first lines (SSE or NDJSON), or its SSE event names; null: the stream the reader wants. */
function foreignStream({ lines }: Lines, info: BodyInfo): Diagnosis | null | undefined {
  const found = (f: Foreign): Diagnosis | null => (f.provider !== undefined && f.provider === info.expect ? null : named(f, info));
  for (const line of lines.slice(0, 20)) {
    let payload = line;
    const field = /^(data|event):\s?(.*)$/.exec(line);
    if (field) {
      if (field[1] === "event") {
        const name = field[2]!.trim();
        if (ANTHROPIC_TYPES.has(name)) return found(foreign(`an Anthropic Messages stream (${name} events)`, "", "anthropic"));
        if (/^response\.[a-z_.]+$/.test(name)) return found(foreign(`an OpenAI Responses stream (${name} events)`, "", "openai-responses"));
        continue;
      }
      payload = field[2]!;
    }
    if (!payload.startsWith("{")) continue;
    const value = tryParse(payload)?.value;
    const f = isRecord(value) && typeof value.event_type === "string" && Array.isArray(value.content_items)
      ? MMSP_STREAM
      : recognize(value);
    if (f && (f !== MMSP_STREAM || !wantsMmsp(info))) return found(f); // (UniEvents are the MMSP reader's own)
  }
  // AI SDK 4's data stream protocol: `0:"text"`, `f:{"messageId":…}` lines
  const aiSdk4 = lines.slice(0, 5).filter((l) => /^[0-9a-k]:/.test(l) && tryParse(l.slice(2)) !== undefined);
  if (aiSdk4.length > 0 && aiSdk4.length === Math.min(lines.length, 5)) {
    return named(foreign('an AI SDK data stream (version 4 lines such as 0:"text")', ""), info);
  }
  return undefined;
}

function errorObject(value: Record<string, unknown>): string | undefined {
  const says = (e: Record<string, unknown>): string => {
    const type = typeof e.type === "string" ? e.type : typeof e.code === "string" ? e.code : undefined;
    const message = typeof e.message === "string" ? e.message : undefined;
    return [type, message && quoted(message, 160)].filter(Boolean).join(": ");
  };
  if (value.type === "error" && isRecord(value.error)) return `an Anthropic error object (${says(value.error)})`;
  if (isRecord(value.error)) {
    const e = value.error;
    const openAi = "param" in e || "code" in e;
    return `${openAi ? "an OpenAI-style" : "an MMSP"} error object (${says(e)})`;
  }
  if (typeof value.error === "string") return `an error object (${quoted(value.error, 160)})`;
  return undefined;
}

/** The text says it is a JSON document (not lines of events): the whole of it, or its Content-Type. */
function jsonDocument(text: string, { lines, first = "", complete }: Lines, info: BodyInfo): Diagnosis | undefined {
  const trimmed = text.trim();
  const whole = complete ? tryParse(trimmed) : undefined;
  const firstLine = tryParse(first);
  const jsonType = isJsonDocumentType(mediaType(info.contentType));
  // Several whole JSON objects, one a line, are NDJSON, not a document.
  const severalLines = firstLine !== undefined && lines.length > 1 && lines[1]!.trimStart().startsWith("{");
  const uniEvent = isRecord(firstLine?.value) && "event_type" in firstLine.value;
  // (a UniEvent line longer than the head is cut, but says what it is)
  const cutUniEvent = firstLine === undefined && /^\s*\{\s*"(event_type|role|content_items)"\s*:/.test(first);
  if (severalLines || ((uniEvent || cutUniEvent) && !jsonType)) return undefined;
  if (!(whole || jsonType || trimmed.startsWith("[") || (firstLine === undefined && first.trim().startsWith("{")))) return undefined;
  const value = (whole ?? firstLine)?.value;
  const advice = `a stream was expected: ${streamExpected(info)}`;
  const error = isRecord(value) ? errorObject(value) : undefined;
  if (error) {
    return {
      what: `a JSON document${saidType(info)}, not a stream: ${error}`,
      advice: `the server answered with an error, not a stream; ${advice}`,
    };
  }
  if (isRecord(value)) {
    const found = recognize(value);
    if (found) return named(found, info, saidType(info));
    const says = ["message", "detail", "title"].map((k) => value[k]).find((v): v is string => typeof v === "string");
    if (says) return { what: `a JSON document${saidType(info)}, not a stream; it says ${quoted(says, 160)}`, advice };
  }
  return { what: `a JSON document${saidType(info)}, not a stream`, advice };
}

const htmlAdvice = (info: BodyInfo): string =>
  `it likely came from a proxy or gateway, a login page or a wrong URL rather than ${
    wantsMmsp(info) ? "an MMSP server" : "the provider's API"
  }: check the URL, the credentials and anything in between`;

function htmlPage(text: string, info: BodyInfo, advice = htmlAdvice(info)): Diagnosis | undefined {
  const start = text.trimStart().slice(0, 200).toLowerCase();
  const htmlType = mediaType(info.contentType) === "text/html" || mediaType(info.contentType) === "application/xhtml+xml";
  if (!htmlType && !/^(<!doctype html|<html|<head|<body|<title|<!--|<meta|<h1|<p>|<center|<div)/.test(start)) return undefined;
  const title = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(text)?.[1];
  const name = title === undefined ? "" : decodeEntities(title).replace(/\s+/g, " ").trim();
  return { what: `an HTML page${name ? ` titled ${quoted(name)}` : ""}${saidType(info)}`, advice };
}

/**
 * What to do about a refusal, by its status (SPEC §6): a 5xx from a gateway means the server behind
 * it failed, a 404 a wrong URL, a 401 / 403 the credentials.
 */
export function refusalAdvice(status: number): string {
  if (status === 502 || status === 503 || status === 504) {
    return "a proxy or gateway answered for the server behind it, which failed or did not answer: worth a retry later";
  }
  if (status >= 500) return "the server failed: worth a retry later, and its logs say why";
  if (status === 404 || status === 405 || status === 410) {
    return "a wrong URL: check it (an MMSP server streams from POST …/v1/stream)";
  }
  if (status === 401 || status === 403 || status === 407) return "check the credentials (the API key, a login in between)";
  if (status === 429) return "too many requests: retry after a pause";
  return "check the URL, the request and anything in between";
}

/**
 * A refused answer's body (non-2xx) when it is no text to quote (SPEC §1, §6): an HTML page (by its
 * title, no markup), binary or compressed bytes, with the advice its status calls for; undefined for
 * text (plain text, any JSON, an empty body), which the refusal quotes as it is.
 */
export function describeRefusal(head: Uint8Array, info: BodyInfo, status: number): Diagnosis | undefined {
  if (head.length === 0) return undefined;
  const packed = compressed(head, info);
  if (packed) return packed;
  const text = new TextDecoder().decode(head).replace(/^\ufeff/, "");
  return htmlPage(text, info, refusalAdvice(status));
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] !== "#") return named[e.toLowerCase()] ?? all;
    const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/** The format the reader was told against what the lines are. */
function formatMismatch({ first }: Lines, info: BodyInfo): Diagnosis | undefined {
  if (first === undefined || !wantsMmsp(info)) return undefined; // (a provider streams SSE, always)
  const type = mediaType(info.contentType);
  if (info.format === "sse" && first.trimStart().startsWith("{")) {
    if (type === "text/event-stream") {
      return {
        what: "NDJSON (one JSON object a line) served as Content-Type: text/event-stream, so it was read as SSE",
        advice: `the server's Content-Type is wrong: serve NDJSON as application/x-ndjson, or ${FORMAT_NDJSON}`,
      };
    }
    return {
      what: `NDJSON (one JSON object a line) read as SSE (format: "sse"${type ? `; Content-Type: ${info.contentType}` : ", the default"})`,
      advice: FORMAT_NDJSON,
    };
  }
  if (info.format !== "sse" && isSseLine(first)) {
    const served = type && type !== "text/event-stream" ? `; the response says Content-Type: ${info.contentType}` : "";
    return { what: `Server-Sent Events (lines such as "data: …") read as NDJSON (format: "${info.format}"${served})`, advice: FORMAT_SSE };
  }
  return undefined;
}

/**
 * What the first bytes of a body that produced no event were, and what to do; undefined when they
 * look like the start of a real MMSP stream (then the reader's own error, a truncation, stands).
 *
 * @param head the first bytes of the body (up to `HEAD_BYTES`, framing/head.ts)
 */
export function diagnose(head: Uint8Array, info: BodyInfo): Diagnosis | undefined {
  const total = Math.max(info.totalBytes, head.length);
  if (total === 0) {
    return {
      what: `an empty body${saidType(info)}: no bytes at all`,
      advice: "the server answered without a stream: check the URL and the request, and the server's logs for an error",
    };
  }
  const packed = compressed(head, info);
  if (packed) return packed;
  const complete = total <= head.length;
  const text = new TextDecoder().decode(head).replace(/^\ufeff/, "");
  if (text.trim() === "" && complete) {
    return {
      what: `a body of nothing but whitespace (${num(total)} bytes)${saidType(info)}`,
      advice: "the server answered without a stream: check the URL and the request, and the server's logs for an error",
    };
  }
  const lines = splitLines(text, complete);
  const page = htmlPage(text, info);
  if (page) return { what: `${page.what}, not an event stream`, advice: page.advice };
  const found = foreignStream(lines, info);
  if (found === null) return undefined; // the stream the reader wants: its own error stands
  const said = found ?? jsonDocument(text, lines, info) ?? formatMismatch(lines, info);
  if (said) return said;
  if (lines.lines.length > 0 && lines.lines.every((l) => l.startsWith(":"))) {
    return complete
      ? {
        what: "only SSE comments (keep-alives), no event",
        advice: "the stream ended before its first event: the server or a proxy closed it early (a time-out?); check the server's logs",
      }
      : undefined;
  }
  const first = lines.first ?? "";
  if (isSseLine(first) || first.startsWith("{")) return undefined; // the start of a stream, cut
  return {
    what: `text that is neither SSE nor NDJSON${saidType(info)}, starting ${quoted(first.trim(), 60)}`,
    advice: `the server did not answer with an event stream: ${streamExpected(info)}`,
  };
}

/** A diagnosis as one sentence, for an error message: `<what>; <advice>`. */
export function diagnosisText(d: Diagnosis): string {
  return `${d.what}; ${d.advice}`;
}

/**
 * The MMSP reader's explainer (framer.ts `Explainer`): `diagnose` of the head, with what the response
 * said about the body and the format the reader was told, as one sentence and a preview.
 */
export function bodyExplainer(context: BodyContext, format: WireFormat | "auto", expect = "mmsp"): Explainer {
  const { contentType, contentEncoding } = context;
  return (head, totalBytes) => {
    const d = diagnose(head, { contentType, contentEncoding, format, totalBytes, expect });
    return d && { detail: diagnosisText(d), preview: previewBytes(head) };
  };
}
