/**
 * `ProviderEventStream` and `fromProviderResponse`: a provider's streaming HTTP body (OpenAI Chat
 * Completions, Anthropic Messages…) → the public UniEvent stream, checked by construction (the
 * provider's reader writes SPEC §5 fragments, the package's assembler makes the stream, core.ts).
 */
import type { ResponseEvents } from "../from-response.js";
import { fail } from "../internal/describe.js";
import { checkOptions, checkResponse, oneOf, PROVIDER_STREAM_OPTIONS } from "../internal/options.js";
import { type ProviderName, PROVIDERS } from "./names.js";
import { ProviderReaderStream, type ProviderStreamOptions, readProviderResponse } from "./read.js";
import type { ProviderSpec } from "./spec.js";

/** A provider's spec from its name (or the spec itself), checked: a wrong name says which are known. */
function specOf(name: string, provider: ProviderName | ProviderSpec): ProviderSpec {
  if (typeof provider === "object" && provider !== null && typeof provider.reader === "function") return provider;
  const rule = oneOf(Object.keys(PROVIDERS));
  if (typeof provider !== "string") fail(TypeError, `${name}: the provider`, rule.must, provider);
  if (!rule.ok!(provider)) fail(RangeError, `${name}: the provider`, rule.must, provider, rule.hint!(provider));
  return PROVIDERS[provider as ProviderName];
}

/**
 * A provider's streaming body (bytes of its SSE) → checked UniEvents, with the finished message,
 * `snapshot()`, `subscribe()` and `timings` as `UniEventStream` has them. What the provider sends is
 * turned into fragments and assembled by the package's assemble mode, so every event passes
 * `UniEventStream`'s checks; a provider error inside the stream is an `UpstreamError` after every
 * valid event before it, and a stream that ends before the provider's own end is an error with no
 * `.done` for the item that was open.
 *
 * @example
 * ```ts
 * import { ProviderEventStream } from "mmsp-streams/providers";
 *
 * const body = [
 *   'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}',
 *   'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
 *   'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
 *   'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
 *   'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}',
 *   'event: message_stop\ndata: {"type":"message_stop"}',
 * ].join("\n\n") + "\n\n";
 * const stream = new ProviderEventStream("anthropic");
 * for await (const event of new Response(body).body!.pipeThrough(stream)) console.log(event.content_items[0]?.type ?? "stop");
 * console.log((await stream.message).content_items); // [{ type: "text.done", text: "Hi" }]
 * ```
 */
export class ProviderEventStream extends ProviderReaderStream {
  /**
   * Checks the provider and the options (a `TypeError` / `RangeError` naming a wrong one) and makes the stream.
   * @param provider `"openai-chat"`, `"openai-responses"`, `"anthropic"` or `"gemini"` (or a `ProviderSpec`)
   * @param options see the options type
   */
  constructor(provider: ProviderName | ProviderSpec, options: ProviderStreamOptions = {}) {
    const spec = specOf("ProviderEventStream", provider);
    checkOptions("ProviderEventStream", options, PROVIDER_STREAM_OPTIONS);
    super(spec, options);
  }
}

/**
 * Reads a provider's `Response` (what `fetch` resolved to for a streaming request): a 2xx body through
 * `ProviderEventStream`; a refusal (non-2xx) becomes `UpstreamError` with the provider's status, MMSP's
 * type by status (400 and 413 `InvalidRequestError`, 401 and 403 `AuthenticationError`, 404
 * `NotFoundError`, else the provider's own type or `HTTPError`) and the provider's own message.
 *
 * @example
 * ```ts
 * import { fromProviderResponse } from "mmsp-streams/providers";
 *
 * const refused = new Response('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', { status: 401 });
 * const { message } = fromProviderResponse("anthropic", refused);
 * await message.catch((e) => console.log(e.errorType, e.status, e.message)); // AuthenticationError 401 invalid x-api-key
 * ```
 */
export function fromProviderResponse(
  provider: ProviderName | ProviderSpec,
  response: Response,
  options: ProviderStreamOptions = {},
): ResponseEvents {
  const spec = specOf("fromProviderResponse", provider);
  checkResponse(response);
  checkOptions("fromProviderResponse", options, PROVIDER_STREAM_OPTIONS);
  return readProviderResponse(spec, response, options);
}
