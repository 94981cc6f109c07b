/**
 * The token counters of the fake providers (fake-provider.ts), as their API references describe them:
 * Anthropic's `POST /v1/messages/count_tokens` (`{input_tokens}`), Gemini's `POST
 * /v1beta/models/<model>:countTokens` (`{totalTokens}`), the Responses API's `POST
 * /v1/responses/input_tokens` (`{object: "response.input_tokens", input_tokens}`); an OpenAI-compatible
 * Chat server has none (its fake answers such a path 404). Each refuses what the real route refuses — a
 * member it does not take (a generation's own: `max_tokens`, `stream`…), a missing one it needs, Gemini's
 * `contents` with `generateContentRequest` — and counts what it got: a figure of its own (the counted
 * body's JSON characters over 3, rounded up: not any relay's estimate), kept in the request's log entry
 * (`counted`) so a test can tell the counter's figure reached its client.
 */
import { isRecord } from "../internal/values.js";
import type { ProviderName } from "./routes.js";

type Json = Record<string, unknown>;

/** One provider's counting route. */
export interface FakeCounter {
  /** Whether `url` is the counter's route. */
  matches(url: URL): boolean;
  /** The model a count asks about (from its path or body). */
  model(url: URL, body: Json): string | undefined;
  /** What the real API refuses in the body (its message), or undefined. */
  refused(body: Json): string | undefined;
  /** The answer to a count of `tokens`. */
  answer(tokens: number): Json;
}

/** The first member of `body` not in `allowed`, or undefined. */
const unknownMember = (body: Json, allowed: ReadonlySet<string>): string | undefined => Object.keys(body).find((k) => !allowed.has(k));

/** Anthropic's MessageCountTokensParams (the Messages reference's count_tokens body). */
const ANTHROPIC_MEMBERS = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "cache_control",
  "speed",
  "mcp_servers",
  "context_management",
]);
/** Gemini's CountTokensRequest, and the GenerateContentRequest it may hold. */
const GEMINI_MEMBERS = new Set(["contents", "generateContentRequest"]);
const GENERATE_MEMBERS = new Set([
  "model",
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "safetySettings",
  "generationConfig",
  "cachedContent",
]);
/** The Responses API's InputTokenCountParams. */
const RESPONSES_MEMBERS = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "personality",
  "reasoning",
  "text",
  "previous_response_id",
  "conversation",
  "truncation",
]);

const bodyModel = (_url: URL, body: Json): string | undefined => (typeof body.model === "string" ? body.model : undefined);

/** Every provider's counter (none: the provider's API has no counting route). */
export const FAKE_COUNTERS: Readonly<Partial<Record<ProviderName, FakeCounter>>> = {
  anthropic: {
    matches: (url) => url.pathname === "/v1/messages/count_tokens",
    model: bodyModel,
    refused: (body) => {
      const extra = unknownMember(body, ANTHROPIC_MEMBERS);
      if (extra !== undefined) return `${extra}: Extra inputs are not permitted`;
      if (typeof body.model !== "string") return "model: Field required";
      if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: Field required";
      return undefined;
    },
    answer: (tokens) => ({ input_tokens: tokens }),
  },
  gemini: {
    matches: (url) => /^\/v1beta\/models\/[^/:]+:countTokens$/.test(url.pathname),
    model: (url) => /^\/v1beta\/models\/([^/:]+):countTokens$/.exec(url.pathname)?.[1],
    refused: (body) => {
      const extra = unknownMember(body, GEMINI_MEMBERS);
      if (extra !== undefined) return `Invalid JSON payload received. Unknown name "${extra}": Cannot find field.`;
      const inner = body.generateContentRequest;
      if (inner !== undefined && body.contents !== undefined) {
        return "contents and generateContentRequest are mutually exclusive: send one.";
      }
      if (inner === undefined) return Array.isArray(body.contents) ? undefined : "contents: required (or generateContentRequest).";
      if (!isRecord(inner)) return "generateContentRequest: must be an object.";
      const innerExtra = unknownMember(inner, GENERATE_MEMBERS);
      if (innerExtra !== undefined) {
        return `Invalid JSON payload received. Unknown name "${innerExtra}" at 'generate_content_request': Cannot find field.`;
      }
      if (typeof inner.model !== "string" || !inner.model.startsWith("models/")) {
        return "generateContentRequest.model: required, as models/{model}.";
      }
      return Array.isArray(inner.contents) ? undefined : "generateContentRequest.contents: required.";
    },
    answer: (tokens) => ({ totalTokens: tokens }),
  },
  "openai-responses": {
    matches: (url) => url.pathname === "/v1/responses/input_tokens",
    model: bodyModel,
    refused: (body) => {
      const extra = unknownMember(body, RESPONSES_MEMBERS);
      return extra === undefined ? undefined : `Unknown parameter: '${extra}'.`;
    },
    answer: (tokens) => ({ object: "response.input_tokens", input_tokens: tokens }),
  },
};

/** The fake's count of what a counting request got: its body but the model, its JSON's characters over 3, rounded up. */
export function fakeCount(body: Json): number {
  const { model: _, ...counted } = body;
  return Math.ceil(JSON.stringify(counted).length / 3);
}
