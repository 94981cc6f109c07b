// A models row's `hostedTools` (issue #46): a client's hosted tools (Open Responses' `web_search`,
// `file_search`, `mcp`, a `namespace`…) refused naming the tool by default; left out of the request
// with a warning (the answer's x-mmsp-warning) where every target of the row says `"drop"`; the
// setting checked at the boundary. In Node, with the real openai SDK.
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { openaiChat } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture } from "../../../../src/testing/index.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";

const KEY = "sk-hosted";
const ORIGIN = "https://relay.test";
const WEATHER = { type: "function" as const, name: "get_weather", parameters: { type: "object", properties: {} }, strict: false };
const TOOLS = [{ type: "web_search" as const }, WEATHER];

function setup() {
  const fake = fakeProvider("openai-chat", { streams: { text: parseCapture(CHAT.TEXT) }, key: KEY });
  const provider = openaiChat({ apiKey: KEY, baseURL: "https://p.test/v1", fetch: fake as unknown as typeof fetch });
  const relay = createRelay({
    models: {
      refusing: { provider, model: "text" },
      dropping: { provider, model: "text", hostedTools: "drop" },
      mixed: [{ provider, model: "text", hostedTools: "drop" }, { provider, model: "text" }],
    },
    allowAnonymous: true,
    clientAddress: () => "203.0.113.7",
  });
  const client = new OpenAI({
    apiKey: "unused",
    baseURL: `${ORIGIN}/v1`,
    maxRetries: 0,
    fetch: (input: RequestInfo | URL, init?: RequestInit) => relay.fetch(new Request(input as RequestInfo, init), {}),
  });
  return { fake, client };
}

describe("a models row's hostedTools", () => {
  test('"drop": the hosted tool left out, the function tool sent, the answer warns naming it', async () => {
    const { fake, client } = setup();
    const { data, response } = await client.responses.create({ model: "dropping", input: "Hi", tools: TOOLS }).withResponse();
    expect(data.status).toBe("completed");
    expect(response.headers.get("x-mmsp-warning")).toContain("tools[0] (web_search)");
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!.json as { tools: { function: { name: string } }[] };
    expect(sent.tools.map((t) => t.function.name)).toEqual(["get_weather"]);
  });

  test("by default, and where a target of the row does not drop them: refused naming the tool", async () => {
    const { fake, client } = setup();
    for (const model of ["refusing", "mixed"]) {
      await expect(client.responses.create({ model, input: "Hi", tools: TOOLS })).rejects.toMatchObject({
        status: 400,
        error: { param: "tools[0]" },
      });
    }
    expect(fake.requests).toHaveLength(0);
  });

  test("checked at the boundary", () => {
    const provider = openaiChat({ apiKey: KEY });
    expect(() => createRelay({ models: { m: { provider, model: "x", hostedTools: "keep" as "drop" } } })).toThrow(/hostedTools/);
  });
});
