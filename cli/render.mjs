// What `inspect` prints: the stream as it arrives, the message at the end, and errors.

/**
 * Whether to colour a stream. FORCE_COLOR decides when it is set (force-color.org; as Node does, it
 * wins over NO_COLOR): "0" or "false" means no colours, any other value (even empty) colours, on a
 * terminal or not. Else a terminal gets colours unless NO_COLOR is set and not empty (no-color.org).
 * @param {{ isTTY?: boolean }} stream
 * @param {Record<string, string | undefined>} [env]
 */
export function wantsColor(stream, env = process.env) {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !/^(0|false)$/i.test(force.trim());
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

const sgr = (open, close) => (s) => `\x1b[${open}m${s}\x1b[${close}m`;
const plain = (s) => s;

/** @param {boolean} color */
export function makeStyle(color) {
  const names = {
    dim: [2, 22],
    bold: [1, 22],
    red: [31, 39],
    green: [32, 39],
    yellow: [33, 39],
    blue: [34, 39],
    magenta: [35, 39],
    cyan: [36, 39],
  };
  return Object.fromEntries(Object.entries(names).map(([k, [o, c]]) => [k, color ? sgr(o, c) : plain]));
}

/**
 * Model output is untrusted: control characters (ESC above all) and bidi overrides are shown
 * escaped instead of reaching the terminal. Newlines and tabs stay.
 */
export function clean(s) {
  return String(s).replace(
    // deno-lint-ignore no-control-regex -- control and bidi characters are what it escapes
    /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export const num = (n) => n.toLocaleString("en-US");
const chars = (s) => Array.from(s).length;
export const plural = (n, word) => `${num(n)} ${word}${n === 1 ? "" : "s"}`;

/** One line, at most `max` code points, for JSON and previews. */
function short(s, max = 72) {
  const a = Array.from(clean(s).replace(/\n/g, "\\n"));
  return a.length <= max ? a.join("") : a.slice(0, max - 1).join("") + "…";
}

const hasFidelity = (f) => f !== null && typeof f === "object" && Object.keys(f).length > 0;
function fidelityNote(f) {
  return Object.entries(f)
    .map(([k, v]) => (typeof v === "string" ? `${clean(k)} (${plural(chars(v), "char")})` : clean(k)))
    .join(", ");
}

/**
 * Prints UniEvents as they arrive: a header when an item begins, then its content as it grows.
 * thinking dimmed; text as is; tool calls with name and id, then the argument text as it streams;
 * media as a byte counter (live on a TTY, the total otherwise); embeddings as dimension + first values.
 */
export class LiveRenderer {
  /**
   * @param {NodeJS.WriteStream} out
   * @param {{ color: boolean, live: boolean }} options live: rewrite the media counter in place (a TTY)
   */
  constructor(out, { color, live }) {
    this.out = out;
    this.s = makeStyle(color);
    this.live = live;
    this.group = null;
    this.atLineStart = true;
    this.events = 0;
  }

  write(s) {
    this.out.write(s);
  }

  /** Writes content indented by two spaces, continuing the current line. */
  content(text, style = plain) {
    const lines = clean(text).split("\n");
    lines.forEach((line, i) => {
      if (i > 0) {
        this.write("\n");
        this.atLineStart = true;
      }
      if (line === "") return;
      if (this.atLineStart) this.write("  ");
      this.write(style(line));
      this.atLineStart = false;
    });
  }

  endLine() {
    if (!this.atLineStart) this.write("\n");
    this.atLineStart = true;
  }

  line(s) {
    this.endLine();
    this.write(`${s}\n`);
  }

  /** @param {any} event a checked UniEvent */
  event(event) {
    this.events++;
    if (event.event_type === "stop") {
      this.line(this.s.dim("▸ stop"));
      return;
    }
    for (const item of event.content_items) this.item(item);
  }

  item(item) {
    const s = this.s;
    const [kind, phase] = String(item.type).split(".");
    if (phase === "delta" && !this.group) {
      this.group = { kind, chunks: 0, bytes: 0, fidelity: null };
      const header = {
        thinking: s.magenta("▸ thinking"),
        text: s.bold("▸ text"),
        tool_call: `${s.cyan("▸ tool_call")} ${s.bold(clean(item.name))}  ${s.dim(`id=${clean(item.tool_call_id)}`)}`,
        inline_data: `${s.yellow("▸ inline_data")} ${clean(item.mime_type)}`,
        inline_thinking: `${s.yellow("▸ inline_thinking")} ${clean(item.mime_type)}`,
        embedding: s.green("▸ embedding"),
      }[kind] ?? `▸ ${clean(kind)}`;
      this.line(header);
    }
    const g = this.group;
    if (phase === "delta") {
      if (hasFidelity(item.fidelity)) g.fidelity = item.fidelity;
      switch (kind) {
        case "thinking":
          return this.content(item.thinking, s.dim);
        case "text":
          return this.content(item.text);
        case "tool_call":
          return this.content(item.arguments, s.cyan);
        case "inline_data":
        case "inline_thinking":
          g.chunks++;
          g.bytes += item.data.length;
          if (this.live) {
            this.write(`\r\x1b[2K  ${num(g.bytes)} bytes ${s.dim(`(${plural(g.chunks, "chunk")}…)`)}`), (this.atLineStart = false);
          }
          return;
        case "embedding": {
          const v = item.embedding;
          const first = v.slice(0, 4).map((x) => String(x)).join(", ");
          return this.line(`  ${num(v.length)} dims  [${first}${v.length > 4 ? ", …" : ""}]`);
        }
      }
      return;
    }
    // a .done closes the group
    if (g && (kind === "inline_data" || kind === "inline_thinking")) {
      if (this.live) this.write("\r\x1b[2K"), (this.atLineStart = true);
      this.line(`  ${num(g.bytes)} bytes in ${plural(g.chunks, "chunk")}`);
    }
    this.endLine();
    if (g?.fidelity) this.line(s.dim(`  · fidelity: ${fidelityNote(g.fidelity)}`));
    this.group = null;
  }

  /** Ends the live part (before a summary or an error). */
  finish() {
    this.endLine();
  }
}

/** The done item, one line: kind and size. */
function describeItem(item, s) {
  const fid = hasFidelity(item.fidelity) ? s.dim(`  fidelity: ${fidelityNote(item.fidelity)}`) : "";
  switch (item.type) {
    case "text.done":
      return `${plural(chars(item.text), "char")}${fid}`;
    case "thinking.done":
      return `${plural(chars(item.thinking), "char")}${fid}`;
    case "tool_call.done":
      return `${s.bold(clean(item.name))}  id=${clean(item.tool_call_id)}  arguments ${short(JSON.stringify(item.arguments), 60)}${fid}`;
    case "inline_data.done":
    case "inline_thinking.done":
      return `${clean(item.mime_type)}  ${plural(item.data.length, "byte")}${fid}`;
    case "embedding.done":
      return `${num(item.embedding.length)} dims`;
    default:
      return fid.trim();
  }
}

/** A token count; an unknown one (null) as a dash, not the word "null". */
const count = (n) => (n === null || n === undefined ? "—" : num(n));
const add = (a, b) => (a === null && b === null ? null : (a ?? 0) + (b ?? 0));

/**
 * The finished message: its items with kinds and sizes, usage, finish reason; then how much was read.
 * @param {any} message
 * @param {{ events: number, bytes: number, format: string, seconds: number, timings?: any }} stats
 */
export function summary(message, stats, color) {
  const s = makeStyle(color);
  const items = message.content_items;
  const width = Math.max(0, ...items.map((i) => String(i.type).length));
  const lines = ["", s.bold(`message: ${plural(items.length, "item")}`)];
  items.forEach((item, i) => lines.push(`  ${String(i + 1).padStart(2)}. ${clean(item.type).padEnd(width)}  ${describeItem(item, s)}`));
  const u = message.usage_metadata;
  if (u) {
    const input = add(u.cached_tokens, u.prompt_tokens);
    const output = add(u.thoughts_tokens, u.response_tokens);
    lines.push(
      `usage:   cached ${count(u.cached_tokens)} · prompt ${count(u.prompt_tokens)} · thoughts ${count(u.thoughts_tokens)} · response ${
        count(u.response_tokens)
      }` +
        s.dim(`  (input ${count(input)}, output ${count(output)})`),
    );
  }
  lines.push(`finish:  ${s.bold(String(message.finish_reason))}`);
  if (typeof message.created_at === "number") lines.push(`created: ${new Date(message.created_at).toISOString()}`);
  lines.push(
    s.dim(`read:    ${plural(stats.events, "event")} · ${plural(stats.bytes, "byte")} · ${stats.format} · ${stats.seconds.toFixed(2)} s`),
  );
  if (stats.timings) lines.push(s.dim(`timings: ${timingsLine(stats.timings)}`));
  return lines.join("\n") + "\n";
}

/** The reader's timings, after the first byte: first event, first content, stop, and the rate. */
export function timingsLine(t) {
  const after = (at) => (at === null || t.firstByteAt === null ? "—" : `${num(Math.round(at - t.firstByteAt))} ms`);
  const rate = t.charactersPerSecond === null ? "" : ` at ${num(Math.round(t.charactersPerSecond))}/s`;
  return `first event ${after(t.firstEventAt)} · first content ${after(t.firstContentAt)} · stop ${
    after(t.stopAt)
  } (after the first byte) · ${plural(t.characters, "character")}${rate}`;
}

/** The package's error classes, most specific first (for names: a bundler may rename a class). */
const ERROR_CLASSES = [
  "UpstreamError",
  "ToolCallArgumentParseError",
  "EmptyResponseError",
  "StreamLimitError",
  "StreamProtocolError",
  "UnsupportedParameterError",
  "UnsupportedOperationError",
  "MmspError",
];

/** The class name of a package error, found by `instanceof` against the package's exports. */
export function errorClass(e, lib) {
  return ERROR_CLASSES.find((name) => typeof lib[name] === "function" && e instanceof lib[name]) ?? e?.name ?? "Error";
}

/**
 * A package error (`MmspError`), with everything that locates it: class, rule, event index, byte
 * offset, preview; for an `UpstreamError` its type, status and message, and the typed cause.
 * @param {Error & Record<string, any>} e
 * @param {boolean} color
 * @param {Record<string, any>} lib the package (its error classes)
 * @param {{ hint?: string, received?: string }} [extra] a diagnosis the CLI made, and the first bytes received
 */
export function describeError(e, color, lib, extra = {}) {
  const s = makeStyle(color);
  const lines = [];
  const field = (name, value) => value !== undefined && value !== null && lines.push(`  ${(name + ":").padEnd(9)} ${value}`);
  const head = (err, cls) => {
    if (cls === "UpstreamError") return `${cls} ${s.bold(clean(err.errorType ?? "(no type)"))} (status ${err.status ?? "none"})`;
    return err.rule !== undefined ? `${cls} (rule ${s.bold(clean(err.rule))})` : cls;
  };
  const cls = errorClass(e, lib);
  lines.push(`${s.red(s.bold("error:"))} ${head(e, cls)}`);
  field("message", clean(withoutLocation(e)));
  // what to do about it: the CLI's own diagnosis, else what the error's kind calls for (worth a retry or not)
  const hint = typeof e.hint === "string" ? e.hint : (extra.hint ?? hintFor(e, lib));
  field("hint", hint !== undefined ? clean(hint) : undefined);
  field("received", extra.received !== undefined ? clean(extra.received) : undefined);
  if (cls !== "UpstreamError") field("rule", e.rule !== undefined ? clean(e.rule) : undefined);
  field("event", e.eventIndex !== undefined ? `${e.eventIndex} ${s.dim("(0-based)")}` : undefined);
  field("byte", e.byteOffset);
  // "<empty input>" said by a reader that saw bytes it made nothing of: the bytes received say more
  const preview = extra.received !== undefined && e.preview === "<empty input>" ? undefined : e.preview;
  field("preview", preview !== undefined ? short(preview, 120) : undefined);
  typedFields(e, cls, field);
  const c = e.cause;
  if (cls === "UpstreamError" && c instanceof Error) {
    const causeClass = errorClass(c, lib);
    lines.push(`  cause:    ${head(c, causeClass)}`);
    typedFields(c, causeClass, field);
  }
  return lines.join("\n") + "\n";
}

/** The message without the " (rule …, event …, byte …): preview" the fields below already show. */
function withoutLocation(e) {
  const at = e.rule !== undefined ? e.message.indexOf(` (rule ${e.rule}`) : -1;
  return at > 0 ? e.message.slice(0, at) : e.message;
}

/** Any other error: one line, or the stack when it looks like a bug. */
export function describeOther(e, color, { stack = false } = {}) {
  const s = makeStyle(color);
  const text = e instanceof Error ? (stack ? e.stack ?? e.message : e.message) : String(e);
  return `${s.red(s.bold("error:"))} ${clean(text)}\n`;
}

function typedFields(e, cls, field) {
  if (cls === "ToolCallArgumentParseError") {
    field("tool", `${clean(e.toolName)}  id=${clean(e.toolCallId)}`);
    field("args", `${num(e.rawArgumentsLength)} chars: ${short(JSON.stringify(e.rawArgumentsPreview), 120)}`);
  } else if (cls === "EmptyResponseError") {
    field("finish", JSON.stringify(e.finishReason));
  } else if (cls === "StreamLimitError") {
    field("limit", `${clean(e.limit)}=${e.value}`);
  }
}

/** The command that decompresses each kind of compressed file the reader names, to pipe into stdin. */
const DECOMPRESS = { gzip: "zcat", zstd: "zstdcat", "zlib/deflate": "zlib-flate -uncompress <" };

/**
 * For a local file (or stdin) that is compressed: how to read it decompressed, e.g.
 * `zcat f.sse.gz | mmsp-streams inspect -` (the reader's own advice speaks of HTTP headers).
 * @param {Error & Record<string, any>} e
 * @param {string} source the file given, or "-"
 * @param {string} command the CLI's command reading stdin (e.g. "inspect -")
 * @returns {string | undefined}
 */
export function compressedFileHint(e, source, command) {
  if (e.rule !== "NOT-A-STREAM") return undefined;
  const kind = /(gzip|zstd|zlib\/deflate)-compressed bytes/.exec(e.message)?.[1];
  if (kind === undefined) return undefined;
  const tool = DECOMPRESS[kind];
  const file = source === "-" ? "<file>" : /^[\w./-]+$/.test(source) ? source : JSON.stringify(source);
  return `the ${source === "-" ? "input" : "file"} is ${kind}-compressed: decompress it first, ${tool} ${file} | mmsp-streams ${command}`;
}

/**
 * What to do about an error, by its kind: whether a retry can help (docs/guide/errors.md's table says the same).
 * @param {Error & Record<string, any>} e
 * @param {Record<string, any>} lib
 * @returns {string | undefined}
 */
export function hintFor(e, lib) {
  if (lib.ConnectionError && e instanceof lib.ConnectionError) return "no answer came: start the server or fix the URL, then retry";
  if (lib.UpstreamError && e instanceof lib.UpstreamError) {
    if (e.errorType === "StreamCancelled") return "the stream was stopped on purpose: nothing to retry";
    if (e.status === 429 || (typeof e.status === "number" && e.status >= 500)) {
      return "the server was busy or failed: worth a retry after a pause";
    }
    if (typeof e.status === "number" && e.status >= 400) {
      return "the request was refused: fix what the message names (URL, key, model, body); a retry alone will not help";
    }
    if (typeof e.status === "number" || e.eventIndex === 0) {
      // a 2xx whose body is one JSON error document (or a file that is one): refused, not failed mid-stream
      return "the server answered with an error instead of a stream: fix what the message names (model, key, body); a retry helps only if it says the server was busy";
    }
    return "the model's server failed mid-stream: worth a retry";
  }
  switch (e.rule) {
    case "NOT-A-STREAM":
      return "the body is no event stream at all: a retry will not help; fix the URL, the format or what stands in between (proxy, compression)";
    case "STOP-LAST":
      return "the stream was cut before its stop event: worth a retry (or a resume)";
    case "LIMIT":
      return "a limit of the reader was reached: raise the option the message names if the stream is legitimate";
    case undefined:
      return undefined;
    default:
      return "the producer broke the protocol: a retry rarely helps; report it with the event and byte above";
  }
}

/**
 * An error as plain JSON for `inspect --json`: its class, message and every field that locates or
 * describes it (rule, eventIndex, byteOffset, preview, hint, client, status, …), its cause likewise.
 * @param {unknown} e
 * @param {Record<string, any>} lib
 * @param {{ hint?: string, received?: string }} [extra]
 */
export function errorJson(e, lib, extra = {}) {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  // a package error by its class; else its name (AbortError…), or its class when the name is plain "Error"
  const other = e.name && e.name !== "Error" ? e.name : e.constructor?.name || "Error";
  const out = { name: lib.MmspError && e instanceof lib.MmspError ? errorClass(e, lib) : other, message: e.message };
  for (const [k, v] of Object.entries(e)) if (k !== "name" && k !== "stack" && k !== "cause" && v !== undefined) out[k] = v;
  if (out.hint === undefined) out.hint = extra.hint ?? hintFor(e, lib);
  if (out.hint === undefined) delete out.hint;
  if (extra.received !== undefined) out.received = extra.received;
  if (e.cause !== undefined) out.cause = errorJson(e.cause, lib);
  return out;
}
