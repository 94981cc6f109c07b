// Issue #44, "Tests that see the money": the relay's estimate counts UTF-8 bytes without encoding
// (src/relay/accounting/usage-estimate.ts), exactly as TextEncoder would at every edge of UTF-8's lengths; and a
// quota's limits are whole numbers ≥ 0, 0 included (src/relay/accounting/quota.ts checkQuota). (Found by
// `npm run mutate`: a surrogate pair from U+10000 counted as 2 bytes, a quota of 0 refused, passed every test.)
import { expect, test } from "vitest";
import fc from "fast-check";
import { textTokens, UsageMeter } from "../../../../src/relay/accounting/usage-estimate.ts";
import { checkQuota, checkQuotas } from "../../../../src/relay/accounting/quota.ts";

test("the estimate's UTF-8 length is TextEncoder's at each edge: 1, 2, 3 and 4 bytes a character", () => {
  const edges = [0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10ffff, 0x1f600];
  for (const cp of edges) {
    for (const times of [1, 3, 4]) {
      const text = String.fromCodePoint(cp).repeat(times);
      const bytes = new TextEncoder().encode(text).length;
      expect(textTokens(text), `U+${cp.toString(16)} ×${times}`).toBe(Math.ceil(bytes / 4));
    }
  }
  expect(textTokens("a\u{10000}")).toBe(2); // (1 + 4 bytes)
});

test("a quota's limits: whole numbers ≥ 0 (0: nothing allowed), anything else a TypeError naming the setting", () => {
  expect(checkQuota({ requestsPerMinute: 0, concurrentStreams: 0, tokensPerDay: 0 }, "q")).toEqual({ requestsPerMinute: 0, concurrentStreams: 0, tokensPerDay: 0 });
  expect(checkQuotas({ default: { tokensPerDay: 0 } }).default).toEqual({ tokensPerDay: 0 });
  for (const bad of [-1, 1.5, "10", Number.MAX_SAFE_INTEGER + 1, null]) {
    expect(() => checkQuota({ tokensPerDay: bad }, "q"), JSON.stringify(bad)).toThrow(/q\.tokensPerDay must be a whole number ≥ 0/);
  }
  expect(() => checkQuota({ tokensPerMonth: 1 }, "q")).toThrow(/q\.tokensPerMonth is no quota setting/);
});

test("a completed stream whose provider gave no input count: the input is the estimate, said so; an output count equal to the estimate is the provider's", () => {
  const meter = new UsageMeter(9);
  meter.see({ role: "assistant", event_type: "stop", content_items: [], finish_reason: "stop", usage_metadata: { cached_tokens: null, prompt_tokens: null, thoughts_tokens: null, response_tokens: 4 } } as never);
  expect(meter.spent()).toMatchObject({ usage_estimated: true, estimated: 9, input: 9, output: 4, stopped: false });
  // ended early, the provider's output count equal to the estimate (40 bytes: 10 tokens): nothing of the output estimated
  const early = new UsageMeter(5);
  early.see({ role: "assistant", event_type: "delta", content_items: [{ type: "text.delta", text: "x".repeat(40) }], usage_metadata: null, finish_reason: null } as never);
  expect(early.spent({ cached_tokens: 0, prompt_tokens: 12, thoughts_tokens: null, response_tokens: 10 })).toMatchObject({ estimated: 0, input: 12, output: 10, stopped: true });
});

test("the estimate's UTF-8 length is TextEncoder's for any text, short or long (the long ones counted natively), lone surrogates as U+FFFD", () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }), fc.constantFrom("\ud800", "\udc00", "a")), { maxLength: 300 }), (pieces) => {
      for (const text of [pieces.join(""), pieces.join("").repeat(40)]) {
        expect(textTokens(text)).toBe(Math.ceil(new TextEncoder().encode(text).length / 4));
      }
    }),
    { numRuns: 150 },
  );
});
