// The package's reading of outside JSON (src/internal/json.ts). Node 20's JSON.parse keeps escaped keys,
// so here it is the oracle for the second reading that runtimes with V8's misreading use (Chromium 150,
// Deno 2.9, workerd: the shared cases in test/cases/json-keys.ts set the misreading up there): on any
// JSON text the two give the same value, the same key order, `__proto__` an own member.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
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
