// A passed-through request keeps its row's config (SPEC §10, issue #47): routing/pass-through.ts's
// `rowsMembers` puts into the client's written body the members where the builder's body from the
// merged config differs from its body from the client's config alone — and nothing else. Its cases
// one by one, then a property: whatever the client wrote, a member the two builds agree on is the
// client's, and a member they differ on is the builder's.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { rowsMembers } from "../../../../src/relay/routing/pass-through.ts";
import { holds } from "../../../property.ts";

describe("rowsMembers", () => {
  test("the builds agree: the client's body itself, as written", () => {
    const written = { a: 1, b: { c: [1, 2] }, extra: "kept" };
    expect(rowsMembers(written, { a: 2, b: {} }, { a: 2, b: {} })).toBe(written);
  });

  test("a nested member of the row's set beside the client's others; one the builder left out, left out", () => {
    const written = { generationConfig: { maxOutputTokens: 9, thinkingConfig: { includeThoughts: true } }, temperature: 0.7, labels: {} };
    const built = { generationConfig: { maxOutputTokens: 9, thinkingConfig: { thinkingLevel: "LOW" } } };
    const alone = { generationConfig: { maxOutputTokens: 9 }, temperature: 0.7 };
    expect(rowsMembers(written, built, alone)).toEqual({
      generationConfig: { maxOutputTokens: 9, thinkingConfig: { includeThoughts: true, thinkingLevel: "LOW" } },
      labels: {},
    });
  });

  test("a list the row's items were put before keeps the client's own as written after them; another list is the builder's", () => {
    const written = { tools: [{ name: "mine", strict: true }], stop: ["x"] };
    const built = { tools: [{ name: "row" }, { name: "mine" }], stop: ["y"] };
    const alone = { tools: [{ name: "mine" }], stop: ["x"] };
    expect(rowsMembers(written, built, alone)).toEqual({ tools: [{ name: "row" }, { name: "mine", strict: true }], stop: ["y"] });
  });

  test("a __proto__ the client wrote stays a member, never a prototype", () => {
    const written = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const body = rowsMembers(written, { a: 1, b: 2 }, { a: 1 }) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["__proto__", "a", "b"]);
    expect((body as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(body))).toEqual(JSON.parse('{"__proto__":{"polluted":true},"a":1,"b":2}'));
  });

  test("property: a top-level member the builds agree on is the client's; one they differ on is the builder's", () => {
    const scalar = fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean());
    const member = fc.constantFrom("a", "b", "c", "d");
    const record = fc.dictionary(member, scalar, { maxKeys: 4 });
    holds(
      fc.property(record, record, record, (written, built, alone) => {
        const body = rowsMembers(written, built, alone) as Record<string, unknown>;
        for (const key of new Set([...Object.keys(written), ...Object.keys(built), ...Object.keys(alone)])) {
          if (built[key] === alone[key]) expect(body[key]).toBe(written[key]);
          else expect(body[key]).toBe(built[key]);
        }
      }),
    );
  });
});
