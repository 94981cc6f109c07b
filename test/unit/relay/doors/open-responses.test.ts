// Open Responses (issue #41), in Node: every shared provider capture read through ProviderEventStream
// and re-encoded by OpenResponsesEncoderStream, each event checked against the spec's schemas
// (test/fixtures/open-responses-schema.ts, ajv); the spec's acceptance scenarios against the
// stateless relay (createRelay with a models table) backed by the kit's fakeProvider, for each of the
// four providers; the official `openai` SDK's `responses.stream()` reading the relay's answer.
import Ajv from "ajv";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { OpenResponsesEncoderStream, type OpenResponsesEvent } from "../../../../src/encode.ts";
import type { UniEvent } from "../../../../src/index.ts";
import { UpstreamError } from "../../../../src/errors.ts";
import { anthropic, gemini, openaiChat, openaiResponses, type Provider, ProviderEventStream } from "../../../../src/providers/index.ts";
import { createRelay } from "../../../../src/relay/index.ts";
import { fakeProvider, parseCapture, type ProviderName } from "../../../../src/testing/index.ts";
import * as ANTHROPIC from "../../../cases/providers/captures-anthropic.ts";
import * as CHAT from "../../../cases/providers/captures-openai-chat.ts";
import * as GEMINI from "../../../cases/providers/captures-gemini.ts";
import * as RESPONSES from "../../../cases/providers/captures-openai-responses.ts";
import { errorBody, responseResource, streamingEvents } from "../../../fixtures/open-responses-schema.ts";
import { CAPTURES as captures } from "../../encoder-captures.ts";

const ajv = new Ajv({ strict: false, allErrors: true });
const checkResource = ajv.compile(responseResource);
const checkError = ajv.compile(errorBody);
const checkers = Object.fromEntries(Object.entries(streamingEvents).map(([type, s]) => [type, ajv.compile(s)]));

/** Fails the test unless `e` is one of the spec's events, valid by its schema. */
function expectSpecEvent(e: OpenResponsesEvent, where: string): void {
  const check = checkers[e.type];
  expect(check, `${where}: an event type the spec has (${e.type})`).toBeDefined();
  expect(check!(e), `${where}: ${e.type} #${e.sequence_number}: ${ajv.errorsText(check!.errors)}`).toBe(true);
}

/** The events' sequence numbers are 0, 1, 2…; every item added is done before the next; one terminal event, last. */
function expectStateMachine(events: OpenResponsesEvent[], where: string): void {
  events.forEach((e, i) => expect(e.sequence_number, where).toBe(i));
  expect(events[0]?.type).toBe("response.created");
  expect(events[1]?.type).toBe("response.in_progress");
  const terminal = events.filter((e) => ["response.completed", "response.incomplete", "response.failed"].includes(e.type));
  expect(terminal.length, where).toBe(1);
  expect(events.at(-1), where).toBe(terminal[0]);
  let open: number | null = null;
  for (const e of events) {
    if (e.type === "response.output_item.added") {
      expect(open, `${where}: an item added while another is open`).toBeNull();
      open = e.output_index as number;
    } else if (e.type === "response.output_item.done") {
      expect(e.output_index, where).toBe(open);
      open = null;
    } else if ("output_index" in e) expect(e.output_index, where).toBe(open);
  }
}


/** A capture read as the provider's stream, then encoded. */
async function reencode(provider: ProviderName, body: string): Promise<OpenResponsesEvent[]> {
  const bytes = new TextEncoder().encode(body);
  const source = new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(bytes), c.close()) });
  const reader = new ProviderEventStream(provider);
  reader.message.catch(() => {});
  const events: OpenResponsesEvent[] = [];
  const out = source.pipeThrough(reader).pipeThrough(new OpenResponsesEncoderStream({ id: "resp_test", model: "m", createdAt: 1 }));
  const r = out.getReader();
  for (let x = await r.read(); !x.done; x = await r.read()) events.push(x.value);
  return events;
}

describe("OpenResponsesEncoderStream: every shared provider capture, re-encoded, is the spec's", () => {
  expect(captures.length).toBeGreaterThan(40);
  test.each(captures)("%s", async (name, provider, body) => {
    const events = await reencode(provider, body);
    for (const e of events) expectSpecEvent(e, name);
    expectStateMachine(events, name);
    const last = events.at(-1)!;
    expect(checkResource(last.response), ajv.errorsText(checkResource.errors)).toBe(true);
  });
});

const usage = { cached_tokens: 2, prompt_tokens: 3, thoughts_tokens: 4, response_tokens: 5 };
const ev = (items: UniEvent["content_items"], stop = false): UniEvent => ({
  role: "assistant",
  event_type: stop ? "stop" : "delta",
  content_items: items,
  usage_metadata: stop ? usage : null,
  finish_reason: stop ? "stop" : null,
});

async function encodeAll(events: UniEvent[]): Promise<OpenResponsesEvent[]> {
  const out: OpenResponsesEvent[] = [];
  const source = new ReadableStream<UniEvent>({ start: (c) => (events.forEach((e) => c.enqueue(e)), c.close()) });
  const r = source.pipeThrough(new OpenResponsesEncoderStream({ id: "resp_x", createdAt: 5 })).getReader();
  for (let x = await r.read(); !x.done; x = await r.read()) out.push(x.value);
  return out;
}

test("a thinking item's encrypted_content goes out only when its maker is the Responses API or unnamed (SPEC §9)", async () => {
  const thinking = (fidelity: Record<string, unknown>) => [
    ev([{ type: "thinking.delta", thinking: "t", fidelity }]),
    ev([{ type: "thinking.done", thinking: "t", fidelity }]),
    ev([], true),
  ];
  const done = async (fidelity: Record<string, unknown>) =>
    (await encodeAll(thinking(fidelity))).find((e) => e.type === "response.output_item.done")!.item as Record<string, unknown>;
  expect((await done({ encrypted_content: "E", provider: "openai-responses" })).encrypted_content).toBe("E");
  expect((await done({ encrypted_content: "E" })).encrypted_content).toBe("E");
  expect((await done({ encrypted_content: "E", provider: "openai-chat" })).encrypted_content).toBeUndefined();
  expect((await done({ encrypted_content: "E", provider: "anthropic" })).encrypted_content).toBeUndefined();
});

test("a stream stopped mid-answer: the cancelled resource holds what was delivered (an incomplete message, its output_text so far)", async () => {
  const stopped = new UpstreamError({
    client: "relay",
    status: null,
    errorType: "StreamCancelled",
    error: { type: "StreamCancelled", message: "stopped" },
    message: "stopped",
  });
  const done = [ev([{ type: "thinking.delta", thinking: "hm" }]), ev([{ type: "thinking.done", thinking: "hm" }])];
  /** The events, then the error (pulled one by one: an error at once would drop what is queued). */
  const failing = (events: UniEvent[]) => {
    let i = 0;
    return new ReadableStream<UniEvent>({ pull: (c) => (i < events.length ? c.enqueue(events[i++]!) : c.error(stopped)) });
  };
  const source = failing([...done, ev([{ type: "text.delta", text: "Hello, " }]), ev([{ type: "text.delta", text: "wor" }])]);
  const out: OpenResponsesEvent[] = [];
  const r = source.pipeThrough(new OpenResponsesEncoderStream({ id: "resp_x", createdAt: 5 })).getReader();
  for (let x = await r.read(); !x.done; x = await r.read()) out.push(x.value);
  const last = out.at(-1)!;
  expect(last.type).toBe("response.failed");
  const resource = last.response as Record<string, any>;
  expect(resource.status).toBe("cancelled");
  expect(resource.output).toHaveLength(2);
  expect(resource.output[0]).toMatchObject({ type: "reasoning", content: [{ type: "reasoning_text", text: "hm" }] });
  expect(resource.output[1]).toEqual({
    type: "message",
    id: "msg_x_1",
    status: "incomplete",
    role: "assistant",
    content: [{ type: "output_text", text: "Hello, wor", annotations: [] }],
  });
  expect(checkResource(resource), ajv.errorsText(checkResource.errors)).toBe(true);
  // a tool call cut mid-arguments: its arguments so far, incomplete
  const cut = failing([ev([{ type: "tool_call.delta", tool_call_id: "call_1", name: "f", arguments: '{"a":' } as never])]);
  const events: OpenResponsesEvent[] = [];
  const t = cut.pipeThrough(new OpenResponsesEncoderStream({ id: "resp_y", createdAt: 5 })).getReader();
  for (let x = await t.read(); !x.done; x = await t.read()) events.push(x.value);
  expect((events.at(-1)!.response as Record<string, any>).output).toEqual([
    { type: "function_call", id: "fc_y_0", call_id: "call_1", name: "f", arguments: '{"a":', status: "incomplete" },
  ]);
});

test("usage: input = cached + prompt, output = thoughts + response; the same events give the same bytes", async () => {
  const events = [ev([{ type: "text.delta", text: "a" }]), ev([{ type: "text.done", text: "a" }]), ev([], true)];
  const a = await encodeAll(events);
  expect(a.at(-1)!.response).toMatchObject({
    status: "completed",
    usage: { input_tokens: 5, output_tokens: 9, total_tokens: 14, input_tokens_details: { cached_tokens: 2 }, output_tokens_details: { reasoning_tokens: 4 } },
  });
  expect(JSON.stringify(await encodeAll(events))).toBe(JSON.stringify(a));
});

// ---- the relay answers POST /v1/responses (stateless, Node) ---------------------------------------

const ORIGIN = "https://relay.test";
const KEY = "sk-unit-open-responses-KEY";

/** Each provider behind the relay: its factory and, per scenario, the capture its fake answers. */
const BACKENDS: { name: ProviderName; make: (fetch: typeof globalThis.fetch) => Provider; text: string; tool: string }[] = [
  { name: "anthropic", make: (fetch) => anthropic({ apiKey: KEY, baseURL: "https://p.test", fetch }), text: ANTHROPIC.TEXT, tool: ANTHROPIC.TOOL_USE },
  { name: "openai-chat", make: (fetch) => openaiChat({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }), text: CHAT.TEXT, tool: CHAT.PARALLEL_TOOLS_ONE_CHUNK },
  { name: "gemini", make: (fetch) => gemini({ apiKey: KEY, baseURL: "https://p.test/v1beta", fetch }), text: GEMINI.TEXT, tool: GEMINI.PARALLEL_CALLS },
  {
    name: "openai-responses",
    make: (fetch) => openaiResponses({ apiKey: KEY, baseURL: "https://p.test/v1", fetch }),
    text: RESPONSES.TEXT,
    tool: RESPONSES.FUNCTION_CALLS,
  },
];

function relayFor(backend: (typeof BACKENDS)[number]) {
  const fake = fakeProvider(backend.name, { streams: { "text-model": parseCapture(backend.text), "tool-model": parseCapture(backend.tool) }, key: KEY });
  const provider = backend.make(fake as unknown as typeof fetch);
  const relay = createRelay({
    models: { text: { provider, model: "text-model" }, tools: { provider, model: "tool-model" } },
    allowAnonymous: true, clientAddress: () => "203.0.113.9",
  });
  return { relay, fake };
}

const post = (body: object): Request =>
  new Request(`${ORIGIN}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** An SSE body of the spec's framing → its events (checking `event:` equals `type`, no `id:`, `[DONE]` last). */
async function sseEvents(response: Response): Promise<OpenResponsesEvent[]> {
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const text = await response.text();
  const records = text.split("\n\n").filter(Boolean);
  expect(records.at(-1)).toBe("data: [DONE]");
  return records.slice(0, -1).map((r) => {
    const [eventLine, dataLine, ...rest] = r.split("\n");
    expect(rest).toEqual([]);
    const e = JSON.parse(dataLine!.replace(/^data: /, "")) as OpenResponsesEvent;
    expect(eventLine).toBe(`event: ${e.type}`);
    return e;
  });
}

const TOOLS = [
  { type: "function", name: "get_weather", description: "The weather", parameters: { type: "object", properties: { location: { type: "string" } } } },
];

describe.each(BACKENDS)("the relay's POST /v1/responses, backed by $name", (backend) => {
  test("basic text (stream: false): one response resource, the provider's text, usage", async () => {
    const { relay } = relayFor(backend);
    const answer = await relay.fetch(post({ model: "text", input: "Say hello" }), {});
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(checkResource(body), ajv.errorsText(checkResource.errors)).toBe(true);
    expect(body.status).toBe("completed");
    const text = (body.output as any[]).filter((i) => i.type === "message").map((i) => i.content[0].text).join("");
    expect(text.length).toBeGreaterThan(0);
    expect(body.usage).not.toBeNull();
  });

  test("streaming: the spec's events, state machine and SSE framing", async () => {
    const { relay } = relayFor(backend);
    const answer = await relay.fetch(post({ model: "text", input: "Say hello", stream: true }), {});
    expect(answer.status).toBe(200);
    const events = await sseEvents(answer);
    for (const e of events) expectSpecEvent(e, backend.name);
    expectStateMachine(events, backend.name);
    expect(events.some((e) => e.type === "response.output_text.delta")).toBe(true);
    expect(events.at(-1)!.type).toBe("response.completed");
  });

  test("system prompt: instructions and a developer message reach the provider as its system prompt", async () => {
    const { relay, fake } = relayFor(backend);
    const input = [{ role: "developer", content: "Be terse." }, { role: "user", content: [{ type: "input_text", text: "Hi" }] }];
    const answer = await relay.fetch(post({ model: "text", instructions: "You are a pirate.", input }), {});
    expect(answer.status).toBe(200);
    const sent = JSON.stringify(fake.requests.at(-1)!.json);
    expect(sent).toContain("You are a pirate.");
    expect(sent).toContain("Be terse.");
  });

  for (const stream of [false, true]) {
    test(`tool calling (stream: ${stream}): function_call items with call_id, name and JSON arguments`, async () => {
      const { relay, fake } = relayFor(backend);
      const answer = await relay.fetch(post({ model: "tools", input: "Weather in Paris?", tools: TOOLS, tool_choice: "auto", stream }), {});
      expect(answer.status).toBe(200);
      const sent = JSON.stringify(fake.requests.at(-1)!.json);
      expect(sent).toContain("get_weather");
      let output: any[];
      if (stream) {
        const events = await sseEvents(answer);
        for (const e of events) expectSpecEvent(e, backend.name);
        expectStateMachine(events, backend.name);
        expect(events.some((e) => e.type === "response.function_call_arguments.done")).toBe(true);
        output = (events.at(-1)!.response as any).output;
      } else {
        const body = (await answer.json()) as any;
        expect(checkResource(body), ajv.errorsText(checkResource.errors)).toBe(true);
        output = body.output;
      }
      const calls = output.filter((i) => i.type === "function_call");
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) {
        expect(c.call_id).toMatch(/./);
        expect(typeof JSON.parse(c.arguments)).toBe("object");
      }
    });
  }

  test("image input: an input_image's URL reaches the provider", async () => {
    const { relay, fake } = relayFor(backend);
    const image = `data:image/png;base64,${GEMINI.PNG_BASE64}`;
    const input = [{ role: "user", content: [{ type: "input_text", text: "What is this?" }, { type: "input_image", image_url: image }] }];
    const answer = await relay.fetch(post({ model: "text", input }), {});
    expect(answer.status).toBe(200);
    expect(JSON.stringify(fake.requests.at(-1)!.json)).toContain(GEMINI.PNG_BASE64);
  });

  test("multi-turn: earlier turns, a function call and its output, go to the provider in order", async () => {
    const { relay, fake } = relayFor(backend);
    const input = [
      { role: "user", content: "Weather in Paris?" },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"location":"Paris"}' },
      { type: "function_call_output", call_id: "call_1", output: "18 degrees and sunny" },
      { role: "assistant", content: [{ type: "output_text", text: "It is 18 degrees." }] },
      { role: "user", content: "And tomorrow?" },
    ];
    const answer = await relay.fetch(post({ model: "tools", input, tools: TOOLS }), {});
    expect(answer.status, await answer.clone().text()).toBe(200);
    const sent = JSON.stringify(fake.requests.at(-1)!.json);
    const order = ["Weather in Paris?", "18 degrees and sunny", "It is 18 degrees.", "And tomorrow?"].map((t) => sent.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  test("the official openai SDK's responses.stream() reads the relay's answer to its end", async () => {
    const { relay } = relayFor(backend);
    const client = new OpenAI({
      apiKey: "unused",
      baseURL: `${ORIGIN}/v1`,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => relay.fetch(new Request(input as RequestInfo, init), {}),
    });
    const stream = client.responses.stream({ model: "text", input: "Say hello" });
    let deltas = "";
    stream.on("response.output_text.delta", (e) => (deltas += e.delta));
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(final.output_text).toBe(deltas);
    expect(deltas.length).toBeGreaterThan(0);
  });
});

describe("the relay's refusals are the spec's error shape", () => {
  const { relay } = relayFor(BACKENDS[0]!);
  test.each([
    [{ model: "text", input: "x", previous_response_id: "resp_1" }, 400, "previous_response_id"],
    [{ model: "text", input: [{ type: "item_reference", id: "x" }] }, 400, "input[0]"],
    [{ model: "text", input: "x", tools: [{ type: "web_search" }] }, 400, "tools[0]"],
    [{ model: "nope", input: "x" }, 404, null],
    [{ model: "text", input: "x", reasoning: { effort: "huge" } }, 400, "reasoning.effort"],
  ])("%j → %i naming %s", async (body, status, param) => {
    const answer = await relay.fetch(post(body), {});
    expect(answer.status).toBe(status);
    const json = (await answer.json()) as any;
    expect(checkError(json), ajv.errorsText(checkError.errors)).toBe(true);
    expect(json.error.param).toBe(param);
  });
  test("the stateless relay keeps no responses: GET and cancel are 404 in the spec's shape", async () => {
    for (const r of [
      new Request(`${ORIGIN}/v1/responses/resp_${"a".repeat(32)}?stream=true`),
      new Request(`${ORIGIN}/v1/responses/resp_${"a".repeat(32)}/cancel`, { method: "POST" }),
    ]) {
      const answer = await relay.fetch(r, {});
      expect(answer.status).toBe(404);
      expect(checkError(await answer.json())).toBe(true);
    }
  });
});
