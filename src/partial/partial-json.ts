// Incremental, best-effort JSON parser for streamed tool-call arguments. Web standards only.

type Container = Record<string, unknown> | unknown[];

// Parser modes.
const M_VALUE = 0; // expecting a value (top level, after ':' or after ',' in an array)
const M_ARR_FIRST = 1; // just after '[': a value or ']'
const M_OBJ_FIRST = 2; // just after '{': a key or '}'
const M_OBJ_KEY = 3; // after ',' in an object: a key
const M_COLON = 4; // after a key: ':'
const M_AFTER = 5; // after a value inside a container: ',' or the closing bracket
const M_STRING = 6; // inside a string (a key or a value)
const M_NUMBER = 7; // inside a number
const M_LITERAL = 8; // inside true / false / null
const M_DONE = 9; // a complete top-level value was read; only whitespace may follow
const M_ERROR = 10;

// Number sub-states (JSON number grammar).
const N_SIGN = 0; // "-"
const N_ZERO = 1; // "0" / "-0"
const N_INT = 2; // integer digits
const N_DOT = 3; // "1."
const N_FRAC = 4; // "1.5"
const N_E = 5; // "1e"
const N_ESIGN = 6; // "1e-"
const N_EXP = 7; // "1e5"

/**
 * An open number's partial value is re-evaluated on read only while its text is at most this long
 * (beyond it, the shown value stays as it was until the number ends). This keeps total work linear
 * even for absurdly long numbers read after every character; any finite double fits well within it.
 */
const MAX_PARTIAL_NUMBER_TEXT = 400;

/**
 * The open string is kept as `str` (committed, rarely re-concatenated) + `tail` (the last few
 * appended pieces). Small appends go to `tail`; every TAIL_MAX characters the tail is joined into one
 * flat piece and appended to `str`. This keeps the chain of concatenation nodes that stays alive short
 * (a plain `s += c` per character keeps one rope node per character alive, which makes the garbage
 * collector's work grow with the string), while reading the value stays O(1): `str + tail`.
 */
const TAIL_MAX = 256;

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** Stores `key` as an own, enumerable data property, never invoking the `__proto__` setter. */
function setProp(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__" || key === "constructor" || key === "prototype") {
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

function describe(c: number): string {
  return c >= 32 && c < 127 ? `'${String.fromCharCode(c)}'` : `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** Options of {@link PartialJsonParser}. */
export interface PartialJsonParserOptions {
  /**
   * Never change a value once {@link PartialJsonParser.value} returned it: a later change copies the
   * open objects and arrays on its path (closed ones and strings are shared), so a UI can compare by
   * identity (React's `memo`). Each read after a change then costs the size of the open containers;
   * the default (one tree updated in place) is the cheapest when the value is read after every character.
   * @default false
   */
  immutable?: boolean;
}

/**
 * Incremental, best-effort parser for a JSON text that arrives in arbitrary fragments (for example
 * the arguments of an LLM tool call). Each character is examined once and the value tree is updated
 * in place, so the total work is linear in the input length even if {@link value} is read after
 * every fragment.
 *
 * Partial-value rules (what {@link value} shows while the text is incomplete):
 * - `undefined` until a top-level value has started to show something.
 * - Objects and arrays appear as soon as `{` / `[` is read and grow as members complete or start.
 * - An object key whose value has not started yet (`{"a"`, `{"a":`) is omitted.
 * - An open string shows the prefix received so far (`{"a":"he` → `{a: "he"}`); a half-received
 *   escape (`\`, `\u00`) is not shown, and a trailing high surrogate (escaped `\ud83d` or raw) is held
 *   back until the next character shows whether it completes a pair.
 * - An open number shows the longest prefix that is a complete JSON number: `12.` → 12, `1e` → 1,
 *   `1.5e-` → 1.5, `-0` → -0; a lone `-` shows nothing yet.
 * - `true` / `false` / `null` appear only once complete (`tru` shows nothing).
 * - Duplicate keys behave like `JSON.parse`: the later value replaces the earlier one in place,
 *   once it has started.
 * - Whenever the text received so far is itself valid JSON, {@link value} deep-equals
 *   `JSON.parse(text)`.
 *
 * A top-level number cannot be known to be complete until something follows it: {@link done} turns
 * true after trailing whitespace or a call to {@link end}.
 *
 * Errors never throw from {@link push}: invalid input sets {@link error} (a message with the
 * character offset), later pushes are ignored, and {@link value} keeps showing what was parsed
 * before the offending character.
 *
 * Keys such as `__proto__`, `constructor` and `prototype` are stored as own data properties of plain
 * objects; prototypes are never touched.
 *
 * The returned value is a live object: it is updated in place by later pushes (the same object is
 * returned each time). Callers must not mutate it; copy it (e.g. `structuredClone`) to keep a
 * snapshot — or make the parser with `{ immutable: true }`: then a value once returned never changes,
 * and a later change builds a new tree that shares every object and array that did not change.
 *
 * @example
 * ```ts
 * const p = new PartialJsonParser();
 * p.push('{"city":"Par');
 * p.value; // { city: "Par" }
 * p.push('is","days":[1,2');
 * p.value; // { city: "Paris", days: [1, 2] }
 * p.push("]}");
 * p.done; // true
 * p.value; // { city: "Paris", days: [1, 2] }
 * ```
 */
export class PartialJsonParser {
  /** Makes a parser; see {@link PartialJsonParserOptions}. */
  constructor(options: PartialJsonParserOptions = {}) {
    this.immutable = options.immutable === true;
  }

  private readonly immutable: boolean;
  private mode = M_VALUE;
  private root: unknown = undefined;
  private errorMessage: string | undefined = undefined;
  /** Characters consumed by earlier pushes (for error offsets). */
  private base = 0;

  /** Open containers, innermost last. */
  private readonly stack: Container[] = [];
  /** Where each open container sits in the one before it (the root's entry is unused). */
  private readonly slots: (string | number)[] = [];
  /**
   * `immutable`: the open containers `value` handed out since they last changed (`stack[0..shared)`),
   * copied before their next change, so what was handed out never changes (closed ones never change).
   */
  private shared = 0;
  private top: Container | null = null;
  private topIsArray = false;
  /** The last complete key of the innermost object. */
  private key = "";

  /** Where the open scalar (string / number / literal) goes: null container = the root. */
  private slotContainer: Container | null = null;
  private slotKey: string | number = "";

  // String state.
  private inKey = false;
  private str = "";
  private tail = "";
  private readonly tailParts: string[] = [];
  /** A trailing high surrogate held back until we know whether a low surrogate follows. */
  private highSurrogate = "";
  /** 0: none; 1: after '\'; 2..5: after '\u' plus (n-2) hex digits. */
  private escape = 0;
  private hex = 0;
  /** The open string or number changed since its slot was last written. */
  private dirty = false;

  // Number state.
  private numText = "";
  private numState = N_SIGN;

  // Literal state.
  private literal = "";
  private literalPos = 0;
  private literalValue: boolean | null = null;

  /**
   * The best-effort value parsed so far (see the class documentation for the rules), or
   * `undefined` if nothing is visible yet. Live (updated in place by later pushes) unless the parser
   * is `immutable` (see the class documentation).
   */
  get value(): unknown {
    if (this.dirty) this.sync();
    if (this.immutable) this.shared = this.stack.length;
    return this.root;
  }

  /** True once a complete top-level value has been read (and no error occurred). */
  get done(): boolean {
    return this.mode === M_DONE;
  }

  /** A description of the first syntax error, or `undefined` while the input is valid so far. */
  get error(): string | undefined {
    return this.errorMessage;
  }

  /**
   * Feeds the next fragment of the JSON text. Never throws; invalid input sets {@link error} and
   * all later input is ignored.
   */
  push(fragment: string): void {
    if (this.mode === M_ERROR) return;
    if (typeof fragment !== "string") {
      this.fail(`push() expects a string, got ${typeof fragment}`);
      return;
    }
    const s = fragment;
    const n = s.length;
    let i = 0;
    while (i < n) {
      const mode = this.mode;
      if (mode === M_STRING) {
        i = this.scanString(s, i);
        continue;
      }
      if (mode === M_ERROR) return;
      const c = s.charCodeAt(i);
      if (mode === M_NUMBER) {
        if (this.numberChar(c)) {
          i++;
          continue;
        }
        if (!this.finishNumber()) {
          this.fail(`invalid number: unexpected ${describe(c)} at offset ${this.base + i}`);
          return;
        }
        continue; // re-examine c after the number
      }
      if (mode === M_LITERAL) {
        if (c !== this.literal.charCodeAt(this.literalPos)) {
          this.fail(`unexpected ${describe(c)} in literal at offset ${this.base + i}`);
          return;
        }
        i++;
        if (++this.literalPos === this.literal.length) {
          this.setSlot(this.literalValue);
          this.afterValue();
        }
        continue;
      }
      // Insignificant whitespace between tokens.
      if (c === 32 || c === 10 || c === 13 || c === 9) {
        i++;
        continue;
      }
      switch (mode) {
        case M_ARR_FIRST:
          if (c === 93) {
            this.closeContainer();
            i++;
            continue;
          }
        // falls through
        case M_VALUE:
          if (this.startValue(c)) {
            i++;
            continue;
          }
          break;
        case M_OBJ_FIRST:
          if (c === 125) {
            this.closeContainer();
            i++;
            continue;
          }
        // falls through
        case M_OBJ_KEY:
          if (c === 34) {
            this.openString(true);
            i++;
            continue;
          }
          break;
        case M_COLON:
          if (c === 58) {
            this.mode = M_VALUE;
            i++;
            continue;
          }
          break;
        case M_AFTER:
          if (c === 44) {
            this.mode = this.topIsArray ? M_VALUE : M_OBJ_KEY;
            i++;
            continue;
          }
          if (c === (this.topIsArray ? 93 : 125)) {
            this.closeContainer();
            i++;
            continue;
          }
          break;
      }
      this.fail(
        mode === M_DONE
          ? `unexpected ${describe(c)} after the end of the JSON value at offset ${this.base + i}`
          : `unexpected ${describe(c)} at offset ${this.base + i}`,
      );
      return;
    }
    this.base += n;
  }

  /**
   * Declares the end of the input. Completes a pending top-level number; if the value is still
   * incomplete, sets {@link error}. Optional: {@link value} does not depend on it.
   */
  end(): void {
    if (this.mode === M_DONE || this.mode === M_ERROR) return;
    if (this.mode === M_NUMBER && this.top === null && this.finishNumber()) return;
    this.fail(`unexpected end of input at offset ${this.base}`);
  }

  /** Stops at the first error: the value stays what was read before the offending character. */
  private fail(message: string): void {
    if (this.dirty) this.sync(); // keep what was read before the offending character
    this.mode = M_ERROR;
    this.errorMessage = message;
  }

  /** Writes the open string's or number's current partial value into its slot. */
  private sync(): void {
    this.dirty = false;
    if (this.mode === M_STRING) {
      if (!this.inKey) this.setSlot(this.tail === "" ? this.str : this.str + this.tail);
    } else if (this.mode === M_NUMBER) {
      if (this.numText.length > MAX_PARTIAL_NUMBER_TEXT) return;
      const t = this.numText;
      let cut = t.length;
      switch (this.numState) {
        case N_SIGN:
          return; // "-": nothing to show yet
        case N_DOT:
        case N_E:
          cut -= 1;
          break;
        case N_ESIGN:
          cut -= 2;
          break;
      }
      this.setSlot(Number(cut === t.length ? t : t.slice(0, cut)));
    }
  }

  /** Puts `v` where the value being read goes: the root, an array index or an object key. */
  private setSlot(v: unknown): void {
    if (this.shared !== 0) this.unshare();
    const c = this.slotContainer;
    if (c === null) this.root = v;
    else if (typeof this.slotKey === "number") (c as unknown[])[this.slotKey] = v;
    else setProp(c as Record<string, unknown>, this.slotKey, v);
  }

  /** Copies the open containers handed out by `value` (outermost first, each put into its parent's copy). */
  private unshare(): void {
    const { stack, slots } = this;
    let parent: Container | null = null;
    for (let i = 0; i < this.shared; i++) {
      const old = stack[i]!;
      // (a spread keeps a `__proto__` key an own data property, as `setProp` stores it)
      const copy: Container = Array.isArray(old) ? old.slice() : { ...old };
      if (parent === null) this.root = copy;
      else if (Array.isArray(parent)) parent[slots[i] as number] = copy;
      else setProp(parent, slots[i] as string, copy);
      stack[i] = copy;
      if (this.slotContainer === old) this.slotContainer = copy;
      parent = copy;
    }
    this.top = stack.length === 0 ? null : stack[stack.length - 1]!;
    this.shared = 0;
  }

  /** A value ended: the text is done at the top level, else a comma or the closing bracket comes next. */
  private afterValue(): void {
    this.mode = this.top === null ? M_DONE : M_AFTER;
  }

  /** Leaves the object or array that just closed. */
  private closeContainer(): void {
    const stack = this.stack;
    stack.pop();
    this.slots.pop();
    if (this.shared > stack.length) this.shared = stack.length;
    const top = stack.length === 0 ? null : stack[stack.length - 1]!;
    this.top = top;
    this.topIsArray = Array.isArray(top);
    this.afterValue();
  }

  /** Starts the value beginning with character `c`; false if `c` cannot start a value. */
  private startValue(c: number): boolean {
    const top = this.top;
    this.slotContainer = top;
    this.slotKey = top === null ? "" : this.topIsArray ? (top as unknown[]).length : this.key;
    switch (c) {
      case 34: // "
        this.openString(false);
        this.setSlot("");
        return true;
      case 123: // {
      case 91: {
        // [
        const child: Container = c === 123 ? {} : [];
        this.setSlot(child);
        this.stack.push(child);
        this.slots.push(this.slotKey);
        this.top = child;
        this.topIsArray = c === 91;
        this.mode = c === 123 ? M_OBJ_FIRST : M_ARR_FIRST;
        return true;
      }
      case 116: // t
        return this.openLiteral("true", true);
      case 102: // f
        return this.openLiteral("false", false);
      case 110: // n
        return this.openLiteral("null", null);
    }
    if (c === 45 || (c >= 48 && c <= 57)) {
      this.numText = String.fromCharCode(c);
      this.numState = c === 45 ? N_SIGN : c === 48 ? N_ZERO : N_INT;
      this.mode = M_NUMBER;
      this.dirty = true;
      return true;
    }
    return false;
  }

  /** Starts `true`, `false` or `null` (its first character read). */
  private openLiteral(text: string, value: boolean | null): true {
    this.literal = text;
    this.literalPos = 1;
    this.literalValue = value;
    this.mode = M_LITERAL;
    return true;
  }

  /** Starts a string: a key, or a value that shows as it grows. */
  private openString(isKey: boolean): void {
    this.inKey = isKey;
    this.str = "";
    this.tail = "";
    this.tailParts.length = 0;
    this.highSurrogate = "";
    this.escape = 0;
    this.mode = M_STRING;
  }

  /** Appends decoded text to the open string, holding back a trailing high surrogate. */
  private append(t: string): void {
    if (this.highSurrogate !== "") {
      this.appendRaw(this.highSurrogate);
      this.highSurrogate = "";
    }
    const last = t.charCodeAt(t.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      if (t.length > 1) this.appendRaw(t.slice(0, -1));
      this.highSurrogate = t.slice(-1);
    } else {
      this.appendRaw(t);
    }
    this.dirty = true;
  }

  /** Adds unescaped text to the open string (long runs are joined in pieces: no quadratic growth). */
  private appendRaw(t: string): void {
    if (t.length >= TAIL_MAX) {
      this.commitTail();
      this.str += t;
      return;
    }
    this.tail += t;
    this.tailParts.push(t);
    if (this.tail.length >= TAIL_MAX) this.commitTail();
  }

  /** Moves the tail into `str` as one flat piece. */
  private commitTail(): void {
    const parts = this.tailParts;
    if (parts.length === 0) return;
    this.str += parts.length === 1 ? parts[0]! : parts.join("");
    parts.length = 0;
    this.tail = "";
  }

  /** Consumes string content from `s[i]`; returns the index after what was consumed. */
  private scanString(s: string, i: number): number {
    const n = s.length;
    while (i < n) {
      if (this.escape !== 0) {
        const c = s.charCodeAt(i);
        if (this.escape === 1) {
          let t: string;
          switch (c) {
            case 34:
              t = '"';
              break;
            case 92:
              t = "\\";
              break;
            case 47:
              t = "/";
              break;
            case 98:
              t = "\b";
              break;
            case 102:
              t = "\f";
              break;
            case 110:
              t = "\n";
              break;
            case 114:
              t = "\r";
              break;
            case 116:
              t = "\t";
              break;
            case 117: // u
              this.escape = 2;
              this.hex = 0;
              i++;
              continue;
            default:
              this.fail(`invalid escape sequence ${describe(c)} at offset ${this.base + i}`);
              return n;
          }
          this.escape = 0;
          this.append(t);
          i++;
          continue;
        }
        const h = hexDigit(c);
        if (h < 0) {
          this.fail(`invalid \\u escape: unexpected ${describe(c)} at offset ${this.base + i}`);
          return n;
        }
        this.hex = this.hex * 16 + h;
        i++;
        if (++this.escape === 6) {
          this.escape = 0;
          this.append(String.fromCharCode(this.hex));
        }
        continue;
      }
      // Fast path: copy a run of plain characters in one slice.
      let j = i;
      let c = 0;
      while (j < n) {
        c = s.charCodeAt(j);
        if (c === 34 || c === 92 || c < 32) break;
        j++;
      }
      if (j > i) this.append(j - i === n ? s : s.slice(i, j));
      if (j === n) return n;
      if (c === 92) {
        this.escape = 1;
        i = j + 1;
        continue;
      }
      if (c === 34) {
        this.closeString();
        return j + 1;
      }
      this.fail(`unescaped control character ${describe(c)} in string at offset ${this.base + j}`);
      return n;
    }
    return i;
  }

  /** Ends the open string: a key waits for its colon, a value takes its slot. */
  private closeString(): void {
    this.commitTail();
    const v = this.highSurrogate === "" ? this.str : this.str + this.highSurrogate;
    this.str = "";
    this.highSurrogate = "";
    this.dirty = false;
    if (this.inKey) {
      this.key = v;
      this.mode = M_COLON;
    } else {
      this.setSlot(v);
      this.afterValue();
    }
  }

  /** Consumes `c` if it continues the open number. */
  private numberChar(c: number): boolean {
    const digit = c >= 48 && c <= 57;
    let next: number;
    switch (this.numState) {
      case N_SIGN:
        if (!digit) return false;
        next = c === 48 ? N_ZERO : N_INT;
        break;
      case N_ZERO:
      case N_INT:
      case N_FRAC:
        if (digit && this.numState !== N_ZERO) next = this.numState;
        else if (c === 46 && this.numState !== N_FRAC) next = N_DOT;
        else if (c === 101 || c === 69) next = N_E;
        else return false;
        break;
      case N_DOT:
        if (!digit) return false;
        next = N_FRAC;
        break;
      case N_E:
        if (c === 43 || c === 45) next = N_ESIGN;
        else if (digit) next = N_EXP;
        else return false;
        break;
      default: // N_ESIGN, N_EXP
        if (!digit) return false;
        next = N_EXP;
    }
    this.numState = next;
    this.numText += String.fromCharCode(c);
    this.dirty = true;
    return true;
  }

  /** Completes the open number if its text is a complete JSON number. */
  private finishNumber(): boolean {
    const st = this.numState;
    if (st !== N_ZERO && st !== N_INT && st !== N_FRAC && st !== N_EXP) return false;
    this.dirty = false;
    this.setSlot(Number(this.numText));
    this.numText = "";
    this.afterValue();
    return true;
  }
}
