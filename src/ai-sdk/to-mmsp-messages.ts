/**
 * `toMmspMessages`: AI SDK `UIMessage[]` (what `useChat` sends) → MMSP messages (what an MMSP
 * server takes), so an assistant turn read through `UIMessageChunkStream` goes back as the very
 * message `await stream.message` gave, fidelity included.
 *
 *   user      text → text.done; an image file → image_url.done (its URL as is, data: or not);
 *             another file with a data: URL → inline_data.done
 *   assistant text → text.done; reasoning → thinking.done; file → inline_data.done;
 *             reasoning-file → inline_thinking.done; data-embedding → embedding.done;
 *             a tool part → tool_call.done, and its output (or error text) → tool_result.done in a
 *             user message right after the assistant message (MMSP tool results are written by
 *             users); `step-start` parts split an assistant message into its steps
 *   both      `providerMetadata.mmsp` (tool parts: `callProviderMetadata.mmsp`) → the item's
 *             fidelity; the assistant message's `metadata.mmsp` → usage_metadata, finish_reason,
 *             created_at
 *
 * Not converted: a tool part still in `input-streaming` (its arguments are partial: a tool call
 * never comes from partial arguments) is left out. Any other part (sources, custom parts, data
 * parts other than `data-embedding`, system messages) is a `UIMessageConversionError` naming it,
 * or left out with `{ unconvertibleParts: "skip" }`.
 */
import type { DoneItem, Fidelity, FinishReason, UniMessage, UsageMetadata } from "../index.js";
import { checkOptions, describeValue as show, fail, oneOf, type OptionSpec } from "../internal/options.js";
import { isRecord } from "../internal/values.js";
import { UIMessageConversionError } from "./conversion-error.js";
import { fromDataUrl } from "./data-url.js";
import type { ProviderMetadata, ToolPartState, UIMessage } from "./types.js";

/** Options of `toMmspMessages`. */
export interface ToMmspMessagesOptions {
  /** What to do with a part that has no MMSP form: `"error"` (default) or `"skip"` it. */
  unconvertibleParts?: "error" | "skip";
}

type Part = { type: string; [key: string]: unknown };

/** `providerMetadata.mmsp` as a fidelity, when there is a non-empty one. */
function fidelityOf(metadata: unknown): Fidelity | undefined {
  if (!isRecord(metadata)) return undefined;
  const mmsp = (metadata as ProviderMetadata).mmsp;
  return isRecord(mmsp) && Object.keys(mmsp).length > 0 ? (mmsp as Fidelity) : undefined;
}

const withFidelity = <T extends object>(item: T, fidelity: Fidelity | undefined): T => (fidelity ? { ...item, fidelity } : item);

/** The message-level fields `UIMessageChunkStream` wrote into `metadata.mmsp` (only the valid ones). */
function messageFields(metadata: unknown): Pick<UniMessage, "usage_metadata" | "finish_reason" | "created_at"> {
  const mmsp = isRecord(metadata) ? metadata.mmsp : undefined;
  if (!isRecord(mmsp)) return {};
  const out: Pick<UniMessage, "usage_metadata" | "finish_reason" | "created_at"> = {};
  if (isRecord(mmsp.usage_metadata)) out.usage_metadata = { ...(mmsp.usage_metadata as UsageMetadata) };
  if (typeof mmsp.finish_reason === "string") out.finish_reason = mmsp.finish_reason as FinishReason;
  if (Number.isInteger(mmsp.created_at)) out.created_at = mmsp.created_at as number;
  return out;
}

/** A tool output as the text of a `tool_result.done`: strings as they are, anything else as JSON. */
function resultText(output: unknown): string {
  if (typeof output === "string") return output;
  return output === undefined ? "" : JSON.stringify(output);
}

const OPTIONS: OptionSpec = {
  unconvertibleParts: /*#__PURE__*/ oneOf(["error", "skip"]),
};

/**
 * AI SDK `UIMessage[]` (what `useChat` sends) → MMSP messages (what an MMSP server takes); an
 * assistant turn read through `UIMessageChunkStream` comes back as the very message it was.
 * A part with no MMSP form is a `UIMessageConversionError` (or left out with `unconvertibleParts: "skip"`).
 */
export function toMmspMessages(uiMessages: readonly UIMessage[], options?: ToMmspMessagesOptions): UniMessage[] {
  checkOptions("toMmspMessages", options, OPTIONS);
  const mode = options?.unconvertibleParts ?? "error";
  if (!Array.isArray(uiMessages)) fail(TypeError, "toMmspMessages: uiMessages", "an array of UIMessage", uiMessages);

  const out: UniMessage[] = [];
  uiMessages.forEach((message: UIMessage, m) => {
    const unconvertible = (partIndex: number | null, partType: string, reason: string): void => {
      if (mode === "error") throw new UIMessageConversionError({ messageIndex: m, partIndex, partType, reason });
    };
    if (!isRecord(message) || !Array.isArray(message.parts)) {
      throw new UIMessageConversionError({
        messageIndex: m,
        partIndex: null,
        partType: String((message as { role?: unknown })?.role),
        reason: "not a UIMessage (no parts array)",
      });
    }
    if (message.role !== "user" && message.role !== "assistant") {
      return unconvertible(
        null,
        String(message.role),
        "MMSP messages are from the user or the assistant (set a system prompt in the request's config)",
      );
    }

    let items: DoneItem[] = [];
    let results: DoneItem[] = [];
    // one MMSP message per step: the assistant's items, then the user's tool results (if any)
    const flush = (last: boolean): void => {
      if (items.length > 0) {
        const msg: UniMessage = { role: message.role as "user" | "assistant", content_items: items };
        if (last && message.role === "assistant") Object.assign(msg, messageFields(message.metadata));
        out.push(msg);
      }
      if (results.length > 0) out.push({ role: "user", content_items: results });
      items = [];
      results = [];
    };

    message.parts.forEach((raw, p) => {
      const part = raw as Part;
      const type = isRecord(part) && typeof part.type === "string" ? part.type : String(part);
      const no = (reason: string): void => unconvertible(p, type, reason);
      if (type === "step-start") return results.length > 0 ? flush(false) : undefined;
      if (type === "text") {
        if (typeof part.text !== "string") return no("its text is not a string");
        return void items.push(withFidelity({ type: "text.done", text: part.text }, fidelityOf(part.providerMetadata)));
      }
      if (type === "file") {
        const url = part.url;
        const mediaType = part.mediaType;
        if (typeof url !== "string" || typeof mediaType !== "string") return no("a file part needs url and mediaType strings");
        if (message.role === "user" && /^image\//i.test(mediaType)) return void items.push({ type: "image_url.done", image_url: url });
        const data = fromDataUrl(url);
        if (data === undefined) {
          return no(
            `only data: URLs carry bytes MMSP can send (${message.role === "user" ? "images may be any URL" : "got a remote URL"})`,
          );
        }
        return void items.push(withFidelity({ type: "inline_data.done", data, mime_type: mediaType }, fidelityOf(part.providerMetadata)));
      }
      if (message.role === "user") return no("a user message holds text and files");

      if (type === "reasoning") {
        if (typeof part.text !== "string") return no("its text is not a string");
        return void items.push(withFidelity({ type: "thinking.done", thinking: part.text }, fidelityOf(part.providerMetadata)));
      }
      if (type === "reasoning-file") {
        const data = typeof part.url === "string" ? fromDataUrl(part.url) : undefined;
        if (data === undefined || typeof part.mediaType !== "string") return no("a reasoning file needs a data: URL and a mediaType");
        return void items.push(
          withFidelity({ type: "inline_thinking.done", data, mime_type: part.mediaType }, fidelityOf(part.providerMetadata)),
        );
      }
      if (type === "data-embedding") {
        const embedding = isRecord(part.data) ? part.data.embedding : undefined;
        if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === "number")) return no("its data.embedding is not a number[]");
        return void items.push({ type: "embedding.done", embedding: [...embedding] });
      }
      if (type === "dynamic-tool" || type.startsWith("tool-")) {
        const name = type === "dynamic-tool" ? part.toolName : type.slice(5);
        const state = part.state as ToolPartState;
        if (typeof name !== "string" || typeof part.toolCallId !== "string") return no("a tool part needs its toolName and toolCallId");
        if (state === "input-streaming") return; // arguments still partial: not a call yet
        if (!isRecord(part.input)) return no(`its input is not a JSON object (got ${show(part.input)}); MMSP tool arguments are objects`);
        items.push(
          withFidelity(
            { type: "tool_call.done", name, arguments: part.input, tool_call_id: part.toolCallId },
            fidelityOf(part.callProviderMetadata),
          ),
        );
        let text: string | undefined;
        if (state === "output-available") text = resultText(part.output);
        else if (state === "output-error") text = typeof part.errorText === "string" ? part.errorText : "error";
        else if (state === "output-denied") {
          const reason = isRecord(part.approval) && typeof part.approval.reason === "string" ? `: ${part.approval.reason}` : "";
          text = `The tool call was denied${reason}.`;
        }
        if (text !== undefined) results.push({ type: "tool_result.done", text, tool_call_id: part.toolCallId });
        return;
      }
      no("MMSP has no item for it");
    });
    flush(true);
  });
  return out;
}
