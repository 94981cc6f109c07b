/**
 * A fake provider honouring an assistant prefix (SPEC §10 "Fallbacks": a relay continues a cut
 * answer by asking a provider to go on from the text so far): a request whose final message is the
 * assistant's (Anthropic: a prefill; OpenAI Chat: with vLLM's `continue_final_message: true`) is
 * answered with the capture's text less that prefix, as a model that goes on from it would.
 */
import { isRecord } from "../internal/values.js";
import type { Capture } from "./capture.js";
import type { ProviderName } from "./routes.js";
import { parseJsonText } from "../internal/json.js";

type Json = Record<string, unknown>;

/** The text of a request's final assistant message when the provider is asked to continue it, else undefined. */
export function prefixOf(provider: ProviderName, body: Json): string | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1);
  if (!isRecord(last) || last.role !== "assistant") return undefined;
  if (provider === "openai-chat" && body.continue_final_message !== true) return undefined;
  if (provider !== "anthropic" && provider !== "openai-chat") return undefined;
  const { content } = last;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("") : undefined;
}

/** Where a provider's chunk holds its text delta (a holder object and its key), or null. */
function textSlot(provider: ProviderName, chunk: Json): [Json, string] | null {
  if (provider === "anthropic") {
    const delta = chunk.delta;
    return chunk.type === "content_block_delta" && isRecord(delta) && delta.type === "text_delta" ? [delta, "text"] : null;
  }
  const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  const delta = isRecord(choice) ? choice.delta : undefined;
  return isRecord(delta) && typeof delta.content === "string" ? [delta, "content"] : null;
}

/** `capture` with its first `prefix.length` characters of text left out (SSE records rewritten; a text that does not begin with the prefix is kept). */
export function continuedCapture(capture: Capture, provider: ProviderName, prefix: string): Capture {
  let left = prefix;
  const text = new TextDecoder().decode(capture.body);
  const records = text.split(/(?<=\n\n)/).map((record) => {
    if (left === "") return record;
    const line = /^data: (.*)$/m.exec(record);
    if (!line) return record;
    let chunk: unknown;
    try {
      chunk = parseJsonText(line[1]!);
    } catch {
      return record;
    }
    const slot = isRecord(chunk) ? textSlot(provider, chunk) : null;
    if (!slot) return record;
    const [holder, key] = slot;
    const said = String(holder[key]);
    if (left.startsWith(said)) [holder[key], left] = ["", left.slice(said.length)];
    else if (said.startsWith(left)) [holder[key], left] = [said.slice(left.length), ""];
    else left = ""; // (the capture goes elsewhere: a model that did not honour the prefix)
    return record.replace(line[0], () => `data: ${JSON.stringify(chunk)}`);
  });
  return { ...capture, body: new TextEncoder().encode(records.join("")), timing: undefined };
}
