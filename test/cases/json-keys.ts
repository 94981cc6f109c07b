// Object keys as the text holds them, in every runtime. V8 as shipped in Chromium 150, Deno 2.9 and
// workerd (not Node 20's V8, not Bun) can read an escaped key ("\"", "\n", "\u…") as a backslash key
// that an earlier JSON.parse in the isolate met at the same place of an object: after {"\\":1},
// {"\"":2} reads as {"\\":2}. The package reads outside JSON through one function that catches this
// (src/internal/json.ts); these cases set the misreading up, then read through the paths a user has:
// an MMSP tool call (its arguments text and its .done object), a provider's call, and random keys.
// Each object starts with a key of its own case, so the shapes a case teaches V8 stay its own.
import fc from "fast-check";
import { UniEventStream } from "../../dist/index.js";
import { fromProviderResponse, ProviderEventStream } from "../../dist/providers/index.js";
import { assertEqual, byteStream, type Case, settle, utf8 } from "../harness.ts";
import { delta, type Json, sse, stop, tool, toolDone } from "../fixtures.ts";
import { holds } from "../property.ts";

/** An MMSP stream of one tool call whose arguments are `args` (the text the deltas carry, and the .done object). */
async function toolCallOf(args: Json): Promise<{ error: unknown; args: unknown }> {
  const text = JSON.stringify(args);
  const body = sse([delta(tool("f", "t", text.slice(0, 3))), delta(tool("", "", text.slice(3))), delta(toolDone("f", "t", args)), stop("tool_call")]);
  const stream = new UniEventStream();
  const r = await settle(byteStream([utf8(body)]).pipeThrough(stream), stream.message);
  return { error: r.error, args: (r.message as Json | undefined)?.content_items && ((r.message as Json).content_items as Json[])[0]!.arguments };
}

/** The keys of `v` and of every object in it, in order: what a deep equality that ignores order would miss. */
function keysOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(keysOf);
  if (v !== null && typeof v === "object") return Object.entries(v).map(([k, x]) => [k, keysOf(x)]);
  return v;
}

/** `obj` with `head` as its first key (a case's own place in the isolate's object shapes). */
const headed = (head: string, obj: Json): Json => ({ [head]: 0, ...obj });

export const cases: Case[] = [
  ["json keys: a tool call's escaped keys after another call's backslash keys (MMSP, deltas and .done)", async () => {
    const head = "json-keys: mmsp";
    for (const first of ["\\", "\\\\", '\\"', "x\\"]) {
      const before = await toolCallOf(headed(head, { [first]: 1 }));
      assertEqual(before.error, undefined, `the call with key ${JSON.stringify(first)}`);
    }
    for (const key of ['"', "\n", "\udf00", '\\"', '"a', "\\a", 'x"', "\u0001"]) {
      const args = headed(head, { [key]: 2 });
      const r = await toolCallOf(args);
      assertEqual(r.error, undefined, `the call with key ${JSON.stringify(key)}`);
      assertEqual(keysOf(r.args), keysOf(args), `the arguments' keys (${JSON.stringify(key)})`);
    }
  }],
  ["json keys: a Gemini call's escaped argument keys after another call's backslash key", async () => {
    const head = "json-keys: gemini";
    const chunk = (args: Json): string =>
      `data: ${JSON.stringify({
        candidates: [{ content: { role: "model", parts: [{ functionCall: { name: "f", args } }] }, index: 0, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
      })}\r\n\r\n`;
    const call = async (args: Json) => {
      const stream = new ProviderEventStream("gemini");
      const r = await settle(byteStream([utf8(chunk(args))]).pipeThrough(stream), stream.message);
      assertEqual(r.error, undefined, `the call ${JSON.stringify(args)}`);
      return ((r.message as Json).content_items as Json[])[0]!.arguments;
    };
    await call(headed(head, { "\\": { "\\": 1 } }));
    const args = headed(head, { '"': { "\n": 2 } });
    assertEqual(keysOf(await call(args)), keysOf(args), "the arguments' keys");
  }],
  ["json keys: a record nested past any depth whose keys hold a backslash is refused by the depth limit, as any other (not called invalid JSON)", async () => {
    const depth = 20_000; // (past what a recursive second reading reaches in any runtime)
    const args = "[".repeat(depth) + "1" + "]".repeat(depth);
    const record = JSON.stringify(delta(toolDone("f", "t", { "\\": 0 }))).replace('{"\\\\":0}', `{"\\\\":${args}}`);
    assertEqual(record.includes(args), true, "test bug: the deep arguments are in the record");
    const stream = new UniEventStream();
    const r = await settle(byteStream([utf8(`data: ${record}\n\n`)]).pipeThrough(stream), stream.message);
    assertEqual({ name: (r.error as Json)?.name, rule: (r.error as Json)?.rule, limit: (r.error as Json)?.limit }, {
      name: "StreamLimitError",
      rule: "LIMIT",
      limit: "maxDepth",
    });
  }],
  // issue #44: the second reading recursed, so past the stack's reach a caller with no depth limit (a
  // refusal's body: errors.ts, providers/no-stream.ts) got JSON.parse's misread value back
  ["json keys: a provider's JSON error document nested 20,000 levels after a misread key keeps the keys it holds (no depth limit there)", async () => {
    const head = "json-keys: refusal";
    const depth = 20_000;
    // the misreading set up where it exists: an object of the same keys with a backslash key at that place
    // (V8 misreads along the whole path of keys it met; runtimes without the bug read on)
    JSON.parse(`{"error":{"${head}":0,"\\\\":0,"type":"x","message":"y"}}`);
    const body = `{"error":{"${head}":0,"\\"":${"[".repeat(depth)}1${"]".repeat(depth)},"type":"invalid_request_error","message":"no"}}`;
    for (const [status, what] of [[200, "a 2xx JSON document (no-stream.ts)"], [400, "a refusal (errors.ts)"]] as const) {
      const { readable, message } = fromProviderResponse("openai-chat", new Response(body, { status, headers: { "content-type": "application/json" } }));
      const r = await settle(readable, message);
      const error = r.error as { name?: string; error?: Json } | undefined;
      assertEqual(error?.name, "UpstreamError", what);
      assertEqual(Object.keys(error!.error!), [head, '"', "type", "message"], `${what}: the keys the text holds`);
      let v: unknown = error!.error!['"'];
      let levels = 0;
      while (Array.isArray(v)) (v = v[0], levels++);
      assertEqual([levels, v], [depth, 1], `${what}: the nesting read whole`);
    }
  }],
  ["json keys: random keys full of escapes, read in turn, keep their names (MMSP tool calls)", async () => {
    const char = fc.constantFrom("\\", '"', "\n", "\u00e9", "\udf00", "a", "/", "\u0001");
    // mostly one character: a misread key has the length of the backslash key it is taken for
    const key = fc.oneof({ arbitrary: char, weight: 3 }, { arbitrary: fc.array(char, { minLength: 2, maxLength: 3 }).map((a) => a.join("")), weight: 1 });
    const leaf = fc.oneof(fc.integer(), fc.constant(null), fc.string({ maxLength: 3 }));
    const object = fc.letrec((tie) => ({
      obj: fc.dictionary(key, fc.oneof({ depthSize: "small" }, leaf, tie("obj")), { maxKeys: 3 }),
    })).obj as fc.Arbitrary<Json>;
    let run = 0;
    await holds(
      fc.asyncProperty(fc.array(object, { minLength: 2, maxLength: 6 }), async (objects) => {
        const head = `json-keys: random ${run++}`;
        for (const o of objects) {
          const args = headed(head, o);
          const r = await toolCallOf(args);
          assertEqual(r.error, undefined, `the call ${JSON.stringify(args)}`);
          assertEqual(keysOf(r.args), keysOf(args), `the arguments of ${JSON.stringify(args)}`);
        }
      }),
      { numRuns: 60 },
    );
  }],
];
