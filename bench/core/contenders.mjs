// The readers the multi-runtime benchmark compares, written with web APIs only (no node:*, no
// Buffer) so that the same file runs in Node, Deno, Bun, Chromium and workerd. The library and the
// peers are handed in (`makeContenders(lib, peers)`): each runtime's runner loads what loads there.
//
// Each contender's `run(chunks, format, hooks?)` replays `chunks` (views of one corpus) as a ReadableStream,
// reads everything and returns what it saw, so the harness can check that it really read it all:
//   { events }  UniEvents seen (the stop event included, `[DONE]` not), or
//   { groups }  done items of the finished message (drain: the events are not visible), or
//   { messages } SSE messages written (relay contenders: the blank lines of the output).
// `hooks.onPull` runs before each chunk is handed out (bench/memory.mjs samples memory there).

/** A ReadableStream replaying `chunks`, one per pull; `onPull` (optional) runs before each (memory sampling). */
export function replay(chunks, onPull) {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      onPull?.();
      if (i < chunks.length) c.enqueue(chunks[i++]);
      else c.close();
    },
  });
}

const sseData = (line) => (line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));

/**
 * Calls `onLine` for every "\n"-terminated line of the decoded text chunks (and the unterminated
 * rest at the end). Linear: only the new chunk is searched, pieces of a long line are joined once.
 */
function lineSplitter(onLine) {
  let pending = [];
  return {
    push(value) {
      let start = 0;
      let i;
      while ((i = value.indexOf("\n", start)) !== -1) {
        let text = value.slice(start, i);
        if (pending.length) {
          pending.push(text);
          text = pending.join("");
          pending = [];
        }
        onLine(text);
        start = i + 1;
      }
      if (start < value.length) pending.push(value.slice(start));
    },
    end() {
      if (pending.length) onLine(pending.join(""));
      pending = [];
    },
  };
}

/** SSE `data:` payloads / NDJSON lines → parsed values, `[DONE]` and other lines skipped. */
function recordParser(format, onValue) {
  const sse = format === "sse";
  return lineSplitter((text) => {
    if (sse) {
      if (!text.startsWith("data:")) return;
      const data = sseData(text);
      if (data !== "[DONE]") onValue(JSON.parse(data));
    } else if (text.length) onValue(JSON.parse(text));
  });
}

/**
 * The floor: TextDecoderStream, split on "\n" in a consumer-side loop, JSON.parse of each NDJSON
 * line / SSE `data:` payload. No validation, no assembly, no stream hop per event.
 */
async function floor(chunks, format, hooks = {}) {
  const reader = replay(chunks, hooks.onPull).pipeThrough(new TextDecoderStream()).getReader();
  let events = 0;
  const lines = recordParser(format, () => events++);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    lines.push(value);
  }
  lines.end();
  return { events };
}

// ---- a naive assembler (what a consumer writes by hand next to zod) ----------------------------

const BYTE_KINDS = new Set(["inline_data", "inline_thinking"]);
const MEMBER = { text: "text", thinking: "thinking", tool_call: "arguments", inline_data: "data", inline_thinking: "data", embedding: "embedding" };

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!deepEqual(a[k], b[k])) return false;
  return true;
}
const emptyFidelity = (f) => f == null || Object.keys(f).length === 0;

/** Concatenates the fragments of a group and compares them with its .done. */
class NaiveAssembler {
  open = null;
  items = [];
  stop = null;
  push(event) {
    if (event.event_type === "stop") {
      if (this.open) throw new Error("stop while a group is open");
      this.stop = event;
      return;
    }
    const item = event.content_items[0];
    const dot = item.type.lastIndexOf(".");
    const kind = item.type.slice(0, dot);
    const value = item[MEMBER[kind]];
    if (item.type.endsWith(".delta")) {
      if (!this.open) this.open = { kind, parts: [], fidelity: null };
      else if (this.open.kind !== kind) throw new Error(`interleaved ${kind} in an open ${this.open.kind} group`);
      this.open.parts.push(value);
      if (!emptyFidelity(item.fidelity)) this.open.fidelity = item.fidelity;
      return;
    }
    const g = this.open;
    if (!g || g.kind !== kind) throw new Error(`${item.type} without its deltas`);
    this.open = null;
    let same;
    if (kind === "tool_call") {
      const text = g.parts.join("");
      same = deepEqual(text === "" ? {} : JSON.parse(text), value);
    } else if (BYTE_KINDS.has(kind)) {
      const total = g.parts.reduce((n, p) => n + p.length, 0);
      const joined = new Uint8Array(total);
      let o = 0;
      for (const p of g.parts) {
        joined.set(p, o);
        o += p.length;
      }
      same = joined.length === value.length;
      for (let i = 0; same && i < joined.length; i++) same = joined[i] === value[i];
    } else if (kind === "embedding") {
      same = g.parts.length === 1 && deepEqual(g.parts[0], value);
    } else {
      same = g.parts.join("") === value;
    }
    if (!same) throw new Error(`${item.type} differs from its fragments`);
    if (!deepEqual(emptyFidelity(g.fidelity) ? null : g.fidelity, emptyFidelity(item.fidelity) ? null : item.fidelity)) throw new Error("fidelity differs");
    this.items.push(item);
  }
}

// ---- the validating peers' schema (zod classic API), as a user writes one ----------------------------

/**
 * An event schema in zod classic (`z.object`, whose parser zod compiles once per schema where the
 * runtime allows `new Function`), with the members and types the package's `UniEventSchema` checks;
 * `data` is how an inline item's bytes are held: base64 text (the AI SDK's peer keeps them so) or the
 * decoded `Uint8Array` (the esp+zod peer decodes first). One schema for both peers: the fastest honest
 * version of what a user would write (issue #39), measured faster than the package's own zod/mini one.
 */
function eventSchema(z, data) {
  const fidelity = z.record(z.string(), z.unknown()).nullish();
  const tokens = z.int().nonnegative().nullable();
  return z.object({
    role: z.enum(["assistant", "user"]),
    event_type: z.enum(["delta", "stop"]),
    content_items: z.array(
      z.discriminatedUnion("type", [
        z.object({ type: z.literal("text.delta"), text: z.string(), fidelity }),
        z.object({ type: z.literal("thinking.delta"), thinking: z.string(), fidelity }),
        z.object({ type: z.literal("tool_call.delta"), name: z.string(), tool_call_id: z.string(), arguments: z.string(), fidelity }),
        z.object({ type: z.literal("inline_data.delta"), data, mime_type: z.string(), fidelity }),
        z.object({ type: z.literal("inline_thinking.delta"), data, mime_type: z.string(), fidelity }),
        z.object({ type: z.literal("embedding.delta"), embedding: z.array(z.number()) }),
        z.object({ type: z.literal("text.done"), text: z.string(), fidelity }),
        z.object({ type: z.literal("thinking.done"), thinking: z.string(), fidelity }),
        z.object({ type: z.literal("tool_call.done"), name: z.string(), tool_call_id: z.string(), arguments: z.record(z.string(), z.unknown()), fidelity }),
        z.object({ type: z.literal("inline_data.done"), data, mime_type: z.string(), fidelity }),
        z.object({ type: z.literal("inline_thinking.done"), data, mime_type: z.string(), fidelity }),
        z.object({ type: z.literal("embedding.done"), embedding: z.array(z.number()) }),
      ]),
    ),
    usage_metadata: z.strictObject({ cached_tokens: tokens, prompt_tokens: tokens, thoughts_tokens: tokens, response_tokens: tokens }).nullable(),
    finish_reason: z.enum(["stop", "length", "tool_call", "unknown"]).nullable(),
    created_at: z.int().optional(),
  });
}
/** The AI SDK peer's wire schema: bytes stay base64. */
const wireSchema = (z) => eventSchema(z, z.string());
/** The esp+zod peer's schema: bytes decoded first. */
const userSchema = (z) => eventSchema(z, z.instanceof(Uint8Array));

/** A TransformStream of decoded text → parsed NDJSON values (what an NDJSON peer would write). */
function ndjsonValues() {
  let lines;
  return new TransformStream({
    start(c) {
      lines = recordParser("ndjson", (v) => c.enqueue(v));
    },
    transform(text) {
      lines.push(text);
    },
    flush() {
      lines.end();
    },
  });
}

/**
 * id → contender, for the library `lib` (the built package's exports) and the `peers` that loaded
 * ({ EventSourceParserStream, parseJsonEventStream, OpenAIStream, z }; a missing one drops its
 * contenders). `sseOnly` ones skip NDJSON; `validating` ones check the events (the goals compare
 * the package with the best of those); `relay` ones are the relay path, timed on their own.
 */
export function makeContenders(lib, peers = {}) {
  const { UniEventStream, UniEventSchema, decodeBase64, SseEncoderStream } = lib;
  const { EventSourceParserStream, parseJsonEventStream, OpenAIStream, z } = peers;
  const list = [{ id: "floor", label: "floor", run: floor, what: "TextDecoderStream + split on \\n + JSON.parse; no checks" }];

  if (EventSourceParserStream) {
    list.push({
      id: "esp",
      label: "eventsource-parser",
      sseOnly: true,
      what: "EventSourceParserStream + JSON.parse; no checks",
      async run(chunks, _format, hooks = {}) {
        const reader = replay(chunks, hooks.onPull).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
        let events = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (value.data === "[DONE]") continue;
          JSON.parse(value.data);
          events++;
        }
        return { events };
      },
    });
  }

  // Validating peer: records (eventsource-parser for SSE, a line splitter for NDJSON) + base64
  // decoding + a zod classic schema written as a user would (userSchema) + the naive assembler.
  const schemaOfPeer = z ? userSchema(z) : null;
  if (schemaOfPeer) list.push({
    id: "zod",
    label: "esp+zod+assembler",
    validating: true,
    what: "eventsource-parser (SSE) / line split (NDJSON) + JSON.parse + base64 decode + a user's zod classic z.object schema + naive .done check",
    async run(chunks, format, hooks = {}) {
      const text = replay(chunks, hooks.onPull).pipeThrough(new TextDecoderStream());
      const reader = format === "sse" ? text.pipeThrough(new EventSourceParserStream()).getReader() : text.pipeThrough(ndjsonValues()).getReader();
      const assembler = new NaiveAssembler();
      let events = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        let raw;
        if (format === "sse") {
          if (value.data === "[DONE]") continue;
          raw = JSON.parse(value.data);
        } else raw = value;
        for (const item of raw.content_items ?? []) {
          if (typeof item.data === "string" && (item.type?.startsWith("inline_data.") || item.type?.startsWith("inline_thinking."))) {
            const bytes = decodeBase64(item.data);
            if (!bytes) throw new Error("bad base64");
            item.data = bytes;
          }
        }
        const result = schemaOfPeer.safeParse(raw);
        if (!result.success) throw new Error(`schema: ${JSON.stringify(result.error.issues).slice(0, 300)}`);
        assembler.push(result.data);
        events++;
      }
      if (!assembler.stop) throw new Error("no stop event");
      return { events };
    },
    runsOn: (format) => format !== "sse" || !!EventSourceParserStream,
  });

  if (parseJsonEventStream && z) {
    const schema = wireSchema(z);
    list.push({
      id: "ai-sdk",
      label: "AI SDK",
      sseOnly: true,
      validating: true,
      what: "@ai-sdk/provider-utils parseJsonEventStream + zod wire schema (bytes stay base64, no .done check)",
      async run(chunks, _format, hooks = {}) {
        const reader = parseJsonEventStream({ stream: replay(chunks, hooks.onPull), schema }).getReader();
        let events = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (!value.success) throw value.error;
          events++;
        }
        return { events };
      },
    });
  }

  if (OpenAIStream) {
    list.push({
      id: "openai",
      label: "openai",
      sseOnly: true,
      // Its line decoder re-scans the buffered text on every chunk: 9 s on media's 4 MiB line in
      // Node (bench/RESULTS-node.md), minutes in the slower runtimes. Not run there.
      skip: (name) => name === "media",
      what: "openai Stream.fromSSEResponse + JSON.parse; no checks",
      async run(chunks, _format, hooks = {}) {
        const response = new Response(replay(chunks, hooks.onPull), { headers: { "content-type": "text/event-stream" } });
        const stream = OpenAIStream.fromSSEResponse(response, new AbortController());
        let events = 0;
        for await (const _ of stream) events++;
        return { events };
      },
    });
  }

  list.push(
    {
      id: "ues-read",
      label: "UniEventStream read",
      library: true,
      what: "full checks (§2 schema, §3 grammar, §4 .done), every event read with reader.read()",
      async run(chunks, format, hooks = {}) {
        const stream = new UniEventStream({ format });
        const reader = replay(chunks, hooks.onPull).pipeThrough(stream).getReader();
        let events = 0;
        for (;;) {
          const { done } = await reader.read();
          if (done) break;
          events++;
        }
        if (!(await stream.message)) throw new Error("no message");
        return { events };
      },
    },
    {
      id: "ues-batch",
      label: "UniEventBatchStream read",
      library: true,
      what: "the same reader read in batches: one reader.read() per input chunk (an array of its events)",
      async run(chunks, format, hooks = {}) {
        if (!lib.UniEventBatchStream) throw new Error("this build has no UniEventBatchStream");
        const stream = new lib.UniEventBatchStream({ format });
        const reader = replay(chunks, hooks.onPull).pipeThrough(stream).getReader();
        let events = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          events += value.length;
        }
        if (!(await stream.message)) throw new Error("no message");
        return { events };
      },
    },
    {
      id: "ues-drain",
      label: "UniEventStream message",
      library: true,
      what: "same checks, only `await stream.message` (the package drains the readable)",
      async run(chunks, format, hooks = {}) {
        const stream = new UniEventStream({ format });
        replay(chunks, hooks.onPull).pipeThrough(stream);
        const message = await stream.message;
        return { groups: message.content_items.length };
      },
    },
  );

  // ---- the relay path (issue #16: what a relay Worker pays per relayed event) --------------------
  const countMessages = async (readable) => {
    const reader = readable.getReader();
    let messages = 0;
    let prev = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let i = 0; i < value.length; i++) {
        const b = value[i];
        if (b === 10 && prev === 10) messages++;
        prev = b;
      }
    }
    return { messages };
  };
  list.push({
    id: "relay-floor",
    label: "pass-through floor",
    relay: true,
    what: "TextDecoderStream + split + JSON.parse + JSON.stringify + TextEncoderStream, as SSE; no checks",
    run(chunks, format, hooks = {}) {
      let lines;
      const pass = new TransformStream({
        start(c) {
          lines = recordParser(format, (v) => c.enqueue(`data: ${JSON.stringify(v)}\n\n`));
        },
        transform(text) {
          lines.push(text);
        },
        flush() {
          lines.end();
        },
      });
      return countMessages(replay(chunks, hooks.onPull).pipeThrough(new TextDecoderStream()).pipeThrough(pass).pipeThrough(new TextEncoderStream()));
    },
  });
  list.push({
    id: "relay-ues",
    label: "UniEventStream → SseEncoderStream",
    relay: true,
    library: true,
    what: "bytes → UniEventStream (all checks) → SseEncoderStream → bytes",
    run(chunks, format, hooks = {}) {
      return countMessages(replay(chunks, hooks.onPull).pipeThrough(new UniEventStream({ format })).pipeThrough(new SseEncoderStream()));
    },
  });
  return list;
}
