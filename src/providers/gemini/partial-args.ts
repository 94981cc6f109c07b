/**
 * A Gemini function call whose arguments stream (`streamFunctionCallArguments`): each chunk's
 * `partialArgs` set one value by its JSON path (RFC 9535, `$.city`, `$.stops[0].name`); a string's
 * chunks append. The call's arguments are the object they build, written as one fragment when the
 * call ends (MMSP makes one `{}` fragment per chunk and fails; vercel/ai #14358).
 */
import { Fault } from "../../internal/fault.js";
import { isRecord } from "../../internal/values.js";

type Segment = string | number;
type Container = Record<string, unknown> | unknown[];

/** Deeper paths than the reader's default nesting limit are refused before anything is built. */
const MAX_SEGMENTS = 64;
const SEGMENT = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\])/;

/** A JSON path's segments, or a fault for a path this reader does not take. */
export function pathOf(path: string): Segment[] {
  if (!path.startsWith("$")) throw badPath(path);
  const segments: Segment[] = [];
  for (let rest = path.slice(1); rest !== "";) {
    const m = SEGMENT.exec(rest);
    if (m === null || segments.length >= MAX_SEGMENTS) throw badPath(path);
    segments.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (m[3] ?? m[4])!.replace(/\\(.)/g, "$1")));
    rest = rest.slice(m[0].length);
  }
  if (segments.length === 0) throw badPath(path);
  return segments;
}

const badPath = (path: string): Fault =>
  new Fault("SCHEMA", `a functionCall's partialArgs has a jsonPath this reader cannot follow: ${JSON.stringify(path.slice(0, 80))}`);

/**
 * The arguments of one streamed call, built from its chunks' `partialArgs`. A path the provider names
 * reaches only own members of containers this reader made (null-prototype objects, arrays it made):
 * `__proto__`, `constructor` and `prototype` are keys like any other, kept as data in the call's
 * arguments, never a way to `Object.prototype` (issue #34).
 */
export class PartialArgs {
  readonly root: Record<string, unknown>;

  constructor(args: unknown) {
    // a copy, not `args` itself: its objects have `Object.prototype`, which a path would walk into
    this.root = isRecord(args) ? (copyJson(args) as Record<string, unknown>) : (Object.create(null) as Record<string, unknown>);
  }

  /** One `partialArgs` entry: its value set at its path (a string appended to the string there). */
  add(arg: unknown): void {
    if (!isRecord(arg) || typeof arg.jsonPath !== "string") return;
    let value: unknown;
    if (typeof arg.stringValue === "string") value = arg.stringValue;
    else if (typeof arg.numberValue === "number") value = arg.numberValue;
    else if (typeof arg.boolValue === "boolean") value = arg.boolValue;
    else if (arg.nullValue !== undefined) value = null;
    else return; // a path announced before its value
    const path = pathOf(arg.jsonPath);
    let at: Container = this.root;
    for (let i = 0; i < path.length - 1; i++) at = child(at, path[i]!, typeof path[i + 1] === "number", arg.jsonPath);
    const last = path[path.length - 1]!;
    const before = slot(at, last, arg.jsonPath);
    set(at, last, typeof value === "string" && typeof before === "string" ? before + value : value);
  }

  /** The arguments as JSON text. */
  json(): string {
    return JSON.stringify(this.root);
  }
}

/** What `at[key]` holds, after checking that `key` fits the container (an index no further than its end). */
function slot(at: Container, key: Segment, path: string): unknown {
  if (Array.isArray(at) !== (typeof key === "number") || (Array.isArray(at) && (key as number) > at.length)) {
    // (an index past the end would make a stranger's sparse array of any size)
    throw new Fault(
      "SCHEMA",
      `a functionCall's partialArgs path ${JSON.stringify(path.slice(0, 80))} does not fit the arguments built so far`,
    );
  }
  // own members only: an array's methods, `length`, anything inherited is no slot
  return Object.hasOwn(at, key) ? (at as Record<string, unknown>)[key as string] : undefined;
}

/** Defined, not assigned: a `__proto__` key is data, whatever object holds it. */
function set(at: Container, key: Segment, value: unknown): void {
  Object.defineProperty(at, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A container like `value` made by this reader: an array, or an object with no prototype. */
const emptyLike = (value: object): Container => (Array.isArray(value) ? [] : (Object.create(null) as Record<string, unknown>));

/** A copy of JSON `value` in containers this reader made, every key an own data member (no recursion: any depth). */
function copyJson(value: object): Container {
  const top = emptyLike(value);
  const stack: [from: object, to: Container][] = [[value, top]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    for (const key of Object.keys(from)) {
      let v = (from as Record<string, unknown>)[key];
      if (typeof v === "object" && v !== null) {
        const made = emptyLike(v);
        stack.push([v, made]);
        v = made;
      }
      set(to, Array.isArray(to) ? Number(key) : key, v);
    }
  }
  return top;
}

function child(at: Container, key: Segment, array: boolean, path: string): Container {
  const next = slot(at, key, path);
  if (Array.isArray(next) || isRecord(next)) return next as Container;
  const made: Container = array ? [] : (Object.create(null) as Record<string, unknown>);
  set(at, key, made);
  return made;
}
