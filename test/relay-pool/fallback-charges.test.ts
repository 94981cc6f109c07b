// SPEC §10 "Principals and quotas" and "Fallbacks", in workerd through the real stream and quota
// Durable Objects: a request a fallback moves past after its provider took it (the row's first target
// silent past FIRST_EVENT_S: sent, never answered) is charged its input — the relay's estimate, marked
// estimated — whether the next target serves (with that target's own count) or every target after it
// refuses (the stream's object settles the refusal with it). The repository Worker's row "fast"
// (Claude, then GPT, then another Claude) against the scripted providers (providers.ts: input 12,
// output 6 for a whole answer). Each test names its own principal.
import { env } from "cloudflare:test";
import { expect, test } from "vitest";
import { providerModels } from "../../worker/models.ts";
import { createRelay } from "../../src/relay/index.ts";
import { inputEstimate } from "../../src/relay/accounting/usage-estimate.ts";
import { newTag, ORIGIN } from "./relay.ts";

type Env = typeof env & Record<string, unknown>;
type Row = { requests: number; input_tokens: number; output_tokens: number; estimated_tokens: number };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const messagesOf = (
  tag: string,
  script: string,
) => [{ role: "user", content_items: [{ type: "text.done", text: `tag:${tag} script:${script}` }] }];

/** A relay with the repository Worker's rows and one principal; its POST of "fast" with a script, and its ledger's rows. */
function setup() {
  const name = `fallen-${newTag()}`;
  const key = `key-of-${name}`;
  const relay = createRelay<Env>({ models: providerModels as never });
  const e: Env = { ...env, RELAY_KEYS: JSON.stringify({ [name]: key }) };
  const headers = { "content-type": "application/json", "x-relay-key": key };
  const post = (messages: unknown) =>
    relay.fetch(new Request(`${ORIGIN}/v1/stream`, { method: "POST", headers, body: JSON.stringify({ model: "fast", messages }) }), e);
  /** The ledger's rows, once the settlement (written after the stream's end) is there. */
  const usage = async (): Promise<Row[]> => {
    let rows: Row[] = [];
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      rows = ((await (await relay.fetch(new Request(`${ORIGIN}/v1/usage`, { headers }), e)).json()) as { data: Row[] }).data;
      if (rows.length === 0) await sleep(50);
    }
    return rows;
  };
  return { post, usage };
}

test("a first target silent past FIRST_EVENT_S, then GPT serves: the silent request's estimate is charged beside GPT's own count", async () => {
  const { post, usage } = setup();
  const messages = messagesOf(newTag(), "silent-first");
  const answer = await post(messages);
  expect(answer.status).toBe(200);
  expect(answer.headers.get("x-mmsp-provider")).toBe("openai-chat");
  await answer.arrayBuffer();
  const estimate = inputEstimate(messages, {});
  const [row] = await usage();
  expect(row).toMatchObject({ requests: 1, input_tokens: 12 + estimate, output_tokens: 6 });
  expect(row!.estimated_tokens).toBeGreaterThanOrEqual(estimate);
});

test("a first target silent past FIRST_EVENT_S, then every other refuses: the refusal is answered and the silent request's estimate charged", async () => {
  const { post, usage } = setup();
  const messages = messagesOf(newTag(), "silent-then-refuse");
  const answer = await post(messages);
  expect(answer.status).toBe(429);
  await answer.arrayBuffer();
  const estimate = inputEstimate(messages, {});
  expect(await usage()).toMatchObject([{ input_tokens: estimate, output_tokens: 0, estimated_tokens: estimate }]);
});
