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
};
