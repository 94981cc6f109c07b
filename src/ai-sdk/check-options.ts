/**
 * Option checks at construction: a wrong option fails where it is written, with the option's name
 * and the value given, not later as a strange stream.
 */

/** A short, readable rendering of a bad value for an error message. */
export function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "function") return "a function";
  if (typeof value === "bigint") return `${value}n`;
  if (value === null || typeof value !== "object") return String(value);
  if (Array.isArray(value)) return "an array";
  return "an object";
}

/**
 * The options object itself: undefined or a plain object whose keys are all known (a misspelt
 * option is an error, not silently ignored).
 */
export function checkOptionsObject(owner: string, options: unknown, known: readonly string[]): Record<string, unknown> {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new TypeError(`${owner}: options must be an object, got ${show(options)}`);
  for (const key of Object.keys(options))
    if (!known.includes(key)) throw new TypeError(`${owner}: unknown option ${JSON.stringify(key)} (known: ${known.join(", ")})`);
  return options as Record<string, unknown>;
}
