// Issue #30's short way (validator.ts `takeFragment`): a fragment continuing the open group is taken
// in one pass, everything else goes the general way. A case per fallback entry proves the switch back
// and forth: a group's first fragment, plain continuing fragments, THE ENTRY, plain fragments again,
// the .done and the stop, in SSE and NDJSON, read whole, byte by byte and in random chunkings by the
// fused reader and by the chained stages: one outcome on every path, and the expected one.
import fc from "fast-check";
import { holds } from "../property.ts";
import { assertEqual, splitAt, utf8, type Case } from "../harness.ts";
import { cuts } from "../arbitraries.ts";
import { referenceParse } from "../json-reference.ts";
import {
  delta, embedding, embeddingDone, inline, inlineDone, stop, text, textDone, thinking, thinkingDone, tool, toolDone, type Json,
} from "../fixtures.ts";
import { fused, staged } from "./paths.ts";

type Format = "sse" | "ndjson";
type Limits = { maxDepth?: number };

/**
 * One record as written: its text (an event's JSON, or text that is none), and how SSE frames it
 * (default `data: <text>`); `between`: lines between records, SSE only (a comment, a keep-alive).
 */
type Rec = { data: string; event?: Json; sse?: string; bad?: true } | { between: string };

const ev = (event: Json, sse?: (data: string) => string): Rec => {
  const data = JSON.stringify(event);
  return { data, event, ...(sse ? { sse: sse(data) } : {}) };
};
const raw = (data: string): Rec => ({ data });

/** The wire text of `recs` in `format`, lines ended by `eol` (SSE: then `[DONE]`); `cut`: the body ends inside the last record (before its line end). */
function wire(recs: Rec[], format: Format, eol = "\n", cut = false): Uint8Array {
  let out = "";
  for (const r of recs) {
    if ("between" in r) {
      if (format === "sse") out += r.between.replaceAll("\n", eol);
    } else if (format === "ndjson") out += r.data + eol;
    else out += (r.sse ?? `data: ${r.data}\n\n`).replaceAll("\n", eol);
  }
  if (cut) return utf8(out.slice(0, -(format === "sse" ? 2 : 1) * eol.length));
  return utf8(format === "sse" ? out + `data: [DONE]${eol}${eol}` : out);
}

// ---- the groups the entries go in ---------------------------------------------------------------

const N = 4;
const plainText = (n: number, from = 0): Json[] => Array.from({ length: n }, (_, i) => delta(text(`p${from + i} `)));
const plainTool = (n: number): Json[] => Array.from({ length: n }, () => delta(tool("", "", "x")));

const itemOf = (e: Json): Json => (e.content_items as Json[])[0]!;
/** The fidelity of a group's fragments (the one that carries one), for its `.done`. */
const fidelityOf = (frags: Json[]): Json | undefined => frags.map((e) => itemOf(e).fidelity as Json | undefined).find((f) => f !== undefined);

/** A text group: its first, N plain, the middle, N plain, and the `.done` the fragments build. */
function textGroup(middle: Json[], first = delta(text("a "))): Json[] {
  const frags = [first, ...plainText(N), ...middle, ...plainText(N, N)];
  const joined = frags.map((e) => itemOf(e).text).join("");
  return [...frags, delta(textDone(joined, fidelityOf(frags)))];
}

/** A tool call: its first (the header, `{"a":"`), N plain, the middle, N plain, `"}` and the `.done`. */
function toolGroup(middle: Json[]): Json[] {
  const frags = [delta(tool("fn", "call_1", '{"a":"')), ...plainTool(N), ...middle, ...plainTool(N), delta(tool("", "", '"}'))];
  const args = referenceParse(frags.map((e) => itemOf(e).arguments).join("")) as Json;
  return [...frags, delta(toolDone("fn", "call_1", args))];
}

const noCreatedAt = (e: Json): Json => {
  const { created_at: _, ...rest } = e;
  return rest;
};

// ---- what each case expects ------------------------------------------------------------------------

const bytesOf = (s: string): Uint8Array => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
/** An event as the reader hands it on (inline base64 decoded to bytes). */
const decoded = (e: Json): Json => ({
  ...e,
  content_items: (e.content_items as Json[]).map((i) => ((i.type as string).startsWith("inline_") ? { ...i, data: bytesOf(i.data as string) } : i)),
});

/** The message of a valid stream: its `.done` items, the stop's usage, finish reason and time. */
function messageOf(events: Json[]): Json {
  const last = events[events.length - 1]!;
  const items = events.filter((e) => e.event_type === "delta").map((e) => decoded(e).content_items as Json[]).map((i) => i[0]!)
    .filter((i) => (i.type as string).endsWith(".done"));
  return {
    role: "assistant", content_items: items, usage_metadata: last.usage_metadata, finish_reason: last.finish_reason,
    ...(last.created_at !== undefined ? { created_at: last.created_at } : {}),
  };
}

interface Script {
  name: string;
  recs: Rec[];
  formats?: Format[];
  eol?: string;
  limits?: Limits;
  /** The body ends inside its last record. */
  cut?: boolean;
  /** Invalid: the error class, its rule (undefined for an `UpstreamError`) and the event it blames. */
  error?: { class: string; rule: string | undefined; at: number };
}

const valid = (name: string, events: Json[], more: Partial<Script> = {}): Script => ({ name, recs: events.map((e) => ev(e)), ...more });
const invalid = (name: string, recs: Rec[], cls: string, rule: string | undefined, more: Partial<Script> = {}): Script => {
  const at = recs.filter((r) => !("between" in r)).findIndex((r) => "bad" in r && r.bad);
  if (at < 0) throw new Error(`${name}: no record is marked bad`);
  return { name, recs, error: { class: cls, rule, at }, ...more };
};
/** The record the error must blame. */
const bad = (r: Rec): Rec => ({ ...r, bad: true });
const evs = (events: Json[]): Rec[] => events.map((e) => ev(e));
/** A text group: its first, N plain, `before`, then `entry` (the record to blame), then N plain, a .done and the stop. */
const breaks = (entry: Rec, before: Json[] = []): Rec[] => {
  const [first, ...rest] = textGroup([]);
  const plains = rest.slice(0, N);
  return [ev(first!), ...evs(plains), ...evs(before), bad(entry), ...evs(plainText(N, N)), ev(delta(textDone("x"))), ev(stop())];
};

const S = stop();
const fid = { signature: "sig" };
const ERROR = { error: { type: "RateLimitError", message: "slow down" } };
const splitData = (data: string): string => {
  const at = data.indexOf(",") + 1; // after `"role":"assistant",`: JSON whitespace where SSE joins the lines
  return `data: ${data.slice(0, at)}\ndata: ${data.slice(at)}\n\n`;
};

const SCRIPTS: Script[] = [
  // valid entries: the events out are the events in
  valid("a later fragment with fidelity", [...textGroup([delta(text("f", fid))]), S]),
  valid("the group's first fragment with fidelity", [...textGroup([], delta(text("a ", fid))), S]),
  valid("a fragment with fidelity and nothing to add (signature only)", [...textGroup([delta(text("", fid))]), S]),
  valid("a fragment with an unknown member (a string)", [...textGroup([delta({ ...text("u"), extra: "x" })]), S]),
  valid("a fragment with an unknown member (an object)", [...textGroup([delta({ ...text("u"), extra: { a: [1] } })]), S]),
  valid("an event with an unknown member", [...textGroup([{ ...delta(text("u")), extra: 1 }]), S]),
  valid("an event with an error member that is null", [...textGroup([{ ...delta(text("u")), error: null }]), S]),
  valid("created_at absent on some events", [...textGroup([noCreatedAt(delta(text("n"))), delta(text("m")), noCreatedAt(delta(text("o")))]), noCreatedAt(S)]),
  valid("created_at absent on the first, present after", [...textGroup([], noCreatedAt(delta(text("a ")))), S]),
  valid("a tool call's fragment repeating the header (the same name and id)", [...toolGroup([delta(tool("fn", "call_1", "r"))]), stop("tool_call")]),
  valid("a tool call's fragment repeating the id only", [...toolGroup([delta(tool("", "call_1", "r"))]), stop("tool_call")]),
  valid("a tool call's fragment with the header empty", [...toolGroup([delta(tool("", "", "e"))]), stop("tool_call")]),
  valid("a thinking group, then a text group", [
    delta(thinking("t")), ...Array.from({ length: N }, () => delta(thinking("k"))), delta(thinkingDone("t" + "k".repeat(N))), ...textGroup([]), S,
  ]),
  valid("a group of another kind after the .done (a tool call after text)", [...textGroup([]), ...toolGroup([]), stop("tool_call")]),
  valid("an inline_data group and an embedding group between text groups", [
    ...textGroup([]), delta(inline("UklGRg==", "audio/wav")), delta(inline("AAEC", "audio/wav")), delta(inline("/w==", "audio/wav")),
    delta(inlineDone("UklGRgABAv8=", "audio/wav")), delta(embedding([0.5, -1])), delta(embeddingDone([0.5, -1])), ...textGroup([delta(text("z"))]), S,
  ]),
  valid("CRLF line ends", [...textGroup([delta(text("c"))]), S], { eol: "\r\n" }),
  // framing entries (SSE): what is between the records, and how a record is written
  { name: "SSE comment and keep-alive lines between events", recs: (() => {
    const [first, ...rest] = textGroup([]);
    return [ev(first!), ...evs(rest.slice(0, N)), { between: ": keep-alive\n\n" }, { between: ":\n" }, ...evs(rest.slice(N)), { between: ": ping\n\n" }, ev(S)];
  })(), formats: ["sse"] },
  { name: "SSE id lines (the relay's framing)", recs: [...textGroup([]), S].map((e, i) => ev(e, (d) => `id: ${i}\ndata: ${d}\n\n`)), formats: ["sse"] },
  { name: "SSE event and id lines on one record mid-group", recs: (() => {
    const g = textGroup([delta(text("i"))]);
    return [...evs(g.slice(0, N + 1)), ev(g[N + 1]!, (d) => `event: message\nid: 7\ndata: ${d}\n\n`), ...evs(g.slice(N + 2)), ev(S)];
  })(), formats: ["sse"] },
  { name: "a data line split in two data lines", recs: (() => {
    const g = textGroup([delta(text("s"))]);
    return [...evs(g.slice(0, N + 1)), ev(g[N + 1]!, splitData), ...evs(g.slice(N + 2)), ev(S)];
  })(), formats: ["sse"] },
  { name: "SSE CRLF with comments, id lines and a split data line", recs: (() => {
    const g = textGroup([delta(text("s"))]);
    return [...evs(g.slice(0, N)), { between: ": c\n" }, ev(g[N]!, (d) => `id: 3\ndata: ${d}\n\n`), ev(g[N + 1]!, splitData), ...evs(g.slice(N + 2)), ev(S)];
  })(), formats: ["sse"], eol: "\r\n" },

  // invalid entries: the error at the entry, every event before it delivered
  invalid("fidelity.item_id", breaks(ev(delta(text("i", { item_id: "x" })))), "StreamProtocolError", "NO-ITEM-ID"),
  invalid("a second fragment with fidelity", breaks(ev(delta(text("g", { signature: "b" }))), [delta(text("f", fid)), ...plainText(2)]), "StreamProtocolError", "FIDELITY-ONCE"),
  invalid("a tool call's fragment with another name", (() => {
    const g = toolGroup([]);
    return [...evs(g.slice(0, N + 1)), bad(ev(delta(tool("other", "call_1", "x")))), ...evs(g.slice(N + 1)), ev(stop("tool_call"))];
  })(), "StreamProtocolError", "TOOL-HEADER"),
  invalid("a tool call's fragment with another id", (() => {
    const g = toolGroup([]);
    return [...evs(g.slice(0, N + 1)), bad(ev(delta(tool("", "call_2", "x")))), ...evs(g.slice(N + 1)), ev(stop("tool_call"))];
  })(), "StreamProtocolError", "TOOL-HEADER"),
  invalid("a fragment of another kind while the group is open", breaks(ev(delta(thinking("t")))), "StreamProtocolError", "NO-INTERLEAVE"),
  invalid("created_at 1.5", breaks(ev(delta(text("c"), 1.5))), "StreamProtocolError", "SCHEMA"),
  invalid("created_at a string", breaks(ev(delta(text("c"), "1" as unknown as number))), "StreamProtocolError", "SCHEMA"),
  invalid("text not a string", breaks(ev(delta({ type: "text.delta", text: 5 }))), "StreamProtocolError", "SCHEMA"),
  invalid("a fragment without its member", breaks(ev(delta({ type: "text.delta" }))), "StreamProtocolError", "SCHEMA"),
  invalid("usage_metadata on a delta", breaks(ev({ ...delta(text("u")), usage_metadata: S.usage_metadata })), "StreamProtocolError", "DELTA-SHAPE"),
  invalid("finish_reason on a delta", breaks(ev({ ...delta(text("u")), finish_reason: "stop" })), "StreamProtocolError", "DELTA-SHAPE"),
  invalid("two items", breaks(ev({ ...delta(text("u")), content_items: [text("u"), text("v")] })), "StreamProtocolError", "DELTA-SHAPE"),
  invalid("role user", breaks(ev({ ...delta(text("u")), role: "user" })), "StreamProtocolError", "ROLE"),
  invalid("an error record mid-group", breaks(ev(ERROR)), "UpstreamError", undefined),
  invalid("a fragment that carries an error member", breaks(ev({ ...noCreatedAt(delta(text("e"))), error: ERROR.error })), "UpstreamError", undefined),
  invalid("bad JSON mid-group", breaks(raw('{"role":"assistant",')), "StreamProtocolError", "JSON"),
  invalid("a JSON array record", breaks(raw(`[${JSON.stringify(delta(text("a")))}]`)), "StreamProtocolError", "JSON"),
  invalid("an unknown member nesting past maxDepth", breaks(ev(delta({ ...text("d"), extra: { a: { b: 1 } } }))), "StreamLimitError", "LIMIT", { limits: { maxDepth: 4 } }),
  invalid("an unknown member of the event nesting past maxDepth", breaks(ev({ ...delta(text("d")), extra: { a: { b: { c: { d: 1 } } } } })), "StreamLimitError", "LIMIT", { limits: { maxDepth: 4 } }),
  { name: "maxDepth 2 (the short way off): the limit on the first event", recs: evs([...textGroup([]), S]), limits: { maxDepth: 2 }, error: { class: "StreamLimitError", rule: "LIMIT", at: 0 } },
  invalid("a second embedding.delta", [...evs(textGroup([])), ev(delta(embedding([1]))), bad(ev(delta(embedding([2])))), ev(delta(embeddingDone([1]))), ev(S)], "StreamProtocolError", "ONE-VECTOR"),
  invalid("a .done that does not match the fragments taken the short way", (() => {
    const g = textGroup([]);
    return [...evs(g.slice(0, -1)), bad(ev(delta(textDone("a p0")))), ev(S)];
  })(), "StreamProtocolError", "DONE-CONTENT"),
  invalid("an event after the stop", [...evs(textGroup([])), ev(S), bad(ev(delta(text("late")))), ...evs(plainText(N))], "StreamProtocolError", "STOP-LAST"),
  { name: "the body ends after a plain fragment without its line end (truncated)", recs: evs(textGroup([]).slice(0, 2 * N + 1)), cut: true, error: { class: "StreamProtocolError", rule: "STOP-LAST", at: 2 * N + 1 } },
  { name: "the body ends inside a plain fragment (truncated)", recs: [...evs(textGroup([]).slice(0, N + 1)), raw(JSON.stringify(delta(text("p"))).slice(0, 40))], cut: true, error: { class: "StreamProtocolError", rule: "STOP-LAST", at: N + 1 } },
  invalid("the stop while the group is open", breaks(ev(S)), "StreamProtocolError", "CLOSED"),
];

// ---- reading each script every way ---------------------------------------------------------------

/** The paths a script is read by: fused whole, byte by byte and in random chunkings; staged whole and in random chunkings. */
async function everyPath(bytes: Uint8Array, format: Format, limits: Limits = {}) {
  const random = fc.sample(cuts(bytes.length), { seed: bytes.length, numRuns: 3 });
  const others = fc.sample(cuts(bytes.length), { seed: bytes.length + 1, numRuns: 3 });
  const bytewise = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
  const runs: [string, Promise<Awaited<ReturnType<typeof fused>>>][] = [
    ["fused whole", fused([bytes], format, "validate", limits)],
    ["fused byte by byte", fused(splitAt(bytes, bytewise), format, "validate", limits)],
    ...random.map((c): [string, ReturnType<typeof fused>] => [`fused cut at ${c}`, fused(splitAt(bytes, c), format, "validate", limits)]),
    ["staged whole", staged([bytes], format, "validate", limits)],
    ...others.map((c): [string, ReturnType<typeof fused>] => [`staged cut at ${c}`, staged(splitAt(bytes, c), format, "validate", limits)]),
  ];
  const outcomes: [string, Awaited<ReturnType<typeof fused>>][] = [];
  for (const [name, p] of runs) outcomes.push([name, await p]);
  const [, first] = outcomes[0]!;
  for (const [name, o] of outcomes) {
    assertEqual(o.sameError, true, `${name}: message rejects with the readable's error`);
    assertEqual(o.error, first.error, `${name}: the same error as fused whole`);
    assertEqual(o.events, first.events, `${name}: the same events as fused whole`);
    assertEqual(o.message, first.message, `${name}: the same message as fused whole`);
  }
  return first;
}

async function check(s: Script): Promise<void> {
  for (const format of s.formats ?? (["sse", "ndjson"] as const)) {
    const label = `${s.name} (${format})`;
    const o = await everyPath(wire(s.recs, format, s.eol, s.cut), format, s.limits);
    const events = s.recs.flatMap((r) => ("between" in r ? [] : [Array.isArray(r.event?.content_items) ? decoded(r.event!) : r.event]));
    if (s.error === undefined) {
      assertEqual(o.error, undefined, `${label}: no error`);
      assertEqual(o.events, events, `${label}: the events out are the events in`);
      assertEqual(o.message, messageOf(s.recs.flatMap((r) => ("event" in r && r.event ? [r.event] : []))), `${label}: the message`);
    } else {
      const e = o.error;
      assertEqual([e?.class, e?.rule, e?.eventIndex], [s.error.class, s.error.rule, s.error.at], `${label}: the error (${e?.message})`);
      assertEqual(o.events, events.slice(0, s.error.at), `${label}: every event before the entry delivered`);
    }
  }
}

// ---- the property: random entries at random places among plain fragments ---------------------------

type GroupKind = "text" | "tool";
const PLAIN: Record<GroupKind, () => Json> = { text: () => delta(text("p")), tool: () => delta(tool("", "", "x")) };
const FIRST: Record<GroupKind, () => Json> = { text: () => delta(text("a")), tool: () => delta(tool("fn", "call_1", '{"a":"')) };
const withItem = (e: Json, more: Json): Json => ({ ...e, content_items: [{ ...itemOf(e), ...more }] });

/** Entries in a group of `kind`, made from one of its plain fragments: events, framing, and (`bad`) ones that fail. */
const entries = (kind: GroupKind, bad: boolean): fc.Arbitrary<Rec[]> => fc.constantFrom<(p: Json) => Rec[]>(...(bad ? [
  (p: Json) => [ev(withItem(p, { fidelity: { item_id: "i" } }))],
  (p: Json) => [ev(withItem(p, { extra: { a: { b: [1] } } }))], // (valid but for a small maxDepth)
  (p: Json) => [ev({ ...p, extra: { a: { b: { c: { d: 1 } } } } })], // (valid but for a small maxDepth)
  (p: Json) => [ev({ ...p, created_at: 1.5 })],
  (p: Json) => [ev({ ...p, usage_metadata: S.usage_metadata })],
  (p: Json) => [ev({ ...p, content_items: [itemOf(p), itemOf(p)] })],
  (p: Json) => [ev({ ...p, role: "user" })],
  (p: Json) => [ev(withItem(p, kind === "text" ? { text: 5 } : { arguments: {} }))],
  (p: Json) => [ev(withItem(p, kind === "text" ? { type: "thinking.delta", thinking: "t", text: undefined } : { name: "other" }))],
  (p: Json) => [ev(withItem(p, kind === "text" ? { type: "text.done" } : { tool_call_id: "call_2" }))],
  () => [ev(ERROR)],
  (p: Json) => [ev({ ...noCreatedAt(p), error: ERROR.error })],
  () => [raw('{"role":')],
  () => [raw("[1]")],
  () => [ev(delta(embedding([1])))],
  () => [ev(S)],
] : [
  (p: Json) => [ev(withItem(p, { fidelity: fid }))], // (a second one fails: FIDELITY-ONCE)
  (p: Json) => [ev(withItem(p, { extra: "x" }))],
  (p: Json) => [ev({ ...p, extra: 1 })],
  (p: Json) => [ev(noCreatedAt(p))],
  (p: Json) => [ev(withItem(p, kind === "text" ? { text: "" } : { name: "fn", tool_call_id: "call_1" }))],
  (p: Json) => [ev(withItem(p, kind === "text" ? { text: "é\n\"" } : { tool_call_id: "call_1" }))],
  (p: Json) => [{ between: ": keep-alive\n\n" }, ev(p)],
  (p: Json) => [ev(p, (d) => `id: 9\ndata: ${d}\n\n`)],
  (p: Json) => [ev(p, splitData)],
])).map((make) => make(PLAIN[kind]()));

/** A group of `kind`: its first, plain fragments with entries among them, and a `.done` built from its fragments (or a wrong one). */
const randomGroup: fc.Arbitrary<Rec[]> = fc.constantFrom<GroupKind>("text", "tool").chain((kind) =>
  fc.tuple(
    fc.array(fc.oneof(
      { weight: 16, arbitrary: fc.constant([ev(PLAIN[kind]())]) },
      { weight: 3, arbitrary: entries(kind, false) },
      { weight: 1, arbitrary: entries(kind, true) },
    ), { minLength: 2, maxLength: 14 }),
    fc.integer({ min: 0, max: 9 }),
  ).map(([slots, wrong]) => {
    const recs = [ev(FIRST[kind]()), ...slots.flat()];
    if (kind === "tool") recs.push(ev(delta(tool("", "", '"}'))));
    const items = recs.flatMap((r) => ("event" in r && r.event && Array.isArray(r.event.content_items) ? [itemOf(r.event)] : []))
      .filter((i) => i !== undefined && i.type === (kind === "text" ? "text.delta" : "tool_call.delta"));
    const fidelity = items.map((i) => i.fidelity as Json | undefined).find((f) => f !== undefined);
    const grown = items.map((i) => (kind === "text" ? i.text : i.arguments)).filter((x) => typeof x === "string").join("");
    const joined = wrong === 0 ? grown.slice(1) : grown;
    let args: Json = {};
    try {
      args = referenceParse(joined) as Json;
    } catch {
      // (the arguments an entry broke: a .done that does not match)
    }
    recs.push(ev(delta(kind === "text" ? textDone(joined, fidelity) : toolDone("fn", "call_1", args, fidelity))));
    return recs;
  })
);
const randomStream = fc.tuple(fc.array(randomGroup, { minLength: 1, maxLength: 3 }), fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: entries("text", true) }))
  .map(([groups, after]) => [...groups.flat(), ev(stop("tool_call")), ...(after ?? [])]);

export const cases: Case[] = [
  ...SCRIPTS.map((s): Case => [s.name, () => check(s)]),
  ["random entries among plain fragments: fused whole, fused byte by byte and staged in random chunkings agree", async () => {
    // (maxDepth 2: the short way off, and the first event past it)
    const maxDepth = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: fc.integer({ min: 3, max: 5 }) }, { weight: 1, arbitrary: fc.constant(2) });
    await holds(
      fc.asyncProperty(randomStream, fc.constantFrom<Format>("sse", "ndjson"), fc.constantFrom("\n", "\r\n"), maxDepth, cuts(3000), async (recs, format, eol, depth, at) => {
        const bytes = wire(recs, format, eol);
        const limits = depth === undefined ? {} : { maxDepth: depth };
        const whole = await fused([bytes], format, "validate", limits);
        const bytewise = await fused(splitAt(bytes, Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)), format, "validate", limits);
        const chained = await staged(splitAt(bytes, at), format, "validate", limits);
        const label = `${format}, maxDepth ${depth}, stages cut at ${JSON.stringify(at)}: ${JSON.stringify(new TextDecoder().decode(bytes))}`;
        for (const [name, o] of [["fused byte by byte", bytewise], ["staged", chained]] as const) {
          assertEqual(o.sameError, true, `${name}: message rejects with the readable's error (${label})`);
          assertEqual(o.error, whole.error, `${name}: the same error as fused whole (${label})`);
          assertEqual(o.events, whole.events, `${name}: the same events as fused whole (${label})`);
          assertEqual(o.message, whole.message, `${name}: the same message as fused whole (${label})`);
        }
      }),
      { numRuns: 60 },
    );
  }],
];
