// The tests' own reading of a JSON text: the value it holds, built from its characters, for oracles
// that must not share the runtime's JSON.parse. V8 as shipped in Chromium 150, Deno 2.9 and workerd
// (not Node 20, not Bun) can give an escaped object key the name of a backslash key it met before at
// the same place of an object (src/internal/json.ts says how); an oracle built on it fails the
// package's right answer. JSON.parse still decides what is valid (the misreading never changes that);
// this decides what the keys and values are. Web-standard APIs only; test code, so written for
// clarity, not speed.

/** The value of `text`; throws what `JSON.parse` throws for text that is not JSON. */
export function referenceParse(text: string): unknown {
  JSON.parse(text);
  const r = new Reader(text);
  const v = r.value();
  r.space();
  if (r.i !== text.length) throw new SyntaxError(`reference JSON reader: text after the value at ${r.i}`);
  return v;
}

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

class Reader {
  i = 0;
  constructor(private readonly s: string) {}

  space(): void {
    while (this.i < this.s.length && " \t\n\r".includes(this.s[this.i]!)) this.i++;
  }

  value(): unknown {
    this.space();
    const c = this.s[this.i]!;
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s)!;
    this.i += m[0].length;
    return Number(m[0]);
  }

  object(): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    this.i++; // {
    this.space();
    if (this.s[this.i] === "}") {
      this.i++;
      return o;
    }
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.i++; // :
      // an own data member whatever the key (`__proto__` included), last one wins, as JSON.parse does
      Object.defineProperty(o, key, { value: this.value(), writable: true, enumerable: true, configurable: true });
      this.space();
      if (this.s[this.i++] === "}") return o;
    }
  }

  array(): unknown[] {
    const a: unknown[] = [];
    this.i++; // [
    this.space();
    if (this.s[this.i] === "]") {
      this.i++;
      return a;
    }
    for (;;) {
      a.push(this.value());
      this.space();
      if (this.s[this.i++] === "]") return a;
    }
  }

  string(): string {
    const ESC: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
    let out = "";
    this.i++; // opening quote
    for (;;) {
      const c = this.s[this.i++]!;
      if (c === '"') return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = this.s[this.i++]!;
      if (e === "u") {
        out += String.fromCharCode(parseInt(this.s.slice(this.i, this.i + 4), 16));
        this.i += 4;
      } else {
        out += ESC[e]!;
      }
    }
  }
}
