// The relay the doors' Node tests stand up (chat-completions, gemini, anthropic-messages …): a
// provider of the package pointed at the kit's fake of it (the test's captures by model name, the
// fake's key), a createRelay over the rows the test names, open to anonymous clients from one address,
// then asked in process (`relayFetch`, a client's `fetch`) or served on 127.0.0.1 (`serveRelay`). One
// copy of that setup; each test file keeps its own captures and rows.
import * as http from "node:http";
import { anthropic, gemini, openaiChat, openaiResponses, type Provider } from "../../../../src/providers/index.ts";
import { createRelay, type Relay, type RelayOptions } from "../../../../src/relay/index.ts";
import { fakeProvider, type FakeProviderOptions, parseCapture, type ProviderName } from "../../../../src/testing/index.ts";
import { serve, type Served } from "../../../../src/testing/serve.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../../../cases/providers/captures-openai-responses.ts";

/** Each provider's text answer (a capture of its own stream: the model answers without a call). */
export const PROVIDER_TEXT: Readonly<Record<ProviderName, string>> = {
  anthropic: ANTHROPIC.TEXT,
  "openai-chat": CHAT.TEXT,
  gemini: GEMINI.TEXT,
  "openai-responses": RESPONSES.TEXT,
};

/** `name`'s provider with key `key`, its requests sent to `fetch` (the fake, or a test's wrapper of it). */
export function providerFor(name: ProviderName, key: string, fetch: typeof globalThis.fetch): Provider {
  switch (name) {
    case "anthropic":
      return anthropic({ apiKey: key, baseURL: "https://p.test", fetch });
    case "openai-chat":
      return openaiChat({ apiKey: key, baseURL: "https://p.test/v1", fetch });
    case "gemini":
      return gemini({ apiKey: key, baseURL: "https://p.test/v1beta", fetch });
    case "openai-responses":
      return openaiResponses({ apiKey: key, baseURL: "https://p.test/v1", fetch });
  }
}

export interface DoorRelayOptions {
  /** The provider behind the relay (its fake answers). */
  provider: ProviderName;
  /** The provider's key: the fake refuses another. */
  key: string;
  /** The fake's answers: provider model name → the capture's text (or the fake's own stream options). */
  streams: Record<string, string | FakeProviderOptions["streams"][string]>;
  /** The relay's models table, of the provider. */
  rows: (provider: Provider) => NonNullable<RelayOptions["models"]>;
  /** The fake as the provider reaches it (default: as it is): a test's wrapper that rewrites requests. */
  through?: (fake: typeof globalThis.fetch) => typeof globalThis.fetch;
  /** The anonymous clients' address (default 203.0.113.9). */
  address?: string;
  /** More of createRelay's options. */
  options?: Partial<RelayOptions>;
}

/** A relay over `provider`'s fake, open to anonymous clients: { relay, fake } (the fake keeps its requests). */
export function doorRelay(o: DoorRelayOptions): { relay: Relay; fake: ReturnType<typeof fakeProvider> } {
  const fake = fakeProvider(o.provider, {
    streams: Object.fromEntries(Object.entries(o.streams).map(([m, c]) => [m, typeof c === "string" ? parseCapture(c) : c])),
    key: o.key,
  });
  const fetch = fake as unknown as typeof globalThis.fetch;
  const relay = createRelay({
    models: o.rows(providerFor(o.provider, o.key, o.through ? o.through(fetch) : fetch)),
    allowAnonymous: true,
    clientAddress: () => o.address ?? "203.0.113.9",
    ...o.options,
  });
  return { relay, fake };
}

/** The relay asked in process with `env`, as a client's `fetch`. */
export const relayFetch = (relay: Relay, env: object = {}) => (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
  relay.fetch(new Request(input as RequestInfo, init), env);

/** The relay served on 127.0.0.1 with `env` (the kit's serve over node:http); close it after the tests. */
export const serveRelay = (relay: Relay, env: object = {}): Promise<Served> => serve(relay.fetch, { http, env });

/**
 * A relay whose row `think` is Anthropic first (its fake answering `capture`: say, thinking signed and a
 * tool call), then `then`'s fake answering `then.capture` as `then.model`, both allowing tools and
 * thinking, open to anonymous clients from `address`; `state.down` makes Anthropic answer 529
 * overloaded_error (the row falls back to `then`). { relay, claude, second, state } (the fakes keep their requests).
 */
export function claudeThenRelay(
  key: string,
  capture: string,
  then: { provider: ProviderName; model: string; capture: string },
  address: string,
): { relay: Relay; claude: ReturnType<typeof fakeProvider>; second: ReturnType<typeof fakeProvider>; state: { down: boolean } } {
  const state = { down: false };
  const claude = fakeProvider("anthropic", { streams: { "claude-model": parseCapture(capture) }, key });
  const second = fakeProvider(then.provider, { streams: { [then.model]: parseCapture(then.capture) }, key });
  const overloaded = () => Response.json({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, { status: 529 });
  const claudeFetch =
    ((input: RequestInfo | URL, init?: RequestInit) => state.down ? Promise.resolve(overloaded()) : claude(input, init)) as typeof fetch;
  const allow = { thinking_level: true };
  const relay = createRelay({
    models: {
      think: [
        { provider: providerFor("anthropic", key, claudeFetch), model: "claude-model", allow },
        { provider: providerFor(then.provider, key, second as unknown as typeof fetch), model: then.model, allow },
      ],
    },
    allowAnonymous: true,
    clientAddress: () => address,
  });
  return { relay, claude, second, state };
}
