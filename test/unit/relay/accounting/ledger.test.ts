// Issue #44, "Tests that see the money": the in-process ledger (src/relay/accounting/ledger.ts MemoryLedger,
// the stateless relay's) keeps the last KEEP_DAYS (31) UTC days, today included, and counts a
// principal's day as its input and output tokens. (Found by `npm run mutate`: a ledger keeping 30
// days passed every test.)
import { expect, test } from "vitest";
import { dayOf, KEEP_DAYS, MemoryLedger, nextDayMs } from "../../../../src/relay/accounting/ledger.ts";

const DAY = 86_400_000;
const settled = (principal: string, input: number, output: number) => ({ id: "x", principal, model: "m", input, output, estimated: 0, stopped: false });

test("the ledger keeps today and the 30 days before it: a row 30 days old is listed, one 31 days old is not", () => {
  expect(KEEP_DAYS).toBe(31);
  const ledger = new MemoryLedger();
  const now = Date.now();
  ledger.record(settled("p", 1, 2), now - 31 * DAY);
  ledger.record(settled("p", 3, 4), now - 30 * DAY);
  ledger.record(settled("p", 5, 6), now);
  expect(ledger.rows("p").map((r) => r.day)).toEqual([dayOf(now - 30 * DAY), dayOf(now)]);
  expect(ledger.spent("p", dayOf(now))).toBe(11);
  expect(ledger.spent("p", dayOf(now - 30 * DAY))).toBe(7);
  expect(ledger.spent("q", dayOf(now))).toBe(0);
});

test("a day's budget resets at the next UTC midnight", () => {
  const noon = Date.UTC(2026, 11, 6, 12);
  expect(nextDayMs(noon)).toBe(Date.UTC(2026, 11, 7));
  expect(nextDayMs(Date.UTC(2026, 11, 7) - 1)).toBe(Date.UTC(2026, 11, 7));
  expect(nextDayMs(Date.UTC(2026, 11, 7))).toBe(Date.UTC(2026, 11, 8));
});
