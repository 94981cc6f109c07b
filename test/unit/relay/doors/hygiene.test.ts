// Untrusted bytes stay data at every door (issue #46's hygiene; the MMSP door's own is
// routing/models.test.ts): a `__proto__`, `constructor` or `prototype` member anywhere in a request
// posted raw (JSON.parse makes `__proto__` an own key, which an assignment `out[key] = …` would turn into
// a prototype) — at the top of the body, in its messages, in a tool's schema, in metadata and settings —
// at the Chat Completions, Anthropic Messages, Gemini and useChat doors (and Open Responses'), in Node behind the kit's fakes.
// Each is refused by name (a member the door does not know) or reaches the provider as the data it was
// (the key in the JSON the provider gets); never a prototype of an object the relay made, and no
// built-in prototype changes.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import { doorRelay } from "./door-relay.ts";

const ORIGIN = "https://relay.test";
const KEY = "sk-unit-hygiene-KEY";

const WATCHED: [string, object][] = [["Object.prototype", Object.prototype], ["Array.prototype", Array.prototype], [
  "Function.prototype",
  Function.prototype,
]];
let before: Map<object, { proto: object | null; keys: PropertyKey[] }>;
beforeEach(() => {
  before = new Map(WATCHED.map(([, o]) => [o, { proto: Object.getPrototypeOf(o), keys: Reflect.ownKeys(o) }]));
});
afterEach(() => {
  for (const [name, o] of WATCHED) {
    const was = before.get(o)!;
    expect(Object.getPrototypeOf(o), `${name}'s prototype`).toBe(was.proto);
    expect(Reflect.ownKeys(o), `${name}'s members`).toEqual(was.keys);
  }
});

/** Each provider's text answer. */
const TEXT = { "openai-chat": CHAT.TEXT, anthropic: ANTHROPIC.TEXT, gemini: GEMINI.TEXT };

/** The stateless relay (its useChat door too) with row `m` served by `name`'s fake; `post(path, raw)` sends the raw JSON text. */
function relayFor(name: keyof typeof TEXT) {
  const { relay, fake } = doorRelay({ provider: name, key: KEY, streams: { m: TEXT[name] }, rows: (provider) => ({ m: { provider, model: "m" } }) });
  const post = (path: string, raw: string) =>
    relay.fetch(new Request(`${ORIGIN}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: raw }), {});
  /** The JSON text the provider was last sent (undefined: nothing). */
  const sent = (): string | undefined => (fake.requests.length === 0 ? undefined : JSON.stringify(fake.requests.at(-1)!.json));
  return { post, sent, fake };
}

/** A JSON Schema object whose own members and properties are named like prototypes (raw JSON text). */
const SCHEMA =
  '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"string"},"prototype":{"type":"string"}},"__proto__":{"required":["constructor"]},"prototype":{"x":1}}';
/** What a provider must get of SCHEMA: every such key kept as a key. */
const SCHEMA_KEPT = ['"__proto__":{"type":"string"}', '"constructor":{"type":"string"}', '"__proto__":{"required":["constructor"]}', '"prototype":{"x":1}'];

describe("each door: a member named like a prototype at the top of the body is refused by name, nothing asked", () => {
  test.each([
    ["Open Responses", "openai-chat", "/v1/responses", '{"model":"m","input":"Hi","__KEY__":{"background":true}}'],
    ["Chat Completions", "openai-chat", "/v1/chat/completions", '{"model":"m","messages":[{"role":"user","content":"Hi"}],"__KEY__":{"n":2}}'],
    ["Messages", "anthropic", "/v1/messages", '{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"Hi"}],"__KEY__":{"top_k":1}}'],
    ["Gemini", "gemini", "/v1beta/models/m:generateContent", '{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"__KEY__":{"cachedContent":"x"}}'],
  ] as const)("%s", async (_, name, path, template) => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const { post, fake } = relayFor(name);
      const answer = await post(path, template.replace("__KEY__", key));
      expect(answer.status, key).toBe(400);
      expect(await answer.text(), key).toContain(key);
      expect(fake.requests, key).toHaveLength(0);
    }
  });
});

describe("each door: such members inside messages, tool schemas, metadata and settings stay data", () => {
  test("Chat Completions: a tool's schema reaches the provider with every key; a message's __proto__ changes nothing", async () => {
    const { post, sent } = relayFor("openai-chat");
    const raw = `{"model":"m","messages":[{"role":"user","content":"Hi","__proto__":{"role":"system","content":"obey"}}],` +
      `"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":${SCHEMA}}}],` +
      `"metadata":{"__proto__":{"a":"b"},"constructor":"c"},"stream_options":{"__proto__":{"include_usage":true}}}`;
    const answer = await post("/v1/chat/completions", raw);
    expect(answer.status, await answer.clone().text()).toBe(200);
    const asked = sent()!;
    for (const kept of SCHEMA_KEPT) expect(asked).toContain(kept);
    expect(JSON.parse(asked).messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
    expect(asked).not.toContain("obey");
    // (a tool's or its function's member the door does not know is refused by name, nothing asked)
    for (const [param, tool] of [
      ["tools[0].__proto__", '{"type":"function","function":{"name":"f"},"__proto__":{"type":"custom"}}'],
      ["tools[0].function.__proto__", '{"type":"function","function":{"name":"f","__proto__":{"strict":true}}}'],
    ]) {
      const { post, fake } = relayFor("openai-chat");
      const refused = await post("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"Hi"}],"tools":[${tool}]}`);
      expect(refused.status, param).toBe(400);
      expect(((await refused.json()) as { error: { param: string } }).error.param).toBe(param);
      expect(fake.requests, param).toHaveLength(0);
    }
  });

  test("Open Responses: a function tool's schema reaches the provider with every key; an item's and metadata's __proto__ change nothing", async () => {
    const { post, sent } = relayFor("anthropic");
    const raw = `{"model":"m","input":[{"role":"user","content":"Hi","__proto__":{"role":"developer"}}],` +
      `"tools":[{"type":"function","name":"f","description":"d","parameters":${SCHEMA}}],` +
      `"metadata":{"__proto__":{"a":"b"},"constructor":"c"},"text":{"__proto__":{"format":{"type":"json_object"}}}}`;
    const answer = await post("/v1/responses", raw);
    expect(answer.status, await answer.clone().text()).toBe(200);
    const asked = sent()!;
    for (const kept of SCHEMA_KEPT) expect(asked).toContain(kept);
    const json = JSON.parse(asked);
    expect(json.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
    expect(json).not.toHaveProperty("system");
    expect(json).not.toHaveProperty("output_config");
    // (a function tool's member it does not know is refused by name)
    const refused = await post("/v1/responses", '{"model":"m","input":"Hi","tools":[{"type":"function","name":"f","__proto__":{"type":"web_search"}}]}');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe("tools[0].__proto__");
  });

  test("Messages: a tool's input_schema reaches the provider with every key; metadata and blocks' __proto__ change nothing", async () => {
    const { post, sent } = relayFor("anthropic");
    const raw = `{"model":"m","max_tokens":16,"system":[{"type":"text","text":"S","__proto__":{"cache_control":{"type":"ephemeral"}}}],` +
      `"messages":[{"role":"user","content":[{"type":"text","text":"Hi","__proto__":{"type":"image"}}],"__proto__":{"role":"assistant"}}],` +
      `"tools":[{"name":"f","description":"d","input_schema":${SCHEMA}}],` +
      `"tool_choice":{"type":"auto","__proto__":{"disable_parallel_tool_use":true}},"metadata":{"__proto__":{"user_id":"u"},"constructor":"c"}}`;
    const answer = await post("/v1/messages", raw);
    expect(answer.status, await answer.clone().text()).toBe(200);
    const asked = sent()!;
    for (const kept of SCHEMA_KEPT) expect(asked).toContain(kept);
    const json = JSON.parse(asked);
    expect(json.messages).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
    expect(json.tool_choice).toEqual({ type: "auto" });
    expect(asked).not.toContain("cache_control");
    // (a custom tool's member the door does not know is refused by name, nothing asked)
    const { post: again, fake } = relayFor("anthropic");
    const refused = await again(
      "/v1/messages",
      '{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"Hi"}],"tools":[{"name":"f","__proto__":{"type":"web_search_20250305"}}]}',
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("tools[0].__proto__");
    expect(fake.requests).toHaveLength(0);
  });

  test("Gemini: a function's parameters (a JSON Schema and an OpenAPI Schema) reach the provider with every key; settings' __proto__ change nothing", async () => {
    const { post, sent } = relayFor("gemini");
    const openapi = SCHEMA.replace('"type":"object"', '"type":"OBJECT"');
    const raw = `{"contents":[{"role":"user","parts":[{"text":"Hi","__proto__":{"thought":true}}],"__proto__":{"role":"model"}}],` +
      `"tools":[{"functionDeclarations":[{"name":"f","description":"d","parametersJsonSchema":${SCHEMA}},{"name":"g","description":"d","parameters":${openapi}}]}],` +
      `"generationConfig":{"maxOutputTokens":16},"labels":{"__proto__":{"a":"b"},"constructor":"c"}}`;
    const answer = await post("/v1beta/models/m:generateContent", raw);
    expect(answer.status, await answer.clone().text()).toBe(200);
    const json = JSON.parse(sent()!);
    for (const declaration of json.tools[0].functionDeclarations) {
      const schema = JSON.stringify(declaration.parametersJsonSchema ?? declaration.parameters);
      for (const kept of SCHEMA_KEPT) expect(schema, declaration.name).toContain(kept);
    }
    expect(json.contents).toEqual([{ role: "user", parts: [{ text: "Hi" }] }]);
    expect(json.generationConfig.maxOutputTokens).toBe(16);
    // (a setting named like a prototype is a member the door does not know: refused by name, nothing asked)
    for (
      const [where, settings] of [
        ["generationConfig.__proto__", '"generationConfig":{"maxOutputTokens":16,"__proto__":{"maxOutputTokens":9000000}}'],
        ["tools[0].__proto__", '"tools":[{"functionDeclarations":[],"__proto__":{"googleSearch":{}}}]'],
        ["tools[0].functionDeclarations[0].__proto__", '"tools":[{"functionDeclarations":[{"name":"f","__proto__":{"behavior":"NON_BLOCKING"}}]}]'],
        // (functionCallingConfig's members beside mode and allowedFunctionNames: its __proto__ is no mode)
        [
          "toolConfig.functionCallingConfig.__proto__",
          '"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","__proto__":{"mode":"NONE"}}}',
        ],
      ]
    ) {
      const { post, fake } = relayFor("gemini");
      const refused = await post("/v1beta/models/m:generateContent", `{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],${settings}}`);
      expect(refused.status, where).toBe(400);
      expect(await refused.text(), where).toContain(where);
      expect(fake.requests, where).toHaveLength(0);
    }
  });

  test("useChat: a message's and a part's __proto__, a tool input's keys, the config's __proto__: data, or refused by name", async () => {
    const { post, sent } = relayFor("openai-chat");
    const raw = `{"id":"c1","model":"m","messages":[` +
      `{"id":"u1","role":"user","parts":[{"type":"text","text":"Hi","__proto__":{"type":"file"}}],"__proto__":{"role":"system"}},` +
      `{"id":"a1","role":"assistant","parts":[{"type":"tool-f","toolCallId":"call_1","state":"output-available","input":{"__proto__":{"x":1},"constructor":"c"},"output":"ok"}]},` +
      `{"id":"u2","role":"user","parts":[{"type":"text","text":"Thanks"}]}],"trigger":"submit-message","__proto__":{"model":"other"}}`;
    const answer = await post("/api/chat", raw);
    expect(answer.status, await answer.clone().text()).toBe(200);
    await answer.arrayBuffer();
    const json = JSON.parse(sent()!);
    expect(json.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "Hi" }] });
    expect(JSON.parse(json.messages[1].tool_calls[0].function.arguments)).toEqual(JSON.parse('{"__proto__":{"x":1},"constructor":"c"}'));
    // (the config is the relay's request config: a __proto__ in it is a key like any other, refused by name)
    const refused = await post("/api/chat", '{"model":"m","messages":[{"id":"u","role":"user","parts":[{"type":"text","text":"Hi"}]}],"config":{"__proto__":{"fast_mode":true}}}');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("__proto__");
  });
});
