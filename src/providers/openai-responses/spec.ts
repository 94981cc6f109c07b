/** OpenAI Responses' reading spec: its name and its stream's reader. */
import { isRecord } from "../../internal/values.js";
import type { ProviderSpec } from "../spec.js";
import { ResponsesReader } from "./reader.js";

/** How the package reads an OpenAI Responses stream (`"openai-responses"`). */
export const OPENAI_RESPONSES: ProviderSpec = {
  name: "openai-responses",
  reader: (client) => new ResponsesReader(client),
  // (response.created / in_progress / completed carry the response, its model named)
  modelOf: (event) => (isRecord(event.response) ? event.response.model : undefined),
  sample: [
    { type: "response.created", response: { model: "m" } },
    { type: "response.output_text.delta", item_id: "i", output_index: 0, content_index: 0, delta: "a" },
    { type: "response.output_text.delta", item_id: "i", output_index: 0, content_index: 0, delta: "b" },
    { type: "response.completed", response: { model: "m", status: "completed", usage: { input_tokens: 1, output_tokens: 2 } } },
  ],
};
