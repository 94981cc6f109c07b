/** How the package's argument errors show a value, and the one shape of such an error. */

/** How a value is shown in a message: strings quoted, objects by kind. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length <= 60 ? value : value.slice(0, 60) + "…");
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return String(value);
  if (value === null || typeof value !== "object") return String(value);
  if (Array.isArray(value)) return "an array";
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  if (typeof name !== "string" || name === "" || name === "Object") return "an object";
  return /^[AEIOU]/.test(name) ? `an ${name}` : `a ${name}`;
}

/** Throws the package's one argument error: `<label> must be <expected>; received <value><hint>`. */
export const fail = (Kind: typeof TypeError, label: string, expected: string, value: unknown, hint = ""): never => {
  throw new Kind(`${label} must be ${expected}; received ${describeValue(value)}${hint}`);
};
