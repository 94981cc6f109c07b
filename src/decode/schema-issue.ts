/**
 * A zod issue as a person reads it: where, what it must be, what came. zod/mini's issues carry only
 * "Invalid input" (its messages live in locales it does not load, ~4 KB); SPEC §6 wants no bare one.
 */
import type * as z from "zod/mini";
import { isRecord, previewValue } from "../internal/values.js";

type Issue = z.core.$ZodIssue;

/**
 * The most specific issue inside a union's: the branch that got furthest (a discriminated union whose
 * discriminator did not match is no explanation when another branch matched it), its path joined on.
 */
function innermost(issue: Issue): { issue: Issue; path: PropertyKey[] } {
  let path = issue.path;
  while (issue.code === "invalid_union") {
    const branches = issue.errors.filter((b) => b.length > 0 && !(b[0]!.code === "invalid_union" && b[0]!.errors.length === 0));
    if (branches.length !== 1) break; // none or several explain it: say the value matched no shape
    const next = branches[0]![0]!;
    path = [...path, ...next.path];
    issue = next;
  }
  return { issue, path };
}

/** zod's names of types, as a sentence says them. */
const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  record: "an object",
  object: "an object",
  array: "an array",
  null: "null",
  nonoptional: "a value",
};

/** `top` (the first issue zod found in `root`) as a sentence; `at` is the path of `root` in the event. */
export function describeIssue(top: Issue, root: unknown, at: PropertyKey[]): string {
  const { issue, path } = innermost(top);
  let value: unknown = root;
  for (const key of path) value = isRecord(value) || Array.isArray(value) ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  const where = [...at, ...path].map(String).join(".");
  const got = `, not ${previewValue(value, 40)}`;
  let what: string;
  switch (issue.code) {
    case "invalid_type": {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      what = value === undefined ? `missing (expected ${expected})` : `expected ${expected}${got}`;
      break;
    }
    case "too_small":
      what = `must be ${issue.inclusive ? "at least" : "more than"} ${String(issue.minimum)}${got}`;
      break;
    case "too_big":
      what = `must be ${issue.inclusive ? "at most" : "less than"} ${String(issue.maximum)}${got}`;
      break;
    case "invalid_value":
      what = `must be ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}${got}`;
      break;
    case "unrecognized_keys":
      what = `unknown member${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
      break;
    case "invalid_union":
      what = `matches none of the shapes it may have${got}`;
      break;
    default:
      what = `${issue.message}${got}`;
  }
  return where ? `${where}: ${what}` : what;
}
