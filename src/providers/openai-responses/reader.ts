/**
 * The OpenAI Responses stream (`POST /v1/responses` with `stream: true`, one JSON event per SSE
 * message) → the fragments of SPEC §5, keyed by the output item's id. Items stream one after the
 * other (`output_index`), so each is one group; the package's assembler makes the `.done`s and the
 * stop event. What MMSP's `openai_responses` client reads, and where SPEC §9 decides otherwise:
 * several summaries of one reasoning item join into one thinking item (its `encrypted_content`, read
 * at `response.output_item.done`, goes on it as fidelity with the summaries' lengths, so a replay
 * sends back each summary and the encrypted reasoning exactly); a turn that called functions
 * finishes `tool_call`; `response.failed` is the failure's error; image generation results are
 * `inline_data`; built-in and custom tool calls are skipped and said.
 */
import { fromWireError } from "../../errors.js";
import { Fault } from "../../internal/fault.js";
import { isRecord } from "../../internal/values.js";
import type { DeltaItem, FinishReason } from "../../schema.js";
import type { EventReader, FragmentSink } from "../event-reader.js";
import { eventObject, truncated } from "../wire.js";
import { bytesOf, text } from "../wire-values.js";
import { FINISH, incompleteFinish, usageOf } from "./maps.js";

type Rec = Record<string, unknown>;

/** Fields of a reasoning item a replay must send back as they came (MMSP's list). */
const REPLAYED = ["encrypted_content", "signature", "format"] as const;

/** Between two summaries (or reasoning texts) of one reasoning item, in the joined thinking. */
export const PART_SEPARATOR = "\n\n";

/** What was streamed of one reasoning item: the index of its part streaming now, each part's length, whether any was raw reasoning. */
interface Reasoning {
  part: number | undefined;
  lengths: number[];
  raw: boolean;
}

const IMAGE_TYPES: Readonly<Record<string, string>> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" };

/** The Responses API's event reader (one per stream). */
export class ResponsesReader implements EventReader {
  /** `response.completed` or `response.incomplete` came: the provider's own end. */
  private ended = false;
  /** The turn made a function call (its finish is `tool_call`). */
  private called = false;
  /** An `error` event: the stream's outcome, told at `response.failed` or the end. */
  private failure: Rec | undefined;
  private readonly reasoning = new Map<string, Reasoning>();
  /** The function call streaming now (its key) and whether argument deltas came for it. */
  private call: { key: string; streamed: boolean } | undefined;
  /** The image tool's `output_format` as the response echoes its tools (`response.created`). */
  private imageFormat: string | undefined;

  constructor(private readonly client: string) {}

  read(value: unknown, sink: FragmentSink): void {
    // ([DONE] is a gateway's OpenAI-Chat habit; nothing counts after the response's own end)
    if (value === "[DONE]" || this.ended) return;
    const e = eventObject(value);
    switch (e.type) {
      case "response.created":
      case "response.in_progress":
        this.readTools(e.response);
        return;
      case "response.output_item.added":
        return this.added(e.item, sink);
      case "response.output_item.done":
        return this.done(e.item, sink);
      case "response.output_text.delta":
      case "response.refusal.delta": // a refusal is the answer's text (SPEC §9)
        return sink.item({ type: "text.delta", text: text(e.delta) }, text(e.item_id));
      case "response.reasoning_summary_text.delta":
        return this.thinking(text(e.item_id), e.summary_index, text(e.delta), false, sink);
      case "response.reasoning_text.delta":
        return this.thinking(text(e.item_id), e.content_index, text(e.delta), true, sink);
      case "response.function_call_arguments.delta":
        return this.args(text(e.item_id), text(e.delta), sink);
      case "response.function_call_arguments.done":
        // a server that streams no argument deltas sends them whole here
        if (this.call && !this.call.streamed) this.args(text(e.item_id), text(e.arguments), sink);
        return;
      case "response.completed":
        return this.finish(sink, this.called ? FINISH.completed.calls : FINISH.completed.text, e.response);
      case "response.incomplete": {
        const response = isRecord(e.response) ? e.response : {};
        const reason = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined;
        if (typeof reason === "string") sink.reason(`the response is incomplete: ${reason}`);
        return this.finish(sink, incompleteFinish(reason), response);
      }
      case "error":
        this.failure = e; // response.failed follows, with the failure as the response's error
        return;
      case "response.failed": {
        const response = isRecord(e.response) ? e.response : {};
        throw failed(isRecord(response.error) ? response.error : this.failure, this.client);
      }
      default:
        // lifecycle events, `*.done` repeats of what the deltas carried, annotations, partial images,
        // keep-alives and events of this API's later versions carry nothing a UniEvent holds
        return;
    }
  }

  end(_sink: FragmentSink): void {
    if (this.failure !== undefined) throw failed(this.failure, this.client);
    if (!this.ended) throw truncated("response.completed or response.incomplete");
  }

  private finish(sink: FragmentSink, finish: FinishReason, response: unknown): void {
    if (this.failure !== undefined) throw failed(this.failure, this.client);
    this.ended = true;
    sink.stop(usageOf(isRecord(response) ? response.usage : undefined), finish);
  }

  private readTools(response: unknown): void {
    const tools = isRecord(response) && Array.isArray(response.tools) ? response.tools : [];
    for (const tool of tools) {
      if (isRecord(tool) && tool.type === "image_generation" && typeof tool.output_format === "string") {
        this.imageFormat = tool.output_format;
      }
    }
  }

  private added(item: unknown, sink: FragmentSink): void {
    if (!isRecord(item)) return;
    const id = text(item.id);
    switch (item.type) {
      case "message":
        // the phase (gpt-5's "commentary" / "final_answer") goes back with the message on replay
        if (typeof item.phase === "string" && item.phase) sink.item({ type: "text.delta", text: "", fidelity: { phase: item.phase } }, id);
        return;
      case "function_call": {
        this.called = true;
        // a server that sends no item id still sends the call id (MMSP)
        const key = id || text(item.call_id);
        this.call = { key, streamed: false };
        sink.item({ type: "tool_call.delta", name: text(item.name), tool_call_id: text(item.call_id), arguments: "" }, key);
        return;
      }
      case "reasoning":
      case "image_generation_call": // its result comes whole at output_item.done
        return;
      case "custom_tool_call":
        sink.warn(`skipped a custom (free-form) tool call${item.name ? ` to ${JSON.stringify(item.name)}` : ""}: it has no UniEvent kind`);
        return;
      default:
        sink.warn(`skipped an output item of type ${JSON.stringify(item.type)} (a built-in tool's call has no UniEvent kind)`);
    }
  }

  private done(item: unknown, sink: FragmentSink): void {
    if (!isRecord(item)) return;
    const id = text(item.id);
    if (item.type === "reasoning") {
      const fidelity = reasoningFidelity(item, this.reasoning.get(id));
      if (fidelity !== undefined) sink.item({ type: "thinking.delta", thinking: "", fidelity }, id);
    } else if (item.type === "function_call") {
      const call = this.call;
      if (call && !call.streamed && text(item.arguments)) this.args(call.key, text(item.arguments), sink);
      this.call = undefined;
    } else if (item.type === "image_generation_call") {
      if (typeof item.result !== "string" || !item.result) {
        sink.warn(`skipped an image generation call with no result (status ${JSON.stringify(item.status)})`);
        return;
      }
      const format = text(item.output_format) || this.imageFormat || "png";
      const mime = Object.prototype.hasOwnProperty.call(IMAGE_TYPES, format) ? IMAGE_TYPES[format]! : `image/${format}`;
      const image: DeltaItem = {
        type: "inline_data.delta",
        data: bytesOf(item.result, "an image generation call's result"),
        mime_type: mime,
      };
      sink.item(image, id);
    }
  }

  private thinking(id: string, part: unknown, delta: string, raw: boolean, sink: FragmentSink): void {
    let r = this.reasoning.get(id);
    if (r === undefined) this.reasoning.set(id, r = { part: undefined, lengths: [], raw });
    r.raw ||= raw;
    const index = typeof part === "number" ? part : 0;
    if (r.part !== index) {
      if (r.lengths.length > 0) sink.item({ type: "thinking.delta", thinking: PART_SEPARATOR }, id);
      r.part = index;
      r.lengths.push(0);
    }
    r.lengths[r.lengths.length - 1]! += delta.length;
    sink.item({ type: "thinking.delta", thinking: delta }, id);
  }

  private args(id: string, delta: string, sink: FragmentSink): void {
    const call = this.call;
    // items stream one after another: an argument fragment of another call than the one open would
    // be appended to the wrong call (the assembler continues the call streaming now)
    if (call === undefined || (id !== "" && id !== call.key)) {
      throw new Fault(
        "NO-INTERLEAVE",
        `function call arguments for item ${JSON.stringify(id)} arrived while ${
          call ? `item ${JSON.stringify(call.key)}` : "no function call"
        } was streaming`,
      );
    }
    call.streamed = true;
    if (delta) sink.item({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: delta }, call.key);
  }
}

/**
 * The fidelity of a finished reasoning item (MMSP's, plus each streamed part's length), or undefined
 * when it has none. Thinking that is the reasoning's summary (`reasoning_summary_text`, no raw
 * `reasoning_text`) is marked `summary: true` (SPEC §9).
 */
function reasoningFidelity(item: Rec, streamed: Reasoning | undefined): Rec | undefined {
  const fidelity: Rec = {};
  const summarized = Array.isArray(item.summary) && item.summary.length > 0;
  if (summarized) fidelity.channel = "summary";
  if (streamed ? !streamed.raw : summarized) fidelity.summary = true;
  for (const key of REPLAYED) if (item[key] != null) fidelity[key] = item[key];
  if (streamed && streamed.lengths.length > 1) fidelity.part_lengths = streamed.lengths;
  return Object.keys(fidelity).length > 0 ? fidelity : undefined;
}

/** The `UpstreamError` of a failed response: its error's code as the type, its message (SPEC §9). */
function failed(error: Rec | undefined, client: string): Error {
  const e = error ?? {};
  const code = typeof e.code === "string" && e.code
    ? e.code
    : typeof e.type === "string" && e.type !== "error"
    ? e.type
    : "response.failed";
  const message = typeof e.message === "string" && e.message ? e.message : "the response failed";
  const wire: Rec = { ...e, type: code, message };
  return fromWireError(wire, null, client);
}
