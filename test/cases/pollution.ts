// Issue #34: a provider's stream must not poison the process. A key or a path a provider names
// (`__proto__`, `constructor`, `prototype`…) reaches only own members of objects the reader made:
// such a key is data, kept in the call's arguments as the provider sent it (the same arguments a call
// sent whole would have), never a way to Object.prototype. Each case checks that no prototype of the
// runtime changed (and puts back whatever did, so one failure does not poison the cases after it).
import fc from "fast-check";
import { MmspError, StreamProtocolError } from "../../dist/index.js";
import { gemini, openaiChat, ProviderEventStream } from "../../dist/providers/index.js";
import { assert, assertEqual, assertError, byteStream, type Case, settle, utf8 } from "../harness.ts";
import { holds } from "../property.ts";
import { referenceParse } from "../json-reference.ts";
import type { Name } from "./providers.ts";

type Json = Record<string, any>;

// ---- what must not change ----------------------------------------------------------------------

const WATCHED: [string, object][] = [
  ["Object.prototype", Object.prototype],
  ["Array.prototype", Array.prototype],
  ["Function.prototype", Function.prototype],
  ["String.prototype", String.prototype],
];

type Snapshot = Map<object, { proto: object | null; members: Map<PropertyKey, PropertyDescriptor> }>;

/** Every watched prototype's own members (and its own prototype), as they are now. */
function snapshot(): Snapshot {
  const out: Snapshot = new Map();
  for (const [, o] of WATCHED) {
    const members = new Map<PropertyKey, PropertyDescriptor>();
    for (const key of Reflect.ownKeys(o)) members.set(key, Object.getOwnPropertyDescriptor(o, key)!);
    out.set(o, { proto: Object.getPrototypeOf(o), members });
  }
  return out;
}

const sameDescriptor = (a: PropertyDescriptor, b: PropertyDescriptor): boolean =>
  a.value === b.value && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable &&
  a.configurable === b.configurable;

/** What changed since `before`, said member by member, and put back as it was. */
function changedSince(before: Snapshot): string[] {
  const changed: string[] = [];
  for (const [name, o] of WATCHED) {
    const was = before.get(o)!;
    if (Object.getPrototypeOf(o) !== was.proto) {
      changed.push(`${name}'s prototype`);
      Object.setPrototypeOf(o, was.proto);
    }
    for (const key of Reflect.ownKeys(o)) {
      const old = was.members.get(key);
      if (old === undefined) {
        changed.push(`${name}.${String(key)} added`);
        delete (o as Record<PropertyKey, unknown>)[key];
      } else if (!sameDescriptor(Object.getOwnPropertyDescriptor(o, key)!, old)) {
        changed.push(`${name}.${String(key)} changed`);
        Object.defineProperty(o, key, old);
      }
    }
    for (const [key, old] of was.members) {
      if (!Object.hasOwn(o, key)) {
        changed.push(`${name}.${String(key)} removed`);
        Object.defineProperty(o, key, old);
      }
    }
  }
  return changed;
}

/** Runs `fn` and fails when it changed a prototype of the runtime (whatever it changed is put back first). */
async function untouched<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const before = snapshot();
  let out: T;
  try {
    out = await fn();
  } finally {
    const changed = changedSince(before);
    assertEqual(changed, [], `${what}: prototypes the test did not make changed`);
  }
  return out;
}

/** `body` read through `ProviderEventStream(provider)`. */
async function read(provider: Name, body: string): Promise<{ events: Json[]; error: any; message: any }> {
  const stream = new ProviderEventStream(provider);
  return settle(byteStream([utf8(body)]).pipeThrough(stream), stream.message);
}

// ---- the findings' Gemini chunks --------------------------------------------------------------

const geminiSse = (...chunks: string[]): string => chunks.map((c) => `data: ${c}\r\n\r\n`).join("");
/** A chunk of one candidate whose parts are the JSON texts `parts` (text: `__proto__` stays an own key). */
const part = (parts: string, finish = ""): string =>
  `{"candidates":[{"content":{"role":"model","parts":[${parts}]},"index":0${finish ? `,"finishReason":"${finish}"` : ""}}]${
    finish ? `,"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}` : ""
  }}`;
/** A call streamed in one chunk of `partialArgs`, ended by an empty call, the turn ended by STOP. */
const streamedCall = (args: string, paths: string[], value = '"stringValue":"yes"'): string =>
  geminiSse(
    part(`{"functionCall":{"name":"f","args":${args},"willContinue":true,"partialArgs":[${
      paths.map((p) => `{"jsonPath":${JSON.stringify(p)},${value}}`).join(",")
    }]}}`),
    part(`{"functionCall":{}}`, "STOP"),
  );

/** Hostile `partialArgs` and the arguments they make: the path's keys as data. */
const HOSTILE_PATHS: [args: string, path: string, made: string][] = [
  // the issue's three
  ['{"a":{}}', "$.a.__proto__.X", '{"a":{"__proto__":{"X":"yes"}}}'],
  ['{"a":{}}', "$['a']['__proto__']['X']", '{"a":{"__proto__":{"X":"yes"}}}'],
  ['{"__proto__":{}}', "$.__proto__.__proto__.X", '{"__proto__":{"__proto__":{"X":"yes"}}}'],
  // the other ways up, and inherited members that are no slot of the arguments
  ['{"a":{"b":{}}}', '$.a.b["__proto__"].X', '{"a":{"b":{"__proto__":{"X":"yes"}}}}'],
  ['{"a":{}}', "$.a.constructor.prototype.X", '{"a":{"constructor":{"prototype":{"X":"yes"}}}}'],
  ["{}", "$.constructor.prototype.X", '{"constructor":{"prototype":{"X":"yes"}}}'],
  ['{"a":{}}', "$.a.toString", '{"a":{"toString":"yes"}}'],
  ['{"a":{"toString":"x-"}}', "$.a.toString", '{"a":{"toString":"x-yes"}}'],
  ['{"list":[{}]}', "$.list[0].__proto__.X", '{"list":[{"__proto__":{"X":"yes"}}]}'],
  ['{"a":{"__proto__":{"k":1}}}', "$.a.__proto__.X", '{"a":{"__proto__":{"k":1,"X":"yes"}}}'],
];

// ---- the property's provider streams ------------------------------------------------------------

const HOSTILE = ["__proto__", "constructor", "prototype"] as const;
/** Keys: the hostile three most often, inherited members' names, and plain ones. */
const KEY = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.constantFrom("toString", "valueOf", "hasOwnProperty", "length", "X", "MMSP_UPSTREAM") },
  { weight: 2, arbitrary: fc.constantFrom("a", "b", "0") },
);
const LEAF = fc.constantFrom("null", "true", "1", '"yes"', '"http://evil.test/v1"', "{}", "[]");
/** The members of a JSON object, as text (keys repeat: the last wins, as JSON.parse reads them). */
const membersOf = (entries: [string, string][]): string => entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",");
/** A JSON text whose objects have hostile keys at every depth (written as text: a literal's `__proto__` would be its prototype). */
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { maxDepth: 4, depthSize: "small" },
    LEAF,
    fc.array(tie("json"), { maxLength: 3 }).map((xs) => `[${(xs as string[]).join(",")}]`),
    fc.array(fc.tuple(KEY, tie("json")), { maxLength: 3 }).map((es) => `{${membersOf(es as [string, string][])}}`),
  ),
}));
/** An object's members (maybe none), to splice into a provider's own objects. */
const members = fc.array(fc.tuple(KEY, json), { maxLength: 3 }).map(membersOf);
/** A JSON object text. */
const object = members.map((m) => `{${m}}`);
/** `base` (an object's JSON text) with `extra` members after its own. */
const plus = (base: string, extra: string): string => (extra ? `${base.slice(0, -1)},${extra}}` : base);

/** A JSON path (RFC 9535's subset Gemini sends) through hostile keys and indexes. */
const segment = fc.oneof(
  KEY.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `['${k}']`)),
  KEY.map((k) => `['${k}']`),
  fc.nat(2).map((n) => `[${n}]`),
);
/** A hostile segment first most often: the step out of the arguments, when there is one. */
const tail = fc.array(fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...HOSTILE).map((k) => `.${k}`) }, segment), {
  minLength: 1,
  maxLength: 4,
});
/** A path: its tail alone, or after a walk down the call's own `args` (each step picks an own key or index). */
const jsonPath = fc.record({ walk: fc.option(fc.array(fc.nat(), { maxLength: 3 })), tail });
/** The text of `path` over `args` (JSON text). */
function pathText({ walk, tail }: { walk: number[] | null; tail: string[] }, args: string): string {
  let at: unknown = referenceParse(args);
  let out = "$";
  for (const n of walk ?? []) {
    if (Array.isArray(at) && at.length > 0) {
      out += `[${n % at.length}]`;
      at = at[n % at.length];
    } else if (typeof at === "object" && at !== null && Object.keys(at).length > 0) {
      const key = Object.keys(at)[n % Object.keys(at).length]!;
      out += `['${key}']`;
      at = (at as Json)[key];
    } else break;
  }
  return out + tail.join("");
}
const partialValue = fc.constantFrom('"stringValue":"yes"', '"numberValue":7', '"boolValue":true', '"nullValue":"NULL_VALUE"');

interface Hostile {
  /** Members spliced into the provider's objects (chunks, deltas, usage, items). */
  extra: string;
  /** An object (a call's `args` / `input`, a fidelity value). */
  obj: string;
  /** A call's arguments text (streamed as fragments). */
  args: string;
  /** A name, an id, a type a provider gives. */
  name: string;
  /** Gemini's `partialArgs`: each a path (over `obj`) and its value. */
  paths: [{ walk: number[] | null; tail: string[] }, string][];
}

const hostile: fc.Arbitrary<Hostile> = fc.record({
  extra: members,
  obj: object,
  args: object,
  name: KEY,
  paths: fc.array(fc.tuple(jsonPath, partialValue), { minLength: 1, maxLength: 4 }),
});

const data = (json: string): string => `data: ${json}\n\n`;
const sseEvent = (json: string): string => `event: ${JSON.parse(json).type}\ndata: ${json}\n\n`;
const str = JSON.stringify;

/** One stream of `provider` carrying `h` wherever that provider's JSON has an object, a key or a name. */
function streamOf(provider: Name, h: Hostile): string {
  const { extra: x, obj, args, name } = h;
  switch (provider) {
    case "openai-chat":
      return [
        plus(
          `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":${
            plus(`{"role":"assistant","tool_calls":[${
              plus(`{"index":0,"id":${str(name)},"type":"function","function":${plus(`{"name":${str(name)},"arguments":""}`, x)}}`, x)
            }]}`, x)
          },"finish_reason":null}],"x":${obj}}`,
          x,
        ),
        `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":${str(args)}}}]},"finish_reason":null}]}`,
        `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":${str(`${name}2`)},"function":{"name":${str(name)},"arguments":${
          str(obj)
        }}}]},"finish_reason":null}]}`,
        plus(`{"choices":[${plus(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`, x)}],"usage":${plus(`{"prompt_tokens":1}`, x)}}`, x),
        `"[DONE]"`,
      ].map((c) => data(c === `"[DONE]"` ? "[DONE]" : c)).join("");
    case "anthropic":
      return [
        plus(`{"type":"message_start","message":${plus(`{"role":"assistant","content":[],"usage":${plus(`{"input_tokens":1}`, x)}}`, x)}}`, x),
        plus(`{"type":"content_block_start","index":0,"content_block":${plus(`{"type":"tool_use","id":${str(name)},"name":${str(name)},"input":${obj}}`, x)}}`, x),
        `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":${str(args)}}}`,
        `{"type":"content_block_stop","index":0}`,
        // a call whose input comes whole in its start (a gateway's): the input is its arguments
        `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"b","name":${str(name)},"input":${obj}}}`,
        `{"type":"content_block_stop","index":1}`,
        plus(`{"type":"content_block_start","index":2,"content_block":${plus(`{"type":${str(name)}}`, x)}}`, x),
        `{"type":"content_block_stop","index":2}`,
        plus(`{"type":"message_delta","delta":${plus(`{"stop_reason":"tool_use"}`, x)},"usage":${plus(`{"output_tokens":2}`, x)}}`, x),
        `{"type":"message_stop"}`,
      ].map(sseEvent).join("");
    case "openai-responses":
      return [
        plus(`{"type":"response.created","response":${plus(`{"id":"r","tools":[${obj}]}`, x)}}`, x),
        plus(`{"type":"response.output_item.added","output_index":0,"item":${plus(`{"type":"reasoning","id":${str(name)},"summary":[]}`, x)}}`, x),
        `{"type":"response.reasoning_summary_text.delta","item_id":${str(name)},"summary_index":0,"delta":"hm"}`,
        `{"type":"response.output_item.done","output_index":0,"item":${
          plus(`{"type":"reasoning","id":${str(name)},"summary":[${obj}],"encrypted_content":${obj}}`, x)
        }}`,
        plus(`{"type":"response.output_item.added","output_index":1,"item":${plus(`{"type":"function_call","id":"fc","call_id":${str(name)},"name":${str(name)},"arguments":""}`, x)}}`, x),
        `{"type":"response.function_call_arguments.delta","item_id":"fc","output_index":1,"delta":${str(args)}}`,
        `{"type":"response.output_item.done","output_index":1,"item":{"type":"function_call","id":"fc","call_id":${str(name)},"name":${str(name)},"arguments":${str(args)}}}`,
        plus(`{"type":"response.completed","response":${plus(`{"id":"r","usage":${plus(`{"input_tokens":1,"output_tokens":1}`, x)}}`, x)}}`, x),
      ].map(sseEvent).join("");
    case "gemini":
      return geminiSse(
        plus(part(`{"functionCall":${plus(`{"name":${str(name)},"args":${obj}}`, x)}}`), x),
        part(`{"functionCall":{"name":"f","args":${obj},"willContinue":true,"partialArgs":[${
          h.paths.map(([p, v]) => `{"jsonPath":${str(pathText(p, obj))},${v}}`).join(",")
        }]}}`),
        plus(part(`{"functionCall":{}}`, "STOP"), x),
      );
  }
}

export const cases: Case[] = [
  ["gemini: a partialArgs path through __proto__, constructor or prototype sets data in the arguments, never Object.prototype (issue #34)", async () => {
    for (const [args, path, made] of HOSTILE_PATHS) {
      const r = await untouched(path, () => read("gemini", streamedCall(args, [path])));
      assertEqual(({} as Json).X, undefined, `${path}: ({}).X`);
      assertEqual(r.error, undefined, path);
      // the arguments as the provider built them: the same text a call sent whole would carry
      const delta = r.events.find((e: Json) => e.content_items[0]?.type === "tool_call.delta")!.content_items[0];
      assertEqual(delta.arguments, made, `${path}: the call's arguments text`);
      assertEqual(r.message.content_items, [{ type: "tool_call.done", name: "f", tool_call_id: "f", arguments: referenceParse(made) }], path);
      assertEqual(r.message.finish_reason, "tool_call", path);
    }
  }],
  ["gemini: the issue's chunk, its arguments an own __proto__ key of the call's object (not its prototype)", async () => {
    const r = await untouched("$.a.__proto__.X", () => read("gemini", streamedCall('{"a":{}}', ["$.a.__proto__.X"])));
    const a = r.message.content_items[0].arguments.a;
    assertEqual(Object.keys(a), ["__proto__"]);
    assertEqual(Object.getPrototypeOf(a), Object.prototype);
    assertEqual(a.X, undefined);
  }],
  ["gemini: a partialArgs path into an array's members (length, __proto__, a method) is a SCHEMA StreamProtocolError; nothing changes", async () => {
    for (const path of ["$.list.length", "$.list.__proto__.X", "$.list.push", "$['list']['constructor']"]) {
      const r = await untouched(path, () => read("gemini", streamedCall('{"list":[1]}', [path])));
      assertError(r.error, StreamProtocolError, { rule: "SCHEMA", client: "gemini" });
    }
  }],
  ["providers: a factory reads its own options only: a polluted Object.prototype moves neither the key's destination nor its headers", async () => {
    const proto = Object.prototype as Json;
    try {
      proto.baseURL = "https://evil.example/v1";
      proto.headers = { "x-stolen": "yes" };
      for (const provider of [openaiChat({ apiKey: "sk-test" }), gemini({ apiKey: "g-test" })]) {
        const request = provider.request({ model: "m", messages: [{ role: "user", content_items: [{ type: "text.done", text: "Hi" }] }] });
        assert(!request.url.startsWith("https://evil.example"), `${provider.name}: ${request.url}`);
        assertEqual(request.headers.get("x-stolen"), null, provider.name);
      }
    } finally {
      delete proto.baseURL;
      delete proto.headers;
    }
  }],
  ["property: hostile keys at every depth of the four providers' JSON (and random Gemini paths) change no prototype; the end is typed (issue #34)", async () => {
    const providers: Name[] = ["openai-chat", "anthropic", "openai-responses", "gemini"];
    await holds(
      fc.asyncProperty(fc.constantFrom(...providers), hostile, async (provider, h) => {
        const body = streamOf(provider, h);
        const r = await untouched(`${provider}: ${body}`, () => read(provider, body));
        if (r.error !== undefined) assert(r.error instanceof MmspError, `${provider}: a typed error, got ${String(r.error)}`);
        // the three providers whose paths are no way to fail read every such stream whole
        if (provider !== "gemini") assertEqual(r.error, undefined, `${provider}: ${body}`);
      }),
      { numRuns: 300 },
    );
  }],
];
