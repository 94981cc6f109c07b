/**
 * A provider's own counter of a request's input tokens (`Provider.countTokens`): the request built by the
 * provider's request builder (its key, its version headers, its body: the one `stream()` would send),
 * sent to the API's counting route with the body that route takes — Anthropic's `POST
 * /v1/messages/count_tokens` (`{input_tokens}`), Gemini's `POST models/{model}:countTokens` with a
 * `generateContentRequest` (`{totalTokens}`), the Responses API's `POST /responses/input_tokens`
 * (`{object: "response.input_tokens", input_tokens}`). The members each route takes are its API
 * reference's (a counter refuses the generation's own: `max_tokens`, `stream`…); a refusal is the
 * provider's, read as `stream()` reads one (the key cut out of it), and no redirect is followed.
 */
import { UpstreamError } from "../errors.js";
import { connectionError } from "../internal/http.js";
import { cutSecrets, errorWithoutSecrets, secretsOf } from "../internal/secrets.js";
import { isRecord } from "../internal/values.js";
import { providerRefusal } from "./refusal.js";
import type { ProviderSpec } from "./spec.js";

type Json = Record<string, unknown>;

/** A provider's counter: its path below the base URL, its body made of the streamed request's, the count in its answer. */
export interface TokenCounter {
  readonly path: string | ((model: string) => string);
  body(streamed: Json, model: string): Json;
  tokens(answer: unknown): number | undefined;
}

/** `body`'s members named in `keys` (those it has). */
const only = (body: Json, keys: readonly string[]): Json => {
  const out: Json = {};
  for (const key of keys) if (Object.hasOwn(body, key) && body[key] !== undefined) out[key] = body[key];
  return out;
};

/** A count in an answer's member `key`: a whole number, not negative. */
const countIn = (answer: unknown, key: string): number | undefined => {
  const n = isRecord(answer) ? answer[key] : undefined;
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

/** Anthropic's `POST /v1/messages/count_tokens`: MessageCountTokensParams' members of the Messages body. */
export const ANTHROPIC_COUNTER: TokenCounter = {
  path: "/v1/messages/count_tokens",
  body: (streamed) =>
    only(streamed, ["model", "messages", "system", "tools", "tool_choice", "thinking", "output_config", "cache_control", "speed"]),
  tokens: (answer) => countIn(answer, "input_tokens"),
};

/** Gemini's `POST models/{model}:countTokens`: the whole request as `generateContentRequest` (system instruction and tools counted). */
export const GEMINI_COUNTER: TokenCounter = {
  path: (model) => `/models/${encodeURIComponent(model.replace(/^models\//, ""))}:countTokens`,
  body: (streamed, model) => ({ generateContentRequest: { model: `models/${model.replace(/^models\//, "")}`, ...streamed } }),
  tokens: (answer) => countIn(answer, "totalTokens"),
};

/** The Responses API's `POST /responses/input_tokens`: InputTokenCountParams' members of the Responses body. */
export const RESPONSES_COUNTER: TokenCounter = {
  path: "/responses/input_tokens",
  body: (streamed) =>
    only(streamed, [
      "model",
      "input",
      "instructions",
      "tools",
      "tool_choice",
      "parallel_tool_calls",
      "reasoning",
      "text",
      "previous_response_id",
      "conversation",
      "truncation",
    ]),
  tokens: (answer) => countIn(answer, "input_tokens"),
};

/** How a counter is asked: the streamed request built, where the counter is, the fetch, who answers. */
export interface CountAsk {
  readonly built: Request;
  readonly url: string;
  readonly model: string;
  readonly fetch: (input: Request, init?: RequestInit) => Promise<Response>;
  readonly spec: ProviderSpec;
  readonly client: string;
  readonly signal?: AbortSignal;
}

/** The count `counter` answers for the request `ask.built` (its key and headers, its body made the counter's). */
export async function countWith(counter: TokenCounter, ask: CountAsk): Promise<number> {
  const { built, url, model, spec, client, signal } = ask;
  const body = counter.body((await built.clone().json()) as Json, model);
  const headers = new Headers(built.headers);
  headers.delete("accept"); // (the counter answers JSON, not a stream)
  const request = new Request(url, { method: "POST", headers, body: JSON.stringify(body), redirect: "manual" });
  let response: Response;
  try {
    response = await ask.fetch(request, { signal, redirect: "manual" });
  } catch (e) {
    throw signal?.aborted ? signal.reason : connectionError(e, url, true);
  }
  const secrets = secretsOf(request);
  if (!response.ok || response.type === "opaqueredirect") {
    if (response.status >= 300 && response.status < 400 || response.type === "opaqueredirect") {
      response.body?.cancel().catch(() => {});
      throw invalid(client, response.status, `${client}'s token counter answered with a redirect, which is not followed`);
    }
    throw errorWithoutSecrets(await providerRefusal(response, spec, client, (text) => cutSecrets(text, secrets)), secrets);
  }
  const tokens = counter.tokens(await response.json().catch(() => undefined));
  if (tokens === undefined) throw invalid(client, response.status, `${client}'s token counter answered without a count`);
  return tokens;
}

const invalid = (client: string, status: number, message: string): UpstreamError =>
  new UpstreamError({ client, status: status || null, errorType: "HTTPError", error: { type: "HTTPError", message }, message });
