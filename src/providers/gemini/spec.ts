/** Gemini's reading spec: its name, its stream's reader, and its error objects' type. */
import type { ProviderSpec } from "../spec.js";
import { GeminiReader } from "./reader.js";

/** How the package reads a Gemini `streamGenerateContent?alt=sse` stream (`"gemini"`). */
export const GEMINI: ProviderSpec = {
  name: "gemini",
  reader: (client) => new GeminiReader(client),
  modelOf: (chunk) => chunk.modelVersion,
  // Google's error object names its kind in `status` ("RESOURCE_EXHAUSTED", "UNAVAILABLE"…), not `type`
  errorType: (error) => (typeof error.status === "string" && error.status ? error.status : null),
  sample: [
    { candidates: [{ content: { role: "model", parts: [{ text: "a" }] } }], modelVersion: "m" },
    {
      candidates: [{ content: { role: "model", parts: [{ text: "b" }] }, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 2 },
    },
  ],
};
