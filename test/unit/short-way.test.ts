// Issue #30's short way, counted: the fused core (UniEventCore) with its grammar's `takeFragment`
// wrapped, so that each case says how many fragments were taken in one pass, and that the short way
// resumes after each entry the general way handles. (The shared cases, test/cases/short-way.ts, hold
// the verdicts of both ways together; these say the short way is taken at all.) Then the two checks
// it is built from: `plainDeltaItem` (the envelope) and `keepsHeader` (TOOL-HEADER).
import { describe, expect, test } from "vitest";
import { NEXT_CONNECTION, ReconnectingCore, UniEventCore, type UniEventStreamOptions } from "../../src/uni-event-stream.ts";
import { plainDeltaItem } from "../../src/decode/fast-validate.ts";
import { keepsHeader } from "../../src/assemble/kinds.ts";
import type { UniEvent } from "../../src/schema.ts";
import {
  delta, deltaItem, embedding, embeddingDone, inline, inlineDone, type Json, stop, stopOf, text, textDone, tool, toolDone,
} from "../fixtures.ts";

type Format = "sse" | "ndjson";

interface Read {
  /** The calls of `takeFragment` that took the fragment (returned true). */
  taken: number;
  /** All its calls. */
  calls: number;
  events: UniEvent[];
  error: (Error & { rule?: string; eventIndex?: number }) | undefined;
}

/** `core`'s grammar with its `takeFragment` counted into a fresh `Read`. */
function counted(core: UniEventCore): Read {
  const grammar = (core as unknown as { grammar: { takeFragment: (value: unknown, emit: (e: UniEvent) => void) => boolean } }).grammar;
  const take = grammar.takeFragment.bind(grammar);
  const r: Read = { taken: 0, calls: 0, events: [], error: undefined };
  grammar.takeFragment = (value, emit) => {
    r.calls++;
    const took = take(value, emit);
    if (took) r.taken++;
    return took;
  };
  return r;
}

/** Reads `body` through a fused core whose grammar's `takeFragment` is counted, in `chunks` equal pieces. */
function read(body: string, options: UniEventStreamOptions = {}, chunks = 1): Read {
  const core = new UniEventCore(options, {});
  const r = counted(core);
  const emit = (e: UniEvent): void => void r.events.push(e);
  const bytes = new TextEncoder().encode(body);
  const size = Math.ceil(bytes.length / chunks);
  try {
    for (let at = 0; at < bytes.length; at += size) core.push(bytes.subarray(at, at + size), emit);
    core.end(emit);
  } catch (e) {
    r.error = e as Read["error"];
  }
  return r;
}

/** The wire text of records (an event, or text as is), SSE (`sse`: how a record is written) or NDJSON. */
function wire(records: (Json | string)[], format: Format, sse = (data: string) => `data: ${data}\n\n`): string {
  const texts = records.map((r) => (typeof r === "string" ? r : JSON.stringify(r)));
  return format === "sse" ? texts.map(sse).join("") + "data: [DONE]\n\n" : texts.map((t) => t + "\n").join("");
}

const TEN = 10;
const plain = (n: number): Json[] => Array.from({ length: n }, (_, i) => delta(text(`p${i} `)));
const joined = (n: number): string => Array.from({ length: n }, (_, i) => `p${i} `).join("");
/** A text group: its first, ten plain, the entry (its text: `entryText`), ten plain, the .done, then the stop. */
const textStream = (entry: (Json | string)[], entryText = "", fidelity?: Json): (Json | string)[] => [
  delta(text("a ")), ...plain(TEN), ...entry, ...plain(TEN), delta(textDone(`a ${joined(TEN)}${entryText}${joined(TEN)}`, fidelity)), stop(),
];
const plainTool = (n: number): Json[] => Array.from({ length: n }, () => delta(tool("", "", "x")));
/** A tool call: its first, ten plain, the entry (arguments "y"), ten plain, the closing `"}` (plain too), the .done, the stop. */
const toolStream = (entry: Json[]): Json[] => [
  delta(tool("fn", "call_1", '{"a":"')), ...plainTool(TEN), ...entry, ...plainTool(TEN), delta(tool("", "", '"}')),
  delta(toolDone("fn", "call_1", { a: `${"x".repeat(TEN)}${entry.length ? "y" : ""}${"x".repeat(TEN)}` })), stop("tool_call"),
];
const noCreatedAt = (e: Json): Json => {
  const { created_at: _, ...rest } = e;
  return rest;
};
const fid = { signature: "s" };

/** Reads in both formats, whole and in 7 pieces: the same count each time, and no error. */
function taken(
  records: (Json | string)[],
  options: UniEventStreamOptions = {},
  formats: Format[] = ["sse", "ndjson"],
  sse?: (d: string) => string,
  delivered = records.length,
): number {
  const counts = new Set<number>();
  for (const format of formats) {
    for (const chunks of [1, 7]) {
      const r = read(wire(records, format, sse), { format, ...options }, chunks);
      expect(r.error, `${format}, ${chunks} chunk(s)`).toBeUndefined();
      expect(r.events.length, `${format}: every event delivered`).toBe(delivered);
      counts.add(r.taken);
    }
  }
  expect(counts.size, "the same count in every format and chunking").toBe(1);
  return [...counts][0]!;
}

describe("the short way is taken, and taken again after each entry the general way handles", () => {
  // the group's first, the entry (unless it is plain itself), the .done and the stop go the general way
  test("plain fragments only: all twenty", () => expect(taken(textStream([]))).toBe(20));
  test("a fragment with fidelity: the twenty around it", () => expect(taken(textStream([delta(text("f", fid))], "f", fid))).toBe(20));
  test("the group's first with fidelity: the twenty after it", () => {
    const s = textStream([]);
    s[0] = delta(text("a ", fid));
    s[s.length - 2] = delta(textDone(`a ${joined(TEN)}${joined(TEN)}`, fid));
    expect(taken(s)).toBe(20);
  });
  test("an unknown member on the item (a string, an object): the twenty around it", () => {
    expect(taken(textStream([delta({ ...text("u"), extra: "x" })], "u"))).toBe(20);
    expect(taken(textStream([delta({ ...text("u"), extra: { a: 1 } })], "u"))).toBe(20);
  });
  test("an error member that is null on the event: the twenty around it", () => expect(taken(textStream([{ ...delta(text("u")), error: null }], "u"))).toBe(20));
  test("an item of a kind this version does not know, skipped (unknownItems: skip): the twenty around it", () => {
    const warned: string[] = [];
    const s = textStream([delta({ type: "audio.delta", audio: "x" })]);
    expect(taken(s, { unknownItems: "skip", onWarning: (w) => void warned.push(w.itemType) }, ["sse"], undefined, s.length - 1)).toBe(20);
    expect(warned).toEqual(["audio.delta", "audio.delta"]); // (read whole and in pieces)
  });
  test("a reconnect mid-group (fromFetch's core): the new body's plain fragments, the events sent again skipped before the grammar", () => {
    const core = new ReconnectingCore({});
    const r = counted(core);
    const emit = (e: UniEvent): void => void r.events.push(e);
    const s = textStream([]);
    const framed = (from: number, to: number) => s.slice(from, to).map((e, i) => `id: ${from + i}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    core.answer("sse", {});
    core.push(new TextEncoder().encode(framed(0, 8)), emit);
    core.push(NEXT_CONNECTION, emit);
    // the resume sends events 5–7 again, then the rest
    core.push(new TextEncoder().encode(framed(5, s.length) + "data: [DONE]\n\n"), emit);
    core.end(emit);
    expect(r.error).toBeUndefined();
    expect(r.events).toEqual(s);
    expect([r.taken, r.calls]).toEqual([20, s.length]);
  });
  test("an unknown member on the event: the twenty around it", () => expect(taken(textStream([{ ...delta(text("u")), extra: 1 }], "u"))).toBe(20));
  test("a fragment without created_at is plain: twenty-one", () => expect(taken(textStream([noCreatedAt(delta(text("n")))], "n"))).toBe(21));
  test("events without created_at at all: twenty", () => expect(taken(textStream([]).map((e) => noCreatedAt(e as Json)))).toBe(20));
  test("a tool call: its plain fragments and the closing one; a fragment repeating the header, or the id, or with it empty, is plain too", () => {
    expect(taken(toolStream([]))).toBe(21);
    expect(taken(toolStream([delta(tool("fn", "call_1", "y"))]))).toBe(22);
    expect(taken(toolStream([delta(tool("", "call_1", "y"))]))).toBe(22);
    expect(taken(toolStream([delta(tool("fn", "", "y"))]))).toBe(22);
    expect(taken(toolStream([delta(tool("", "", "y"))]))).toBe(22);
  });
  test("SSE comments and keep-alives between events: the twenty", () => {
    const body = wire(textStream([]), "sse").replace(`data: ${JSON.stringify(plain(TEN)[TEN - 1])}\n\n`, (m) => `${m}: keep-alive\n\n:\n: ping\n`);
    expect(body).toContain(": ping\n");
    const r = read(body);
    expect(r.error).toBeUndefined();
    expect(r.taken).toBe(20);
  });
  test("SSE id and event lines (the relay's framing): all twenty", () => {
    let i = 0;
    expect(taken(textStream([]), {}, ["sse"], (d) => `id: ${i++}\ndata: ${d}\n\n`)).toBe(20);
    expect(taken(textStream([]), {}, ["sse"], (d) => `event: message\nid: 1\ndata: ${d}\n\n`)).toBe(20);
  });
  test("a data line split in two data lines is a plain fragment still: all twenty", () => {
    const split = (d: string) => `data: ${d.slice(0, d.indexOf(",") + 1)}\ndata: ${d.slice(d.indexOf(",") + 1)}\n\n`;
    expect(taken(textStream([]), {}, ["sse"], split)).toBe(20);
  });
  test("CRLF line ends: all twenty", () => {
    for (const format of ["sse", "ndjson"] as const) {
      const r = read(wire(textStream([]), format).replaceAll("\n", "\r\n"), { format });
      expect(r.error, format).toBeUndefined();
      expect(r.taken, format).toBe(20);
    }
  });
  test("a group of another kind after the .done: both groups' plain fragments", () => {
    const t = textStream([]).slice(0, -1);
    expect(taken([...t, ...toolStream([])])).toBe(20 + 21);
  });
  test("an inline_data group and an embedding group between text groups: the text groups' (inline bytes are base64 on the wire: the general way)", () => {
    const t = textStream([]).slice(0, -1);
    const audio = [delta(inline("UklGRg==", "audio/wav")), ...Array.from({ length: TEN }, () => delta(inline("AAEC", "audio/wav")))];
    const media = [...audio, delta(inlineDone(b64All(audio), "audio/wav")), delta(embedding([1, 2])), delta(embeddingDone([1, 2]))];
    expect(taken([...t, ...media, ...textStream([])])).toBe(40);
  });
  test("a record whose inline bytes were captured (past 1 MiB, carried across chunks) is not asked: the general way", () => {
    const big = btoa("\u00ff\u0001\u0002".repeat(400_000)); // 1.6 MB of base64
    const records = [...textStream([]).slice(0, -1), delta(inline("AAEC", "audio/wav")), delta(inline(big, "audio/wav")), delta(inlineDone("AAEC" + big, "audio/wav")), stop()];
    for (const format of ["sse", "ndjson"] as const) {
      const r = read(wire(records, format), { format }, 16);
      expect(r.error, format).toBeUndefined();
      // every record but the two captured ones (the big fragment and its .done)
      expect([r.taken, r.calls], format).toEqual([20, records.length - 2]);
    }
  });
  test("maxDepth 3, the least the short way needs: all twenty; maxDepth 2 turns it off (the first event is past the limit)", () => {
    expect(taken(textStream([]), { maxDepth: 3 })).toBe(20);
    const r = read(wire(textStream([]), "sse"), { maxDepth: 2 });
    expect([r.error?.rule, r.error?.eventIndex, r.taken, r.calls]).toEqual(["LIMIT", 0, 0, 1]);
  });
  test("assemble mode: none (asked every record, never taken)", () => {
    const input = [deltaItem(text("a ")), ...plain(TEN).map(noCreatedAt), stopOf()];
    const r = read(wire(input, "ndjson"), { format: "ndjson", mode: "assemble" });
    expect(r.error).toBeUndefined();
    expect([r.taken, r.calls]).toEqual([0, TEN + 2]);
  });
  test("after an invalid entry, the plain fragments behind it are never reached", () => {
    const cases: [Json | string, string][] = [
      [delta(text("i", { item_id: "x" })), "NO-ITEM-ID"],
      [delta(text("c"), 1.5), "SCHEMA"],
      [{ ...delta(text("u")), role: "user" }, "ROLE"],
      [{ ...delta(text("u")), content_items: [text("u"), text("v")] }, "DELTA-SHAPE"],
      ['{"role":', "JSON"],
      [delta(tool("", "", "x")), "NO-INTERLEAVE"],
    ];
    for (const [entry, rule] of cases) {
      for (const format of ["sse", "ndjson"] as const) {
        const r = read(wire(textStream([entry]), format), { format });
        // (a record that is not JSON fails before the grammar is asked)
        const calls = rule === "JSON" ? TEN + 1 : TEN + 2;
        expect([r.error?.rule, r.error?.eventIndex, r.taken, r.calls, r.events.length], `${rule} (${format})`).toEqual([rule, 11, TEN, calls, 11]);
      }
    }
    const second = read(wire(textStream([delta(text("f", fid)), ...plain(3), delta(text("g", fid))]), "sse"));
    expect([second.error?.rule, second.error?.eventIndex, second.taken]).toEqual(["FIDELITY-ONCE", 15, TEN + 3]);
  });
  test("a .done that does not match the fragments taken the short way: DONE-CONTENT after all twenty", () => {
    const s = textStream([]);
    s[s.length - 2] = delta(textDone("a p0 "));
    const r = read(wire(s, "sse"));
    expect([r.error?.rule, r.error?.eventIndex, r.taken]).toEqual(["DONE-CONTENT", 21, 20]);
  });
});

/** The base64 of an audio group's fragments joined. */
function b64All(fragments: Json[]): string {
  const bytes = fragments.flatMap((e) => [...atob(((e.content_items as Json[])[0]!.data) as string)]);
  return btoa(bytes.join(""));
}

describe("plainDeltaItem: the envelope of an event that takes the short way", () => {
  const item = { type: "text.delta", text: "a" };
  const ok = { role: "assistant", event_type: "delta", content_items: [item], usage_metadata: null, finish_reason: null, created_at: 5 };
  test("the item of a delta with nothing but its members, created_at an integer or absent", () => {
    expect(plainDeltaItem(ok)).toBe(item);
    expect(plainDeltaItem(noCreatedAt(ok))).toBe(item);
    expect(plainDeltaItem({ ...ok, created_at: 0 })).toBe(item);
    expect(plainDeltaItem(Object.assign(Object.create(null), ok))).toBe(item);
    // what the item is, is the caller's: any plain object passes here
    expect(plainDeltaItem({ ...ok, content_items: [{}] })).toEqual({});
  });
  test.each<[string, Record<string, unknown>]>([
    ["role user", { ...ok, role: "user" }],
    ["role missing", noRole(ok)],
    ["a stop event", { ...ok, event_type: "stop" }],
    ["usage_metadata not null", { ...ok, usage_metadata: {} }],
    ["usage_metadata missing", { ...ok, usage_metadata: undefined }],
    ["finish_reason not null", { ...ok, finish_reason: "stop" }],
    ["created_at 1.5", { ...ok, created_at: 1.5 }],
    ["created_at a string", { ...ok, created_at: "5" }],
    ["created_at null", { ...ok, created_at: null }],
    ["created_at past 2^53", { ...ok, created_at: 2 ** 53 }],
    ["an unknown member", { ...ok, extra: 1 }],
    ["an unknown member instead of created_at", { ...noCreatedAt(ok), extra: 1 }],
    ["no items", { ...ok, content_items: [] }],
    ["two items", { ...ok, content_items: [item, item] }],
    ["content_items not an array", { ...ok, content_items: { 0: item } }],
    ["an item that is an array", { ...ok, content_items: [[item]] }],
    ["an item that is null", { ...ok, content_items: [null] }],
    ["an item that is a string", { ...ok, content_items: ["text.delta"] }],
    ["an item that is a Map", { ...ok, content_items: [new Map()] }],
  ])("undefined for %s", (_, v) => expect(plainDeltaItem(v)).toBeUndefined());
});

function noRole(e: Json): Json {
  const { role: _, ...rest } = e;
  return rest;
}

describe("keepsHeader: a later fragment keeps its group's header (TOOL-HEADER)", () => {
  const header = ["name", "tool_call_id"];
  const first = { type: "tool_call.delta", name: "fn", tool_call_id: "c1", arguments: "" };
  const later = (name: unknown, id: unknown) => ({ type: "tool_call.delta", name, tool_call_id: id, arguments: "x" });
  test("each member empty or the first's", () => {
    expect(keepsHeader(header, later("", ""), first)).toBe(true);
    expect(keepsHeader(header, later("fn", "c1"), first)).toBe(true);
    expect(keepsHeader(header, later("", "c1"), first)).toBe(true);
    expect(keepsHeader(header, later("fn", ""), first)).toBe(true);
  });
  test("another name or id, or one missing, does not", () => {
    expect(keepsHeader(header, later("other", ""), first)).toBe(false);
    expect(keepsHeader(header, later("", "c2"), first)).toBe(false);
    expect(keepsHeader(header, later("fn", "c2"), first)).toBe(false);
    expect(keepsHeader(header, later("FN", "c1"), first)).toBe(false);
    expect(keepsHeader(header, { type: "tool_call.delta", arguments: "x" }, first)).toBe(false);
    expect(keepsHeader(header, later(null, ""), first)).toBe(false);
  });
  test("a kind without a header: any fragment keeps it", () => {
    expect(keepsHeader([], { type: "text.delta", text: "a", name: "x" }, { type: "text.delta", text: "" })).toBe(true);
  });
});
