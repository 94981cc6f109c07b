// The Chat Completions door: SPEC §10 "Doors: the APIs a client speaks" (same API in, same provider out:
// issue #47's pass-through to an OpenAI Chat target, routing/pass-through.ts).
//
// A streamed request whose row's first target speaks Chat Completions (`openaiChat()`: `openai-chat`, any
// OpenAI-compatible server) goes to it as the client wrote it, but for what the relay decides: the
// row's model, the reserved output (in the member the client sent it in, `max_completion_tokens` or
// the older `max_tokens`, lowered to the reserve; `max_completion_tokens` when it sent neither), a
// stream, and `stream_options.include_usage` forced on, so the relay reads the provider's own counts
// and charges them. A client that did not ask for the usage chunk does not get it: the chunk with no
// choices and a usage is taken out of the provider's bytes (the one change to them); every other
// event reaches the client as the provider wrote it.
import { isRecord } from "../../../internal/values.js";
import { parseJsonText } from "../../../internal/json.js";
import type { PassThrough } from "../../routing/pass-through.js";
import { through } from "../../through.js";

type Json = Record<string, unknown>;

/** The provider's body of a passed-through Chat request: the client's `written`, the relay's members from the builder's `built`. */
export function chatDecides(written: Json, built: Json): Json {
  const options = isRecord(written.stream_options) ? written.stream_options : {};
  const body: Json = { ...written, model: built.model, stream: true, stream_options: { ...options, include_usage: true } };
  const limit = built.max_completion_tokens;
  const sent = (["max_completion_tokens", "max_tokens"] as const).filter((key) => written[key] != null);
  for (const key of sent.length > 0 ? sent : ["max_completion_tokens"]) {
    if (limit === undefined) delete body[key];
    else body[key] = limit;
  }
  return body;
}

/** What the Chat door passes through to an OpenAI Chat target (`includeUsage`: the client asked for the usage chunk). */
export function chatPassThrough(body: Json, includeUsage: boolean): PassThrough {
  return {
    provider: "openai-chat",
    body,
    headers: [],
    decide: chatDecides,
    ...(includeUsage ? {} : { answer: withoutUsageChunk }),
  };
}

/** Whether one SSE event (its text) is Chat's usage chunk: `choices` empty, a `usage` object. */
function isUsageChunk(event: string): boolean {
  if (!event.includes('"usage"')) return false;
  const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart()).join("\n");
  try {
    const chunk = parseJsonText(data);
    return isRecord(chunk) && Array.isArray(chunk.choices) && chunk.choices.length === 0 && isRecord(chunk.usage);
  } catch {
    return false;
  }
}

/** Where an SSE event ends (its blank line: `\n\n`, `\r\n\r\n` or a mix), searched from `lastIndex`. */
const EVENT_END = /\r?\n\r?\n/g;

/**
 * The provider's SSE bytes without the usage chunk, each other event as it came: the whole events of
 * a chunk of bytes written as one chunk (a chunk per event cost workerd more than the rest of the
 * pass-through), only an event that names `"usage"` parsed.
 */
export function withoutUsageChunk(bytes: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const utf8 = new TextDecoder();
  const out = new TextEncoder();
  let held = "";
  const events = (controller: TransformStreamDefaultController<Uint8Array>, last: boolean): void => {
    let text = "";
    let from = 0;
    EVENT_END.lastIndex = 0;
    for (let end = EVENT_END.exec(held); end !== null; end = EVENT_END.exec(held)) {
      const event = held.slice(from, EVENT_END.lastIndex);
      if (!isUsageChunk(event)) text += event;
      from = EVENT_END.lastIndex;
    }
    held = held.slice(from);
    if (last && held !== "" && !isUsageChunk(held)) text += held;
    if (text !== "") controller.enqueue(out.encode(text));
  };
  return through(
    bytes,
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        held += utf8.decode(chunk, { stream: true });
        events(controller, false);
      },
      flush(controller) {
        held += utf8.decode();
        events(controller, true);
      },
    }),
  );
}
