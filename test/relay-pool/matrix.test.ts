// Every client × every provider in workerd, through the stream Durable Object (issues #46 and #47:
// "in Node and in workerd through the Durable Object relay, against the kit's fakes of all four
// providers"; Node's half is test/unit/relay/doors/matrix.test.ts). The repository Worker's four
// provider rows (worker/models.ts: claude-fast → Anthropic, gpt-fast → OpenAI Chat, gpt-responses →
// OpenAI Responses, gemini-fast → Gemini) answered by the kit's fakeProvider of each
// (test/cases/matrix/fakes.ts: the `m-…` scripts; each fake refuses what its API refuses, a signature
// it never issued, a tool result without its call, and checks the structured output member it
// receives). The client cases are test/cases/matrix/clients.ts's, each real client with its defaults
// (`store` absent: the relay keeps each response), its fetch the Worker's; and here only, what needs
// a kept response: openai `responses.stream` with thinking before the call, the output sent back by
// value with store absent (the relay completes it from the kept response).
import { env } from "cloudflare:test";
import { describe, expect, test } from "vitest";
import worker from "../../worker/index.ts";
import { clientMatrix, type MatrixRelay, responsesTool } from "../cases/matrix/clients.ts";
import { PROOFS, ROWS } from "../cases/matrix/fakes.ts";
import { ORIGIN } from "./relay.ts";

const RELAY_KEY = "relay-key-for-tests";
// (MODEL_ALLOW_THINKING: the rows let a client ask for thinking, for this file's Worker only: models.test.ts checks they refuse it by default)
const keyed = { ...env, RELAY_KEY, MODEL_ALLOW_THINKING: "1" } as typeof env & { RELAY_KEY: string };
const viaWorker = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => worker.fetch(new Request(input as RequestInfo, init), keyed);

const relay: MatrixRelay = {
  origin: ORIGIN,
  key: RELAY_KEY,
  fetch: viaWorker as typeof fetch,
  // (the fakes run in Node beside workerd, in the upstream: test/relay-pool/fakes.ts)
  fakeGot: async (tag) => (await (await fetch(`http://upstream.test/__fake?tag=${tag}`)).json()) as string[],
  stateless: false,
};

clientMatrix(relay, "through the stream object");

describe.each(ROWS)("Open Responses with a kept response through the stream object: %s", (model) => {
  test("openai responses.stream: thinking and a tool over two turns, the output sent back by value with store (absent): each proof back", async () => {
    // (no include: the reasoning items come without encrypted_content; the relay completes them from the kept response, as OpenAI does)
    const [, sent] = await relay.fakeGot(await responsesTool(relay, model, "m-think"));
    if (PROOFS[model]) expect(sent).toContain(PROOFS[model]);
    expect(sent).toContain("Sunny");
  });
});
