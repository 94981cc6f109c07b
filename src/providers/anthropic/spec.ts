/** Anthropic Messages' reading spec: its name and its stream's reader. */
import { isRecord } from "../../internal/values.js";
import type { ProviderSpec } from "../spec.js";
import { AnthropicReader } from "./reader.js";

/** How the package reads an Anthropic Messages stream (`"anthropic"`). */
export const ANTHROPIC: ProviderSpec = {
  name: "anthropic",
  reader: (client) => new AnthropicReader(client),
  modelOf: (event) => (event.type === "message_start" && isRecord(event.message) ? event.message.model : undefined),
};
