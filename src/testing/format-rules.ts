/**
 * What each real API refuses in a request's structured-output settings (issue #46: `text.format` →
 * each provider's own), for the kit's fake providers: OpenAI Chat's `response_format` (a
 * `json_schema` needs `json_schema.name` and its `schema` object), the Responses API's `text.format`
 * (a `json_schema` needs `name` and `schema`), Anthropic's `output_config.format` (only `json_schema`,
 * with its `schema` object) and Gemini's `generationConfig.responseJsonSchema` (only with
 * `responseMimeType: "application/json"`). The message is the refusal's (a 400 in the provider's shape).
 */
import { isRecord } from "../internal/values.js";
import type { ProviderName } from "./routes.js";

type Json = Record<string, unknown>;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The refusal's message of `body`'s structured-output settings for `provider`, or undefined when they are well formed. */
export function formatRules(provider: ProviderName, body: Json): string | undefined {
  switch (provider) {
    case "openai-chat": {
      const f = body.response_format;
      if (f === undefined) return undefined;
      if (!isRecord(f) || !["text", "json_object", "json_schema"].includes(f.type as string)) {
        return "Invalid value for 'response_format.type': expected one of 'text', 'json_object', 'json_schema'.";
      }
      if (f.type !== "json_schema") return undefined;
      const s = f.json_schema;
      if (!isRecord(s) || typeof s.name !== "string" || !NAME.test(s.name)) {
        return "Missing required parameter: 'response_format.json_schema.name'.";
      }
      return isRecord(s.schema) ? undefined : "Invalid type for 'response_format.json_schema.schema': expected an object.";
    }
    case "openai-responses": {
      const f = isRecord(body.text) ? body.text.format : undefined;
      if (f === undefined) return undefined;
      if (!isRecord(f) || !["text", "json_object", "json_schema"].includes(f.type as string)) {
        return "Invalid value for 'text.format.type': expected one of 'text', 'json_object', 'json_schema'.";
      }
      if (f.type !== "json_schema") return undefined;
      if (typeof f.name !== "string" || !NAME.test(f.name)) return "Missing required parameter: 'text.format.name'.";
      return isRecord(f.schema) ? undefined : "Missing required parameter: 'text.format.schema'.";
    }
    case "anthropic": {
      const f = isRecord(body.output_config) ? body.output_config.format : undefined;
      if (f === undefined || f === null) return undefined;
      if (!isRecord(f) || f.type !== "json_schema") return "output_config.format.type: Input should be 'json_schema'";
      return isRecord(f.schema) ? undefined : "output_config.format.schema: Field required";
    }
    case "gemini": {
      const g = isRecord(body.generationConfig) ? body.generationConfig : {};
      if (g.responseJsonSchema === undefined && g.responseSchema === undefined) return undefined;
      if (g.responseMimeType !== "application/json") {
        return "Invalid JSON payload: response_mime_type must be application/json when a response schema is set.";
      }
      return isRecord(g.responseJsonSchema ?? g.responseSchema)
        ? undefined
        : 'Invalid JSON payload received. Unknown name "responseJsonSchema": not an object.';
    }
  }
}
