/**
 * `fakeProvider(provider, { streams })`: a provider's API in one fetch-shaped function: its own
 * streamed route (routes.ts), its key header, its error bodies, answering from captures of its own
 * stream bytes chosen by the request's model.
 */
import { fail } from "../internal/describe.js";
import { isRecord } from "../internal/values.js";
import { checkCapture } from "./capture.js";
import type { FakeStream } from "./fake-mmsp.js";
import { providerRules } from "./provider-rules.js";
import { continuedCapture, prefixOf } from "./prefix.js";
import { replay } from "./replay.js";
import { withCors } from "./cors.js";
import { type FakeServer, fakeServer, logRequest, tracked } from "./request-log.js";
import { matchesRoute, type ProblemKind, PROVIDER_ROUTES, type ProviderName, PROVIDERS } from "./routes.js";
import type { Capture } from "./capture.js";
import { FAKE_COUNTERS, fakeCount } from "./counters.js";

/** Options of `fakeProvider`. */
export interface FakeProviderOptions {
  /** The models it serves: a capture of the provider's stream each, or one with the faults of its answer. */
  streams: Record<string, Capture | Omit<FakeStream, "resume">>;
  /** The key a request must carry in the provider's own header; default: none asked. */
  key?: string;
}

/**
 * A fake of `provider`'s streaming API: `"openai-chat"` (POST /v1/chat/completions, Bearer key),
 * `"openai-responses"` (POST /v1/responses), `"anthropic"` (POST /v1/messages, `x-api-key`) or
 * `"gemini"` (POST /v1beta/models/<model>:streamGenerateContent?alt=sse, `x-goog-api-key`). A wrong
 * key, an unknown model or route, a body that is not JSON are refused in the provider's own error shape,
 * and so is a history the real API refuses (provider-rules.ts: a signature it never issued, a tool
 * result without its call…). Its API's token counter answers too (counters.ts: Anthropic's
 * `/v1/messages/count_tokens`, Gemini's `:countTokens`, the Responses API's `/v1/responses/input_tokens`),
 * refusing what the real one refuses, its count kept in the log entry's `counted`.
 *
 * @example
 * ```ts
 * import { fakeProvider, parseCapture } from "mmsp-streams/testing";
 *
 * const capture = parseCapture('event: message_stop\ndata: {"type":"message_stop"}\n\n');
 * const anthropic = fakeProvider("anthropic", { streams: { "claude-test": capture }, key: "k" });
 * const response = await anthropic("https://api.anthropic.test/v1/messages", { method: "POST", headers: { "x-api-key": "nope" }, body: "{}" });
 * console.log(response.status); // 401 {"type":"error","error":{"type":"authentication_error",…}}
 * ```
 */
export function fakeProvider(provider: ProviderName, options: FakeProviderOptions): FakeServer {
  if (!(PROVIDERS as readonly string[]).includes(provider)) {
    fail(RangeError, "fakeProvider: provider", `one of ${PROVIDERS.join(", ")}`, provider);
  }
  if (!isRecord(options) || !isRecord(options.streams)) fail(TypeError, "fakeProvider: options", "an object { streams, key? }", options);
  const streams = new Map<string, Omit<FakeStream, "resume">>();
  for (const [model, value] of Object.entries(options.streams)) {
    const stream = "capture" in value ? value : { capture: value };
    checkCapture(stream.capture, `fakeProvider: options.streams[${JSON.stringify(model)}]`);
    // (the capture is the provider's stream: a fault's error body or event is the provider's shape)
    streams.set(model, { ...stream, capture: { ...stream.capture, provider } });
  }
  if (options.key !== undefined && (typeof options.key !== "string" || options.key === "")) {
    fail(TypeError, "fakeProvider: options.key", "a non-empty string", options.key);
  }
  const route = PROVIDER_ROUTES[provider];
  // what the real API refuses in a history (provider-rules.ts), knowing the signatures this fake's captures issued
  const rules = providerRules(provider, [...streams.values()].map((s) => s.capture));

  // as the provider answers a page: any origin, its own headers; Anthropic only with its opt-in header
  const policy = { methods: `${route.method}, OPTIONS`, allowHeaders: null, exposeHeaders: "*", optIn: route.browserOptIn };
  const server = fakeServer(withCors(policy, async (request) => {
    const entry = await logRequest(request, options.key === undefined ? null : route.keyHeader);
    server.requests.push(entry);
    const refuse = (kind: ProblemKind, message: string): Response => {
      const { status, body } = route.refusal(kind, message);
      return tracked(entry, Response.json(body, { status }), null).response;
    };
    const optIn = route.browserOptIn;
    if (optIn !== undefined && request.headers.has("origin") && request.headers.get(optIn) !== "true") {
      return refuse("auth", `CORS requests must set '${optIn}' header`);
    }
    const url = new URL(request.url);
    entry.authorized = options.key === undefined || route.key(request, url) === options.key;
    if (!entry.authorized) {
      return refuse("auth", `Invalid API key (the fake ${provider} server wants the key it was given, in ${route.keyHeader}).`);
    }
    const counter = FAKE_COUNTERS[provider]; // (its token counter, as the API has one: counters.ts)
    if (counter !== undefined && request.method === "POST" && counter.matches(url)) {
      if (!isRecord(entry.json)) return refuse("invalid", "The request body must be a JSON object.");
      const refused = counter.refused(entry.json);
      if (refused !== undefined) return refuse("invalid", refused);
      entry.model = counter.model(url, entry.json);
      if (entry.model !== undefined && !streams.has(entry.model)) {
        return refuse(
          "not-found",
          `The model ${JSON.stringify(entry.model)} does not exist (this fake serves ${[...streams.keys()].join(", ")}).`,
        );
      }
      entry.counted = fakeCount(entry.json);
      return tracked(entry, Response.json(counter.answer(entry.counted)), null).response;
    }
    if (request.method !== route.method || !matchesRoute(route, url)) {
      return refuse(
        "not-found",
        `No route ${request.method} ${url.pathname} (the fake ${provider} server answers ${route.method} ${route.path}).`,
      );
    }
    if (!isRecord(entry.json)) return refuse("invalid", "The request body must be a JSON object.");
    const model = route.model(url, entry.json);
    const broken = rules(entry.json, model);
    if (broken !== undefined) return refuse("invalid", broken);
    entry.model = model;
    const stream = model === undefined ? undefined : streams.get(model);
    if (!stream) {
      return refuse(
        "not-found",
        `The model ${JSON.stringify(model ?? "")} does not exist (this fake serves ${[...streams.keys()].join(", ")}).`,
      );
    }
    const { capture, ...faults } = stream;
    // a final assistant message to continue: the capture's text goes on from it (prefix.ts)
    const prefix = prefixOf(provider, entry.json);
    const answer = prefix === undefined ? capture : continuedCapture(capture, provider, prefix);
    return tracked(entry, replay(answer, faults), request.signal).response;
  }));
  return server;
}
