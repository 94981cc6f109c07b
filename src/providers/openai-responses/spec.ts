/** OpenAI Responses' reading spec: its name and its stream's reader. */
import type { ProviderSpec } from "../spec.js";
import { ResponsesReader } from "./reader.js";

/** How the package reads an OpenAI Responses stream (`"openai-responses"`). */
export const OPENAI_RESPONSES: ProviderSpec = {
  name: "openai-responses",
  reader: (client) => new ResponsesReader(client),
};
