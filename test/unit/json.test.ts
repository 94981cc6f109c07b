// The package's reading of outside JSON (src/internal/json.ts). Node 20's JSON.parse keeps escaped keys,
// so here it is the oracle for the second reading that runtimes with V8's misreading use (Chromium 150,
// Deno 2.9, workerd: the shared cases in test/cases/json-keys.ts set the misreading up there): on any
// JSON text the two give the same value, the same key order, `__proto__` an own member.
import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import { parseJsonText, readAgain } from "../../src/internal/json.ts";

/** `v` with every object's keys in order, so an equality that ignores order cannot pass a reordering. */
function ordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(ordered);
  if (v !== null && typeof v === "object") return Object.entries(v).map(([k, x]) => [k, ordered(x)]);
  return v;
}

const escapeAll = (t: string): string => t.replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
const key = fc.oneof(fc.string(), fc.constantFrom("__proto__", "constructor", "\\", '"', "\n", "\udf00", "a\\b", "é"));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 1 }), fc.array(tie("value"), { maxLength: 4 }), fc.dictionary(key, tie("value"), { maxKeys: 4 })),
})).value;

describe("readAgain: the second reading of a JSON text", () => {
  test("gives what JSON.parse gives, keys and their order included, on any text and its layouts", () => {
    fc.assert(
      fc.property(json, fc.constantFrom(0, 1, "\t"), (v, indent) => {
        for (const t of [JSON.stringify(v, null, indent), escapeAll(JSON.stringify(v)), ` \r\n${JSON.stringify(v)}\n `]) {
          const expected = JSON.parse(t);
          const got = readAgain(t);
          expect(ordered(got)).toEqual(ordered(expected));
          if (got !== null && typeof got === "object") expect(Object.getPrototypeOf(got)).toBe(Object.getPrototypeOf(expected));
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("`__proto__` is an own member, never the prototype; a repeated key keeps its first place and its last value", () => {
    const v = readAgain('{"__proto__":{"polluted":true},"a":1,"\\\\":2,"a":3}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.entries(v)).toEqual([["__proto__", { polluted: true }], ["a", 3], ["\\", 2]]);
  });

  test("numbers, literals and strings as JSON.parse reads them", () => {
    expect(Object.is((readAgain("[-0]") as number[])[0], -0)).toBe(true);
    for (const t of ['[-0, 1e400, 0.1, -1.5E-3, true, false, null, "\\u00e9\\ud83d\\ude00\\/\\b"]', '"x"', "12", "null", '{"a":{}}']) {
      expect(readAgain(t)).toEqual(JSON.parse(t));
    }
  });
});

describe("parseJsonText", () => {
  test("throws what JSON.parse throws", () => {
    for (const t of ["", "{", '{"a":}', "[1,]", "nul"]) {
      expect(() => parseJsonText(t)).toThrow(SyntaxError);
    }
  });
  test("gives JSON.parse's value for a text with escaped keys", () => {
    const t = '{"\\"":1,"x":[{"\\n":2}]}';
    expect(ordered(parseJsonText(t))).toEqual(ordered(JSON.parse(t)));
  });
});

// Issue #44: the second reading recursed, so a text nested past the stack's reach gave JSON.parse's
// misread value back (the fallback) to callers with no depth limit (errors.ts, providers/no-stream.ts).
describe("the second reading at any depth", () => {
  const DEPTH = 20_000;
  const deep = "[".repeat(DEPTH) + '{"\\"":1}' + "]".repeat(DEPTH);

  /** How deep `v` nests (its arrays' first members), walked without recursion; and the innermost value. */
  function innermost(v: unknown): [number, unknown] {
    let d = 0;
    while (Array.isArray(v)) (v = v[0], d++);
    return [d, v];
  }

  test("readAgain reads a text nested 20,000 levels whole, its innermost key as the text holds it", () => {
    const [depth, inner] = innermost(readAgain(deep));
    expect(depth).toBe(DEPTH);
    expect(Object.keys(inner as object)).toEqual(['"']);
    const [objDepth] = innermost((readAgain(`{"\\\\":${deep},"a":[]}`) as Record<string, unknown>)["\\"]);
    expect(objDepth).toBe(DEPTH);
  });

  test("parseJsonText on a runtime that misreads escaped keys: a text nested 20,000 levels gives the keys the text holds, never the misread value", async () => {
    const real = JSON.parse;
    // the misreading, as V8 does it after a backslash key (test/cases/json-keys.ts): `"` read as `\`,
    // in an object within a few levels of the top (the probe's, and this text's)
    const misread = (v: unknown, level = 0): unknown => {
      if (level > 3 || v === null || typeof v !== "object") return v;
      if (Array.isArray(v)) return v.map((x) => misread(x, level + 1));
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k === '"' ? "\\" : k, misread(x, level + 1)]));
    };
    JSON.parse = ((t: string) => misread(real(t))) as typeof JSON.parse;
    try {
      vi.resetModules();
      const { parseJsonText: fresh } = await import("../../src/internal/json.ts");
      const text = `{"error":{"\\"":${deep},"type":"x"}}`;
      expect(Object.keys((JSON.parse(text) as { error: object }).error), "test bug: JSON.parse misreads here").toEqual(["\\", "type"]);
      const error = (fresh(text) as { error: Record<string, unknown> }).error;
      expect(Object.keys(error)).toEqual(['"', "type"]);
      const [depth, inner] = innermost(error['"']);
      expect(depth).toBe(DEPTH);
      expect(Object.keys(inner as object)).toEqual(['"']);
    } finally {
      JSON.parse = real;
      vi.resetModules();
    }
  });
});
