// Cases for PartialJsonParser: property tests against JSON (referenceParse: what JSON.parse accepts, the
// value read from the text's characters, test/json-reference.ts), specific partial states,
// prototype-pollution safety and invalid input. Web-standard APIs only.
import fc from "fast-check";
import { holds } from "../property.ts";
import { type Case, assert, assertEqual, deepEqual, show } from "../harness.ts";
import { PartialJsonParser } from "../../dist/index.js";
import { referenceParse } from "../json-reference.ts";

// ---------------------------------------------------------------------------------------------
// Helpers

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: referenceParse(text) };
  } catch {
    return { ok: false };
  }
}

/** Escapes every non-ASCII UTF-16 unit as \uXXXX (surrogate pairs become two escapes). */
function escapeNonAscii(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/** The JSON texts a value is fed as: compact, pretty-printed and with forced \u escapes. */
function textsOf(v: unknown): string[] {
  const compact = JSON.stringify(v);
  return [compact, JSON.stringify(v, null, 2), escapeNonAscii(compact)];
}

/** Deep copy that keeps `__proto__` keys as data (for snapshots of the live value). */
function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (v !== null && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) {
      const value = clone((v as Record<string, unknown>)[k]);
      Object.defineProperty(o, k, { value, writable: true, enumerable: true, configurable: true });
    }
    return o;
  }
  return v;
}

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;

// Assertions with lazily built messages (the property tests run them very often).
function check(cond: unknown, message: () => string): asserts cond {
  if (!cond) assert(false, message());
}
function checkEqual(actual: unknown, expected: unknown, message: () => string): void {
  if (!deepEqual(actual, expected)) assertEqual(actual, expected, message());
}

/** Cheap necessary condition for `text` to be valid JSON (avoids most throwing JSON.parse calls). */
function mayBeJson(text: string): boolean {
  let i = text.length - 1;
  while (i >= 0 && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i--;
  if (i < 0) return false;
  const c = text[i]!;
  return c === "}" || c === "]" || c === '"' || c === "e" || c === "l" || (c >= "0" && c <= "9");
}

/**
 * Test oracle, independent of the parser: tracks brackets, strings and pending keys of a growing
 * prefix and produces the JSON text that the partial-value rules say the prefix stands for
 * (drop a half-typed escape / trailing high surrogate and close the string, drop a pending key,
 * a dangling comma, an incomplete number tail or literal, then close all brackets). When that text
 * parses, the parser's value must equal it.
 */
class PrefixOracle {
  text = "";
  private stack: string[] = [];
  private inStr = false;
  private esc = false;
  private uLeft = 0;
  private escStart = -1;
  private highStart = -1;
  private expectKey = false;
  private keyStart = -1;

  push(ch: string): void {
    const i = this.text.length;
    this.text += ch;
    const c = ch.charCodeAt(0);
    if (this.inStr) {
      if (this.uLeft > 0) {
        if (--this.uLeft === 0) {
          const code = parseInt(this.text.slice(i - 3, i + 1), 16);
          this.highStart = isHigh(code) ? this.escStart : -1;
          this.escStart = -1;
        }
      } else if (this.esc) {
        this.esc = false;
        if (ch === "u") this.uLeft = 4;
        else this.highStart = this.escStart = -1;
      } else if (ch === "\\") {
        this.esc = true;
        this.escStart = i;
      } else if (ch === '"') {
        this.inStr = false;
      } else {
        this.highStart = isHigh(c) ? i : -1;
      }
      return;
    }
    if (ch === " " || ch === "\n" || ch === "\r" || ch === "\t") return;
    if (this.keyStart >= 0 && ch !== ":") this.keyStart = -1; // the key's value has started
    switch (ch) {
      case '"':
        this.inStr = true;
        this.highStart = this.escStart = -1;
        if (this.expectKey) this.keyStart = i;
        break;
      case "{":
        this.stack.push("}");
        break;
      case "[":
        this.stack.push("]");
        break;
      case "}":
      case "]":
        this.stack.pop();
        break;
    }
    this.expectKey = ch === "{" || (ch === "," && this.stack[this.stack.length - 1] === "}");
  }

  /** Outside any string and bracket: the only prefixes that can be complete JSON texts. */
  balanced(): boolean {
    return !this.inStr && this.stack.length === 0;
  }

  completion(): string {
    let body: string;
    if (this.keyStart >= 0) {
      body = this.text.slice(0, this.keyStart).trimEnd();
      if (body.endsWith(",")) body = body.slice(0, -1);
    } else if (this.inStr) {
      const cut = this.highStart >= 0 ? this.highStart : this.escStart >= 0 ? this.escStart : this.text.length;
      body = this.text.slice(0, cut) + '"';
    } else {
      body = this.text
        .trimEnd()
        .replace(/(\d)(?:\.|[eE][+-]?)$/, "$1")
        .replace(/(^|[[,:\s])(?:-|t|tr|tru|f|fa|fal|fals|n|nu|nul)$/, "$1")
        .trimEnd();
      if (body.endsWith(",")) body = body.slice(0, -1);
    }
    return body + [...this.stack].reverse().join("");
  }
}

/** Checks the value of a parser that has been fed exactly `prefix`. */
function checkPrefix(p: PartialJsonParser, prefix: string, oracle?: PrefixOracle): void {
  check(p.error === undefined, () => `unexpected error ${p.error} after ${show(prefix)}`);
  const direct = (!oracle || oracle.balanced()) && mayBeJson(prefix) ? tryParse(prefix) : { ok: false as const };
  if (direct.ok) checkEqual(p.value, direct.value, () => `prefix ${show(prefix)} is valid JSON`);
  if (oracle) {
    const completed = oracle.completion();
    const c = tryParse(completed);
    if (c.ok) checkEqual(p.value, c.value, () => `prefix ${show(prefix)} (as ${show(completed)})`);
  }
}

/** Checks the final state after the whole text was fed. */
function checkFinal(
  p: PartialJsonParser,
  text: string,
  expected: unknown = referenceParse(text),
  expectedJson = JSON.stringify(expected),
): void {
  p.end();
  check(p.error === undefined, () => `unexpected error ${p.error} for ${show(text)}`);
  check(p.done, () => `not done after ${show(text)}`);
  checkEqual(p.value, expected, () => `final value of ${show(text)}`);
  check(JSON.stringify(p.value) === expectedJson, () => `key order of ${show(text)}`);
}

/** Splits `text` at every position into two fragments. */
function checkEverySplit(text: string): void {
  const expected = referenceParse(text);
  const expectedJson = JSON.stringify(expected);
  const oracle = new PrefixOracle();
  for (let k = 0; k <= text.length; k++) {
    if (k > 0) oracle.push(text[k - 1]!);
    const p = new PartialJsonParser();
    const prefix = text.slice(0, k);
    p.push(prefix);
    checkPrefix(p, prefix, oracle);
    p.push(text.slice(k));
    checkFinal(p, text, expected, expectedJson);
  }
}

/** Feeds `text` one UTF-16 unit at a time, checking every prefix against the oracle. */
function checkCharByChar(text: string): void {
  const p = new PartialJsonParser();
  const oracle = new PrefixOracle();
  checkPrefix(p, "", oracle);
  for (let i = 0; i < text.length; i++) {
    p.push(text[i]!);
    oracle.push(text[i]!);
    checkPrefix(p, oracle.text, oracle);
  }
  checkFinal(p, text);
}

/** The value after feeding `fragments` (optionally calling end()). */
function parse(fragments: string[] | string): PartialJsonParser {
  const p = new PartialJsonParser();
  for (const f of typeof fragments === "string" ? [fragments] : fragments) p.push(f);
  return p;
}

/** Feeds `text` char by char and checks that an error occurs, the value then stays the last good one. */
function checkInvalid(text: string): void {
  // Whole text in one fragment.
  const whole = parse(text);
  whole.end();
  assert(typeof whole.error === "string" && whole.error.length > 0, `no error for ${show(text)}`);
  // One char at a time: the value after the error equals the value just before it.
  const p = new PartialJsonParser();
  let before: unknown = undefined;
  for (let i = 0; i < text.length; i++) {
    before = clone(p.value);
    p.push(text[i]!);
    if (p.error !== undefined) break;
  }
  p.end();
  assert(p.error !== undefined, `no error (char by char) for ${show(text)}`);
  if (p.error !== undefined && !p.error.includes("end of input")) {
    assertEqual(p.value, before, `value after the error in ${show(text)}`);
  }
  // Later input is ignored.
  const err = p.error;
  const snapshot = clone(p.value);
  p.push('{"more": [1, 2, 3]}');
  p.end();
  assert(p.error === err, "error changed after more input");
  assertEqual(p.value, snapshot, "value changed after more input");
  assert(!p.done, "done after an error");
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** String units: any code point incl. astral, lone surrogates, JSON-significant and control chars. */
// (Code points come from fc.integer rather than the "binary" string unit, whose unmapper builds a
// table of all of Unicode on first use — half a second for nothing here.)
const unit = fc.oneof(
  fc.integer({ min: 0x80, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  fc.constantFrom('"', "\\", "/", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u007f", "\u2028",
    "é", "😀", "𝄞", " ", "{", "}", "[", "]", ",", ":", "u", "e", "-", "1"),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
);
const key = fc.oneof(
  fc.string({ unit, maxLength: 6 }),
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "0", "length"),
);
const scalar = fc.oneof(
  fc.string({ unit, maxLength: 6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
/** Small JSON values (bounded width and depth, so that O(n²) checks stay fast). */
const { value } = fc.letrec<{ value: unknown; array: unknown[]; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ maxDepth: 2, depthIdentifier: "json" }, scalar, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 3, depthIdentifier: "json" }),
  object: fc.dictionary(key, tie("value"), { maxKeys: 3, depthIdentifier: "json" }),
}));
/** Tool-call-like arguments: an object at the top. */
const args = fc.dictionary(key, value, { maxKeys: 4 });

/** Number texts covering the whole JSON number grammar (E, signs, zeros, long exponents). */
const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant("0"), fc.stringMatching(/^[1-9][0-9]{0,20}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,20}$/)),
    fc.option(fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.stringMatching(/^[0-9]{1,4}$/))),
  )
  .map(([neg, int, frac, exp]) => `${neg ? "-" : ""}${int}${frac === null ? "" : "." + frac}${exp === null ? "" : exp.join("")}`);

const RUNS = { numRuns: 100 };

// ---------------------------------------------------------------------------------------------
// Cases

export const cases: Case[] = [
  // (1) split at every position
  ["partial-json: objects split at every position (compact, pretty, \\u-escaped)", () => {
    holds(fc.property(args, (v) => { for (const t of textsOf(v)) checkEverySplit(t); }), RUNS);
  }],
  ["partial-json: any top-level JSON value split at every position", () => {
    holds(fc.property(value, (v) => { for (const t of textsOf(v)) checkEverySplit(t); }), RUNS);
  }],
  ["partial-json: random multi-fragment splits", () => {
    holds(
      fc.property(args, fc.array(fc.nat(), { maxLength: 30 }), (v, cuts) => {
        for (const t of textsOf(v)) {
          const points = [...new Set(cuts.map((c) => c % (t.length + 1)))].sort((a, b) => a - b);
          const p = new PartialJsonParser();
          const oracle = new PrefixOracle();
          let last = 0;
          for (const c of [...points, t.length]) {
            const piece = t.slice(last, c);
            p.push(piece);
            for (const ch of piece.split("")) oracle.push(ch);
            last = c;
            checkPrefix(p, oracle.text, oracle);
          }
          checkFinal(p, t);
          assertEqual(p.value, referenceParse(JSON.stringify(v)), "round trip");
        }
      }),
      RUNS,
    );
  }],

  // (2) one char at a time
  ["partial-json: objects fed one char at a time match JSON.parse on every completable prefix", () => {
    holds(fc.property(args, (v) => { for (const t of textsOf(v)) checkCharByChar(t); }), RUNS);
  }],
  ["partial-json: top-level values fed one char at a time", () => {
    holds(fc.property(value, (v) => { for (const t of textsOf(v)) checkCharByChar(t); }), RUNS);
  }],
  ["partial-json: number grammar, char by char and in arrays", () => {
    holds(
      fc.property(numberText, (n) => {
        checkCharByChar(n);
        checkCharByChar(`[${n},${n}]`);
        checkCharByChar(`{"n":${n} }`);
      }),
      RUNS,
    );
  }],
  ["partial-json: doubles round-trip", () => {
    holds(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        const t = JSON.stringify([d]);
        checkCharByChar(t);
        assertEqual(parse(t).value, [Object.is(d, -0) ? 0 : d]);
      }),
      RUNS,
    );
  }],

  // (3) specific partial states
  ["partial-json: partial states", () => {
    const table: [string, unknown][] = [
      ["", undefined],
      ["  \n", undefined],
      ["{", {}],
      ["[", []],
      ['{"a', {}],
      ['{"a"', {}],
      ['{"a" :', {}],
      ['{"a": ', {}],
      ['{"a":"', { a: "" }],
      ['{"a":"hel', { a: "hel" }],
      ['{"a":"hello", "b', { a: "hello" }],
      ['{"a":[1, 2, ', { a: [1, 2] }],
      ['{"a":[1, 2', { a: [1, 2] }],
      ['{"a":[{"b":[1,{"c":"d', { a: [{ b: [1, { c: "d" }] }] }],
      ['{"n":12.', { n: 12 }],
      ['{"n":-', {}],
      ['{"n":-1', { n: -1 }],
      ['{"n":1e', { n: 1 }],
      ['{"n":1.5E-', { n: 1.5 }],
      ['{"n":1.5e+2', { n: 150 }],
      ["-", undefined],
      ["12.", 12],
      ["-0", -0],
      ["-0.", -0],
      ["0e", 0],
      ['{"t":tru', {}],
      ['{"t":true', { t: true }],
      ["[tru", []],
      ["[fals", []],
      ["[false", [false]],
      ["[nul", []],
      ["[null", [null]],
      ["fals", undefined],
      ['{"a":"x\\', { a: "x" }],
      ['{"a":"x\\u00', { a: "x" }],
      ['{"a":"x\\u00e9', { a: "xé" }],
      ['{"a":"x\\n', { a: "x\n" }],
      ['"\\ud83d', ""],
      ['"\\ud83d\\', ""],
      ['"\\ud83d\\ude', ""],
      ['"\\ud83d\\ude00', "😀"],
      ['"\\ud83dx', "\ud83dx"],
      ['"\\ud83d\\n', "\ud83d\n"],
      ['"\\ud83d\\ud83d', "\ud83d"],
      ['"\\ud83d\\ud83d\\ude00', "\ud83d😀"],
      ['"\\ude00', "\ude00"],
      ['"\\ud83d"', "\ud83d"],
      ['{"a":1,"a":', { a: 1 }],
      ['{"a":1,"a":"x', { a: "x" }],
      ['{"a":1,"b":2,"a":[', { a: [], b: 2 }],
    ];
    for (const [text, expected] of table) {
      assertEqual(parse(text).value, expected, `value of ${show(text)}`);
      // Same result one char at a time.
      assertEqual(parse(text.split("")).value, expected, `value of ${show(text)} (char by char)`);
      assert(parse(text).error === undefined, `error for ${show(text)}`);
    }
  }],
  ["partial-json: raw surrogate pair split between fragments", () => {
    const p = new PartialJsonParser();
    p.push('{"e":"a\ud83d');
    assertEqual(p.value, { e: "a" });
    p.push("\ude00");
    assertEqual(p.value, { e: "a😀" });
    p.push("\ud83d");
    assertEqual(p.value, { e: "a😀" });
    p.push('"}');
    assertEqual(p.value, { e: "a😀\ud83d" });
    assert(p.done);
  }],
  ["partial-json: done, end() and top-level numbers", () => {
    const table: [string, boolean][] = [["{}", true], ["[]", true], ['"ab"', true], ["true", true], ["null", true],
      ["12", false], ["12 ", true], ["{} \n", true], ['{"a":1', false], ["", false]];
    for (const [text, done] of table) assert(parse(text).done === done, `done for ${show(text)}`);
    const p = parse("12");
    assertEqual(p.value, 12);
    p.push("3");
    assertEqual(p.value, 123);
    p.end();
    assert(p.done && p.error === undefined, "end() completes a top-level number");
    assertEqual(p.value, 123);
    const q = parse('{"a":1');
    q.end();
    assert(q.error !== undefined && !q.done, "end() on an incomplete value is an error");
    assertEqual(q.value, { a: 1 });
  }],
  ["partial-json: whitespace everywhere", () => {
    const text = ' \n\t{ "a" :\r\n [ 1 , 2.5e3 , "x" , true , false , null , { } , [ ] ] , "b" : { "c" : "d" } } \r\n ';
    checkCharByChar(text);
    checkEverySplit(text);
  }],
  ["partial-json: value is live and updated in place", () => {
    const p = new PartialJsonParser();
    p.push('{"list":[');
    const v = p.value as { list: unknown[] };
    const list = v.list;
    p.push('"a","b');
    assert(p.value === v && v.list === list, "same objects");
    assertEqual(v, { list: ["a", "b"] });
    p.push('c"]}');
    assertEqual(v, { list: ["a", "bc"] });
    assert(Object.getPrototypeOf(v) === Object.prototype && Array.isArray(list), "plain objects and arrays");
  }],
  ["partial-json: immutable: a value once read never changes; what did not change keeps its identity", () => {
    const p = new PartialJsonParser({ immutable: true });
    p.push('{"done":{"x":[1]},"list":[');
    const v = p.value as { done: unknown; list: unknown[] };
    assert(p.value === v, "read twice with no push between: the same object");
    p.push('"a","b');
    const w = p.value as typeof v;
    assertEqual(v, { done: { x: [1] }, list: [] }, "the value read before is unchanged");
    assert(w !== v && w.list !== v.list && w.done === v.done, "new objects on the changed path only");
    assertEqual(w, { done: { x: [1] }, list: ["a", "b"] });
    p.push('c"]');
    const x = p.value as typeof v;
    assertEqual([w, x], [{ done: { x: [1] }, list: ["a", "b"] }, { done: { x: [1] }, list: ["a", "bc"] }]);
    p.push(',"__proto__":{"k":1}}');
    const y = p.value as Record<string, unknown>;
    assert(y.list === x.list && Object.getPrototypeOf(y) === Object.prototype && Object.keys(y).includes("__proto__"), "a closed array keeps its identity; __proto__ stays data");
    assert(Object.getPrototypeOf(v) === Object.prototype && Array.isArray(v.list), "plain objects and arrays");
    // not read between pushes: no copies at all
    const q = new PartialJsonParser({ immutable: true });
    q.push('{"a":[');
    const a = q.value as { a: unknown[] };
    q.push("1,");
    q.push("2]}");
    const b = q.value as { a: unknown[] };
    assertEqual([a, b], [{ a: [] }, { a: [1, 2] }]);
  }],
  ["partial-json: deep nesting does not recurse", () => {
    const depth = 20000;
    const text = "[".repeat(depth) + '"x"' + "]".repeat(depth);
    const p = new PartialJsonParser();
    for (let i = 0; i < text.length; i += 997) p.push(text.slice(i, i + 997));
    assert(p.done && p.error === undefined, "deep array parsed");
    let v: unknown = p.value;
    for (let i = 0; i < depth; i++) {
      assert(Array.isArray(v) && v.length === 1, `level ${i}`);
      v = v[0];
    }
    assert(v === "x", "innermost value");
  }],
  ["partial-json: long strings and escapes, one char at a time", () => {
    const s = "héllo \"wörld\" \\ / \n\t 😀 𝄞 \u0001 \u2028 ".repeat(50);
    for (const t of textsOf({ s, a: [s, { s }] })) {
      const p = new PartialJsonParser();
      for (let i = 0; i < t.length; i++) {
        p.push(t[i]!);
        const cur = p.value as { s?: string } | undefined;
        if (cur?.s !== undefined) assert(s.startsWith(cur.s), `string prefix at ${i}`);
      }
      assertEqual(p.value, { s, a: [s, { s }] });
    }
  }],

  ["partial-json: long strings in fragments of mixed sizes always show a prefix", () => {
    holds(
      fc.property(fc.string({ unit, minLength: 200, maxLength: 1500 }), fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 40 }), (s, sizes) => {
        const t = JSON.stringify({ s, a: [s, s] });
        const p = new PartialJsonParser();
        for (let i = 0, k = 0; i < t.length; i += sizes[k++ % sizes.length]!) {
          p.push(t.slice(i, i + sizes[k % sizes.length]!));
          const v = p.value as { s?: string; a?: string[] };
          check(v.s === undefined || s.startsWith(v.s), () => `s is not a prefix at ${i}`);
          for (const x of v.a ?? []) check(s.startsWith(x), () => `a[] is not a prefix at ${i}`);
        }
        checkFinal(p, t);
      }),
      { numRuns: 30 },
    );
  }],

  // (4) prototype safety
  ["partial-json: __proto__ / constructor / prototype keys are plain data", () => {
    const text = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"prototype":3,' +
      '"a":[{"__proto__":{"polluted":4}},{"__proto__":"x"}],"toString":5}';
    for (const fragments of [[text], text.split("")]) {
      const p = parse(fragments);
      assert(p.done && p.error === undefined, "parsed");
      const v = p.value as Record<string, unknown>;
      assert(Object.getPrototypeOf(v) === Object.prototype, "plain object");
      assertEqual(Object.keys(v), ["__proto__", "constructor", "prototype", "a", "toString"]);
      assertEqual(Object.getOwnPropertyDescriptor(v, "__proto__")?.value, { polluted: 1 });
      assertEqual(v, referenceParse(text));
      assert(JSON.stringify(v) === text, "stringifies back to the input");
      const inner = (v.a as Record<string, unknown>[])[0]!;
      assert(Object.getPrototypeOf(inner) === Object.prototype, "inner prototype untouched");
      assert(Object.hasOwn(inner, "__proto__"), "inner __proto__ is own");
      assert(({} as Record<string, unknown>).polluted === undefined, "Object.prototype not polluted");
      assert((Object.prototype as unknown as Record<string, unknown>).polluted === undefined, "no pollution");
    }
    // Partial __proto__ strings update in place without touching the prototype.
    const p = new PartialJsonParser();
    p.push('{"__proto__":"ab');
    p.value;
    p.push("c");
    const v = p.value as Record<string, unknown>;
    assert(Object.getPrototypeOf(v) === Object.prototype, "prototype untouched by partial string");
    assertEqual(Object.getOwnPropertyDescriptor(v, "__proto__")?.value, "abc");
  }],

  // (5) invalid input
  ["partial-json: invalid input reports an error and keeps the last good value", () => {
    const invalid = [
      "{,}", "[1,]", '{"a":1,}', '{"a" 1}', '{"a":}', "[01]", "[1.]", "[.5]", "[-]", "[+1]", "[1e]", "[1e+]",
      "[--1]", "[1.2.3]", "tru e", "nulx", "[truE]", '"\\x"', '"\\u12g4"', '"a\nb"', '"a\u0000"',
      '{"a":1}}', "[1 2]", '{"a":1 "b":2}', "{1:2}", "{'a':1}", "[NaN]", "[Infinity]", "\ufeff{}",
      '{"a":1} x', "1 2", "[1]]", "]", "}", ":", ",", '{"a"::1}', '{"a",1}', "[1:2]", "[,1]", '{"a":[}',
      "\u00a0[]", "[\u2028]", "[", '{"a":"', "-", "", "   ",
    ];
    for (const text of invalid) {
      assert(!tryParse(text).ok, `test bug: ${show(text)} is valid`);
      checkInvalid(text);
    }
  }],
  ["partial-json: error iff JSON.parse rejects (fuzzed texts and mutations)", () => {
    const alphabet = fc.constantFrom(..."{}[]\",:0123456789-+.eEtrufalsn \n\\u/x".split(""));
    const mutated = fc
      .tuple(args, fc.nat(), fc.constantFrom("delete", "insert", "replace"), alphabet)
      .map(([v, at, op, ch]) => {
        const t = JSON.stringify(v);
        const i = at % (t.length + 1);
        return op === "delete" ? t.slice(0, i) + t.slice(i + 1) : t.slice(0, i) + ch + t.slice(op === "insert" ? i : i + 1);
      });
    holds(
      fc.property(fc.oneof(fc.string({ unit: alphabet, maxLength: 20 }), mutated), (text) => {
        const expected = tryParse(text);
        for (const p of [parse(text), parse(text.split(""))]) {
          p.end();
          if (expected.ok) {
            assert(p.error === undefined && p.done, `unexpected error ${p.error} for ${show(text)}`);
            assertEqual(p.value, expected.value, `value of ${show(text)}`);
          } else {
            assert(p.error !== undefined && !p.done, `missing error for ${show(text)}`);
          }
        }
      }),
      { numRuns: 300 },
    );
  }],
  ["partial-json: push of a non-string is an error, not a crash", () => {
    const p = new PartialJsonParser();
    p.push("[1");
    (p.push as (x: unknown) => void)(undefined);
    assert(p.error !== undefined, "error set");
    assertEqual(p.value, [1]);
  }],
  ["partial-json: large invalid inputs finish quickly", () => {
    const start = Date.now();
    for (const text of ["[".repeat(100000) + "x", '"' + "a".repeat(100000) + "\u0001", "1".repeat(100000) + "x"]) {
      const p = new PartialJsonParser();
      for (let i = 0; i < text.length; i += 1000) {
        p.push(text.slice(i, i + 1000));
        p.value;
      }
      assert(p.error !== undefined, "error reported");
    }
    assert(Date.now() - start < 5000, "took too long");
  }],
  ["partial-json: a huge number read after every char stays cheap", () => {
    const p = new PartialJsonParser();
    p.push("[");
    for (let i = 0; i < 50000; i++) {
      p.push(i === 0 ? "1" : "0");
      p.value;
    }
    p.push("]");
    assertEqual(p.value, [Infinity]);
  }],
];
