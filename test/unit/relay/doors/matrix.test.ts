// Every client × every provider in Node, through the stateless relay served by the kit's `serve` (issues
// #46 and #47: "in Node and in workerd through the Durable Object relay, against the kit's fakes of all
// four providers"; workerd's half is test/relay-pool/matrix.test.ts). The same four rows as the
// repository Worker's (worker/models.ts: claude-fast → Anthropic, gpt-fast → OpenAI Chat,
// gpt-responses → OpenAI Responses, gemini-fast → Gemini), answered by the kit's fakeProvider of each
// (test/cases/matrix/fakes.ts: the `m-…` scripts, shared with workerd), the same client cases
// (test/cases/matrix/clients.ts); the relay keeps no responses, so the clients send `store: false`
// and `include` where they allow.
import * as http from "node:http";
import { afterAll, beforeAll } from "vitest";
import { anthropic, gemini, openaiChat, openaiResponses } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { serve, type Served } from "../../../../src/testing/serve.ts";
import { clientMatrix } from "../../../cases/matrix/clients.ts";
import { fakeSeen, KEYS, matrixFetch, MODELS } from "../../../cases/matrix/fakes.ts";

const UPSTREAM = "http://upstream.test";
const ENV = { RELAY_KEY: "relay-key-for-the-node-matrix", RELAY_SEAL_KEY: "seal-key-of-the-node-matrix-0123456789abcdef" };
// (the Worker's rows: a ceiling of 2048 tokens, thinking allowed as MODEL_ALLOW_THINKING "1" allows it)
const row = { config: { max_tokens: 2048 }, allow: { thinking_level: true } };
const relay = createRelay({
  models: {
    "claude-fast": { provider: anthropic({ apiKey: KEYS.anthropic, baseURL: `${UPSTREAM}/anthropic`, fetch: matrixFetch }), model: MODELS.anthropic, ...row },
    "gpt-fast": { provider: openaiChat({ apiKey: KEYS["openai-chat"], baseURL: `${UPSTREAM}/openai/v1`, fetch: matrixFetch }), model: MODELS["openai-chat"], ...row },
    "gpt-responses": { provider: openaiResponses({ apiKey: KEYS["openai-responses"], baseURL: `${UPSTREAM}/openai/v1`, fetch: matrixFetch }), model: MODELS["openai-responses"], ...row },
    "gemini-fast": { provider: gemini({ apiKey: KEYS.gemini, baseURL: `${UPSTREAM}/gemini/v1beta`, fetch: matrixFetch }), model: MODELS.gemini, ...row },
  },
});

let served: Served | undefined;
beforeAll(async () => {
  served = await serve(relay.fetch, { http, env: ENV });
});
afterAll(() => served?.close());

const stateless = {
  get origin(): string {
    return served!.url;
  },
  key: ENV.RELAY_KEY,
  fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init),
  fakeGot: async (tag: string) => fakeSeen(tag),
  stateless: true,
};
clientMatrix(stateless, "through the stateless Node relay");
