// An `allowed_tools` tool choice kept as the client asked it (issue #47), in Node: the real `openai` SDK's
// chat.completions.create and responses.create pointed at the stateless relay, each provider's fake
// behind it. `mode: "auto"` limits the tools the model may call and still lets it answer without one;
// `mode: "required"` makes it call one of them. One reading of MMSP's `tool_choice` for every builder
// (providers/request.ts `toolsAllowed`): OpenAI Chat and Responses send their own `allowed_tools` in the
// client's mode; Gemini's `allowedFunctionNames` is read with mode ANY only, so for `auto` it is offered
// the allowed functions alone with AUTO; Anthropic has no allowed list: offered the allowed tools alone
// with `auto`, or `any` (`tool` for one name). A Chat client at an OpenAI Chat target is passed through
// (its own `allowed_tools` as written): that target is checked from the Open Responses door. The fakes
// refuse what the real APIs refuse (src/testing/member-rules.ts).
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { UnsupportedParameterError } from "../../../../src/errors.ts";
import { anthropic } from "../../../../src/providers/anthropic/index.ts";
import { gemini } from "../../../../src/providers/gemini/index.ts";
import { openaiChat } from "../../../../src/providers/openai-chat/index.ts";
import { openaiResponses } from "../../../../src/providers/openai-responses/index.ts";
import type { UniConfig } from "../../../../src/providers/request.ts";
import type { ProviderName } from "../../../../src/testing/index.ts";
import { doorRelay, PROVIDER_TEXT, relayFetch } from "./door-relay.ts";

type Rec = Record<string, any>;
const KEY = "sk-unit-allowed-tools-KEY";

const TEXT = PROVIDER_TEXT;
const NAMES = Object.keys(TEXT) as ProviderName[];

/** The stateless relay with one row, `m`, served by `name`'s fake; the SDK's fetch is the relay's. */
function relayFor(name: ProviderName) {
  const { relay, fake } = doorRelay({ provider: name, key: KEY, streams: { m: TEXT[name] }, rows: (provider) => ({ m: { provider, model: "m" } }) });
  const openai = new OpenAI({ baseURL: "https://relay.test/v1", apiKey: "sk-relay-client", fetch: relayFetch(relay) as typeof fetch, maxRetries: 0 });
  /** What the fake provider was last asked. */
  const asked = (): Rec => fake.requests.at(-1)!.json as Rec;
  return { openai, asked };
}

const PARAMETERS = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const FUNCTIONS = ["get_weather", "get_time", "get_news"];
const CHAT_TOOLS = FUNCTIONS.map((name) => ({ type: "function" as const, function: { name, description: `${name}.`, parameters: PARAMETERS } }));
const RESPONSES_TOOLS = FUNCTIONS.map((name) => ({ type: "function" as const, name, description: `${name}.`, parameters: PARAMETERS, strict: false }));

/** The names of the tools a provider was offered, in its own body. */
const offered: Record<ProviderName, (sent: Rec) => string[]> = {
  "openai-chat": (sent) => sent.tools.map((t: Rec) => t.function.name),
  "openai-responses": (sent) => sent.tools.map((t: Rec) => t.name),
  anthropic: (sent) => sent.tools.map((t: Rec) => t.name),
  gemini: (sent) => sent.tools[0].functionDeclarations.map((t: Rec) => t.name),
};

/** What each provider is asked for the tools `names` allowed in `mode`: [the tools offered, its tool choice]. */
function expected(name: ProviderName, mode: "auto" | "required", names: string[]): [string[], unknown] {
  switch (name) {
    case "openai-chat":
      return [FUNCTIONS, { type: "allowed_tools", allowed_tools: { mode, tools: names.map((n) => ({ type: "function", function: { name: n } })) } }];
    case "openai-responses":
      return [FUNCTIONS, { type: "allowed_tools", mode, tools: names.map((n) => ({ type: "function", name: n })) }];
    case "anthropic":
      if (mode === "required" && names.length === 1) return [FUNCTIONS, { type: "tool", name: names[0] }];
      return [names, { type: mode === "auto" ? "auto" : "any" }];
    case "gemini":
      if (mode === "auto") return [names, { functionCallingConfig: { mode: "AUTO" } }];
      return [FUNCTIONS, { functionCallingConfig: { mode: "ANY", allowedFunctionNames: names } }];
  }
}

/** The provider's tool choice member. */
const choiceOf = (name: ProviderName, sent: Rec): unknown => (name === "gemini" ? sent.toolConfig : sent.tool_choice);

const CASES: ["auto" | "required", string[]][] = [["auto", ["get_weather"]], ["auto", ["get_weather", "get_time"]], ["required", ["get_weather", "get_time"]], [
  "required",
  ["get_time"],
]];

describe.each(CASES)("allowed_tools, mode %s, %j: the client's choice on every provider", (mode, names) => {
  test.each(NAMES)("Open Responses door → %s", async (name) => {
    const { openai, asked } = relayFor(name);
    const response = await openai.responses.create({
      model: "m",
      input: "Weather?",
      tools: RESPONSES_TOOLS,
      tool_choice: { type: "allowed_tools", mode, tools: names.map((n) => ({ type: "function", name: n })) },
    });
    expect(response.status).toBe("completed");
    const [tools, choice] = expected(name, mode, names);
    expect(offered[name](asked())).toEqual(tools);
    expect(choiceOf(name, asked())).toEqual(choice);
  });

  // (a Chat client at an OpenAI Chat target is passed through: its allowed_tools go as written)
  test.each(NAMES.filter((n) => n !== "openai-chat"))("Chat Completions door → %s", async (name) => {
    const { openai, asked } = relayFor(name);
    const completion = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "Weather?" }],
      tools: CHAT_TOOLS,
      tool_choice: { type: "allowed_tools", allowed_tools: { mode, tools: names.map((n) => ({ type: "function", function: { name: n } })) } },
    });
    expect(completion.choices[0]!.message.content).not.toBe("");
    const [tools, choice] = expected(name, mode, names);
    expect(offered[name](asked())).toEqual(tools);
    expect(choiceOf(name, asked())).toEqual(choice);
  });
});

test("Open Responses: an allowed_tools choice without a mode is auto, as the resource echoes it", async () => {
  const { openai, asked } = relayFor("anthropic");
  const tool_choice = { type: "allowed_tools", tools: [{ type: "function", name: "get_time" }] } as unknown as OpenAI.Responses.ToolChoiceAllowed;
  const response = await openai.responses.create({ model: "m", input: "Time?", tools: RESPONSES_TOOLS, tool_choice });
  expect(response.tool_choice).toMatchObject({ type: "allowed_tools", mode: "auto" });
  expect(asked().tools.map((t: Rec) => t.name)).toEqual(["get_time"]);
  expect(asked().tool_choice).toEqual({ type: "auto" });
});

describe("the builders' one reading of tool_choice (providers/request.ts toolsAllowed)", () => {
  const tools = FUNCTIONS.map((name) => ({ name, description: `${name}.`, parameters: PARAMETERS }));
  const BUILDERS = { openaiChat, openaiResponses, anthropic, gemini };
  // (async: a refusal is the build's, thrown before any request)
  const body = async (make: keyof typeof BUILDERS, config: UniConfig) =>
    await BUILDERS[make]({ apiKey: "k" }).request({ model: "m", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }], config })
      .text()
      .then(JSON.parse);

  // (OpenAI Chat's builder reads a plain list as MMSP's own openai_chat client sends it: allowed_tools in mode
  // auto; provider-requests-more.test.ts pins that)
  test.each((Object.keys(BUILDERS) as (keyof typeof BUILDERS)[]).filter((k) => k !== "openaiChat"))("%s: a list is { mode: required } (one of them is called)", async (make) => {
    const list = await body(make, { tools, tool_choice: ["get_weather", "get_time"] });
    const object = await body(make, { tools, tool_choice: { mode: "required", tools: ["get_weather", "get_time"] } });
    expect(list).toEqual(object);
    expect(JSON.stringify(list)).not.toMatch(/"(auto|AUTO)"/);
  });

  test.each(Object.keys(BUILDERS) as (keyof typeof BUILDERS)[])("%s: a name that is none of the tools, or no names, is refused by name", async (make) => {
    for (const tool_choice of [{ mode: "auto" as const, tools: ["get_wether"] }, ["get_wether"], { mode: "auto" as const, tools: [] }]) {
      await expect(body(make, { tools, tool_choice })).rejects.toThrow(UnsupportedParameterError);
      await expect(body(make, { tools, tool_choice })).rejects.toThrow(/tool_choice/);
    }
  });
});
