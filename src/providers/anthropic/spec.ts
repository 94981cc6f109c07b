/** Anthropic Messages' reading spec: its name and its stream's reader. */
import { isRecord } from "../../internal/values.js";
import type { ProviderSpec } from "../spec.js";
import { AnthropicReader } from "./reader.js";

/** How the package reads an Anthropic Messages stream (`"anthropic"`). */
export const ANTHROPIC: ProviderSpec = {
  name: "anthropic",
  reader: (client) => new AnthropicReader(client),
  modelOf: (event) => (event.type === "message_start" && isRecord(event.message) ? event.message.model : undefined),
  sample: [
    { type: "message_start", message: { model: "m", usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "a" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "b" } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
    { type: "message_stop" },
  ],
};
