/**
 * `JSON.parse` of text from outside (a record, a provider's chunk, a tool call's arguments, a request
 * body), with the object keys the text holds: the one place the package parses such text.
 *
 * Why not `JSON.parse` alone: V8 as shipped in Chromium 150, Deno 2.9 and workerd (2026; not Node 20's
 * V8 11, not Bun's JavaScriptCore) can read an escaped object key (`"\""`, `"\n"`, `"\u…"`) as a key
 * holding a literal backslash that an earlier `JSON.parse` in the same isolate met at the same place of
 * an object: after `{"\\":1}`, `{"\"":2}` gives `{"\\":2}`. Any code in the isolate can set this up, so
 * a tool call's arguments could arrive with a key renamed. The misread key always holds a backslash
 * (the one it is mistaken for does), so on a runtime where a probe shows the bug, a value from a text
 * with a backslash whose keys hold one is read again, its keys built from their characters. Elsewhere
 * this is `JSON.parse` and one comparison. (A regular expression that looks for an escape in a key
 * instead of the keys cost Deno a quarter of its reading speed.)
 */

/** Whether this runtime's `JSON.parse` keeps escaped keys (probed on first use). */
let keysKept: boolean | undefined;

/** `JSON.parse(text)` with the keys `text` holds; throws what `JSON.parse` throws. */
export function parseJsonText(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if ((keysKept ??= probeKeysKept()) || typeof value !== "object" || value === null || !text.includes("\\")) return value;
  // (read again at any depth: the second reading keeps its own stack, so no caller, with a depth limit or
  // without one, ever gets the misread value)
  return hasBackslashKey(value) ? readAgain(text) : value;
}

/**
 * Sets up the misreading under a first key nobody else uses (the probe must not teach the isolate's
 * shared object shapes a backslash key where other code's objects would meet it), then reads `"` there.
 */
function probeKeysKept(): boolean {
  const first = '{"mmsp-streams json probe":0,';
  JSON.parse(first + '"\\\\":0}');
  return Object.hasOwn(JSON.parse(first + '"\\"":0}') as object, '"');
}

/**
 * Whether any object in `value` has a key holding a backslash. Past `DEEPEST` levels the answer is yes
 * (the text is read again, which is right at any depth): no stack to grow, no recursion without end.
 */
function hasBackslashKey(value: object, depth = 0): boolean {
  if (depth > DEEPEST) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === "object" && v !== null && hasBackslashKey(v, depth + 1)) return true;
    }
    return false;
  }
  for (const k in value) {
    if (k.includes("\\")) return true;
    const v = (value as Record<string, unknown>)[k];
    if (typeof v === "object" && v !== null && hasBackslashKey(v, depth + 1)) return true;
  }
  return false;
}

const DEEPEST = 64;

/**
 * The value of a text `JSON.parse` accepted, its keys read from their characters: the structure walked
 * here, each string and other token given to `JSON.parse` alone (a token is never misread, a key is).
 * Without recursion: the open objects and arrays are a stack of its own, so a text nested as deep as
 * `JSON.parse` reads (20,000 levels and more) is read again whole, never a stack overflow.
 */
export function readAgain(text: string): unknown {
  let i = 0;
  const space = (): void => {
    while (text.charCodeAt(i) <= 32) i++;
  };
  const string = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    return JSON.parse(text.slice(start, ++i)) as string;
  };
  /** A member's key and its colon. */
  const key = (): string => {
    space();
    const k = string();
    space();
    i++; // the colon
    return k;
  };
  /** The objects and arrays open, innermost last; the key each open object's next value goes under. */
  const open: (Record<string, unknown> | unknown[])[] = [];
  const keys: string[] = [];
  for (;;) {
    // a value begins at i
    space();
    const c = text[i];
    let v: unknown;
    if (c === "{" || c === "[") {
      const array = c === "[";
      const o: Record<string, unknown> | unknown[] = array ? [] : {};
      i++;
      space();
      if (text[i] !== (array ? "]" : "}")) {
        open.push(o);
        if (!array) keys.push(key());
        continue; // its first value
      }
      i++;
      v = o;
    } else if (c === '"') v = string();
    else {
      const start = i;
      while (i < text.length && !",]} \t\n\r".includes(text[i]!)) i++;
      v = JSON.parse(text.slice(start, i));
    }
    // the value goes into the container open last; each container it ends is the next such value
    for (;;) {
      const o = open.at(-1);
      if (o === undefined) return v;
      if (Array.isArray(o)) o.push(v);
      // an own member whatever the key (`__proto__` too), the last of a repeated key winning, as JSON.parse does
      else Object.defineProperty(o, keys.pop()!, { value: v, writable: true, enumerable: true, configurable: true });
      space();
      if (text[i++] === ",") {
        if (!Array.isArray(o)) keys.push(key());
        break; // the next value
      }
      v = open.pop(); // its closing bracket
    }
  }
}
