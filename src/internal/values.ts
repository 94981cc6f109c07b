/** Small helpers on JSON-like values, shared by the decoder and the assembler. */

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An object made by a literal or `JSON.parse` (its prototype `Object.prototype` or null), not an array, a Map… */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether `JSON.parse(JSON.stringify(v))` gives `v` again, for a `v` that `JSON.parse` made: every number
 * survives the trip but -0 (written `0`) and a number past a double (`1e400` read as Infinity, written
 * `null`). A stack, not recursion: any depth.
 */
export function sameAfterJson(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return typeof v !== "number" || survives(v);
  const stack: object[] = [v];
  while (stack.length > 0) {
    const x = stack.pop() as Record<string, unknown>;
    for (const k in x) {
      const y = x[k];
      if (typeof y === "object" && y !== null) stack.push(y);
      else if (typeof y === "number" && !survives(y)) return false;
    }
  }
  return true;
}

const survives = (n: number): boolean => Number.isFinite(n) && !Object.is(n, -0);

/** How many enumerable members `o` has (`for…in`: for a plain object, its own keys). */
export function memberCount(o: object): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** A fidelity is "present" when it is an object with at least one member (absent, null and {} are the same). */
export function hasFidelity(f: unknown): f is Record<string, unknown> {
  if (!isRecord(f)) return false;
  for (const _ in f) return true;
  return false;
}

/** Equality of JSON values (key order ignored) and of byte arrays. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && bytesEqual(a, b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Fidelity equality where absent, null and {} are the same. */
export function fidelityEqual(a: unknown, b: unknown): boolean {
  const ha = hasFidelity(a);
  const hb = hasFidelity(b);
  if (!ha || !hb) return ha === hb;
  return jsonEqual(a, b);
}

export const PREVIEW_CHARS = 120;

/**
 * A short preview of some input text. It is a copy: a slice of a large string would keep the whole
 * string alive for as long as the preview (an error, say) lives.
 */
export function previewText(text: string, max = PREVIEW_CHARS): string {
  if (text.length <= max) return text;
  const codes = new Array<number>(max);
  for (let i = 0; i < max; i++) codes[i] = text.charCodeAt(i);
  return String.fromCharCode(...codes) + "…";
}

/** A preview of a value (bytes shown by their length, so a preview stays short). */
/** Rule `JSON`'s sentence for a record that parsed but is no object: the one wording of every path that checks it. */
export const notAnObject = (value: unknown): string => `an event must be a JSON object, not ${previewValue(value, 40)}`;

export function previewValue(value: unknown, max = PREVIEW_CHARS): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_k, v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v)) ?? String(value);
  } catch {
    text = String(value);
  }
  return previewText(text, max);
}

/**
 * `o[key]` when it is `o`'s own member, else undefined: a name (a table's key, a variable of `env`, an
 * option) never reaches an inherited member — "constructor", or one a polluted `Object.prototype` holds.
 */
export function ownValue<T extends object, K extends keyof T>(o: T, key: K): T[K] | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** `o`'s own enumerable members in an object with no prototype: where many names are read, each reads only an own member. */
export const ownMembers = <T extends object>(o: T): T => Object.assign(Object.create(null) as T, o);
