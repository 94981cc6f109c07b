// Issue #39's short way in the provider core (providers/assembler.ts `continues`): a fragment that continues the
// open item is added and emitted at once instead of going through the general assemble mode. Pinned:
// on every provider capture of the shared cases and on random streams of three providers, in random
// chunkings, the short way gives the same events, message, error and warnings as the general way
// (the assembler's switch `shortWay`, for tests only); its events also pass UniEventStream's checks
// when encoded as MMSP SSE and read back by the staged path's reader.
import fc from "fast-check";
import { SseEncoderStream, UniEventStream } from "../../dist/index.js";
import { ProviderEventStream } from "../../dist/providers/index.js";
import { shortWay } from "../../dist/providers/assembler.js";
import { ANTHROPIC } from "../../dist/providers/anthropic/spec.js";
import { GEMINI } from "../../dist/providers/gemini/spec.js";
import { OPENAI_CHAT } from "../../dist/providers/openai-chat/spec.js";
import { OPENAI_RESPONSES } from "../../dist/providers/openai-responses/spec.js";
import { holds } from "../property.ts";
import { assert, assertEqual, byteStream, type Case, settle, splitAt, utf8, valuesStream } from "../harness.ts";
import { anthropicStream, cuts, geminiStream, openaiChatStream } from "../arbitraries.ts";
import * as ant from "./providers/captures-anthropic.ts";
import * as chat from "./providers/captures-openai-chat.ts";
import * as dialects from "./providers/captures-openai-chat-dialects.ts";
import * as responses from "./providers/captures-openai-responses.ts";
import * as gem from "./providers/captures-gemini.ts";

type Json = Record<string, any>;
type Name = "openai-chat" | "anthropic" | "openai-responses" | "gemini";

const noTime = (v: Json | undefined): Json | undefined => {
  if (v === undefined || v === null) return v;
  const { created_at: _, ...rest } = v;
  return rest;
};
const errorOf = (e: any) => e === undefined ? undefined : { name: e.name, rule: e.rule, eventIndex: e.eventIndex, byteOffset: e.byteOffset, message: e.message };

/** `body` read by `ProviderEventStream(provider)` in `chunks`, the short way on or off (chosen when the stream is made). */
async function read(provider: Name, chunks: Uint8Array[], short: boolean) {
  const warnings: Json[] = [];
  shortWay.on = short;
  let stream: ProviderEventStream;
  try {
    stream = new ProviderEventStream(provider, { onWarning: (w: Json) => warnings.push(w) });
  } finally {
    shortWay.on = true;
  }
  const r = await settle(byteStream(chunks).pipeThrough(stream), stream.message);
  return {
    raw: r.events as Json[],
    events: (r.events as Json[]).map(noTime),
    message: noTime(r.message),
    error: errorOf(r.error),
    messageError: errorOf(r.messageError),
    warnings,
  };
}

/** The short way and the general way agree on `body` cut at `at`; the short way's events pass the MMSP reader's checks. */
async function agree(provider: Name, body: string, at: number[], what: string): Promise<void> {
  const chunks = splitAt(utf8(body), at);
  const short = await read(provider, chunks, true);
  const general = await read(provider, chunks, false);
  const { raw: _a, ...s } = short;
  const { raw: _b, ...g } = general;
  assertEqual(s, g, `${what}: the short way gives what the general way gives`);
  if (short.error === undefined) {
    const u = new UniEventStream();
    const r = await settle(valuesStream(short.raw).pipeThrough(new SseEncoderStream()).pipeThrough(u), u.message);
    assertEqual(r.error, undefined, `${what}: the events pass UniEventStream's checks`);
    assertEqual(r.events, short.raw, `${what}: UniEventStream reads them back unchanged`);
  }
}

/** Every SSE body a module of captures exports. */
const bodies = (module: Json): [string, string][] =>
  Object.entries(module).filter(([, v]) => typeof v === "string" && v.includes("data:")) as [string, string][];

const CAPTURES: [Name, Json][] = [["anthropic", ant], ["openai-chat", chat], ["openai-chat", dialects], ["openai-responses", responses], ["gemini", gem]];

const randomStream = (provider: Name, stream: fc.Arbitrary<string>) =>
  holds(
    fc.asyncProperty(stream, cuts(400), async (body, at) => agree(provider, body, at, provider)),
    { numRuns: 60 },
  );

export const cases: Case[] = [
  ["providers: the short way and the general way give the same events, message, error and warnings on every capture, whole and in random chunkings (issue #39)", async () => {
    for (const [provider, module] of CAPTURES) {
      for (const [name, body] of bodies(module)) {
        await agree(provider, body, [], `${provider} ${name} whole`);
        await agree(provider, body, Array.from({ length: body.length }, (_, i) => i), `${provider} ${name} byte by byte`);
      }
    }
    await holds(
      fc.asyncProperty(fc.constantFrom(...CAPTURES.flatMap(([p, m]) => bodies(m).map(([n, b]) => [p, n, b] as const))), cuts(600), async ([p, n, b], at) => {
        await agree(p, b, at, `${p} ${n}`);
      }),
      { numRuns: 60 },
    );
  }],
  ["providers: each provider's canned sample (kept read by one core per isolate, core.ts prime) reads whole, with no warning: the priming is not a silent no-op (issue #39)", async () => {
    for (const spec of [ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, GEMINI]) {
      const body = (spec.sample as unknown[]).map((r) => `data: ${typeof r === "string" ? r : JSON.stringify(r)}\n\n`).join("");
      const r = await read(spec.name as Name, [utf8(body)], true);
      assertEqual(r.error, undefined, `${spec.name}: the sample reads whole`);
      assertEqual(r.warnings, [], `${spec.name}: no warning`);
      assertEqual(r.message?.content_items, [{ type: "text.done", text: "ab" }], `${spec.name}: the sample's answer`);
    }
  }],
  ["property: random Anthropic streams (blocks interleaved, deltas of other types, signatures, empty pieces) give the same outcome both ways (issue #39)", () =>
    randomStream("anthropic", anthropicStream)],
  ["property: random OpenAI Chat streams (reasoning with its field on every fragment, tool calls of three indexes) give the same outcome both ways (issue #39)", () =>
    randomStream("openai-chat", openaiChatStream)],
  ["property: random Gemini streams (text and thoughts, signatures) give the same outcome both ways (issue #39)", () =>
    randomStream("gemini", geminiStream)],
  ["property: random Gemini whole function calls (-0, numbers past a double, __proto__, nesting past maxDepth) give the same outcome both ways: the .done's arguments are what the text parses to", () =>
    randomStream("gemini", geminiCalls)],
  ["gemini: a whole call's .done takes the arguments the reader parsed only when the text gives them back (-0 is 0, 1e400 is null)", async () => {
    const body = geminiCallBody(['{"a":-0,"b":[1e400,-1e-400],"c":{"__proto__":{"x":1}}}', '{"ok":[1,"two",{"three":3.5}]}']);
    const r = await read("gemini", [utf8(body)], true);
    assertEqual(r.error, undefined);
    const calls = (r.message!.content_items as Json[]).map((i) => i.arguments);
    assertEqual(JSON.stringify(calls), '[{"a":0,"b":[null,0],"c":{"__proto__":{"x":1}}},{"ok":[1,"two",{"three":3.5}]}]');
    assert(Object.is(calls[0].a, 0), "-0 is 0, as the text parses");
    assertEqual(Object.getPrototypeOf(calls[0].c), Object.prototype, "__proto__ stays data");
    assertEqual(Object.hasOwn(calls[0].c, "__proto__"), true);
  }],
];

/** A Gemini stream of whole function calls whose `args` are the JSON texts `args` (written as they are). */
function geminiCallBody(args: string[]): string {
  const sse = (json: string) => `data: ${json}\r\n\r\n`;
  const calls = args.map((a, i) =>
    sse(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f${i}","args":${a}}}]},"index":0}],"modelVersion":"gemini-x"}`)
  );
  return calls.join("") +
    sse(
      '{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"index":0,"finishReason":"STOP"}],' +
        '"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":5},"modelVersion":"gemini-x"}',
    );
}

/** Random streams of whole Gemini calls, their args raw JSON texts (fast-check's JSON, and texts that do not survive a parse and a write unchanged). */
const geminiCalls: fc.Arbitrary<string> = fc.array(
  fc.oneof(
    fc.json({ maxDepth: 4 }).filter((t) => t.startsWith("{")),
    fc.constantFrom('{"a":-0}', '{"a":1e400,"b":[-0.0]}', '{"__proto__":{"x":1},"a":2}', '{"n":-1e-400}', '{"d":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}'),
  ),
  { minLength: 1, maxLength: 4 },
).map(geminiCallBody);
