/**
 * Checked UniEvents → Open Responses streaming events (openresponses.org, the provider-neutral form
 * of OpenAI's Responses API): the reverse of the `openai-responses` reader. Each UniEvent group is
 * one output item, following the spec's item state machine:
 *
 *   text       message: output_item.added, content_part.added (output_text), output_text.delta…,
 *              output_text.done, content_part.done, output_item.done
 *   thinking   reasoning: output_item.added, then thinking that is a summary (`fidelity.summary: true`,
 *              SPEC §9: Claude 4 and later, Gemini's thoughts, Responses summaries) as the item's
 *              `summary`: reasoning_summary_part.added (summary_text), reasoning_summary_text.delta…,
 *              .done, reasoning_summary_part.done; raw reasoning as its `content`: content_part.added
 *              (reasoning_text), reasoning_text.delta…, .done, content_part.done; output_item.done (its
 *              `encrypted_content` only for its maker: SPEC §9); an empty thinking that is no summary
 *              (a call's carrier, encrypted reasoning alone) opens no part: `summary: []`, no content,
 *              as OpenAI writes it. Until a fragment or the group's end
 *              says which it is, the group's fragments are held (Anthropic marks it with its signature,
 *              at the end; Gemini on the first fragment).
 *   tool_call  function_call: output_item.added, function_call_arguments.delta…, .done, output_item.done;
 *              a call of one of the request's `custom` tools (echoed in `request.tools`: the provider
 *              was given a function of one string, `input`) is a custom_tool_call: output_item.added,
 *              custom_tool_call_input.delta (the whole input, once the call is whole), .done,
 *              output_item.done; a call's own signature (a Gemini 3 call's) has no place in either and is
 *              not written (the relay's door carries it, sealed, in a reasoning item of its own)
 *
 * framed by `response.created` + `response.in_progress` first and one terminal event last:
 * `response.completed` (stop, tool_call, unknown), `response.incomplete` (length), or an `error`
 * event then `response.failed` (an error on the writable side). Every event has the next
 * `sequence_number` from 0; ids are made from the response id and the output index, so the same
 * UniEvents with the same options give the same events byte for byte (a resume maps sequence numbers
 * to events by encoding again).
 */
import { toWireError } from "../errors.js";
import { CoreStream } from "../internal/core-stream.js";
import type { StreamCore } from "../internal/core.js";
import type { Fidelity, StreamDoneItem, UniEvent, UsageMetadata } from "../schema.js";

/** One Open Responses streaming event: its `type`, its `sequence_number` and the members of that type. */
export type OpenResponsesEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/** A response resource (the `response` of the lifecycle events, the body of a non-streamed answer). */
export type OpenResponsesResource = Record<string, unknown> & { id: string; status: string; output: Record<string, unknown>[] };

/** Options of {@link OpenResponsesEncoderStream}. */
export interface OpenResponsesEncoderOptions {
  /** The response's id (`resp_…`); default a random one. */
  id?: string;
  /** The model named in the response resource (the name the client asked for); default `""`. */
  model?: string;
  /** When the response was created, Unix seconds; default now. */
  createdAt?: number;
  /**
   * The request's settings the response resource echoes (`instructions`, `tools`, `tool_choice`,
   * `max_output_tokens`, `reasoning`, `temperature`, `top_p`, `metadata`…); the spec's defaults otherwise.
   */
  request?: Record<string, unknown>;
  /** Told about an item the spec has no output item for (images, embeddings), which is left out. */
  onWarning?: (message: string) => void;
}

/** The provider whose reasoning's `encrypted_content` an Open Responses client can send back (SPEC §9). */
const ENCRYPTED_MAKER = "openai-responses";

/** An item being streamed: its output index, id, kind and what it has carried so far. */
export interface Open {
  index: number;
  id: string;
  kind: "text" | "thinking" | "tool_call" | "custom";
  text: string;
  /** Thinking: a summary (true), raw reasoning (false), or not known yet (undefined: `held` keeps its fragments). */
  summary?: boolean;
  held: string[];
  name: string;
  callId: string;
  /** Its delta events' members after the sequence number, as JSON text (`,"item_id":…,"output_index":…`): made once. */
  at: string;
  /** Framed: its deltas so far, and the first one's JSON (a call given whole in one delta: its arguments escaped once). */
  deltas: number;
  first: string;
  /**
   * Framed: its delta events' text around the sequence number and the fragment (`head` + seq + `mid` +
   * the fragment's JSON + `tail`), made once (a thinking's when it is known a summary or not); `midQ`
   * and `tailQ` with the JSON's quotes, for a fragment with nothing to escape (written as it is).
   */
  head: string;
  mid: string;
  tail: string;
  midQ: string;
  tailQ: string;
}

/**
 * An event the encoder wrote as its framed text itself (a delta, the stream's most frequent event: its
 * members' JSON by concatenation, only a fragment with something to escape through `JSON.stringify`),
 * for a writer that wants only the text (`OpenResponsesSseEncoderStream`, the relay's door: `framed`
 * on). `openResponsesFrame`
 * gives its `text`, byte for byte what the event object would frame as.
 */
export class FramedEvent {
  constructor(readonly type: string, readonly sequence_number: number, readonly text: string) {}
}

const head = (type: string): string => `event: ${type}\ndata: {"type":"${type}","sequence_number":`;
const TEXT_DELTA = head("response.output_text.delta");
const ARGUMENTS_DELTA = head("response.function_call_arguments.delta");
const SUMMARY_DELTA = head("response.reasoning_summary_text.delta");
const REASONING_DELTA = head("response.reasoning_text.delta");

/**
 * A character `JSON.stringify` writes otherwise than as it is in a string: a quote, a backslash, a
 * control character, or a surrogate (a lone one is escaped; a pair is not, but any sends the string to
 * `JSON.stringify`). A string without one is its own JSON between quotes: most deltas, written
 * without `JSON.stringify`'s call and copy.
 */
// deno-lint-ignore no-control-regex -- control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)` byte for byte (a string with nothing to escape: itself between quotes). */
export const jsonString = (text: string): string => (ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`);

const hex = (n: number): string => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");

/** A UniEvent stop's usage as the spec's `usage` (input = cached + prompt, output = thoughts + response). */
export function openResponsesUsage(usage: UsageMetadata | null | undefined): Record<string, unknown> | null {
  if (!usage) return null;
  const n = (v: number | null | undefined): number => (typeof v === "number" ? v : 0);
  const input = n(usage.cached_tokens) + n(usage.prompt_tokens);
  const output = n(usage.thoughts_tokens) + n(usage.response_tokens);
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    input_tokens_details: { cached_tokens: n(usage.cached_tokens) },
    output_tokens_details: { reasoning_tokens: n(usage.thoughts_tokens) },
  };
}

/** The Open Responses state machine over one stream of UniEvents (the relay's door runs it without the stream shell). */
export class OpenResponsesEncoderCore implements StreamCore<UniEvent, OpenResponsesEvent> {
  finished = false;
  private emit: (e: OpenResponsesEvent) => void = () => {};
  // (the sequence number, the open item and `ended` are protected: the relay's door writes the same delta
  // events as bytes from the open item's own templates, relay/doors/open-responses/bytes.ts)
  protected seq = 0;
  private readonly output: Record<string, unknown>[] = [];
  protected open: Open | null = null;
  private readonly id: string;
  private readonly createdAt: number;
  protected ended = false;
  /** The names of the request's custom tools (their calls are custom_tool_call items). */
  private readonly custom: Set<unknown>;

  /**
   * `fresh`: every event carries its own copies of the finished items (a reader may change an event
   * it was given). Off where each event is serialized as it is made (`OpenResponsesSseEncoderStream`):
   * the finished items never change, so the same JSON comes out without the copies.
   */
  constructor(
    private readonly options: OpenResponsesEncoderOptions,
    private readonly fresh = true,
    /** Delta events as {@link FramedEvent}s (their text made at once; no event object): for a writer that wants only the text. */
    private readonly framed = false,
    /** Called with each event but the deltas (which carry no response nor item) before it is emitted; may change it (the relay's door: its answer's state). */
    private readonly finish?: (e: OpenResponsesEvent) => void,
  ) {
    this.id = options.id ?? `resp_${hex(16)}`;
    this.createdAt = options.createdAt ?? Math.floor(Date.now() / 1000);
    const tools = options.request?.tools;
    this.custom = new Set(Array.isArray(tools) ? tools.filter((t) => isObject(t) && t.type === "custom").map((t) => t.name) : []);
  }

  private send(type: string, members: Record<string, unknown>): void {
    const e = { type, sequence_number: this.seq++, ...members };
    this.finish?.(e);
    this.emit(e);
  }

  /** The response resource now, with `status` and what the end adds. */
  resource(status: string, end: Partial<Record<string, unknown>> = {}): OpenResponsesResource {
    const r = this.options.request ?? {};
    const pick = (key: string, fallback: unknown): unknown => (r[key] === undefined || r[key] === null ? fallback : r[key]);
    return {
      id: this.id,
      object: "response",
      created_at: this.createdAt,
      completed_at: null,
      status,
      incomplete_details: null,
      model: this.options.model ?? "",
      previous_response_id: null,
      instructions: typeof r.instructions === "string" ? r.instructions : null,
      output: this.fresh ? this.output.map((item) => structuredClone(item)) : this.output.slice(),
      error: null,
      tools: toolsEcho(r.tools),
      tool_choice: toolChoiceEcho(r.tool_choice),
      truncation: "disabled",
      parallel_tool_calls: pick("parallel_tool_calls", true),
      text: textEcho(r.text),
      top_p: pick("top_p", 1),
      presence_penalty: pick("presence_penalty", 0),
      frequency_penalty: pick("frequency_penalty", 0),
      top_logprobs: 0,
      temperature: pick("temperature", 1),
      reasoning: reasoningEcho(r.reasoning),
      user: null,
      usage: null,
      max_output_tokens: pick("max_output_tokens", null),
      max_tool_calls: null,
      store: false,
      background: false,
      service_tier: "default",
      metadata: pick("metadata", {}),
      safety_identifier: null,
      prompt_cache_key: pick("prompt_cache_key", null),
      ...end,
    } as OpenResponsesResource;
  }

  start(emit: (e: OpenResponsesEvent) => void): void {
    this.emit = emit;
    this.send("response.created", { response: this.resource("in_progress") });
    this.send("response.in_progress", { response: this.resource("in_progress") });
  }

  push(event: UniEvent, emit: (e: OpenResponsesEvent) => void): void {
    this.emit = emit;
    if (event.event_type === "stop") return this.stop(event);
    for (const item of event.content_items) {
      switch (item.type) {
        case "text.delta":
          this.begin("text");
          if (item.text) this.delta(item.text);
          break;
        case "thinking.delta":
          this.begin("thinking");
          if ((item.fidelity as { summary?: unknown } | null | undefined)?.summary === true) this.decide(true);
          if (item.thinking) this.delta(item.thinking);
          break;
        case "tool_call.delta":
          this.begin("tool_call", item.name, item.tool_call_id);
          if (item.arguments) this.delta(item.arguments);
          break;
        case "text.done":
        case "thinking.done":
        case "tool_call.done":
          this.done(item);
          break;
        default:
          // (images, audio, embeddings: the spec's output items have no place for them)
          if (item.type.endsWith(".done")) this.options.onWarning?.(`Open Responses has no output item for ${item.type}: left out.`);
      }
    }
  }

  /** The first fragment of a group opens its output item (and its content part). */
  private begin(asked: Open["kind"], name = "", callId = ""): void {
    if (this.open) return;
    const kind = asked === "tool_call" && this.custom.has(name) ? "custom" : asked;
    const index = this.output.length;
    const prefix = kind === "text" ? "msg" : kind === "thinking" ? "rs" : kind === "custom" ? "ctc" : "fc";
    const id = `${prefix}_${this.id.replace(/^resp_/, "")}_${index}`;
    this.open = {
      index,
      id,
      kind,
      text: "",
      name,
      callId,
      held: [],
      at: `,"item_id":${JSON.stringify(id)},"output_index":${index}`,
      deltas: 0,
      first: "",
      head: "",
      mid: "",
      tail: "",
      midQ: "",
      tailQ: "",
    };
    if (kind === "text") this.deltaText(this.open, TEXT_DELTA, ',"content_index":0,"delta":', ',"logprobs":[]}\n\n');
    else if (kind !== "thinking") this.deltaText(this.open, ARGUMENTS_DELTA, ',"delta":', "}\n\n");
    if (kind === "text") {
      this.send("response.output_item.added", {
        output_index: index,
        item: { type: "message", id, status: "in_progress", role: "assistant", content: [] },
      });
      this.send("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part: this.part("") });
    } else if (kind === "thinking") {
      this.send("response.output_item.added", { output_index: index, item: { type: "reasoning", id, summary: [] } });
    } else if (kind === "custom") {
      this.send("response.output_item.added", {
        output_index: index,
        item: { type: "custom_tool_call", id, call_id: callId, name, input: "" },
      });
    } else {
      this.send("response.output_item.added", {
        output_index: index,
        item: { type: "function_call", id, call_id: callId, name, arguments: "", status: "in_progress" },
      });
    }
  }

  /** Sets an item's delta events' text around the sequence number and the fragment (`members`: after its `at`, up to the fragment; `tail` after it). */
  private deltaText(o: Open, head: string, members: string, tail: string): void {
    o.head = head;
    o.mid = o.at + members;
    o.tail = tail;
    o.midQ = `${o.mid}"`;
    o.tailQ = `"${tail}`;
  }

  /** A delta event's framed text (see `Open.head`): `JSON.stringify(text)` only for a fragment with something to escape. */
  private static framed(o: Open, seq: number, text: string): string {
    return ESCAPED.test(text) ? o.head + seq + o.mid + JSON.stringify(text) + o.tail : o.head + seq + o.midQ + text + o.tailQ;
  }

  private part(text: string, kind = this.open!.kind, summary = false): Record<string, unknown> {
    return kind === "text" ? { type: "output_text", text, annotations: [] } : { type: summary ? "summary_text" : "reasoning_text", text };
  }

  /** The open thinking is a summary or raw reasoning: its part opens, its held fragments go out. */
  private decide(summary: boolean): void {
    const o = this.open!;
    if (o.kind !== "thinking" || o.summary !== undefined) return;
    o.summary = summary;
    if (summary) this.deltaText(o, SUMMARY_DELTA, ',"summary_index":0,"delta":', "}\n\n");
    else this.deltaText(o, REASONING_DELTA, ',"content_index":0,"delta":', "}\n\n");
    const at = { item_id: o.id, output_index: o.index };
    if (summary) this.send("response.reasoning_summary_part.added", { ...at, summary_index: 0, part: this.part("", o.kind, true) });
    else this.send("response.content_part.added", { ...at, content_index: 0, part: this.part("", o.kind) });
    for (const text of o.held.splice(0)) this.thinkingDelta(o, text);
  }

  // (a delta event is the stream's most frequent: each is built as one object, its members in the order they are written)
  private thinkingDelta(o: Open, text: string): void {
    const seq = this.seq++;
    if (this.framed) {
      const type = o.summary ? "response.reasoning_summary_text.delta" : "response.reasoning_text.delta";
      return this.emit(new FramedEvent(type, seq, OpenResponsesEncoderCore.framed(o, seq, text)) as unknown as OpenResponsesEvent);
    }
    this.emit(
      o.summary
        ? {
          type: "response.reasoning_summary_text.delta",
          sequence_number: seq,
          item_id: o.id,
          output_index: o.index,
          summary_index: 0,
          delta: text,
        }
        : {
          type: "response.reasoning_text.delta",
          sequence_number: seq,
          item_id: o.id,
          output_index: o.index,
          content_index: 0,
          delta: text,
        },
    );
  }

  private delta(text: string): void {
    const o = this.open!;
    o.text += text;
    if (o.kind === "thinking") {
      if (o.summary === undefined) o.held.push(text);
      else this.thinkingDelta(o, text);
      return;
    }
    if (o.kind === "custom") return; // (JSON of the function's one argument: the input goes out whole at the end)
    const seq = this.seq++;
    if (this.framed) {
      if (o.kind === "text") {
        return this.emit(
          new FramedEvent(
            "response.output_text.delta",
            seq,
            OpenResponsesEncoderCore.framed(o, seq, text),
          ) as unknown as OpenResponsesEvent,
        );
      }
      // (a fragment of JSON text: most have a quote to escape, so no test first)
      const json = JSON.stringify(text);
      if (o.deltas++ === 0) o.first = json; // (a call given whole: its arguments' JSON, reused by its done events)
      const framed = o.head + seq + o.mid + json + o.tail;
      return this.emit(new FramedEvent("response.function_call_arguments.delta", seq, framed) as unknown as OpenResponsesEvent);
    }
    this.emit(
      o.kind === "text"
        ? {
          type: "response.output_text.delta",
          sequence_number: seq,
          item_id: o.id,
          output_index: o.index,
          content_index: 0,
          delta: text,
          logprobs: [],
        }
        : { type: "response.function_call_arguments.delta", sequence_number: seq, item_id: o.id, output_index: o.index, delta: text },
    );
  }

  private done(item: StreamDoneItem): void {
    const o = this.open!;
    this.open = null;
    const at = { item_id: o.id, output_index: o.index };
    let final: Record<string, unknown>;
    if (item.type === "tool_call.done" && o.kind === "custom") {
      const args = item.arguments as Record<string, unknown>;
      const input = typeof args?.input === "string" ? args.input : JSON.stringify(args ?? {});
      if (input) this.send("response.custom_tool_call_input.delta", { ...at, delta: input });
      this.send("response.custom_tool_call_input.done", { ...at, input });
      final = { type: "custom_tool_call", id: o.id, call_id: o.callId, name: o.name, input, status: "completed" };
    } else if (item.type === "tool_call.done") {
      // (the arguments as they streamed: the checked reader made sure they parse to item.arguments)
      const args = o.text || "{}";
      final = { type: "function_call", id: o.id, call_id: o.callId, name: o.name, arguments: args, status: "completed" };
      if (this.framed) {
        const json = o.deltas === 1 ? o.first : JSON.stringify(args);
        this.sendText("response.function_call_arguments.done", `${o.at},"arguments":${json}`);
        known(
          final,
          `{"type":"function_call","id":${JSON.stringify(o.id)},"call_id":${JSON.stringify(o.callId)},"name":${
            JSON.stringify(o.name)
          },"arguments":${json},"status":"completed"}`,
        );
      } else this.send("response.function_call_arguments.done", { ...at, arguments: args });
    } else if (o.kind === "text") {
      const text = (item as { text: string }).text;
      final = { type: "message", id: o.id, status: "completed", role: "assistant", content: [this.part(text, o.kind)] };
      if (this.framed && typeof text === "string") {
        const json = jsonString(text);
        this.sendText("response.output_text.done", `${o.at},"content_index":0,"text":${json},"logprobs":[]`);
        this.sendText(
          "response.content_part.done",
          `${o.at},"content_index":0,"part":{"type":"output_text","text":${json},"annotations":[]}`,
        );
        known(
          final,
          `{"type":"message","id":${
            JSON.stringify(o.id)
          },"status":"completed","role":"assistant","content":[{"type":"output_text","text":${json},"annotations":[]}]}`,
        );
      } else {
        this.send("response.output_text.done", { ...at, content_index: 0, text, logprobs: [] });
        this.send("response.content_part.done", { ...at, content_index: 0, part: this.part(text, o.kind) });
      }
    } else if (o.summary === undefined && (item as { thinking: string }).thinking === "" && !isSummary(item)) {
      // (nothing to show, only what it carries — a call's signature, encrypted reasoning: as OpenAI writes
      // such an item, `summary: []` and no content, no part opened)
      final = this.reasoning(o.id, "", (item as { fidelity?: Fidelity | null }).fidelity, false);
      delete final.content;
    } else {
      const { thinking: text, fidelity } = item as { thinking: string; fidelity?: Fidelity | null };
      this.open = o;
      this.decide(isSummary(item));
      this.open = null;
      final = this.reasoning(o.id, text, fidelity, o.summary === true);
      if (this.framed && typeof text === "string") this.thinkingDone(o, text, final);
      else if (o.summary) {
        this.send("response.reasoning_summary_text.done", { ...at, summary_index: 0, text });
        this.send("response.reasoning_summary_part.done", { ...at, summary_index: 0, part: this.part(text, o.kind, true) });
      } else {
        this.send("response.reasoning_text.done", { ...at, content_index: 0, text });
        this.send("response.content_part.done", { ...at, content_index: 0, part: this.part(text, o.kind) });
      }
    }
    this.output.push(final);
    this.send("response.output_item.done", { output_index: o.index, item: this.fresh ? structuredClone(final) : final });
  }

  /** Framed: a thinking's done events written as text, its text escaped once (for its item's JSON too). */
  private thinkingDone(o: Open, text: string, final: Record<string, unknown>): void {
    const json = jsonString(text);
    const id = JSON.stringify(o.id);
    let members: string;
    if (o.summary) {
      this.sendText("response.reasoning_summary_text.done", `${o.at},"summary_index":0,"text":${json}`);
      this.sendText("response.reasoning_summary_part.done", `${o.at},"summary_index":0,"part":{"type":"summary_text","text":${json}}`);
      members = `{"type":"reasoning","id":${id},"summary":[{"type":"summary_text","text":${json}}]`;
    } else {
      this.sendText("response.reasoning_text.done", `${o.at},"content_index":0,"text":${json}`);
      this.sendText("response.content_part.done", `${o.at},"content_index":0,"part":{"type":"reasoning_text","text":${json}}`);
      members = `{"type":"reasoning","id":${id},"summary":[],"content":[{"type":"reasoning_text","text":${json}}]`;
    }
    if (!("encrypted_content" in final)) return known(final, `${members}}`);
    known(final, `${members},"encrypted_content":${JSON.stringify(final.encrypted_content)}}`);
    withoutEncrypted.set(final, `${members}}`); // (the item as shown where `include` did not ask for it)
  }

  /** Framed: an event written as its text (`members`: its members' JSON after the sequence number, each after a comma). */
  private sendText(type: string, members: string): void {
    const seq = this.seq++;
    this.emit(
      new FramedEvent(
        type,
        seq,
        `event: ${type}\ndata: {"type":"${type}","sequence_number":${seq}${members}}\n\n`,
      ) as unknown as OpenResponsesEvent,
    );
  }

  /**
   * A finished reasoning item: its text as its summary or as its content; `encrypted_content` only
   * when its maker is the Responses API or unnamed (SPEC §9).
   */
  private reasoning(id: string, text: string, fidelity: Fidelity | null | undefined, summary: boolean): Record<string, unknown> {
    const item: Record<string, unknown> = summary
      ? { type: "reasoning", id, summary: [{ type: "summary_text", text }] }
      : { type: "reasoning", id, summary: [], content: [{ type: "reasoning_text", text }] };
    const encrypted = fidelity?.encrypted_content;
    const maker = fidelity?.provider;
    if (typeof encrypted === "string" && (maker === undefined || maker === ENCRYPTED_MAKER)) item.encrypted_content = encrypted;
    return item;
  }

  private stop(event: UniEvent): void {
    this.ended = true;
    const usage = openResponsesUsage(event.usage_metadata);
    const completedAt = Math.max(this.createdAt, Math.floor((event.created_at ?? this.createdAt * 1000) / 1000));
    if (event.finish_reason === "length") {
      this.send("response.incomplete", {
        response: this.resource("incomplete", { usage, incomplete_details: { reason: "max_output_tokens" } }),
      });
    } else {
      this.send("response.completed", { response: this.resource("completed", { usage, completed_at: completedAt }) });
    }
  }

  /** An error on the writable side: the `error` event, then `response.failed` (status `cancelled` for a Stop). */
  abort(reason: unknown, emit: (e: OpenResponsesEvent) => void): void {
    this.emit = emit;
    if (this.ended) return;
    this.ended = true;
    const wire = toWireError(reason) as Record<string, unknown>;
    const type = typeof wire.type === "string" ? wire.type : "Error";
    const message = typeof wire.message === "string" ? wire.message : type;
    this.send("error", { error: { type: errorType(type), code: type, message, param: null } });
    const usage = openResponsesUsage(wire.usage_metadata as UsageMetadata | undefined);
    const status = type === "StreamCancelled" ? "cancelled" : "failed";
    // the item that was open: what it delivered so far, `incomplete` (the resource holds what was said)
    const o = this.open;
    if (o) {
      this.open = null;
      this.output.push(
        o.kind === "text"
          ? { type: "message", id: o.id, status: "incomplete", role: "assistant", content: [this.part(o.text, o.kind)] }
          : o.kind === "thinking" && o.summary
          ? { type: "reasoning", id: o.id, summary: [this.part(o.text, o.kind, true)], status: "incomplete" }
          : o.kind === "thinking"
          ? { type: "reasoning", id: o.id, summary: [], content: [this.part(o.text, o.kind)], status: "incomplete" }
          : o.kind === "custom"
          ? { type: "custom_tool_call", id: o.id, call_id: o.callId, name: o.name, input: "", status: "incomplete" }
          : { type: "function_call", id: o.id, call_id: o.callId, name: o.name, arguments: o.text, status: "incomplete" },
      );
    }
    this.send("response.failed", { response: this.resource(status, { usage, error: { code: type, message } }) });
  }

  end(emit: (e: OpenResponsesEvent) => void): void {
    // a stream that ends without its stop event is no whole answer (the checked reader errors first)
    if (!this.ended) this.abort(new Error("the stream ended before its stop event"), emit);
  }
}

/** Whether a thinking's provider data says it is a summary (SPEC §9). */
const isSummary = (item: object): boolean => ((item as { fidelity?: { summary?: unknown } | null }).fidelity?.summary === true);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The request's tools as the resource echoes them: a function tool with every member the spec's
 * FunctionTool requires (`description`, `parameters`, `strict`: null when not sent); a custom tool as sent.
 */
function toolsEcho(tools: unknown): unknown[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((t) =>
    isObject(t) && t.type === "function"
      ? { type: "function", name: t.name, description: t.description ?? null, parameters: t.parameters ?? null, strict: t.strict ?? null }
      : t
  );
}

/** `tool_choice` as the resource echoes it (an `allowed_tools` choice with its `mode`, the spec's required member). */
function toolChoiceEcho(choice: unknown): unknown {
  if (choice === undefined || choice === null) return "auto";
  if (isObject(choice) && choice.type === "allowed_tools" && choice.mode === undefined) return { ...choice, mode: "auto" };
  return choice;
}

/** `text` as the resource echoes it: its `format` (the spec requires it; plain text when not sent). */
function textEcho(text: unknown): Record<string, unknown> {
  if (!isObject(text)) return { format: { type: "text" } };
  const f = text.format;
  const format = !isObject(f) ? { type: "text" } : f.type === "json_schema"
    // (the spec's JsonSchemaResponseFormat: every member required)
    ? {
      type: "json_schema",
      name: f.name ?? "output",
      description: f.description ?? null,
      schema: f.schema ?? null,
      strict: f.strict ?? false,
    }
    : f;
  return { ...text, format };
}

/** `reasoning` as the resource echoes it: `effort` and `summary` (the spec requires both; "minimal" is served as "low"). */
function reasoningEcho(reasoning: unknown): Record<string, unknown> | null {
  if (!isObject(reasoning)) return null;
  const effort = reasoning.effort === "minimal" ? "low" : reasoning.effort ?? null;
  return { ...reasoning, effort, summary: reasoning.summary ?? null };
}

/** The spec's error type (its table of types) for an MMSP error type. */
export function errorType(mmspType: string): string {
  switch (mmspType) {
    case "InvalidRequestError":
    case "UnsupportedParameterError":
      return "invalid_request";
    case "NotFoundError":
      return "not_found";
    case "RateLimitError":
    case "BudgetExceeded":
      return "too_many_requests";
    case "AuthenticationError":
      return "authentication_error";
    case "InternalError":
      return "server_error";
    default:
      return "model_error";
  }
}

/**
 * Writes checked UniEvents (a public stream: SPEC §3) as Open Responses streaming events, each with
 * its `sequence_number`. Put `openResponsesSse()` behind it for the bytes (`event: <type>` +
 * `data: <json>`, `data: [DONE]` at the end, no `id` field, as the spec asks), or use
 * `OpenResponsesSseEncoderStream`: the same bytes in one stage. An error on the writable side (a
 * failed upstream, a Stop) becomes an `error` event and `response.failed`.
 *
 * @example
 * ```ts
 * import type { UniEvent } from "mmsp-streams";
 * import { OpenResponsesEncoderStream } from "mmsp-streams/encode";
 *
 * const usage = { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 };
 * const events: UniEvent[] = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: "stop" },
 * ];
 * const out = ReadableStream.from(events).pipeThrough(new OpenResponsesEncoderStream({ id: "resp_1", model: "m" }));
 * const types: string[] = [];
 * for await (const e of out) types.push(e.type);
 * console.log(types.at(0), types.at(-1)); // response.created response.completed
 * ```
 */
export class OpenResponsesEncoderStream extends CoreStream<UniEvent, OpenResponsesEvent> {
  /** Makes the encoder (`id`, `model`, `createdAt` and `request` name the response resource). */
  constructor(options: OpenResponsesEncoderOptions = {}) {
    super(new OpenResponsesEncoderCore(options));
  }
}

/**
 * One event as the spec frames it: `event: <type>` (the event's `type`), `data: <json>`, a blank line;
 * no `id` field (a {@link FramedEvent}: the text it was made with).
 */
export const openResponsesFrame = (e: OpenResponsesEvent): string =>
  e instanceof FramedEvent ? e.text : `event: ${e.type}\ndata: ${eventJson(e)}\n\n`;

/**
 * The JSON of the finished items the framed encoder wrote (their large string — text, thinking,
 * arguments — escaped once for their done events and their item), by item: an event that carries one
 * (`output_item.done`, a response's `output`) is written with it, not escaped again. The text is
 * `JSON.stringify(item)` byte for byte (test/cases/encode-open-responses.ts); an item changed after (a
 * copy: the door's `shownItem`) is not in it.
 */
const itemJson = new WeakMap<object, string>();
const known = (item: object, json: string): void => void itemJson.set(item, json);
/** The JSON of a finished reasoning item the framed encoder wrote, without its `encrypted_content` (see `openResponsesShownReasoning`). */
const withoutEncrypted = new WeakMap<object, string>();

/**
 * A reasoning item as shown where `include` did not ask for `encrypted_content`: a copy without it
 * (the encoder's items are shared by its events: never changed), its JSON known when the item's is
 * (its text not escaped again); an item with none, itself.
 */
export function openResponsesShownReasoning(item: Record<string, unknown>): Record<string, unknown> {
  if (!("encrypted_content" in item)) return item;
  const { encrypted_content: _, ...shown } = item;
  const json = withoutEncrypted.get(item);
  if (json !== undefined) known(shown, json);
  return shown;
}

/** An event's JSON: `JSON.stringify(e)`, with the finished items it carries written from their JSON made once. */
function eventJson(e: OpenResponsesEvent): string {
  const { item, response } = e;
  if (isObject(item)) {
    const json = itemJson.get(item);
    if (json !== undefined) return jsonWith(e, "item", json);
  } else if (isObject(response) && Array.isArray(response.output) && response.output.some((i) => isObject(i) && itemJson.has(i))) {
    return jsonWith(e, "response", openResponsesResourceJson(response));
  }
  return JSON.stringify(e);
}

/** A response resource's JSON (`JSON.stringify(resource)`), its finished items written from their JSON made once. */
export function openResponsesResourceJson(resource: Record<string, unknown>): string {
  const output = resource.output;
  if (!Array.isArray(output)) return JSON.stringify(resource);
  let items = "";
  for (let i = 0; i < output.length; i++) {
    const item: unknown = output[i];
    items += (i > 0 ? "," : "") + ((isObject(item) && itemJson.get(item)) || JSON.stringify(item === undefined ? null : item));
  }
  return jsonWith(resource, "output", `[${items}]`);
}

/** `JSON.stringify(value)` where member `key` (present) is written as `json` (its value's JSON). */
function jsonWith(value: Record<string, unknown>, key: string, json: string): string {
  // (the members before and after `key`, in their order, each side's JSON made by JSON.stringify)
  const before: Record<string, unknown> = Object.create(null);
  const after: Record<string, unknown> = Object.create(null);
  let side = before;
  for (const k of Object.keys(value)) {
    if (k === key) side = after;
    else side[k] = value[k];
  }
  const head = JSON.stringify(before);
  const tail = JSON.stringify(after);
  return `${head.length > 2 ? `${head.slice(0, -1)},` : "{"}${JSON.stringify(key)}:${json}${tail.length > 2 ? `,${tail.slice(1)}` : "}"}`;
}

/** What the spec writes after the last event. */
export const OPEN_RESPONSES_END = "data: [DONE]\n\n";

/**
 * Open Responses events → SSE bytes as the spec frames them: `event: <type>` (the event's `type`),
 * `data: <json>`, a blank line; `data: [DONE]` after the last; no `id` field.
 */
export function openResponsesSse(): TransformStream<OpenResponsesEvent, Uint8Array> {
  const utf8 = new TextEncoder();
  return new TransformStream({
    transform: (e, c) => c.enqueue(utf8.encode(openResponsesFrame(e))),
    flush: (c) => c.enqueue(utf8.encode(OPEN_RESPONSES_END)),
  });
}

/**
 * The same state machine writing the framed text itself (one stage where the events and
 * `openResponsesSse()` are two): the events one input makes go out as one chunk of bytes.
 */
class OpenResponsesSseCore implements StreamCore<UniEvent, Uint8Array> {
  private readonly core: OpenResponsesEncoderCore;
  private readonly utf8 = new TextEncoder();
  private text = "";
  private readonly write = (e: OpenResponsesEvent): void => {
    this.text += openResponsesFrame(e);
  };

  constructor(options: OpenResponsesEncoderOptions) {
    this.core = new OpenResponsesEncoderCore(options, false, true);
  }

  get finished(): boolean {
    return this.core.finished;
  }

  start(emit: (bytes: Uint8Array) => void): void {
    this.core.start(this.write);
    this.flush(emit);
  }

  push(event: UniEvent, emit: (bytes: Uint8Array) => void): void {
    try {
      this.core.push(event, this.write);
    } finally {
      this.flush(emit); // (what was made before an error goes out, as the stream shell promises)
    }
  }

  end(emit: (bytes: Uint8Array) => void): void {
    this.core.end(this.write);
    this.text += OPEN_RESPONSES_END;
    this.flush(emit);
  }

  abort(reason: unknown, emit: (bytes: Uint8Array) => void): void {
    this.core.abort(reason, this.write);
    this.text += OPEN_RESPONSES_END;
    this.flush(emit);
  }

  private flush(emit: (bytes: Uint8Array) => void): void {
    if (this.text === "") return;
    const text = this.text;
    this.text = "";
    emit(this.utf8.encode(text));
  }
}

/**
 * Writes checked UniEvents as the bytes of an Open Responses stream: the same bytes as
 * `OpenResponsesEncoderStream` piped through `openResponsesSse()` (the same encoder, each event framed
 * as it is made), in one stage — the fast path when only the bytes are wanted (a server's body).
 *
 * @example
 * ```ts
 * import type { UniEvent } from "mmsp-streams";
 * import { OpenResponsesSseEncoderStream } from "mmsp-streams/encode";
 *
 * const usage = { cached_tokens: null, prompt_tokens: 3, thoughts_tokens: null, response_tokens: 1 };
 * const events: UniEvent[] = [
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "delta", content_items: [{ type: "text.done", text: "Hi" }], usage_metadata: null, finish_reason: null },
 *   { role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: "stop" },
 * ];
 * const body = ReadableStream.from(events).pipeThrough(new OpenResponsesSseEncoderStream({ id: "resp_1", model: "m" }));
 * const response = new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
 * console.log((await response.text()).endsWith("data: [DONE]\n\n")); // true
 * ```
 */
export class OpenResponsesSseEncoderStream extends CoreStream<UniEvent, Uint8Array> {
  /** Makes the encoder (the options of {@link OpenResponsesEncoderStream}). */
  constructor(options: OpenResponsesEncoderOptions = {}) {
    super(new OpenResponsesSseCore(options));
  }
}
