// The grammar stage's two implementations behind one interface (src/assemble/grammar.ts): the validator
// (SPEC §3, §4) and the assembler (SPEC §5), driven event by event without any stream around them.
import { describe, expect, test } from "vitest";
import { createGrammar, type Grammar } from "../../src/assemble/grammar.ts";
import { Fault } from "../../src/internal/fault.ts";
import { EmptyResponseError, MmspError, ToolCallArgumentParseError } from "../../src/errors.ts";
import type { UniEvent } from "../../src/schema.ts";

const USAGE = { cached_tokens: 0, prompt_tokens: 1, thoughts_tokens: null, response_tokens: 2 };
const ev = (items: object[], createdAt?: number): UniEvent =>
  ({ role: "assistant", event_type: "delta", content_items: items, usage_metadata: null, finish_reason: null, ...(createdAt ? { created_at: createdAt } : {}) }) as unknown as UniEvent;
const stop = (usage: object | null = USAGE, finish: string | null = "stop", createdAt?: number): UniEvent =>
  ({ role: "assistant", event_type: "stop", content_items: [], usage_metadata: usage, finish_reason: finish, ...(createdAt ? { created_at: createdAt } : {}) }) as unknown as UniEvent;
const tx = (text: string, fidelity?: object) => ({ type: "text.delta", text, ...(fidelity ? { fidelity } : {}) });
const txd = (text: string, fidelity?: object) => ({ type: "text.done", text, ...(fidelity ? { fidelity } : {}) });
const tc = (name: string, id: string, args: string, fidelity?: object) => ({ type: "tool_call.delta", name, tool_call_id: id, arguments: args, ...(fidelity ? { fidelity } : {}) });

/** Pushes events; returns what came out and the rule of the fault (or the error) that stopped it. */
function run(g: Grammar, events: UniEvent[], end = true): { out: UniEvent[]; rule?: string; error?: unknown } {
  const out: UniEvent[] = [];
  const emit = (e: UniEvent): void => void out.push(e);
  try {
    for (const e of events) g.push(e, emit);
    if (end) g.end(emit);
  } catch (error) {
    return { out, rule: error instanceof Fault ? error.rule : (error as MmspError).rule, error };
  }
  return { out };
}

describe("MessageValidator", () => {
  const v = () => createGrammar("validate", "upstream", { maxItems: 100, maxDepth: 64 });
  test("a valid stream passes every event through and builds the message", () => {
    const g = v();
    const events = [ev([tx("a")]), ev([tx("b")]), ev([txd("ab")]), stop()];
    expect(run(g, events).out).toEqual(events);
    expect(g.message?.content_items).toEqual([txd("ab")]);
  });
  test.each([
    ["NO-INTERLEAVE", [ev([tx("a")]), ev([tc("f", "c", "{}")])]],
    ["DONE-AFTER-DELTA", [ev([txd("a")])]],
    ["CLOSED", [ev([tx("a")]), stop()]],
    ["TOOL-HEADER", [ev([tc("", "c", "{}")])]],
    ["FIDELITY-ONCE", [ev([tx("a", { s: 1 })]), ev([tx("b", { s: 1 })])]],
    ["FIDELITY-EQUAL", [ev([tx("a", { s: 1 })]), ev([txd("a", { s: 2 })])]],
    ["DONE-CONTENT", [ev([tx("a")]), ev([txd("b")])]],
    ["NO-ITEM-ID", [ev([tx("a", { item_id: "x" })])]],
    ["ONE-VECTOR", [ev([{ type: "embedding.delta", embedding: [1] }]), ev([{ type: "embedding.delta", embedding: [2] }])]],
    ["STOP-LAST", [ev([tx("a")]), ev([txd("a")]), stop(), ev([tx("b")])]],
  ] as [string, UniEvent[]][])("%s", (rule, events) => {
    expect(run(v(), events, false).rule).toBe(rule);
  });
  test("the end without a stop event is STOP-LAST, naming the open group", () => {
    const r = run(v(), [ev([tx("a")])]);
    expect(r.rule).toBe("STOP-LAST");
    expect((r.error as Fault).detail).toMatch(/text group was still open/);
  });
  test("tool arguments that do not parse: ToolCallArgumentParseError with UTF-16 lengths", () => {
    const r = run(v(), [ev([tc("f", "c", '{"😀"')]), ev([{ type: "tool_call.done", name: "f", tool_call_id: "c", arguments: {} }])], false);
    expect(r.error).toBeInstanceOf(ToolCallArgumentParseError);
    expect(r.error).toMatchObject({ rawArgumentsLength: 5, rawArgumentsPreview: '{"😀"' });
  });
  test("thinking only: EmptyResponseError at the stop event", () => {
    const r = run(v(), [ev([{ type: "thinking.delta", thinking: "x" }]), ev([{ type: "thinking.done", thinking: "x" }]), stop()], false);
    expect(r.error).toBeInstanceOf(EmptyResponseError);
  });
});

describe("MessageAssembler", () => {
  const a = () => createGrammar("assemble", "upstream", { maxItems: 100, maxDepth: 64 });
  const items = (out: UniEvent[]) => out.map((e) => (e.event_type === "stop" ? "stop" : (e.content_items[0] as { type: string }).type));
  test("a nameless tool-call fragment continues the call whatever item id it carries", () => {
    const g = a();
    const r = run(g, [ev([tc("f", "c1", '{"a":', { item_id: "x" }), tc("", "", "1}", { item_id: "gateway-2" })]), stop()]);
    expect(r.error).toBeUndefined();
    expect(items(r.out)).toEqual(["tool_call.delta", "tool_call.delta", "tool_call.done", "stop"]);
    expect(g.message?.content_items).toEqual([{ type: "tool_call.done", name: "f", tool_call_id: "c1", arguments: { a: 1 } }]);
  });
  test("a nameless tool-call fragment with no call streaming begins an item and fails TOOL-HEADER", () => {
    expect(run(a(), [ev([tx("a"), tc("", "", "{}")])]).rule).toBe("TOOL-HEADER");
  });
  test("every output event carries created_at: the input's, else the time it is emitted", () => {
    const t0 = Date.now();
    const r = run(a(), [ev([tx("a")], 5), ev([tx("b")]), stop(USAGE, "stop")]);
    expect(r.error).toBeUndefined();
    expect(items(r.out)).toEqual(["text.delta", "text.delta", "text.done", "stop"]);
    expect(r.out[0]!.created_at).toBe(5);
    expect(r.out[1]!.created_at).toBeGreaterThanOrEqual(t0); // its input event had none
    expect(r.out[2]!.created_at).toBe(5); // the .done open at the end: the last input event that had one
    expect(r.out[3]!.created_at).toBeGreaterThanOrEqual(t0); // no stop piece had one
  });
  test("a fidelity-only fragment under an embedding's id makes no second vector", () => {
    const r = run(a(), [ev([{ type: "embedding.delta", embedding: [1], fidelity: { item_id: "e" } }, tx("", { item_id: "e", sig: "s" })]), stop()]);
    expect(r.error).toBeUndefined();
    expect(items(r.out)).toEqual(["embedding.delta", "embedding.done", "stop"]);
  });
  test("no usage at the end: MmspError with MMSP's exact message", () => {
    const r = run(a(), [ev([tx("a")]), stop(null, "stop")]);
    expect((r.error as Error).message).toBe("Streaming response ended without usage_metadata");
  });
});
